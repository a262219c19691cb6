/**
 * Checks the sql.js store makes before it acts: the arguments of a write (so nothing is stored that
 * could not be read back or resumed), whether its files may be written, and whether a failed read
 * points at damaged data.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError } from '../errors';
import { ROOT_NODE_ID } from '../nodeIds';
import type { ConversationNode, ConversationState } from '../types';
import { requireCount, requireJson, requireRecord, requireRole, requireString } from '../validation';
import { seqOf } from './conversationTables';
import type { ConversationChange } from './storage';

/** Checks what a node carries before it is stored: role, text, names, time, metadata. */
export function checkNodeFields(node: Partial<ConversationNode> | undefined, name: string): void {
  if (typeof node !== 'object' || node === null) throw new InvalidArgumentError(`${name} must be a node object.`);
  if (typeof node.message !== 'object' || node.message === null) throw new InvalidArgumentError(`${name}.message must be a message object.`);
  requireRole(node.message.role, `${name}.message.role`);
  requireString(node.message.content, `${name}.message.content`, { allowEmpty: true });
  requireJson(node.message, `${name}.message`);
  requireString(node.timestamp, `${name}.timestamp`);
  requireRecord(node.metadata, `${name}.metadata`);
  if (node.branchName !== undefined) requireString(node.branchName, `${name}.branchName`, { allowEmpty: true, name: true });
  if (node.promptName !== undefined) requireString(node.promptName, `${name}.promptName`, { name: true });
}

/** Checks an incremental change before it is applied: its nodes, ids, metadata and time. */
export function checkChange(conversationId: string, change: ConversationChange): void {
  requireString(conversationId, 'conversationId');
  if (typeof change !== 'object' || change === null) throw new InvalidArgumentError('change must be an object.');
  requireString(change.updatedAt, 'change.updatedAt');
  (change.addNodes ?? []).forEach((node, i) => checkNodeFields(node, `change.addNodes[${i}]`));
  (change.updateNodes ?? []).forEach((node, i) => checkNodeFields(node, `change.updateNodes[${i}]`));
  (change.deleteNodeIds ?? []).forEach((id, i) => requireString(id, `change.deleteNodeIds[${i}]`));
  if (change.metadata !== undefined) requireRecord(change.metadata, 'change.metadata');
  if (change.currentNodeId !== undefined) requireString(change.currentNodeId, 'change.currentNodeId', { allowEmpty: true });
}

/**
 * Checks a whole conversation before it is saved: one root (`""`, no parent), ids this store gives,
 * every parent present, a current node that exists, so what is saved can always be resumed.
 */
export function checkState(state: ConversationState): void {
  if (typeof state !== 'object' || state === null) throw new InvalidArgumentError('saveConversation needs a conversation state object.');
  requireString(state.conversationId, 'state.conversationId', { name: true });
  if (!Array.isArray(state.nodes)) throw new InvalidArgumentError('state.nodes must be an array of nodes.');
  const ids = new Set<string>();
  for (const [i, node] of state.nodes.entries()) {
    checkNodeFields(node, `state.nodes[${i}]`);
    requireString(node.nodeId, `state.nodes[${i}].nodeId`, { allowEmpty: true });
    seqOf(node.nodeId);
    if (ids.has(node.nodeId)) throw new InvalidArgumentError(`state.nodes holds node "${node.nodeId}" twice.`);
    ids.add(node.nodeId);
    requireCount(node.position, `state.nodes[${i}].position`);
    if ((node.nodeId === ROOT_NODE_ID) !== (node.parentId === null)) {
      throw new InvalidArgumentError(`state.nodes[${i}]: only the root ("") has no parent, and the root has none.`);
    }
  }
  if (!ids.has(ROOT_NODE_ID)) throw new InvalidArgumentError('state.nodes has no root node (id ""); a conversation without one could never be opened.');
  for (const [i, node] of state.nodes.entries()) {
    if (node.parentId !== null && !ids.has(node.parentId)) throw new InvalidArgumentError(`state.nodes[${i}] ("${node.nodeId}") has no parent "${node.parentId}" in the state.`);
  }
  requireString(state.currentNodeId, 'state.currentNodeId', { allowEmpty: true });
  if (!ids.has(state.currentNodeId)) throw new InvalidArgumentError(`state.currentNodeId "${state.currentNodeId}" is not a node of the state.`);
  requireRecord(state.metadata, 'state.metadata');
  requireString(state.createdAt, 'state.createdAt');
  requireString(state.updatedAt, 'state.updatedAt');
  if (state.nextNodeSeq !== undefined) requireCount(state.nextNodeSeq, 'state.nextNodeSeq');
  if (state.legacyIdLimit !== undefined) requireCount(state.legacyIdLimit, 'state.legacyIdLimit');
}

/**
 * Whether the store may not be written: its folder or its database file has no write permission
 * (by its mode bits, which a user sets on purpose and which are honoured even for root, or by access).
 */
export async function isReadOnly(dbPath: string): Promise<boolean> {
  for (const target of [path.dirname(dbPath), dbPath]) {
    try {
      const stat = await fs.stat(target);
      if ((stat.mode & 0o222) === 0) return true;
      await fs.access(target, fsConstants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return true;
      if (code !== 'ENOENT') throw error;
    }
  }
  return false;
}

/** Whether a failed read points at damaged data rather than a bug: bad JSON in a row, or SQLite's corruption errors. */
export function isDamage(error: unknown): boolean {
  return error instanceof SyntaxError || /malformed|SQLITE_CORRUPT|SQLITE_NOTADB|not a database/i.test(String(error));
}
