/**
 * Reading and writing conversations in the sql.js tables. Every write goes through `applyEntry`, the
 * same function that replays the journal, so a change means the same thing live and after a restart.
 */
import type { Database, SqlValue } from 'sql.js';
import type { ConversationNode, ConversationState } from '../types';
import type { JournalEntry } from './journal';
import { searchTextOf } from './schema';

/** Runs `fn` inside a transaction, rolling back when it throws. */
export function inTransaction<T>(db: Database, fn: () => T): T {
  db.run('BEGIN');
  try {
    const result = fn();
    db.run('COMMIT');
    return result;
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
}

/** Returns the rows of a query as arrays. */
export function queryRows(db: Database, sql: string, params: SqlValue[] = []): SqlValue[][] {
  const statement = db.prepare(sql);
  try {
    statement.bind(params);
    const rows: SqlValue[][] = [];
    while (statement.step()) {
      rows.push(statement.get());
    }
    return rows;
  } finally {
    statement.free();
  }
}

/** True when a conversation with this id is stored. */
export function conversationExists(db: Database, conversationId: string): boolean {
  return queryRows(db, 'SELECT 1 FROM conversations WHERE id = ?', [conversationId]).length > 0;
}

const UPSERT_NODE = `INSERT INTO nodes (conversation_id, node_id, parent_id, message, timestamp, prompt_name, branch_name, metadata, search_text)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (conversation_id, node_id) DO UPDATE SET parent_id = excluded.parent_id, message = excluded.message,
    timestamp = excluded.timestamp, prompt_name = excluded.prompt_name, branch_name = excluded.branch_name,
    metadata = excluded.metadata, search_text = excluded.search_text`;

function upsertNodes(db: Database, conversationId: string, nodes: ConversationNode[]): void {
  if (nodes.length === 0) {
    return;
  }
  const statement = db.prepare(UPSERT_NODE);
  try {
    for (const node of nodes) {
      const message = JSON.stringify(node.message);
      statement.run([
        conversationId,
        node.nodeId,
        node.parentId,
        message,
        node.timestamp,
        node.promptName ?? null,
        node.branchName ?? null,
        JSON.stringify(node.metadata ?? {}),
        searchTextOf(message),
      ]);
    }
  } finally {
    statement.free();
  }
}

function deleteConversationRows(db: Database, conversationId: string): void {
  db.run('DELETE FROM nodes WHERE conversation_id = ?', [conversationId]);
  db.run('DELETE FROM conversations WHERE id = ?', [conversationId]);
}

/**
 * Applies one journal entry to the tables and returns the ids of the conversations it touched.
 * A change to a conversation that no longer exists is skipped (it was deleted by a later entry's
 * writer's view of the world, which the journal order already reflects).
 */
export function applyEntry(db: Database, entry: JournalEntry): string[] {
  switch (entry.op) {
    case 'save': {
      const state = entry.state;
      deleteConversationRows(db, state.conversationId);
      db.run(
        `INSERT INTO conversations (id, metadata, current_node_id, tombstones, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
        [
          state.conversationId,
          JSON.stringify(state.metadata ?? {}),
          state.currentNodeId,
          JSON.stringify(state.tombstones ?? []),
          state.createdAt,
          state.updatedAt,
        ],
      );
      upsertNodes(db, state.conversationId, state.nodes);
      return [state.conversationId];
    }
    case 'change': {
      const { conversationId, change } = entry;
      if (!conversationExists(db, conversationId)) {
        return [];
      }
      if (change.deleteNodeIds?.length) {
        const statement = db.prepare('DELETE FROM nodes WHERE conversation_id = ? AND node_id = ?');
        try {
          for (const nodeId of change.deleteNodeIds) {
            statement.run([conversationId, nodeId]);
          }
        } finally {
          statement.free();
        }
      }
      upsertNodes(db, conversationId, change.upsertNodes ?? []);
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
      return [conversationId];
    }
    case 'delete': {
      const touched: string[] = [];
      for (const conversationId of entry.conversationIds) {
        if (conversationExists(db, conversationId)) {
          deleteConversationRows(db, conversationId);
          touched.push(conversationId);
        }
      }
      return touched;
    }
  }
}

function rowToNode(row: SqlValue[]): ConversationNode {
  const [nodeId, parentId, message, timestamp, promptName, branchName, metadata] = row as (string | null)[];
  const node: ConversationNode = {
    nodeId: nodeId as string,
    parentId,
    message: JSON.parse(message as string),
    timestamp: timestamp as string,
    metadata: JSON.parse(metadata as string),
  };
  if (promptName !== null) {
    node.promptName = promptName;
  }
  if (branchName !== null) {
    node.branchName = branchName;
  }
  return node;
}

/** Loads one whole conversation; null when it is not stored. */
export function loadState(db: Database, conversationId: string): ConversationState | null {
  const rows = queryRows(db, 'SELECT metadata, current_node_id, tombstones, created_at, updated_at FROM conversations WHERE id = ?', [
    conversationId,
  ]);
  if (rows.length === 0) {
    return null;
  }
  const [metadata, currentNodeId, tombstones, createdAt, updatedAt] = rows[0] as string[];
  const nodes = queryRows(
    db,
    'SELECT node_id, parent_id, message, timestamp, prompt_name, branch_name, metadata FROM nodes WHERE conversation_id = ? ORDER BY rowid',
    [conversationId],
  ).map(rowToNode);
  return {
    conversationId,
    nodes,
    currentNodeId,
    metadata: JSON.parse(metadata),
    tombstones: JSON.parse(tombstones),
    createdAt,
    updatedAt,
  };
}

/** Reads one value of the store's own key/value table. */
export function readStoreMeta(db: Database, key: string): string | null {
  const rows = queryRows(db, 'SELECT value FROM store_meta WHERE key = ?', [key]);
  return rows.length ? String(rows[0][0]) : null;
}

/** Writes one value of the store's own key/value table. */
export function writeStoreMeta(db: Database, key: string, value: string): void {
  db.run('INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
}
