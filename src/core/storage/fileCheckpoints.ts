/**
 * Writing file checkpoints: checks and hashes what a caller records, then builds the envelope nodes
 * that carry it through the journal (see `fileCheckpointSchema.ts` for why they are nodes). Hashing and
 * line counting happen before the store's lock; what depends on the stored rows (merging with a change
 * the node already has, which contents are new) is decided under it, after catching up.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import type { Database } from 'sql.js';
import { InvalidArgumentError } from '../errors';
import { ROOT_NODE_ID } from '../nodeIds';
import type { ConversationNode, Role } from '../types';
import { queryRows } from './conversationTables';
import { FILE_CHANGE_ENVELOPE, FILE_CONTENT_ENVELOPE } from './fileCheckpointSchema';
import { DEFLATE_RAW, nodeFileChangeRows, nodeHasFileChanges, readFileContent, storedHashes, type FileChangeRow } from './fileCheckpointQueries';
import { countLineChanges, type LineCounts } from './lineCounts';
import type { FileChange, FileVersion, RecordedFileChange } from './storage';

/** One content of a change, hashed, with its text when it is text. */
interface PreparedContent {
  hash: string;
  bytes: Uint8Array;
  /** The content as UTF-8 text, or null when it is binary (not UTF-8, or holding a NUL byte). */
  text: string | null;
}

/** A change checked and hashed, before the lock. */
export interface PreparedFileChange {
  path: string;
  /** The name of the workspace folder it is in; null when the caller did not say. */
  folder: string | null;
  before: PreparedContent | null;
  after: PreparedContent | null;
  /** Line counts from `before` to `after`; null when either is binary. */
  lines: LineCounts | null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text when they are UTF-8 without a NUL byte (kept byte for byte, a BOM included), else null. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function prepareContent(bytes: Uint8Array): PreparedContent {
  return { hash: createHash('sha256').update(bytes).digest('hex'), bytes, text: decodeText(bytes) };
}

/** Line counts between two contents (null = absent file); null when either is binary. */
function lineCounts(before: string | null | undefined, after: string | null | undefined): LineCounts | null {
  if (before === undefined || after === undefined) return null;
  return countLineChanges(before ?? '', after ?? '');
}

/** `before`/`after` as text for line counts: null for an absent file, undefined for a binary one. */
const textOf = (content: PreparedContent | null) => (content === null ? null : (content.text ?? undefined));

/**
 * Checks a workspace-relative checkpoint path: `/` separators, no empty, `.` or `..` segment, not
 * absolute. Used when a change is recorded and again when it is restored, since a stored row is only
 * as trustworthy as whoever could write the store (a teammate's SQL, a copied file).
 */
export function checkCheckpointPath(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(`${name} must be a non-empty workspace-relative path such as "src/app.ts".`);
  if (value.includes('\\') || value.startsWith('/') || /^[A-Za-z]:/.test(value) || value.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new InvalidArgumentError(`${name} "${value}" must be relative to the workspace, with "/" between folders and no "", "." or ".." segment (e.g. "src/app.ts").`);
  }
  return value;
}

/** Checks a workspace folder's name: a single path segment, not `.` or `..`; absent is null. */
export function checkFolderName(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..' || /[\\/]/.test(value)) {
    throw new InvalidArgumentError(`${name} must be the name of a workspace folder (one path segment, such as "app"); got ${JSON.stringify(value)}.`);
  }
  return value;
}

function checkBytes(value: unknown, name: string): Uint8Array | null {
  if (value === null) return null;
  if (!(value instanceof Uint8Array)) throw new InvalidArgumentError(`${name} must be the file's bytes (a Uint8Array) or null; got ${typeof value}.`);
  return value;
}

/**
 * Checks and hashes the changes a caller records. Changes that leave a file as it was are left out;
 * a path given twice, or a change without content on either side, is refused.
 */
