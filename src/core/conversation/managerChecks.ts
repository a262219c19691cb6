/** Checks and merges behind `ConversationManager`'s changes, kept apart so the manager reads as its operations. */
import { InvalidArgumentError } from '../errors';
import { requireRecord, requireRole, requireString } from '../validation';
import { readConversationMetadata } from '../metadataKeys';
import type { ConversationTree } from './conversationTree';
import type { AddMessageOptions } from './managerTypes';

const clone = <T>(value: T): T => structuredClone(value);

/**
 * `base` with `updates` applied: one key and its value, or a record to merge; a key set to
 * `undefined` is removed. Values are copied, so the caller's objects stay its own.
 */
export function mergedMetadata(base: Record<string, unknown>, keyOrValues: string | Record<string, unknown>, value: unknown): Record<string, unknown> {
  const updates = typeof keyOrValues === 'string' ? { [keyOrValues]: value } : keyOrValues;
  requireRecord(updates, typeof keyOrValues === 'string' ? `metadata.${keyOrValues}` : 'metadata');
  const next = { ...base };
  for (const [key, v] of Object.entries(updates)) {
    if (v === undefined) delete next[key];
    else next[key] = clone(v);
  }
  return next;
}

/** Checks `addMessage`'s input before anything is rendered or stored. */
export function checkAddMessage(input: AddMessageOptions): void {
  if (typeof input !== 'object' || input === null) throw new InvalidArgumentError('addMessage needs an options object ({ role, content }).');
  requireRole(input.role, 'role');
  if (input.content === undefined && input.promptName === undefined) throw new InvalidArgumentError('addMessage needs content or a promptName.');
  if (input.content !== undefined) requireString(input.content, 'content', { allowEmpty: true });
  if (input.promptName !== undefined) requireString(input.promptName, 'promptName', { name: true });
  if (input.params !== undefined) requireRecord(input.params, 'params');
  if (input.metadata !== undefined) requireRecord(input.metadata, 'metadata');
  if (input.name !== undefined) requireString(input.name, 'name');
  if (input.toolCallId !== undefined) requireString(input.toolCallId, 'toolCallId');
  if (input.toolCalls !== undefined) {
    if (!Array.isArray(input.toolCalls)) throw new InvalidArgumentError('toolCalls must be an array.');
    input.toolCalls.forEach((call, i) => {
      requireString(call?.id, `toolCalls[${i}].id`);
      requireString(call?.function?.name, `toolCalls[${i}].function.name`);
      requireString(call?.function?.arguments, `toolCalls[${i}].function.arguments`, { allowEmpty: true });
    });
  }
}

/**
 * The conversation's `metadata` with the forks on the path to `nodeId` remembering the child taken
 * there (`lastVisitedChild`), or undefined when nothing changes. Only forks are recorded.
 */
export function visitedAlong(tree: ConversationTree, metadata: Record<string, unknown>, nodeId: string): Record<string, unknown> | undefined {
  const visited = { ...(readConversationMetadata(metadata, 'lastVisitedChild') ?? {}) };
  let changed = false;
  for (let node = tree.get(nodeId); node.parentId !== null; node = tree.get(node.parentId)) {
    if (tree.children(node.parentId).length > 1 && visited[node.parentId] !== node.nodeId) {
      visited[node.parentId] = node.nodeId;
      changed = true;
    }
  }
  return changed ? { ...metadata, lastVisitedChild: visited } : undefined;
}
