/** The hashes Arbor keeps of files it reads (prompts, flows, instructions, schemas): sha256 and git's blob id. */
import { createHash } from 'node:crypto';

/** sha256 of text or bytes, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The id `git hash-object` gives a file: sha1 of `blob <size>\0` followed by the bytes. Computed here so a
 * node can record which version of a template produced it without git being installed.
 */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}
