/**
 * The journal entry of a fork: a copy of a stored conversation (or of the path root→a node) under a
 * new id, with the file changes and images of the nodes it copies. One `save` entry carries all, so a
 * kill can never leave the copy without them.
 */
import type { Database } from 'sql.js';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError } from '../errors';
import type { ConversationState } from '../types';
import { requireString } from '../validation';
import { conversationExists, conversationRow, loadState, seqOf, type ConversationRow } from './conversationTables';
import { copiedFileChangeEnvelopes } from './fileCheckpoints';
import type { JournalEntry } from './journal';
import { copiedImageEnvelopes } from './nodeImages';

/** The copy as the caller sees it, and the entry that stores it (its nodes followed by file-change and image envelopes). */
export function buildForkEntry(db: Database, sourceId: string, newId: string, options: { upToNodeId?: string }): { state: ConversationState; entry: JournalEntry } {
  const source = loadState(db, sourceId);
  if (!source) {
    throw new ConversationNotFoundError(sourceId);
  }
  requireString(newId, 'newId', { name: true });
  if (conversationExists(db, newId)) {
    throw new InvalidArgumentError(`Cannot fork "${sourceId}" to "${newId}": choose a new, unused, non-empty conversation id.`);
  }
  let nodes = source.nodes;
  let currentNodeId = source.currentNodeId;
  if (options.upToNodeId !== undefined) {
    const byId = new Map(source.nodes.map((node) => [node.nodeId, node]));
    const keep = new Set<string>();
    for (let node = byId.get(options.upToNodeId); node; node = node.parentId === null ? undefined : byId.get(node.parentId)) {
      keep.add(node.nodeId);
    }
    if (!keep.size) {
      throw new NodeNotFoundError(options.upToNodeId, sourceId);
    }
    nodes = source.nodes.filter((node) => keep.has(node.nodeId));
    currentNodeId = options.upToNodeId;
  }
  const now = new Date().toISOString();
  // loadState parsed `source` from the tables just now, so its objects are already this fork's own.
  const state: ConversationState = {
    conversationId: newId,
    nodes,
    currentNodeId,
    metadata: source.metadata,
    nextNodeSeq: source.nextNodeSeq,
    ...(source.legacyIdLimit !== undefined ? { legacyIdLimit: source.legacyIdLimit } : {}),
    createdAt: now,
    updatedAt: now,
  };
  const sourceKey = (conversationRow(db, sourceId) as ConversationRow).key;
  const seqs = nodes.map((node) => seqOf(node.nodeId));
  const envelopes = [...copiedFileChangeEnvelopes(db, sourceKey, seqs, now), ...copiedImageEnvelopes(db, sourceKey, seqs, now)];
  return { state, entry: { op: 'save', state: envelopes.length ? { ...state, nodes: [...nodes, ...envelopes] } : state } };
}
