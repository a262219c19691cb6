/**
 * The saved workspace index: one binary file (header JSON, term list, typed arrays, sha1 trailer),
 * written atomically, so reopening a workspace costs one read instead of re-indexing every file.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { StorageError } from '../errors';
import type { IndexSnapshot } from './invertedIndex';

const MAGIC = 'ARBORIX1';
const TRAILER = 20;

/** What a saved index holds: caller metadata (JSON) and the index arrays. */
export interface SavedIndex<M> {
  meta: M;
  snapshot: IndexSnapshot;
}

interface Header<M> {
  meta: M;
  termsBytes: number;
  lengths: number[];
}

function pad8(n: number): number {
  return (n + 7) & ~7;
}

/** Writes `data` to `file` through a temporary file and a rename, so a crash never leaves half a file. */
export async function writeIndexFile<M>(file: string, data: SavedIndex<M>): Promise<void> {
  const s = data.snapshot;
  const terms = Buffer.from(s.terms.join('\n'), 'utf8');
  const arrays: ArrayBufferView[] = [s.termOffsets, s.postDocs, s.postTfs, s.chunkFile, s.chunkStart, s.chunkEnd, s.chunkLen];
  const header: Header<M> = { meta: data.meta, termsBytes: terms.length, lengths: arrays.map((a) => (a as Int32Array).length) };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  let size = pad8(8 + 4 + headerBytes.length) + pad8(terms.length);
  for (const a of arrays) size += pad8(a.byteLength);
  const out = Buffer.alloc(size + TRAILER);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, 8);
  headerBytes.copy(out, 12);
  let pos = pad8(12 + headerBytes.length);
  terms.copy(out, pos);
  pos += pad8(terms.length);
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), pos);
    pos += pad8(a.byteLength);
  }
  createHash('sha1').update(out.subarray(0, size)).digest().copy(out, size);

  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(tmp, out);
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw new StorageError(`Could not save the workspace index to ${file}: ${String(err)}. Check that the folder is writable and the disk not full.`, { cause: err });
  }
}

/** Thrown for an index file that is truncated, altered or of another format. */
export class CorruptIndexFileError extends StorageError {}

/**
 * Reads a saved index; `undefined` when the file does not exist, `CorruptIndexFileError` when it
 * cannot be trusted (the caller then rebuilds).
 */
export async function readIndexFile<M>(file: string): Promise<SavedIndex<M> | undefined> {
  let buf: Buffer;
  try {
    buf = await fs.readFile(file);
  } catch (err: any) {
    if (err?.code === 'ENOENT') return undefined;
    throw new StorageError(`Could not read the workspace index ${file}: ${String(err)}`, { cause: err });
  }
  const bad = (why: string) => new CorruptIndexFileError(`The workspace index ${file} is unusable (${why}); it will be rebuilt.`);
  if (buf.length < 12 + TRAILER || buf.toString('latin1', 0, 8) !== MAGIC) throw bad('not an Arbor index file');
  const size = buf.length - TRAILER;
  const sum = createHash('sha1').update(buf.subarray(0, size)).digest();
  if (!sum.equals(buf.subarray(size))) throw bad('checksum mismatch');
  const headerLen = buf.readUInt32LE(8);
  let header: Header<M>;
  try {
    header = JSON.parse(buf.toString('utf8', 12, 12 + headerLen)) as Header<M>;
  } catch {
    throw bad('header is not JSON');
  }
  let pos = pad8(12 + headerLen);
  const termsText = buf.toString('utf8', pos, pos + header.termsBytes);
  pos += pad8(header.termsBytes);
  const ctors = [Uint32Array, Int32Array, Uint16Array, Int32Array, Int32Array, Int32Array, Int32Array] as const;
  const arrays = ctors.map((C, i) => {
    const bytes = header.lengths[i] * C.BYTES_PER_ELEMENT;
    if (pos + bytes > size) throw bad('truncated');
    const copy = new Uint8Array(bytes);
    copy.set(buf.subarray(pos, pos + bytes));
    pos += pad8(bytes);
    return new C(copy.buffer);
  });
  const terms = header.termsBytes === 0 ? [] : termsText.split('\n');
  const [termOffsets, postDocs, postTfs, chunkFile, chunkStart, chunkEnd, chunkLen] = arrays as [Uint32Array, Int32Array, Uint16Array, Int32Array, Int32Array, Int32Array, Int32Array];
  if (termOffsets.length !== terms.length + 1 || termOffsets[terms.length] !== postDocs.length || postTfs.length !== postDocs.length) throw bad('inconsistent postings');
  return { meta: header.meta, snapshot: { terms, termOffsets, postDocs, postTfs, chunkFile, chunkStart, chunkEnd, chunkLen } };
}
