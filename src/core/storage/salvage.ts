/**
 * Rebuilding a store from a damaged one: every conversation and node that can still be read is
 * copied into a fresh database, with JSON that no longer parses dropped (the text of a message is
 * kept), nodes whose parent is lost left out, and a missing root replaced by an empty one, so every
 * conversation that comes out opens. File checkpoints of kept nodes are kept when their contents still
 * read back with their hash. What could not be read is counted for the report.
 */
import { createHash } from 'node:crypto';
import type { Database, SqlValue } from 'sql.js';
import { storedBytes } from './fileCheckpointQueries';

/** What a salvage kept and lost. */
export interface SalvageReport {
  conversations: number;
  nodes: number;
  /** Conversations whose row or nodes could not be read at all. */
  lostConversations: number;
  /** Conversations kept without some of their messages: a read of their nodes broke off part way. */
  partialConversations: number;
  /** Nodes read but left out: unusable fields, or a parent that was lost. */
  lostNodes: number;
  /** Nodes kept with their metadata or message fields dropped because the JSON was damaged. */
  repairedNodes: number;
  /** File changes of kept nodes left out: their row, or a content they need, could not be read intact. */
  lostFileChanges: number;
  /** Images of messages whose row or bytes could not be read whole. */
  lostImages?: number;
}

