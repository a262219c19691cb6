/**
 * Stores of schema 1.x, where a node's id was its dataknobs dot path ("0.1.2") and every row held
 * its own id, its parent's id and an index over both, so a row grew with its depth. This module
 * replays a 1.x journal onto the 1.x tables and converts the tables to schema 2.0. Nothing else
 * reads the old layout.
 */
import type { Database, SqlValue } from 'sql.js';
import { dotPathSegments, isDotPath } from '../nodeIds';
import { queryRows } from './conversationTables';
import { SCHEMA_2_0, upgradeSchema } from './schema';

/** A node as schema 1.x stored it. */
interface LegacyNode {
  nodeId: string;
  parentId: string | null;
  message: unknown;
  timestamp: string;
  promptName?: string;
  branchName?: string;
  metadata: Record<string, unknown>;
}

interface LegacyState {
  conversationId: string;
  nodes: LegacyNode[];
  currentNodeId: string;
  metadata: Record<string, unknown>;
  tombstones?: string[];
  createdAt: string;
  updatedAt: string;
}

interface LegacyChange {
  upsertNodes?: LegacyNode[];
  deleteNodeIds?: string[];
  currentNodeId?: string;
  metadata?: Record<string, unknown>;
  tombstones?: string[];
  updatedAt: string;
}

/** An entry of a format-1 journal. */
export type LegacyJournalEntry =
  | { op: 'save'; state: LegacyState }
  | { op: 'change'; conversationId: string; change: LegacyChange }
  | { op: 'delete'; conversationIds: string[] };

const UPSERT_LEGACY_NODE = `INSERT INTO nodes (conversation_id, node_id, parent_id, message, timestamp, prompt_name, branch_name, metadata)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (conversation_id, node_id) DO UPDATE SET parent_id = excluded.parent_id, message = excluded.message,
    timestamp = excluded.timestamp, prompt_name = excluded.prompt_name, branch_name = excluded.branch_name, metadata = excluded.metadata`;

function upsertLegacyNodes(db: Database, conversationId: string, nodes: LegacyNode[]): void {
  const statement = db.prepare(UPSERT_LEGACY_NODE);
  try {
    for (const node of nodes) {
      statement.run([
        conversationId,
        node.nodeId,
        node.parentId,
        JSON.stringify(node.message),
        node.timestamp,
        node.promptName ?? null,
        node.branchName ?? null,
        JSON.stringify(node.metadata ?? {}),
      ]);
    }
  } finally {
    statement.free();
  }
}

function legacyExists(db: Database, conversationId: string): boolean {
  return queryRows(db, 'SELECT 1 FROM conversations WHERE id = ?', [conversationId]).length > 0;
}

function deleteLegacyConversation(db: Database, conversationId: string): void {
  db.run('DELETE FROM nodes WHERE conversation_id = ?', [conversationId]);
  db.run('DELETE FROM conversations WHERE id = ?', [conversationId]);
}

/** Applies one format-1 journal entry to schema 1.x tables, as the release before 2.0 did. */
export function applyLegacyEntry(db: Database, entry: LegacyJournalEntry): void {
  switch (entry.op) {
    case 'save': {
      const state = entry.state;
      deleteLegacyConversation(db, state.conversationId);
      db.run(`INSERT INTO conversations (id, metadata, current_node_id, tombstones, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`, [
        state.conversationId,
        JSON.stringify(state.metadata ?? {}),
        state.currentNodeId,
        JSON.stringify(state.tombstones ?? []),
        state.createdAt,
        state.updatedAt,
      ]);
      upsertLegacyNodes(db, state.conversationId, state.nodes);
      return;
    }
    case 'change': {
      const { conversationId, change } = entry;
      if (!legacyExists(db, conversationId)) return;
      for (const nodeId of change.deleteNodeIds ?? []) {
        db.run('DELETE FROM nodes WHERE conversation_id = ? AND node_id = ?', [conversationId, nodeId]);
      }
      upsertLegacyNodes(db, conversationId, change.upsertNodes ?? []);
      const sets = ['updated_at = ?'];
      const params: SqlValue[] = [change.updatedAt];
      if (change.currentNodeId !== undefined) {
        sets.push('current_node_id = ?');
        params.push(change.currentNodeId);
      }
      if (change.metadata !== undefined) {
        sets.push('metadata = ?');
        params.push(JSON.stringify(change.metadata));
      }
      if (change.tombstones !== undefined) {
        sets.push('tombstones = ?');
        params.push(JSON.stringify(change.tombstones));
      }
      params.push(conversationId);
      db.run(`UPDATE conversations SET ${sets.join(', ')} WHERE id = ?`, params);
      return;
    }
    case 'delete':
      for (const conversationId of entry.conversationIds) deleteLegacyConversation(db, conversationId);
      return;
  }
}

/** The last child index of a dot-path id, or undefined for an id that is not one. */
function lastIndexOf(nodeId: string): number | undefined {
  if (nodeId === '' || !isDotPath(nodeId)) return undefined;
  const segments = dotPathSegments(nodeId);
  return segments[segments.length - 1];
}

interface LegacyRow {
  nodeId: string;
  parentId: string | null;
  message: string;
  timestamp: string;
  promptName: string | null;
  branchName: string | null;
  metadata: string;
  rowid: number;
}

