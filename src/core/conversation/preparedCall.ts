import { InvalidOperationError, RequestTooLargeError } from '../errors';
import type { CompletionOptions } from '../llm/provider';
import { estimateMessageTokens } from '../llm/tokens';
import { toCompletionOptions } from './completionOptions';
import { applyContextWindow, type ContextWindowOptions, type MessageTokenEstimator } from './contextWindow';
import { pruneToolOutputs, requestMessages } from './compaction';
import { ROOT_NODE_ID, type ConversationTree } from './conversationTree';
import { copyMessage } from './copies';
import type { CompleteOptions, ConversationManagerOptions, RequestWindow } from './managerTypes';
import { withImages, type PathImages } from './messageImages';
import { runRequestMiddleware, type MiddlewareState } from './middleware/middleware';
import { withToolResults } from '../tools/toolResults';
import type { LLMMessage } from '../types';

/** One model call made ready: the messages to send, under which node the answer goes, and what the window dropped. */
export interface PreparedCall {
  parentId: string;
  messages: LLMMessage[];
  callOptions: CompletionOptions;
  state: MiddlewareState;
  droppedCount: number;
}

/** Where a call starts from: the conversation's tree, its current node and metadata. */
export interface CallSource {
  conversationId: string;
  tree: ConversationTree;
  currentNodeId: string;
  metadata: Record<string, unknown>;
  /** The images of the path's messages, loaded from the store (none when absent). */
  images?: PathImages;
}

/**
 * The messages root→`nodeId` that a request would carry (an empty root is left out; below a
 * compaction, the summary with the system prompt and the messages it kept: see `requestMessages`; a
 * result for every tool call: see `withToolResults`).
 */
export function pathMessages(tree: ConversationTree, nodeId: string): LLMMessage[] {
  return withToolResults(requestMessages(tree, nodeId));
}

/** The context window a manager applies: its limits and its token estimator (the default one when none is given). */
export function windowOptions(options: ConversationManagerOptions): ContextWindowOptions & { estimate: MessageTokenEstimator } {
  return { maxHistory: options.maxHistory, maxContextTokens: options.maxContextTokens, estimate: options.estimateTokens ?? estimateMessageTokens };
}

/**
 * Builds the request that answers the current node: its path (with the system prompt overridden
 * when asked), cut to the context window, then passed through the request middleware.
 */
export async function prepareCall(source: CallSource, managerOptions: ConversationManagerOptions, options: CompleteOptions): Promise<PreparedCall> {
  const { tree, currentNodeId } = source;
  if (currentNodeId === ROOT_NODE_ID) {
    throw new InvalidOperationError('There are no messages to answer yet: add a user message first.');
  }
  const state: MiddlewareState = {
    conversationId: source.conversationId,
    currentNode: structuredClone(tree.get(currentNodeId)),
    metadata: structuredClone(source.metadata),
  };
  // A request written whole by the caller (a merge of answers) is sent as it is.
  if (options.requestMessages) {
    if (options.requestMessages.length === 0) throw new InvalidOperationError('The request has no messages to send.');
    return checkWindow({ parentId: currentNodeId, messages: options.requestMessages.map((m) => structuredClone(m)), callOptions: toCompletionOptions(options), state, droppedCount: 0 }, options.window);
  }
  // Every call has a result (a path cut by a crash gets "interrupted" ones); then old tool outputs go
  // first, before the window drops any turn (never in the tree, only in what is sent).
  const path = withToolResults(requestMessages(tree, currentNodeId, options.systemPromptOverride, options.instructions));
  const messages = pruneToolOutputs((source.images ? withImages(path, source.images) : path).map(copyMessage), {
    keepTokens: managerOptions.keepToolOutputTokens,
  });
  const window = applyContextWindow(messages, windowOptions(managerOptions));
  const sent = await runRequestMiddleware(managerOptions.middleware ?? [], window.messages.map((m) => structuredClone(m)), state);
  return checkWindow({ parentId: currentNodeId, messages: sent, callOptions: toCompletionOptions(options), state, droppedCount: window.droppedCount }, options.window);
}

/** `prepared` when its messages and tools fit `window` (or there is none); else `RequestTooLargeError`. */
function checkWindow(prepared: PreparedCall, window: RequestWindow | undefined): PreparedCall {
  if (!window) return prepared;
  const messageTokens = window.counter.countMessages(prepared.messages);
  const toolTokens = window.counter.countTools(prepared.callOptions.tools);
  if (messageTokens + toolTokens > window.maxPromptTokens) {
    throw new RequestTooLargeError({ messageTokens, toolTokens, maxPromptTokens: window.maxPromptTokens, model: window.model ?? prepared.callOptions.model });
  }
  return prepared;
}