function parses(json: SqlValue): boolean {
  if (json === null) return true;
  try {
    const value: unknown = JSON.parse(String(json));
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}

/** Reads rows one step at a time, keeping those read before an error. */
function readRows(db: Database, sql: string, params: SqlValue[]): { rows: SqlValue[][]; failed: boolean } {
  const rows: SqlValue[][] = [];
  let statement;
  try {
    statement = db.prepare(sql);
    statement.bind(params);
    while (statement.step()) rows.push(statement.get());
    return { rows, failed: false };
  } catch {
    return { rows, failed: true };
  } finally {
    statement?.free();
  }
}

/** Copies what can be read of `source` (schema 2.0) into `target` (a fresh schema 2.0 database). */
export function salvageInto(source: Database, target: Database): SalvageReport {
  const report: SalvageReport = { conversations: 0, nodes: 0, lostConversations: 0, partialConversations: 0, lostNodes: 0, repairedNodes: 0, lostFileChanges: 0 };
  const hasFileTables = readRows(source, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_changes'`, []).rows.length > 0;
  const hasImageTable = readRows(source, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'node_images'`, []).rows.length > 0;
  const conversations = readRows(source, 'SELECT key, id, metadata, current_seq, next_seq, legacy_id_limit, created_at, updated_at FROM conversations', []);
  if (conversations.failed) report.lostConversations++;
  const now = new Date().toISOString();
  for (const [key, id, metadata, currentSeq, nextSeq, legacyIdLimit, createdAt, updatedAt] of conversations.rows) {
    if (typeof id !== 'string' || id === '') {
      report.lostConversations++;
      continue;
    }
    const nodes = readRows(
      source,
      'SELECT seq, parent, position, role, content, extra, timestamp, prompt_name, branch_name, metadata FROM nodes WHERE conversation = ? ORDER BY seq',
      [key],
    );
    if (nodes.failed) report.partialConversations++;
    // Parents come before children (a node's seq is above its parent's): keep a node only under a kept parent.
    const kept = new Set<number>();
    const rows: SqlValue[][] = [];
    for (const row of nodes.rows) {
      const [seq, parent, , role, content, extra, timestamp, , , nodeMetadata] = row;
      const isRoot = seq === 0 && parent === null;
      if (typeof seq !== 'number' || (!isRoot && (typeof parent !== 'number' || !kept.has(parent))) || typeof role !== 'string' || typeof timestamp !== 'string') {
        report.lostNodes++;
        continue;
      }
      const fixed = [...row];
      if (typeof content !== 'string') fixed[4] = content === null ? '' : String(content);
      if (!parses(extra) || !parses(nodeMetadata)) {
        if (!parses(extra)) fixed[5] = null;
        if (!parses(nodeMetadata)) fixed[9] = null;
        report.repairedNodes++;
      }
      kept.add(seq);
      rows.push(fixed);
    }
    if (!kept.has(0)) rows.unshift([0, null, 0, 'system', '', null, typeof createdAt === 'string' ? createdAt : now, null, null, null]);
    const maxSeq = Math.max(0, ...rows.map((r) => Number(r[0])));
    target.run(
      'INSERT INTO conversations (id, metadata, current_seq, next_seq, legacy_id_limit, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        id,
        parses(metadata) && metadata !== null ? metadata : '{}',
        typeof currentSeq === 'number' && kept.has(currentSeq) ? currentSeq : 0,
        Math.max(typeof nextSeq === 'number' ? nextSeq : 0, maxSeq + 1),
        typeof legacyIdLimit === 'number' ? legacyIdLimit : null,
        typeof createdAt === 'string' ? createdAt : now,
        typeof updatedAt === 'string' ? updatedAt : now,
      ],
    );
    const newKey = Number(target.exec('SELECT last_insert_rowid()')[0].values[0][0]);
    const insert = target.prepare(
      'INSERT INTO nodes (conversation, seq, parent, position, role, content, extra, timestamp, prompt_name, branch_name, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    try {
      for (const row of rows) insert.run([newKey, ...row]);
    } finally {
      insert.free();
    }
    report.conversations++;
    report.nodes += rows.length;
    if (hasFileTables) report.lostFileChanges += salvageFileChanges(source, target, key, newKey, kept);
    if (hasImageTable) report.lostImages = (report.lostImages ?? 0) + salvageImages(source, target, key, newKey, kept);
  }
  return report;
}

/** Copies one content into `target` if it reads back with its hash; whether it is there now. */
function salvageContent(source: Database, target: Database, hash: SqlValue): boolean {
  if (typeof hash !== 'string') return false;
  if (target.exec('SELECT 1 FROM file_contents WHERE hash = ?', [hash]).length) return true;
  const [compression, data] = readRows(source, 'SELECT compression, data FROM file_contents WHERE hash = ?', [hash]).rows[0] ?? [];
  let content: Uint8Array;
  try {
    content = storedBytes(compression ?? null, data as Uint8Array);
  } catch {
    return false;
  }
  if (!(data instanceof Uint8Array) || createHash('sha256').update(content).digest('hex') !== hash) return false;
  target.run('INSERT INTO file_contents (hash, size, compression, data) VALUES (?, ?, ?, ?)', [hash, content.length, compression ?? null, data]);
  return true;
}

/** Copies the file changes of the kept nodes of one conversation; returns how many of theirs were lost. */
function salvageFileChanges(source: Database, target: Database, oldKey: SqlValue, newKey: number, kept: Set<number>): number {
  // Schema 2.3 added the folder; a damaged older file has none (NULL: unknown).
  const hasFolder = readRows(source, "SELECT 1 FROM pragma_table_info('file_changes') WHERE name = 'folder'", []).rows.length > 0;
  const changes = readRows(source, `SELECT seq, path, position, before_hash, after_hash, added, removed, ${hasFolder ? 'folder' : 'NULL'} FROM file_changes WHERE conversation = ?`, [oldKey]);
  let lost = changes.failed ? 1 : 0;
  for (const [seq, path, position, before, after, added, removed, folder] of changes.rows) {
    // The changes of a node that was not kept go with it.
    if (typeof seq !== 'number' || !kept.has(seq)) continue;
    const usable =
      typeof path === 'string' && (before !== null || after !== null) &&
      (before === null || salvageContent(source, target, before)) && (after === null || salvageContent(source, target, after));
    if (!usable) {
      lost++;
      continue;
    }
    target.run('INSERT OR IGNORE INTO file_changes (conversation, seq, path, position, before_hash, after_hash, added, removed, folder) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
      newKey,
      seq,
      path,
      typeof position === 'number' ? position : 0,
      before,
      after,
      typeof added === 'number' ? added : null,
      typeof removed === 'number' ? removed : null,
      typeof folder === 'string' ? folder : null,
    ]);
  }
  return lost;
}

/** Copies the images of the kept nodes of one conversation whose bytes read back whole; returns how many were lost. */
function salvageImages(source: Database, target: Database, oldKey: SqlValue, newKey: number, kept: Set<number>): number {
  const images = readRows(source, 'SELECT seq, position, hash, mime, name, width, height FROM node_images WHERE conversation = ?', [oldKey]);
  let lost = images.failed ? 1 : 0;
  for (const [seq, position, hash, mime, name, width, height] of images.rows) {
    if (typeof seq !== 'number' || !kept.has(seq)) continue;
    if (typeof position !== 'number' || typeof mime !== 'string' || typeof name !== 'string' || !salvageContent(source, target, hash)) {
      lost++;
      continue;
    }
    target.run('INSERT OR IGNORE INTO node_images (conversation, seq, position, hash, mime, name, width, height) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      newKey, seq, position, hash, mime, name, typeof width === 'number' ? width : null, typeof height === 'number' ? height : null,
    ]);
  }
  return lost;
}

/** The store's generation as the damaged file names it, when that can still be read. */
export function salvageGeneration(source: Database): string | null {
  const { rows } = readRows(source, `SELECT value FROM store_meta WHERE key = 'generation'`, []);
  return rows.length && typeof rows[0][0] === 'string' ? rows[0][0] : null;
}

/** What a salvage could not keep, in a sentence. */
export function describeLosses(report: SalvageReport): string {
  const parts: string[] = [];
  if (report.lostConversations) parts.push(`${report.lostConversations} conversation(s) could not be read`);
  if (report.partialConversations) parts.push(`${report.partialConversations} conversation(s) lost the messages in the damaged part`);
  if (report.lostNodes) parts.push(`${report.lostNodes} message(s) were left out because they or their parent could not be used`);
  if (report.repairedNodes) parts.push(`${report.repairedNodes} message(s) kept their text but lost their details`);
  if (report.lostFileChanges) parts.push(`${report.lostFileChanges} file checkpoint(s) could not be read and were left out`);
  if (report.lostImages) parts.push(`${report.lostImages} image(s) of messages could not be read and were left out`);
  return parts.length ? `${parts.join('; ')}.` : 'Nothing that was readable was lost.';
}