/**
 * Converts one conversation's rows: nodes numbered parents first (siblings in their old order),
 * each keeping its old child index as its position, and a counter (and legacy limit) past every
 * old index, so an old id still names its node and no new node can take an old one's path.
 */
function convertConversation(db: Database, key: number, conversationId: string, currentNodeId: string): void {
  const rows: LegacyRow[] = queryRows(
    db,
    'SELECT node_id, parent_id, message, timestamp, prompt_name, branch_name, metadata, rowid FROM nodes_v1 WHERE conversation_id = ?',
    [conversationId],
  ).map(([nodeId, parentId, message, timestamp, promptName, branchName, metadata, rowid]) => ({
    nodeId: String(nodeId),
    parentId: parentId === null ? null : String(parentId),
    message: String(message),
    timestamp: String(timestamp),
    promptName: promptName === null ? null : String(promptName),
    branchName: branchName === null ? null : String(branchName),
    metadata: String(metadata),
    rowid: Number(rowid),
  }));
  const children = new Map<string | null, LegacyRow[]>();
  for (const row of rows) {
    const list = children.get(row.parentId);
    if (list) list.push(row);
    else children.set(row.parentId, [row]);
  }
  const order = (a: LegacyRow, b: LegacyRow) => (lastIndexOf(a.nodeId) ?? Infinity) - (lastIndexOf(b.nodeId) ?? Infinity) || a.rowid - b.rowid;
  for (const list of children.values()) list.sort(order);
  const seqs = new Map<string, number>();
  const positions = new Map<string, number>();
  let maxIndex = 0;
  // Breadth first from the root; rows whose parent is missing (never written by Arbor) are left out.
  const queue = (children.get(null) ?? []).filter((row) => row.nodeId === '').slice(0, 1);
  const ordered: LegacyRow[] = [];
  while (queue.length > 0) {
    const row = queue.shift() as LegacyRow;
    seqs.set(row.nodeId, ordered.length);
    ordered.push(row);
    (children.get(row.nodeId) ?? []).forEach((child, i) => {
      const index = lastIndexOf(child.nodeId) ?? i;
      positions.set(child.nodeId, index);
      maxIndex = Math.max(maxIndex, index);
      queue.push(child);
    });
  }
  if (ordered.length === 0) {
    // A conversation without a root cannot be opened by any release; keep it openable with an empty root.
    ordered.push({ nodeId: '', parentId: null, message: '{"role":"system","content":""}', timestamp: new Date(0).toISOString(), promptName: null, branchName: null, metadata: '{}', rowid: 0 });
    seqs.set('', 0);
  }
  const nextSeq = Math.max(ordered.length, maxIndex + 1);
  const insert = db.prepare(
    `INSERT INTO nodes (conversation, seq, parent, position, role, content, extra, timestamp, prompt_name, branch_name, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  try {
    for (const row of ordered) {
      const { role, content, ...rest } = JSON.parse(row.message) as { role: string; content: unknown };
      const extra = Object.keys(rest).length ? JSON.stringify(rest) : null;
      const metadata = row.metadata === '{}' ? null : row.metadata;
      insert.run([
        key,
        seqs.get(row.nodeId) as number,
        row.parentId === null ? null : (seqs.get(row.parentId) as number),
        positions.get(row.nodeId) ?? 0,
        role,
        typeof content === 'string' ? content : content == null ? '' : String(content),
        extra,
        row.timestamp,
        row.promptName,
        row.branchName,
        metadata,
      ]);
    }
  } finally {
    insert.free();
  }
  db.run('UPDATE conversations SET current_seq = ?, next_seq = ?, legacy_id_limit = ? WHERE key = ?', [seqs.get(currentNodeId) ?? 0, nextSeq, nextSeq, key]);
}

/**
 * Converts schema 1.x tables to 2.0 in place (the caller runs it in a transaction and checkpoints
 * the result). Conversations keep their ids, metadata and times; nodes keep everything, their
 * sibling order and, through their positions, their old dot-path ids; tombstones become unneeded,
 * as the new node counter never goes back.
 */
export function migrateV1ToV2(db: Database): void {
  db.run('DROP INDEX IF EXISTS conversations_created_at');
  db.run('DROP INDEX IF EXISTS conversations_updated_at');
  db.run('ALTER TABLE conversations RENAME TO conversations_v1');
  db.run('ALTER TABLE nodes RENAME TO nodes_v1');
  db.exec(SCHEMA_2_0);
  const conversations = queryRows(db, 'SELECT id, metadata, current_node_id, created_at, updated_at FROM conversations_v1 ORDER BY rowid');
  for (const [id, metadata, currentNodeId, createdAt, updatedAt] of conversations) {
    db.run(`INSERT INTO conversations (id, metadata, current_seq, next_seq, created_at, updated_at) VALUES (?, ?, 0, 1, ?, ?)`, [id, metadata, createdAt, updatedAt]);
    const key = Number(queryRows(db, 'SELECT key FROM conversations WHERE id = ?', [id])[0][0]);
    convertConversation(db, key, String(id), String(currentNodeId));
  }
  db.run('DROP TABLE nodes_v1');
  db.run('DROP TABLE conversations_v1');
}

/** Converts schema 1.x tables to 2.0 (`migrateV1ToV2`), then upgrades them to the current minor. */
export function migrateV1ToCurrent(db: Database): void {
  migrateV1ToV2(db);
  upgradeSchema(db);
}
