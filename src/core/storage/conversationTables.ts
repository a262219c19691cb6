/**
 * Reading and writing conversations in the sql.js tables of schema 2.0. Every write goes through
 * `applyEntry`, the same function that replays the journal, so a change means the same thing live
 * and after a restart.
 */
import type { Database, SqlValue, Statement } from 'sql.js';
import { InvalidArgumentError } from '../errors';
import { formatNodeId, nodeSeqOf } from '../nodeIds';
import type { ConversationNode, ConversationState, LLMMessage } from '../types';
import type { JournalEntry, StoredChange } from './journal';

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
    return stepRows(statement, params);
  } finally {
    statement.free();
  }
}

/** Binds `params` to `statement` and reads every row it gives. */
function stepRows(statement: Statement, params: SqlValue[]): SqlValue[][] {
  statement.bind(params);
  const rows: SqlValue[][] = [];
  while (statement.step()) rows.push(statement.get());
  return rows;
}

const statementCaches = new WeakMap<Database, Map<string, Statement>>();

/**
 * A statement prepared once per database, for the queries every write runs: preparing costs more than
 * running them (more still for an insert into `nodes`, whose preparing compiles the schema's triggers).
 * sql.js frees them with their database; SQLite prepares one again by itself after a schema change.
 */
function cachedStatement(db: Database, sql: string): Statement {
  let cache = statementCaches.get(db);
  if (!cache) {
    cache = new Map();
    statementCaches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** `queryRows` with a statement prepared once per database (`cachedStatement`): for queries run on every write. */
export function queryRowsCached(db: Database, sql: string, params: SqlValue[] = []): SqlValue[][] {
  const statement = cachedStatement(db, sql);
  try {
    return stepRows(statement, params);
  } finally {
    statement.reset();
  }
}

/** The stored counters of one conversation. */
export interface ConversationRow {
  key: number;
  nextSeq: number;
}

/** The key and node counter of a stored conversation, or undefined. */
export function conversationRow(db: Database, conversationId: string): ConversationRow | undefined {
  const rows = queryRowsCached(db, 'SELECT key, next_seq FROM conversations WHERE id = ?', [conversationId]);
  return rows.length ? { key: Number(rows[0][0]), nextSeq: Number(rows[0][1]) } : undefined;
}

/** True when a conversation with this id is stored. */
export function conversationExists(db: Database, conversationId: string): boolean {
  return conversationRow(db, conversationId) !== undefined;
}

/** True when the conversation (by key) has a node with this id. */
export function nodeExists(db: Database, conversationKey: number, nodeId: string): boolean {
  const seq = nodeSeqOf(nodeId);
  return seq !== undefined && queryRowsCached(db, 'SELECT 1 FROM nodes WHERE conversation = ? AND seq = ?', [conversationKey, seq]).length > 0;
}

/** The ids of the stored subtrees at `nodeIds` (each node and everything below it, as stored now). */
export function subtreeIds(db: Database, conversationKey: number, nodeIds: readonly string[]): string[] {
  const seqs = nodeIds.map(seqOf);
  const rows = queryRows(
    db,
    `WITH RECURSIVE sub(seq) AS (
       SELECT seq FROM nodes WHERE conversation = ? AND seq IN (SELECT value FROM json_each(?))
       UNION SELECT n.seq FROM sub CROSS JOIN nodes n ON n.conversation = ? AND n.parent = sub.seq
     ) SELECT seq FROM sub`,
    [conversationKey, JSON.stringify(seqs), conversationKey],
  );
  return rows.map((row) => formatNodeId(Number(row[0])));
}

/** The row key of a node id this store gave; an `InvalidArgumentError` for any other string. */
export function seqOf(nodeId: string): number {
  const seq = nodeSeqOf(nodeId);
  if (seq === undefined) {
    throw new InvalidArgumentError(`"${nodeId}" is not a node id of this store; import conversations from elsewhere with ConversationManager.importJson.`);
  }
  return seq;
}

/** The message fields beside role and content, as stored in `extra` (null when there are none). */
function extraOf(message: LLMMessage): string | null {
  const { role: _role, content: _content, ...rest } = message;
  for (const key in rest) {
    if ((rest as Record<string, unknown>)[key] !== undefined) return JSON.stringify(rest);
  }
  return null;
}

function metadataColumn(metadata: Record<string, unknown> | undefined): string | null {
  if (!metadata) return null;
  for (const _key in metadata) return JSON.stringify(metadata);
  return null;
}

/** What a node row holds besides its place in the tree, in the column order of INSERT_NODE and UPDATE_NODE. */
function contentColumns(node: ConversationNode): SqlValue[] {
  return [
    node.message.role,
    node.message.content,
    extraOf(node.message),
    node.timestamp,
    node.promptName ?? null,
    node.branchName ?? null,
    metadataColumn(node.metadata),
  ];
}

const INSERT_NODE = `INSERT INTO nodes (conversation, seq, parent, position, role, content, extra, timestamp, prompt_name, branch_name, metadata)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const UPDATE_NODE = `UPDATE nodes SET role = ?, content = ?, extra = ?, timestamp = ?, prompt_name = ?, branch_name = ?, metadata = ?
  WHERE conversation = ? AND seq = ?`;

function withStatement(db: Database, sql: string, fn: (statement: Statement) => void): void {
  const statement = db.prepare(sql);
  try {
    fn(statement);
  } finally {
    statement.free();
  }
}

function insertNodes(db: Database, conversationKey: number, nodes: ConversationNode[]): void {
  if (nodes.length === 0) return;
  const statement = cachedStatement(db, INSERT_NODE);
  for (const node of nodes) {
    statement.run([conversationKey, seqOf(node.nodeId), node.parentId === null ? null : seqOf(node.parentId), node.position, ...contentColumns(node)]);
  }
}

function updateNodes(db: Database, conversationKey: number, nodes: ConversationNode[]): void {
  if (nodes.length === 0) return;
  withStatement(db, UPDATE_NODE, (statement) => {
    for (const node of nodes) {
      statement.run([...contentColumns(node), conversationKey, seqOf(node.nodeId)]);
    }
  });
}

function deleteConversationRows(db: Database, conversationId: string): void {
  const row = conversationRow(db, conversationId);
  if (!row) return;
  db.run('DELETE FROM nodes WHERE conversation = ?', [row.key]);
  db.run('DELETE FROM conversations WHERE key = ?', [row.key]);
}

/** The node counter a saved state continues from: its own, or past the highest id in it. */
function nextSeqOf(state: ConversationState): number {
  let next = 1;
  for (const node of state.nodes) next = Math.max(next, seqOf(node.nodeId) + 1);
  return Math.max(next, state.nextNodeSeq ?? 0);
}

function saveState(db: Database, state: ConversationState): void {
  deleteConversationRows(db, state.conversationId);
  db.run(
    `INSERT INTO conversations (id, metadata, current_seq, next_seq, legacy_id_limit, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [
      state.conversationId,
      JSON.stringify(state.metadata ?? {}),
      seqOf(state.currentNodeId),
      nextSeqOf(state),
      state.legacyIdLimit ?? null,
      state.createdAt,
      state.updatedAt,
    ],
  );
  insertNodes(db, (conversationRow(db, state.conversationId) as ConversationRow).key, state.nodes);
}

function applyChangeRows(db: Database, key: number, change: StoredChange): void {
  if (change.deleteNodeIds?.length) {
    withStatement(db, 'DELETE FROM nodes WHERE conversation = ? AND seq = ?', (statement) => {
      for (const nodeId of change.deleteNodeIds ?? []) statement.run([key, seqOf(nodeId)]);
    });
  }
  insertNodes(db, key, change.insertNodes ?? []);
  updateNodes(db, key, change.updateNodes ?? []);
  const sets = ['updated_at = ?'];
  const params: SqlValue[] = [change.updatedAt];
  if (change.currentNodeId !== undefined) {
    sets.push('current_seq = ?');
    params.push(seqOf(change.currentNodeId));
  }
  if (change.metadata !== undefined) {
    sets.push('metadata = ?');
    params.push(JSON.stringify(change.metadata));
  }
  if (change.nextNodeSeq !== undefined) {
    sets.push('next_seq = max(next_seq, ?)');
    params.push(change.nextNodeSeq);
  }
  params.push(key);
  db.run(`UPDATE conversations SET ${sets.join(', ')} WHERE key = ?`, params);
}

/**
 * Applies one journal entry to the tables and returns the ids of the conversations it touched.
 * File checkpoints arrive as envelope nodes that the schema's triggers turn into their own rows
 * (fileCheckpointSchema.ts), so they need nothing here: a 2.0 release applies them alike.
 * A change to a conversation that no longer exists is skipped (a later delete, already in the
 * journal's order, removed it).
 */
export function applyEntry(db: Database, entry: JournalEntry): string[] {
  switch (entry.op) {
    case 'save':
      saveState(db, entry.state);
      return [entry.state.conversationId];
    case 'change': {
      const row = conversationRow(db, entry.conversationId);
      if (!row) return [];
      applyChangeRows(db, row.key, entry.change);
      return [entry.conversationId];
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

/** A stored node row as an API node; `extra` and `metadata` are parsed only when present. */
function rowToNode(row: SqlValue[]): ConversationNode {
  const [seq, parent, position, role, content, extra, timestamp, promptName, branchName, metadata] = row;
  const message = (extra === null ? { role, content } : { role, content, ...JSON.parse(extra as string) }) as LLMMessage;
  const node: ConversationNode = {
    nodeId: formatNodeId(seq as number),
    parentId: parent === null ? null : formatNodeId(parent as number),
    position: position as number,
    message,
    timestamp: timestamp as string,
    metadata: metadata === null ? {} : JSON.parse(metadata as string),
  };
  if (promptName !== null) node.promptName = promptName as string;
  if (branchName !== null) node.branchName = branchName as string;
  return node;
}

/** Loads one whole conversation; null when it is not stored. */
export function loadState(db: Database, conversationId: string): ConversationState | null {
  const rows = queryRows(db, 'SELECT key, metadata, current_seq, next_seq, legacy_id_limit, created_at, updated_at FROM conversations WHERE id = ?', [
    conversationId,
  ]);
  if (rows.length === 0) {
    return null;
  }
  const [key, metadata, currentSeq, nextSeq, legacyIdLimit, createdAt, updatedAt] = rows[0];
  const nodes: ConversationNode[] = [];
  withStatement(
    db,
    'SELECT seq, parent, position, role, content, extra, timestamp, prompt_name, branch_name, metadata FROM nodes WHERE conversation = ? ORDER BY seq',
    (statement) => {
      statement.bind([key]);
      while (statement.step()) nodes.push(rowToNode(statement.get()));
    },
  );
  const state: ConversationState = {
    conversationId,
    nodes,
    currentNodeId: formatNodeId(currentSeq as number),
    metadata: JSON.parse(metadata as string),
    nextNodeSeq: nextSeq as number,
    createdAt: createdAt as string,
    updatedAt: updatedAt as string,
  };
  if (legacyIdLimit !== null) state.legacyIdLimit = legacyIdLimit as number;
  return state;
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
