/**
 * The append-only journal beside a store's database file. Each line is one logical change with its
 * byte length and a checksum, so a line torn by a kill is recognised and ignored; the first line names
 * the generation of the database file the entries apply to.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { StorageError } from '../errors';
import type { ConversationNode, ConversationState } from '../types';

/**
 * A change as the store applied it: new nodes carry the ids and positions the store gave them and
 * the counter moves past them, so replaying the journal gives the same ids as the live write did.
 */
export interface StoredChange {
  /** New nodes; since schema 2.1 also file checkpoint envelopes, which never become nodes (see fileCheckpointSchema.ts). */
  insertNodes?: ConversationNode[];
  updateNodes?: ConversationNode[];
  deleteNodeIds?: string[];
  currentNodeId?: string;
  metadata?: Record<string, unknown>;
  nextNodeSeq?: number;
  updatedAt: string;
}

/** One logical change, as written to the journal and replayed on open. */
export type JournalEntry =
  | { op: 'save'; state: ConversationState }
  | { op: 'change'; conversationId: string; change: StoredChange }
  | { op: 'delete'; conversationIds: string[] };

/** The journal format this code writes: 2 holds schema 2.0 entries; 1 (schema 1.x) is only read, to migrate. */
export const JOURNAL_FORMAT = 2;

interface JournalHeader {
  op: 'header';
  format: number;
  generation: string;
}

/** What was read from a journal file. */
export interface JournalRead {
  /** Generation named by the header; null when the header is missing or damaged. */
  generation: string | null;
  /** The header's format (1 for journals of schema 1.x stores). */
  format: number;
  /** Byte offset just after the header line. */
  headerEnd: number;
  entries: { entry: JournalEntry; end: number }[];
  /**
   * Complete lines that failed their length or checksum test (a changed byte, inserted garbage):
   * their byte ranges. The entries after them are still read; the caller copies these aside.
   */
  damaged: { start: number; end: number }[];
  /** Offset after the last complete line (valid or damaged); a torn last line starts here. */
  validEnd: number;
  /** File size when it was read; larger than `validEnd` when the tail is torn or still being written. */
  size: number;
  stat: Stats;
}

const NEWLINE = 0x0a;

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A new random generation id, written into a database file and the header of its journal. */
export function newGeneration(): string {
  return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

/** Encodes one journal line: `J <bytes> <checksum> <json>\n`. */
function encodeJournalLine(value: JournalEntry | JournalHeader): Buffer {
  const json = JSON.stringify(value);
  return Buffer.from(`J ${Buffer.byteLength(json)} ${checksum(json)} ${json}\n`);
}

/** Decodes the line of `buf` that starts at `start`; null when it is incomplete or damaged. */
function decodeLine(buf: Buffer, start: number): { value: unknown; end: number } | null {
  const newline = buf.indexOf(NEWLINE, start);
  if (newline < 0) {
    return null;
  }
  const line = buf.toString('utf8', start, newline);
  const match = /^J (\d+) ([0-9a-f]{16}) /.exec(line);
  if (!match) {
    return null;
  }
  const json = line.slice(match[0].length);
  if (Buffer.byteLength(json) !== Number(match[1]) || checksum(json) !== match[2]) {
    return null;
  }
  try {
    return { value: JSON.parse(json), end: newline + 1 };
  } catch {
    return null;
  }
}

/**
 * Finds an intact entry at the end of a damaged line: when a changed byte swallowed a newline, two
 * lines run together and the second is still whole after the damage. Returns where it starts.
 */
function resync(buf: Buffer, start: number, newline: number): { value: unknown; start: number } | null {
  const line = buf.toString('latin1', start, newline);
  const marker = /J \d+ [0-9a-f]{16} /g;
  marker.lastIndex = 1;
  for (let match = marker.exec(line); match; match = marker.exec(line)) {
    const decoded = decodeLine(buf, start + match.index);
    if (decoded && decoded.end === newline + 1) return { value: decoded.value, start: start + match.index };
  }
  return null;
}

async function readRange(handle: fs.FileHandle, start: number, end: number): Promise<Buffer> {
  const buf = Buffer.alloc(Math.max(0, end - start));
  let filled = 0;
  while (filled < buf.length) {
    const { bytesRead } = await handle.read(buf, filled, buf.length - filled, start + filled);
    if (bytesRead === 0) {
      break;
    }
    filled += bytesRead;
  }
  return filled < buf.length ? buf.subarray(0, filled) : buf;
}

/**
 * Reads a journal. With `fromOffset` the entries after that byte offset are returned; without it,
 * all of them. Returns null when the file does not exist.
 */
export async function readJournal(filePath: string, fromOffset?: number): Promise<JournalRead | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(filePath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      throw new StorageError(`The journal path ${filePath} is a folder, not a file. Arbor keeps its journal there: move the folder away and open the store again.`);
    }
    const size = stat.size;
    const head = await readRange(handle, 0, Math.min(size, 4096));
    const header = decodeLine(head, 0);
    const headerValue = header?.value as Partial<JournalHeader> | undefined;
    if (!header || headerValue?.op !== 'header' || typeof headerValue.generation !== 'string') {
      return { generation: null, format: 0, headerEnd: 0, entries: [], damaged: [], validEnd: 0, size, stat };
    }
    const start = Math.max(fromOffset ?? header.end, header.end);
    const data = await readRange(handle, start, size);
    const entries: JournalRead['entries'] = [];
    const damaged: JournalRead['damaged'] = [];
    let position = 0;
    // Each line stands alone: a damaged one is skipped and recorded, and reading goes on after it.
    // Only a last line without its newline (a write a kill cut short) ends the read.
    for (let newline = data.indexOf(NEWLINE, position); newline >= 0; newline = data.indexOf(NEWLINE, position)) {
      const line = decodeLine(data, position);
      if (line) {
        entries.push({ entry: line.value as JournalEntry, end: start + line.end });
      } else {
        const recovered = resync(data, position, newline);
        if (recovered) {
          damaged.push({ start: start + position, end: start + recovered.start });
          entries.push({ entry: recovered.value as JournalEntry, end: start + newline + 1 });
        } else {
          damaged.push({ start: start + position, end: start + newline + 1 });
        }
      }
      position = newline + 1;
    }
    const format = typeof headerValue.format === 'number' ? headerValue.format : 1;
    return { generation: headerValue.generation, format, headerEnd: header.end, entries, damaged, validEnd: start + position, size, stat };
  } finally {
    await handle.close();
  }
}