export function prepareFileChanges(changes: unknown): PreparedFileChange[] {
  if (!Array.isArray(changes)) throw new InvalidArgumentError('changes must be an array of { path, before, after }.');
  const seen = new Set<string>();
  const prepared: PreparedFileChange[] = [];
  changes.forEach((change: Partial<FileChange> | null, i) => {
    if (typeof change !== 'object' || change === null) throw new InvalidArgumentError(`changes[${i}] must be an object { path, before, after }.`);
    const path = checkCheckpointPath(change.path, `changes[${i}].path`);
    if (seen.has(path)) throw new InvalidArgumentError(`changes holds "${path}" twice; record each file once per call, with its content before and after.`);
    seen.add(path);
    const beforeBytes = checkBytes(change.before, `changes[${i}].before`);
    const afterBytes = checkBytes(change.after, `changes[${i}].after`);
    if (beforeBytes === null && afterBytes === null) {
      throw new InvalidArgumentError(`changes[${i}] ("${path}") has neither a before nor an after content: give the bytes of at least one (null before = created, null after = deleted).`);
    }
    const before = beforeBytes && prepareContent(beforeBytes);
    const after = afterBytes && prepareContent(afterBytes);
    if (before && after && before.hash === after.hash) return;
    prepared.push({ path, folder: checkFolderName(change.folder, `changes[${i}].folder`), before, after, lines: lineCounts(textOf(before), textOf(after)) });
  });
  return prepared;
}

/** An envelope node (see `fileCheckpointSchema.ts`): the root's id, a reserved role, its data in the message. */
function envelope(role: string, content: string, fields: Record<string, unknown>, timestamp: string): ConversationNode {
  return { nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: role as Role, content, ...fields }, timestamp, metadata: {} };
}

/** Contents this small are kept as they are: deflating them saves next to nothing. */
const MIN_DEFLATE_BYTES = 256;

/**
 * The envelope of a new content: deflated when that saves at least a tenth (level 1: most of the gain
 * for a fraction of the time), carried as hex then; otherwise as is, as text when it is text.
 */
