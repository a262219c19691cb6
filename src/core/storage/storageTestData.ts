/**
 * Builders of conversations for the storage tests and benchmark: realistic nodes with messages of a
 * few hundred bytes to a few KB.
 */
import { formatNodeId } from '../nodeIds';
import type { ConversationNode, ConversationState, Role } from '../types';

const WORDS = 'the tree branch model prompt answer code function value index token cache window storage journal'.split(' ');

/** Deterministic text of about `bytes` bytes, so runs are comparable. */
export function sampleText(bytes: number, seed: number): string {
  const parts: string[] = [];
  let length = 0;
  let state = seed * 2654435761;
  while (length < bytes) {
    state = (state * 1103515245 + 12345) >>> 0;
    const word = WORDS[state % WORDS.length];
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

/** One node with a message of `bytes` bytes (position defaults to `seed`). */
export function sampleNode(nodeId: string, parentId: string | null, bytes: number, seed = 1, role: Role = 'user', position = seed): ConversationNode {
  return {
    nodeId,
    parentId,
    position,
    message: { role, content: sampleText(bytes, seed) },
    timestamp: new Date(Date.UTC(2025, 0, 1) + seed * 1000).toISOString(),
    metadata: { seed },
  };
}

/** A linear conversation of `nodeCount` nodes below an empty system root. */
export function sampleConversation(
  conversationId: string,
  nodeCount: number,
  options: { createdAt?: string; metadata?: Record<string, unknown>; bytes?: (i: number) => number } = {},
): ConversationState {
  const createdAt = options.createdAt ?? '2025-01-01T00:00:00.000Z';
  const nodes: ConversationNode[] = [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: createdAt, metadata: {} }];
  let parent = '';
  for (let i = 0; i < nodeCount - 1; i++) {
    const nodeId = formatNodeId(i + 1);
    nodes.push(sampleNode(nodeId, parent, options.bytes?.(i) ?? 300, i, i % 2 ? 'assistant' : 'user', 0));
    parent = nodeId;
  }
  return {
    conversationId,
    nodes,
    currentNodeId: parent,
    metadata: options.metadata ?? {},
    nextNodeSeq: nodeCount,
    createdAt,
    updatedAt: createdAt,
  };
}
