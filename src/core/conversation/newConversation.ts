import { ROOT_NODE_ID } from '../nodeIds';
import type { CreateConversationOptions } from './managerTypes';
import { renderMessage } from './messageRendering';
import type { ConversationNode, ConversationState } from '../types';

/**
 * The first state of a new conversation: a root holding the rendered system prompt (named or
 * inline), or an empty system root that is never sent when there is none.
 */
export async function newConversationState(conversationId: string, options: CreateConversationOptions): Promise<ConversationState> {
  const now = new Date().toISOString();
  let root: ConversationNode = { nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: now, metadata: {} };
  if (options.systemPromptName !== undefined || options.systemPrompt !== undefined) {
    const rendered = await renderMessage(
      options.promptBuilder,
      { role: 'system', content: options.systemPrompt, promptName: options.systemPromptName, params: options.systemParams },
      { cacheRagResults: options.cacheRagResults ?? false },
    );
    root = { ...root, message: { role: 'system', content: rendered.content }, metadata: rendered.metadata };
    if (rendered.promptName !== undefined) root.promptName = rendered.promptName;
  }
  return {
    conversationId,
    nodes: [root],
    currentNodeId: ROOT_NODE_ID,
    metadata: structuredClone(options.metadata ?? {}),
    nextNodeSeq: 1,
    createdAt: now,
    updatedAt: now,
  };
}