function contentEnvelope(content: PreparedContent, timestamp: string): ConversationNode {
  const { bytes, hash } = content;
  const deflated = bytes.byteLength >= MIN_DEFLATE_BYTES ? deflateRawSync(bytes, { level: 1 }) : undefined;
  const fields = (compression: string | null, encoding: 'utf8' | 'hex') => ({ fileContent: { hash, size: bytes.byteLength, compression, encoding } });
  if (deflated && deflated.byteLength <= bytes.byteLength * 0.9) return envelope(FILE_CONTENT_ENVELOPE, deflated.toString('hex'), fields(DEFLATE_RAW, 'hex'), timestamp);
  if (content.text !== null) return envelope(FILE_CONTENT_ENVELOPE, content.text, fields(null, 'utf8'), timestamp);
  return envelope(FILE_CONTENT_ENVELOPE, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'), fields(null, 'hex'), timestamp);
}

/** The fields of a `file_changes` row, as a change envelope carries them. */
interface ChangeFields {
  seq: number;
  position: number;
  before: string | null;
  after: string | null;
  added: number | null;
  removed: number | null;
  /** Schema 2.3: the workspace folder's name (absent when unknown; older triggers ignore it). */
  folder?: string;
}

function changeEnvelope(path: string, fields: ChangeFields, timestamp: string): ConversationNode {
  return envelope(FILE_CHANGE_ENVELOPE, path, { fileChange: fields }, timestamp);
}

/** Text of a stored content, undefined when it is binary or missing (then no line counts). */
function storedText(db: Database, hash: string): string | undefined {
  const bytes = readFileContent(db, hash);
  return bytes ? (decodeText(bytes) ?? undefined) : undefined;
}

const versionOf = (content: PreparedContent | null): FileVersion | null => (content === null ? null : { hash: content.hash, size: content.bytes.byteLength });

/**
 * The envelopes that record `changes` for node `seq`, given what is stored now (the caller holds the
 * lock and has caught up): contents not stored yet (each once), then one change per file. A path the
 * node already changed keeps its first `before` and position; when the result leaves the file as it
 * was, the trigger removes the row. Also returns the node's changes as they will be stored, which
 * saves reading them back.
 */
export function fileChangeEnvelopes(
  db: Database,
  conversationKey: number,
  seq: number,
  changes: PreparedFileChange[],
  timestamp: string,
): { envelopes: ConversationNode[]; stored: RecordedFileChange[] } {
  const earlierRows = nodeHasFileChanges(db, conversationKey, seq) ? nodeFileChangeRows(db, conversationKey, seq) : [];
  const existing = new Map(earlierRows.map((row) => [row.change.path, row]));
  const stored = new Map(earlierRows.map((row) => [row.change.path, row]));
  let nextPosition = Math.max(-1, ...[...existing.values()].map((row) => row.position)) + 1;
  const contents: ConversationNode[] = [];
  // Stored already, or carried by an earlier envelope of this entry.
  const present = storedHashes(db, changes.flatMap((change) => [change.before, change.after]).flatMap((content) => (content ? [content.hash] : [])));
  const carry = (content: PreparedContent | null) => {
    if (content && !present.has(content.hash)) {
      present.add(content.hash);
      contents.push(contentEnvelope(content, timestamp));
    }
  };
  const rows: ConversationNode[] = [];
  for (const change of changes) {
    const earlier = existing.get(change.path);
    let fields: ChangeFields;
    if (earlier) {
      const before = earlier.change.before?.hash ?? null;
      const beforeText = before === null ? null : storedText(db, before);
      const lines = before === (change.after?.hash ?? null) ? { added: 0, removed: 0 } : lineCounts(beforeText, textOf(change.after));
      fields = { seq, position: earlier.position, before, after: change.after?.hash ?? null, added: lines?.added ?? null, removed: lines?.removed ?? null };
      if (change.folder !== null) fields.folder = change.folder;
    } else {
      carry(change.before);
      fields = { seq, position: nextPosition++, before: change.before?.hash ?? null, after: change.after?.hash ?? null, added: change.lines?.added ?? null, removed: change.lines?.removed ?? null };
      if (change.folder !== null) fields.folder = change.folder;
    }
    carry(change.after);
    rows.push(changeEnvelope(change.path, fields, timestamp));
    const before = earlier ? earlier.change.before : versionOf(change.before);
    const after = versionOf(change.after);
    if (fields.before === fields.after) {
      stored.delete(change.path);
    } else {
      const kind = before === null ? 'created' : after === null ? 'deleted' : 'modified';
      stored.set(change.path, { seq, position: fields.position, change: { path: change.path, kind, before, after, linesAdded: fields.added, linesRemoved: fields.removed } });
    }
  }
  const order = (a: FileChangeRow, b: FileChangeRow) => a.position - b.position || (a.change.path < b.change.path ? -1 : a.change.path > b.change.path ? 1 : 0);
  return { envelopes: [...contents, ...rows], stored: [...stored.values()].sort(order).map((row) => row.change) };
}

/**
 * Envelopes that copy the stored changes of nodes `seqs` of one conversation to another (a fork):
 * the contents are stored already, so only the change rows travel.
 */
export function copiedFileChangeEnvelopes(db: Database, sourceKey: number, seqs: readonly number[], timestamp: string): ConversationNode[] {
  const rows = queryRows(
    db,
    `SELECT path, seq, position, before_hash, after_hash, added, removed, folder FROM file_changes
     WHERE conversation = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq, position`,
    [sourceKey, JSON.stringify(seqs)],
  );
  return rows.map(([path, seq, position, before, after, added, removed, folder]) =>
    changeEnvelope(
      String(path),
      { seq: Number(seq), position: Number(position), before: before as string | null, after: after as string | null, added: added as number | null, removed: removed as number | null, ...(folder === null ? {} : { folder: String(folder) }) },
      timestamp,
    ),
  );
}
