import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePng } from '../../../test/fixtures/pngImages';
import { InvalidArgumentError } from '../errors';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import type { NewNode } from './storage';
import { sampleConversation, sampleNode } from './storageTestData';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));
const RED = makePng(64, 48, 1);
const BLUE = makePng(32, 32, 2);

function newNode(parentId: string, seed: number): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, 100, seed);
  return node;
}

/** Adds a child of `parentId` with `images` and returns its id. */
async function addWithImages(storage: SqlJsConversationStorage, conversationId: string, parentId: string, seed: number, images: Uint8Array[]): Promise<string> {
  const { addedNodes } = await storage.applyChange(conversationId, {
    addNodes: [newNode(parentId, seed)],
    addImages: [images.map((bytes, i) => ({ bytes, name: `shot-${seed}-${i}.png` }))],
    currentIsLastAdded: true,
    updatedAt: new Date().toISOString(),
  });
  return addedNodes[0].nodeId;
}

/** What the closed store holds, read with plain sql.js. */
async function tables(file: string): Promise<{ contents: Array<[string, number, string | null, number]>; images: number }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await fs.readFile(file));
  try {
    const contents = (db.exec('SELECT hash, size, compression, length(data) FROM file_contents ORDER BY hash')[0]?.values ?? []) as Array<[string, number, string | null, number]>;
    return { contents, images: Number(db.exec('SELECT count(*) FROM node_images')[0].values[0][0]) };
  } finally {
    db.close();
  }
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-node-images-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe.each([
  ['in memory', () => SqlJsConversationStorage.open()],
  ['file-backed', () => SqlJsConversationStorage.open(path.join(dir, 'arbor.db'))],
])('images of messages, %s store', (_label, open) => {
  it('stores a node with its images in order, with type, name, pixel size and bytes, and never as a message', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const node = await addWithImages(storage, 'c', 'n1', 5, [RED, BLUE]);
    expect(await storage.nodeImages('c', node)).toEqual([
      { hash: sha(RED), mime: 'image/png', name: 'shot-5-0.png', size: RED.length, width: 64, height: 48 },
      { hash: sha(BLUE), mime: 'image/png', name: 'shot-5-1.png', size: BLUE.length, width: 32, height: 32 },
    ]);
    expect(same(await storage.fileContent(sha(BLUE)), BLUE)).toBe(true);
    expect(await storage.nodeImages('c', 'n1')).toEqual([]);
    expect(Object.keys(await storage.imagesByNode('c'))).toEqual([node]);
    const state = await storage.loadConversation('c');
    expect(state?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', node]);
    expect(state?.nodes.some((n) => n.message.role.startsWith('arbor:'))).toBe(false);
    await storage.close();
  });

  it('refuses what is not an image, or more images than nodes, and stores nothing then', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const text = new Uint8Array(Buffer.from('not an image at all'));
    await expect(storage.applyChange('c', { addNodes: [newNode('n1', 1)], addImages: [[{ bytes: text, name: 'notes.png' }]], updatedAt: 't' })).rejects.toThrow(/notes\.png.*PNG, JPEG, GIF or WebP/);
    await expect(storage.applyChange('c', { addNodes: [], addImages: [[{ bytes: RED }]], updatedAt: 't' })).rejects.toThrow(InvalidArgumentError);
    expect((await storage.loadConversation('c'))?.nodes).toHaveLength(2);
    await storage.close();
  });

  it('stores the same image in two messages once, copies rows on fork, and collects bytes with the last row', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const a = await addWithImages(storage, 'c', 'n1', 1, [RED]);
    const b = await addWithImages(storage, 'c', a, 2, [RED, BLUE]);
    const side = await addWithImages(storage, 'c', a, 3, [makePng(8, 8, 9)]);
    expect((await storage.nodeImages('c', b)).map((i) => i.hash)).toEqual([sha(RED), sha(BLUE)]);

    await storage.applyChange('c', { deleteNodeIds: [side], updatedAt: new Date().toISOString() });
    expect(await storage.fileContent(sha(makePng(8, 8, 9)))).toBeNull();
    expect(Object.keys(await storage.imagesByNode('c'))).toEqual([a, b]);

    const partial = await storage.forkConversation('c', 'partial', { upToNodeId: a });
    expect(partial.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', a]);
    expect(await storage.imagesByNode('partial')).toEqual({ [a]: await storage.nodeImages('c', a) });
    await storage.forkConversation('c', 'whole');
    expect(await storage.imagesByNode('whole')).toEqual(await storage.imagesByNode('c'));

    expect(await storage.deleteConversation('c')).toBe(true);
    expect(await storage.deleteConversation('whole')).toBe(true);
    // `partial` still shows RED; BLUE went with the last conversation that had it.
    expect(same(await storage.fileContent(sha(RED)), RED)).toBe(true);
    expect(await storage.fileContent(sha(BLUE))).toBeNull();
    expect(await storage.deleteConversation('partial')).toBe(true);
    expect(await storage.fileContent(sha(RED))).toBeNull();
    await storage.close();
  });

  it('keeps bytes that an image and a file checkpoint share until neither refers to them', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const withImage = await addWithImages(storage, 'c', 'n1', 1, [RED]);
    const editor = await addWithImages(storage, 'c', 'n1', 2, []);
    await storage.recordFileChanges('c', editor, [{ path: 'media/red.png', before: null, after: RED }]);
    // The file change goes (its node is deleted): the image still needs the bytes.
    await storage.applyChange('c', { deleteNodeIds: [editor], updatedAt: new Date().toISOString() });
    expect(same(await storage.fileContent(sha(RED)), RED)).toBe(true);
    // And the other way round: a file change keeps bytes whose image was deleted.
    const editor2 = await addWithImages(storage, 'c', 'n1', 3, []);
    await storage.recordFileChanges('c', editor2, [{ path: 'media/red.png', before: null, after: RED }]);
    await storage.applyChange('c', { deleteNodeIds: [withImage], updatedAt: new Date().toISOString() });
    expect(same(await storage.fileContent(sha(RED)), RED)).toBe(true);
    await storage.recordFileChanges('c', editor2, [{ path: 'media/red.png', before: null, after: BLUE }]);
    expect(await storage.fileContent(sha(RED))).toBeNull();
    await storage.close();
  });
});

