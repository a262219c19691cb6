/**
 * Meton session files (`session_<time>_<id>.json`, from the `001` design): a flat list of messages
 * under a `session_id`, with naive local times. They import as a conversation of one branch.
 */
import { InvalidArgumentError } from '../errors';
import { ROOT_NODE_ID, formatNodeId } from '../nodeIds';
import type { ConversationNode, ConversationState, LLMMessage, Role } from '../types';
import { fromLocalIso } from './exchangeFields';

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

/** Whether `obj` looks like a Meton session file. */
export function isMetonSession(obj: unknown): boolean {
  const data = obj as Record<string, unknown> | null;
  return typeof data === 'object' && data !== null && typeof data.session_id === 'string' && Array.isArray(data.messages) && !('nodes' in data);
}

/** Reads a Meton session: a leading system message becomes the root, every other message the next node. */
export function fromMetonSession(obj: unknown): ConversationState {
  const data = obj as { session_id: string; messages: unknown[]; start_time?: unknown; end_time?: unknown; max_history?: unknown };
  if (!isMetonSession(obj) || data.session_id === '') {
    throw new InvalidArgumentError('Expected a Meton session ({"session_id": "...", "messages": [...]}).');
  }
  const now = new Date().toISOString();
  const nodes: ConversationNode[] = [];
  data.messages.forEach((raw, i) => {
    const m = raw as { role?: unknown; content?: unknown; timestamp?: unknown; metadata?: unknown };
    if (typeof m !== 'object' || m === null || !ROLES.includes(m.role as Role)) {
      throw new InvalidArgumentError(`Message ${i} of Meton session "${data.session_id}" has role ${JSON.stringify(m?.role)}; expected one of ${ROLES.join(', ')}.`);
    }
    const metadata = typeof m.metadata === 'object' && m.metadata !== null ? { ...(m.metadata as Record<string, unknown>) } : {};
    const message: LLMMessage = { role: m.role as Role, content: typeof m.content === 'string' ? m.content : m.content == null ? '' : String(m.content) };
    if (message.role === 'tool' && typeof metadata.tool_name === 'string') message.name = metadata.tool_name;
    const timestamp = m.timestamp === undefined ? now : fromLocalIso(m.timestamp, `The timestamp of message ${i}`);
    if (i === 0 && message.role === 'system') {
      nodes.push({ nodeId: ROOT_NODE_ID, parentId: null, position: 0, message, timestamp, metadata });
      return;
    }
    if (nodes.length === 0) {
      nodes.push({ nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp, metadata: {} });
    }
    nodes.push({ nodeId: formatNodeId(nodes.length), parentId: nodes[nodes.length - 1].nodeId, position: 0, message, timestamp, metadata });
  });
  if (nodes.length === 0) {
    nodes.push({ nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: now, metadata: {} });
  }
  const createdAt = data.start_time === undefined ? nodes[0].timestamp : fromLocalIso(data.start_time, 'start_time');
  const updatedAt = data.end_time === undefined ? nodes[nodes.length - 1].timestamp : fromLocalIso(data.end_time, 'end_time');
  return {
    conversationId: data.session_id,
    nodes,
    currentNodeId: nodes[nodes.length - 1].nodeId,
    metadata: { importedFrom: 'meton', ...(typeof data.max_history === 'number' ? { metonMaxHistory: data.max_history } : {}) },
    nextNodeSeq: nodes.length,
    createdAt,
    updatedAt,
  };
}