/** Flushes a directory entry so that a rename or a new file survives a power cut (best effort). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or sync a directory; the rename is still atomic there.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** Writes `data` to a temporary file beside `target`, flushes it, and renames it over `target`. */
export async function writeFileAtomic(target: string, data: Uint8Array): Promise<void> {
  const temp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await fs.open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    // A full disk (ENOSPC) must not be left fuller by half a copy: the next try starts over.
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(target));
}

/** Replaces the journal with an empty one for `generation`; returns the offset after its header. */
export async function resetJournal(filePath: string, generation: string): Promise<number> {
  const header = encodeJournalLine({ op: 'header', format: JOURNAL_FORMAT, generation });
  await writeFileAtomic(filePath, header);
  return header.length;
}

/**
 * Copies damaged journal lines to `<journal>.damaged-<time>` (they may still be repaired by hand)
 * and returns that file's path.
 */
export async function preserveDamagedLines(filePath: string, ranges: readonly { start: number; end: number }[]): Promise<string> {
  const handle = await fs.open(filePath, 'r');
  let data: Buffer;
  try {
    data = Buffer.concat(await Promise.all(ranges.map((r) => readRange(handle, r.start, r.end))));
  } finally {
    await handle.close();
  }
  const target = `${filePath}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await writeFileAtomic(target, data);
  return target;
}

/**
 * A kill can only leave one partial last line (no newline). Bytes past the valid part that hold a
 * newline mean damage in the middle of the journal: copy them aside before they are cut off, so the
 * changes in them can still be recovered by hand.
 */
async function preserveDamagedTail(filePath: string, handle: fs.FileHandle, offset: number, size: number): Promise<void> {
  const tail = await readRange(handle, offset, size);
  if (!tail.includes(NEWLINE)) {
    return;
  }
  const target = `${filePath}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await writeFileAtomic(target, tail);
}

/**
 * Appends entries at `offset` (the end of the valid part), cutting off a torn tail first, and
 * flushes them to disk before returning the new end. The caller holds the write lock.
 */
export async function appendJournal(filePath: string, offset: number, entries: JournalEntry[]): Promise<number> {
  const data = Buffer.concat(entries.map((entry) => encodeJournalLine(entry)));
  const handle = await fs.open(filePath, 'r+');
  try {
    const { size } = await handle.stat();
    if (size > offset) {
      await preserveDamagedTail(filePath, handle, offset, size);
    }
    if (size !== offset) {
      await handle.truncate(offset);
    }
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written, offset + written);
      written += bytesWritten;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return offset + data.length;
}
