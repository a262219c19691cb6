/**
 * Turns a conversation's nodes into the `ChatState` the webview shows: the current path with each
 * message's siblings, model, usage, cost, retrieved-context chips and attachments. Pure.
 */
import type { ConversationNode, RagMetadata } from '../core/index';
import type { Attachment, ChatState, ContextChip, MessageView, PromptSummary, SiblingInfo } from '../shared/protocol';
import { nodeMetadata, nodeRagMetadata, type PromptInfo } from '../core/index';
import { messageDisplayText } from './conversationRules';

/** What `buildChatState` needs besides the nodes. */
export interface ChatStateInput {
  conversationId: string;
  title: string;
  currentNodeId: string;
  nodes: readonly ConversationNode[];
  totalCostUsd: number;
  model: string;
  provider: string;
  busy: boolean;
  restricted: boolean;
}

function siblingInfo(node: ConversationNode, siblings: readonly ConversationNode[]): SiblingInfo {
  const ids = [...siblings].sort((a, b) => a.position - b.position).map((n) => n.nodeId);
  const i = Math.max(0, ids.indexOf(node.nodeId));
  return {
    index: i + 1,
    count: Math.max(1, ids.length),
    prevNodeId: i > 0 ? ids[i - 1] : undefined,
    nextNodeId: i < ids.length - 1 ? ids[i + 1] : undefined,
  };
}

/** The context chips of a node: one per retrieved item that names a file. */
export function chipsOf(node: ConversationNode): ContextChip[] {
  const chips: ContextChip[] = [];
  const seen = new Set<string>();
  const retrievals: readonly RagMetadata[] = nodeRagMetadata(node.metadata);
  for (const rag of retrievals) {
    for (const item of rag.results) {
      if (!item.path) continue;
      const key = `${item.path}:${item.startLine ?? ''}-${item.endLine ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      chips.push({ path: item.path, startLine: item.startLine, endLine: item.endLine, score: item.score, source: rag.adapter });
    }
  }
  return chips;
}

/** One node as the webview shows it. The text the user typed is shown, not the rendered prompt. */
export function messageView(node: ConversationNode, siblings: readonly ConversationNode[]): MessageView {
  const md = nodeMetadata(node.metadata);
  const attachments: Attachment[] = md.attachments ?? [];
  return {
    nodeId: node.nodeId,
    parentId: node.parentId,
    role: node.message.role,
    content: messageDisplayText(node),
    thinking: node.message.thinking || undefined,
    timestamp: node.timestamp,
    branchName: node.branchName,
    model: md.model || undefined,
    usage: md.usage,
    costUsd: md.costUsd,
    interrupted: md.interrupted === true ? true : undefined,
    error: md.error || undefined,
    siblings: siblingInfo(node, siblings),
    chips: chipsOf(node),
    attachments,
    promptName: node.promptName,
  };
}

/** The whole chat state: the path from the root to the current node, without an empty root. */
export function buildChatState(input: ChatStateInput): ChatState {
  const byId = new Map(input.nodes.map((n) => [n.nodeId, n]));
  const children = new Map<string, ConversationNode[]>();
  for (const n of input.nodes) {
    if (n.parentId === null) continue;
    const list = children.get(n.parentId);
    if (list) list.push(n);
    else children.set(n.parentId, [n]);
  }
  const path: ConversationNode[] = [];
  let id: string | null = byId.has(input.currentNodeId) ? input.currentNodeId : '';
  while (id !== null) {
    const node = byId.get(id);
    if (!node) break;
    path.push(node);
    id = node.parentId;
  }
  path.reverse();
  const shown = path.filter((n) => !(n.parentId === null && !n.message.content.trim()));
  return {
    conversationId: input.conversationId,
    title: input.title,
    currentNodeId: input.currentNodeId,
    path: shown.map((n) => messageView(n, n.parentId === null ? [n] : children.get(n.parentId) ?? [n])),
    totalCostUsd: input.totalCostUsd,
    model: input.model,
    provider: input.provider,
    busy: input.busy,
    restricted: input.restricted,
  };
}

/** The user prompts of the library as the `/` menu offers them, with defaults as text for the form. */
export function promptSummaries(prompts: readonly PromptInfo[]): PromptSummary[] {
  return prompts
    .filter((p) => p.kind === 'user')
    .map((p) => ({
      name: p.name,
      description: p.description,
      params: p.params.map((q) => ({
        name: q.name,
        required: !!q.required,
        default: q.default === undefined ? undefined : typeof q.default === 'string' ? q.default : JSON.stringify(q.default),
        description: q.description,
      })),
    }));
}
