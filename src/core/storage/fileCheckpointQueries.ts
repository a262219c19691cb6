/**
 * Reading file checkpoints from the schema 2.1 tables (`fileCheckpointSchema.ts`): a node's changes,
 * a conversation's changes by node, one content's bytes, and the state of the files after a node.
 */
import { inflateRawSync } from 'node:zlib';
import type { Database, SqlValue } from 'sql.js';
import { StorageError } from '../errors';
import { formatNodeId } from '../nodeIds';
import { queryRows, queryRowsCached } from './conversationTables';
import type { FileState, RecordedFileChange } from './storage';

/** `file_contents.compression` of a content kept deflated (raw deflate, no zlib header). */
export const DEFLATE_RAW = 'deflate-raw';

/** A stored change with the row fields the writer needs beside the API view. */
export interface FileChangeRow {
  seq: number;
  position: number;
  change: RecordedFileChange;
}

const SELECT_CHANGES = `SELECT f.seq, f.position, f.path, f.before_hash, b.size, f.after_hash, a.size, f.added, f.removed
  FROM file_changes f
  LEFT JOIN file_contents b ON b.hash = f.before_hash
  LEFT JOIN file_contents a ON a.hash = f.after_hash`;

function toRow([seq, position, path, beforeHash, beforeSize, afterHash, afterSize, added, removed]: SqlValue[]): FileChangeRow {
  const before = beforeHash === null ? null : { hash: String(beforeHash), size: Number(beforeSize) };
  const after = afterHash === null ? null : { hash: String(afterHash), size: Number(afterSize) };
  return {
    seq: Number(seq),
    position: Number(position),
    change: {
      path: String(path),
      kind: before === null ? 'created' : after === null ? 'deleted' : 'modified',
      before,
      after,
      linesAdded: added === null ? null : Number(added),
      linesRemoved: removed === null ? null : Number(removed),
    },
  };
}

/** The stored changes of one node, in the order its files were first recorded. */
export function nodeFileChangeRows(db: Database, conversationKey: number, seq: number): FileChangeRow[] {
  return queryRowsCached(db, `${SELECT_CHANGES} WHERE f.conversation = ? AND f.seq = ? ORDER BY f.position, f.path`, [conversationKey, seq]).map(toRow);
}

/** Whether a node has any stored change (cheaper than reading them when it has none, the usual case). */
export function nodeHasFileChanges(db: Database, conversationKey: number, seq: number): boolean {
  return queryRowsCached(db, 'SELECT 1 FROM file_changes WHERE conversation = ? AND seq = ? LIMIT 1', [conversationKey, seq]).length > 0;
}

/** Every stored change of a conversation, by node id. */
export function conversationFileChanges(db: Database, conversationKey: number): Record<string, RecordedFileChange[]> {
  const byNode: Record<string, RecordedFileChange[]> = {};
  for (const row of queryRows(db, `${SELECT_CHANGES} WHERE f.conversation = ? ORDER BY f.seq, f.position, f.path`, [conversationKey]).map(toRow)) {
    (byNode[formatNodeId(row.seq)] ??= []).push(row.change);
  }
  return byNode;
}

/** A content's bytes from its stored form (`data` as `compression` left it). */
export function storedBytes(compression: SqlValue, data: Uint8Array): Uint8Array {
  if (compression === null) return data;
  if (compression === DEFLATE_RAW) return inflateRawSync(data);
  throw new StorageError(`A stored file content uses the compression "${String(compression)}", which this version of Arbor does not know; update Arbor to read it.`);
}

/** The bytes stored under `hash`, or null. */
export function readFileContent(db: Database, hash: string): Uint8Array | null {
  const rows = queryRows(db, 'SELECT compression, data FROM file_contents WHERE hash = ?', [hash]);
  return rows.length ? storedBytes(rows[0][0], rows[0][1] as Uint8Array) : null;
}

/** Which of `hashes` have a stored content. */
export function storedHashes(db: Database, hashes: readonly string[]): Set<string> {
  return new Set(queryRowsCached(db, 'SELECT hash FROM file_contents WHERE hash IN (SELECT value FROM json_each(?))', [JSON.stringify(hashes)]).map((row) => String(row[0])));
}

/**
 * For each file changed on the path root→`seq`, its hash after the deepest change on the path and
 * its hash before the shallowest one. The path is walked in SQL from the node up through its parents.
 */
export function fileStatesAt(db: Database, conversationKey: number, seq: number): FileState[] {
  const rows = queryRows(
    db,
    `WITH RECURSIVE path(seq, depth) AS (
       SELECT seq, 0 FROM nodes WHERE conversation = ?1 AND seq = ?2
       UNION ALL
       SELECT n.parent, p.depth + 1 FROM path p JOIN nodes n ON n.conversation = ?1 AND n.seq = p.seq WHERE n.parent IS NOT NULL
     )
     SELECT f.path, f.seq, p.depth, f.before_hash, f.after_hash, f.folder FROM path p JOIN file_changes f ON f.conversation = ?1 AND f.seq = p.seq`,
    [conversationKey, seq],
  );
  const states = new Map<string, { state: FileState; lastDepth: number; firstDepth: number }>();
  for (const [path, rowSeq, depth, beforeHash, afterHash, folder] of rows) {
    const key = String(path);
    const d = Number(depth);
    let entry = states.get(key);
    if (!entry) {
      entry = { state: { path: key, hash: null, nodeId: '', originalHash: null }, lastDepth: Infinity, firstDepth: -1 };
      states.set(key, entry);
    }
    // Depth 0 is the node itself: the smallest depth is the last change on the path, the largest the first.
    if (d < entry.lastDepth) {
      entry.lastDepth = d;
      entry.state.hash = afterHash === null ? null : String(afterHash);
      entry.state.nodeId = formatNodeId(Number(rowSeq));
      if (folder === null) delete entry.state.folder;
      else entry.state.folder = String(folder);
    }
    if (d > entry.firstDepth) {
      entry.firstDepth = d;
      entry.state.originalHash = beforeHash === null ? null : String(beforeHash);
    }
  }
  return [...states.values()].map((entry) => entry.state).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
