import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePng } from '../../../test/fixtures/pngImages';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import type { NewNode } from './storage';
import { sampleConversation, sampleNode } from './storageTestData';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
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

// The cases every store shares are in test/unit/storage/fileStorageSuite.ts, run on this store by
// test/unit/storage/sqlJsStorageSuite.test.ts.

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
