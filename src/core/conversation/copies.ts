/**
 * Copies of tree objects for callers, so nothing they change reaches the tree. Messages are copied
 * field by field (most hold only a role and text), deep only where a field is an object; a long
 * path costs a spread per message, not a structured clone each.
 */
import type { ConversationNode, LLMMessage } from '../types';

const isEmpty = (record: Record<string, unknown>): boolean => {
  for (const _key in record) return false;
  return true;
};

/** A copy of a message that shares nothing mutable with it. */
export function copyMessage(message: LLMMessage): LLMMessage {
  const copy = { ...message };
  if (message.toolCalls) copy.toolCalls = message.toolCalls.map((call) => ({ ...call, function: { ...call.function } }));
  if (message.images) copy.images = [...message.images];
  if (message.metadata) copy.metadata = structuredClone(message.metadata);
  return copy;
}

/** A copy of a node that shares nothing mutable with it. */
export function copyNode(node: ConversationNode): ConversationNode {
  return { ...node, message: copyMessage(node.message), metadata: isEmpty(node.metadata) ? {} : structuredClone(node.metadata) };
}