describe('images on disk', () => {
  it('journals each image once however many messages show it, keeps PNG bytes uncompressed, and replays after a crash', async () => {
    const file = path.join(dir, 'dedup.db');
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 1));
    let parent = '';
    for (let i = 0; i < 4; i++) parent = await addWithImages(writer, 'c', parent, i, [RED]);
    const journal = await fs.readFile(file + JOURNAL_SUFFIX, 'utf8');
    expect(journal.match(/"role":"arbor:file-content"/g)).toHaveLength(1);
    expect(journal.match(/"role":"arbor:node-image"/g)).toHaveLength(4);
    const expected = await writer.imagesByNode('c');
    // No close: another process opens what this one left, as after a kill.
    const reader = await SqlJsConversationStorage.open(file);
    expect(await reader.imagesByNode('c')).toEqual(expected);
    await reader.close();
    await writer.close();
    expect(await tables(file)).toEqual({ contents: [[sha(RED), RED.length, null, RED.length]], images: 4 });
  });

  it('reads images from a read-only store', async () => {
    const file = path.join(dir, 'ro.db');
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 2));
    const node = await addWithImages(writer, 'c', 'n1', 1, [BLUE]);
    await writer.close();
    const reader = await SqlJsConversationStorage.open(file, { readOnly: true });
    expect((await reader.nodeImages('c', node)).map((i) => i.name)).toEqual(['shot-1-0.png']);
    await reader.close();
  });
});
