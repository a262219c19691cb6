/**
 * Writing and reading the images of messages (schema 2.2, `nodeImageSchema.ts`): hashing what a caller
 * attaches, the envelopes that carry it through the journal, and the queries that read it back.
 */
import { createHash } from 'node:crypto';
import type { Database, SqlValue } from 'sql.js';
import { InvalidArgumentError } from '../errors';
import { checkImages, type CheckedImage } from '../images/imageInfo';
import { formatNodeId, ROOT_NODE_ID } from '../nodeIds';
import type { ConversationNode, ConversationState, Role } from '../types';
import { queryRows, queryRowsCached, seqOf } from './conversationTables';
import { FILE_CONTENT_ENVELOPE } from './fileCheckpointSchema';
import { storedHashes } from './fileCheckpointQueries';
import { NODE_IMAGE_ENVELOPE } from './nodeImageSchema';
import type { ConversationChange, StoredImage } from './storage';

/** An image checked and hashed, before the lock. */
export interface PreparedImage extends CheckedImage {
  hash: string;
}

/** Hashes checked images (sha-256 of the bytes: the key their bytes are stored under). */
export function prepareImages(images: readonly CheckedImage[]): PreparedImage[] {
  return images.map((image) => ({ ...image, hash: createHash('sha256').update(image.bytes).digest('hex') }));
}

/** Checks and hashes the images of the nodes a change adds (before the lock); undefined when it has none. */
export function prepareChangeImages(change: ConversationChange): PreparedImage[][] | undefined {
  if (change.addImages === undefined) return undefined;
  if (!Array.isArray(change.addImages) || change.addImages.length > (change.addNodes?.length ?? 0)) {
    throw new InvalidArgumentError('change.addImages must be an array with at most one entry (the images, or undefined) per node of change.addNodes.');
  }
  // Sizes are the caller's to limit (arbor.images.maxBytes): the store takes any size it can hold.
  return change.addImages.map((images) => (images === undefined ? [] : prepareImages(checkImages(images, Number.POSITIVE_INFINITY))));
}

/**
 * A state to save whose messages carry images inline (`message.images`, base64 as dataknobs writes them,
 * e.g. an imported file): the images taken out of the messages, checked and hashed, by node id, and the
 * state without them. Undefined when no message has images.
 */
export function extractStateImages(state: ConversationState): { state: ConversationState; images: Map<string, PreparedImage[]> } | undefined {
  if (!state.nodes.some((node) => node.message.images?.length)) return undefined;
  const images = new Map<string, PreparedImage[]>();
  const nodes = state.nodes.map((node) => {
    const { images: inline, ...message } = node.message;
    if (!inline?.length) return node;
    const inputs = inline.map((base64, i) => ({ base64, name: `image-${i + 1}` }));
    try {
      images.set(node.nodeId, prepareImages(checkImages(inputs, Number.POSITIVE_INFINITY)).map((image, i) => ({ ...image, name: `${inputs[i].name}.${image.mime.slice(6).replace('jpeg', 'jpg')}` })));
    } catch (error) {
      throw new InvalidArgumentError(`Message "${node.nodeId}": ${error instanceof Error ? error.message : String(error)}`);
    }
    return { ...node, message };
  });
  return { state: { ...state, nodes }, images };
}

/** The envelopes that store the images `extractStateImages` took out of a state's messages. */
export function stateImageEnvelopes(db: Database, images: Map<string, PreparedImage[]>, timestamp: string): ConversationNode[] {
  const present = new Set<string>();
  return [...images].flatMap(([nodeId, list]) => nodeImageEnvelopes(db, seqOf(nodeId), list, timestamp, present));
}

function envelope(role: string, content: string, fields: Record<string, unknown>, timestamp: string): ConversationNode {
  return { nodeId: ROOT_NODE_ID, parentId: null, position: 0, message: { role: role as Role, content, ...fields }, timestamp, metadata: {} };
}

/** The fields of a `node_images` row, as an image envelope carries them (the name is its content). */
interface ImageFields {
  seq: number;
  position: number;
  hash: string;
  mime: string;
  width: number | null;
  height: number | null;
}

const imageEnvelope = (name: string, fields: ImageFields, timestamp: string) => envelope(NODE_IMAGE_ENVELOPE, name, { nodeImage: fields }, timestamp);

/**
 * The envelopes that store `images` for node `seq` (the caller holds the lock and has caught up; the
 * node may be added earlier in the same entry): each content not stored yet, once, kept as it is
 * (images are compressed already), then one row per image. `present` holds hashes already stored or
 * carried by this entry, and grows.
 */
export function nodeImageEnvelopes(db: Database, seq: number, images: readonly PreparedImage[], timestamp: string, present = new Set<string>()): ConversationNode[] {
  for (const hash of storedHashes(db, images.map((image) => image.hash).filter((hash) => !present.has(hash)))) present.add(hash);
  const out: ConversationNode[] = [];
  for (const image of images) {
    if (!present.has(image.hash)) {
      present.add(image.hash);
      const hex = Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength).toString('hex');
      out.push(envelope(FILE_CONTENT_ENVELOPE, hex, { fileContent: { hash: image.hash, size: image.bytes.byteLength, compression: null, encoding: 'hex' } }, timestamp));
    }
  }
  images.forEach((image, position) => {
    out.push(imageEnvelope(image.name, { seq, position, hash: image.hash, mime: image.mime, width: image.width, height: image.height }, timestamp));
  });
  return out;
}

/** Envelopes that copy the image rows of nodes `seqs` of one conversation to another (a fork): the bytes are stored already. */
export function copiedImageEnvelopes(db: Database, sourceKey: number, seqs: readonly number[], timestamp: string): ConversationNode[] {
  const rows = queryRows(
    db,
    `SELECT seq, position, hash, mime, name, width, height FROM node_images
     WHERE conversation = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq, position`,
    [sourceKey, JSON.stringify(seqs)],
  );
  return rows.map(([seq, position, hash, mime, name, width, height]) =>
    imageEnvelope(String(name), { seq: Number(seq), position: Number(position), hash: String(hash), mime: String(mime), width: width as number | null, height: height as number | null }, timestamp),
  );
}

const SELECT_IMAGES = `SELECT i.seq, i.hash, i.mime, i.name, i.width, i.height, c.size FROM node_images i JOIN file_contents c ON c.hash = i.hash`;

function toImage([, hash, mime, name, width, height, size]: SqlValue[]): StoredImage {
  return { hash: String(hash), mime: String(mime), name: String(name), size: Number(size), width: width === null ? null : Number(width), height: height === null ? null : Number(height) };
}

/** The images of one node, in the order they were attached. */
export function nodeImageRows(db: Database, conversationKey: number, seq: number): StoredImage[] {
  return queryRowsCached(db, `${SELECT_IMAGES} WHERE i.conversation = ? AND i.seq = ? ORDER BY i.position`, [conversationKey, seq]).map(toImage);
}

/** Every node of a conversation that has images, by node id. */
export function conversationImages(db: Database, conversationKey: number): Record<string, StoredImage[]> {
  const byNode: Record<string, StoredImage[]> = {};
  for (const row of queryRows(db, `${SELECT_IMAGES} WHERE i.conversation = ? ORDER BY i.seq, i.position`, [conversationKey])) {
    (byNode[formatNodeId(Number(row[0]))] ??= []).push(toImage(row));
  }
  return byNode;
}
