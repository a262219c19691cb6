import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../errors';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import type { NewNode } from './storage';
import { sampleConversation, sampleNode } from './storageTestData';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');

function newNode(parentId: string, seed: number): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, 100, seed);
  return node;
}

/** Adds a child of `parentId` and returns its id. */
async function add(storage: SqlJsConversationStorage, conversationId: string, parentId: string, seed: number): Promise<string> {
  const { addedNodes } = await storage.applyChange(conversationId, { addNodes: [newNode(parentId, seed)], currentIsLastAdded: true, updatedAt: new Date().toISOString() });
  return addedNodes[0].nodeId;
}

/** What the closed store's file tables hold, read with plain sql.js: contents, their sizes and stored bytes, changes. */
async function storedContents(file: string): Promise<{ count: number; bytes: number; storedBytes: number; changes: number }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await fs.readFile(file));
  try {
    const [count, total, stored] = db.exec('SELECT count(*), coalesce(sum(size), 0), coalesce(sum(length(data)), 0) FROM file_contents')[0].values[0];
    const changes = db.exec('SELECT count(*) FROM file_changes')[0].values[0][0];
    return { count: Number(count), bytes: Number(total), storedBytes: Number(stored), changes: Number(changes) };
  } finally {
    db.close();
  }
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-file-checkpoints-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const TEXT_BEFORE = bytes(lines(20));
const TEXT_AFTER = bytes(lines(20).replace('line 3\n', 'line three\nline 3b\n').replace('line 17\n', ''));
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x00]);

// The cases every store shares (record, merge, state at a node, delete, fork, collection) are in
// test/unit/storage/fileStorageSuite.ts, run on this store by test/unit/storage/sqlJsStorageSuite.test.ts.

describe('file checkpoints on disk', () => {
  it('stores ten edits of one file as its distinct versions only, once each in the journal and the file', async () => {
    const file = path.join(dir, 'dedup.db');
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation(sampleConversation('c', 1));
    // Ten edits that go back and forth: versions 0..5 then back down to 1, so 6 distinct contents.
    const order = [0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 2];
    const version = (i: number) => bytes(`${lines(200, 'stable')}edit ${i}\n`);
    let parent = '';
    for (let e = 0; e < 10; e++) {
      parent = await add(storage, 'c', parent, e);
      await storage.recordFileChanges('c', parent, [{ path: 'src/big.ts', before: version(order[e]), after: version(order[e + 1]) }]);
    }
    // Each content travelled once through the journal, however many changes refer to it.
    const journal = await fs.readFile(file + JOURNAL_SUFFIX, 'utf8');
    expect(journal.match(/"role":"arbor:file-content"/g)).toHaveLength(6);
    await storage.close();
    const distinct = [0, 1, 2, 3, 4, 5].reduce((sum, i) => sum + version(i).length, 0);
    const stored = await storedContents(file);
    expect(stored).toMatchObject({ count: 6, bytes: distinct, changes: 10 });
    // Source text is kept deflated: less than the contents themselves.
    expect(stored.storedBytes).toBeLessThan(distinct / 2);

    const reopened = await SqlJsConversationStorage.open(file);
    expect(reopened.warnings).toEqual([]);
    const state = await reopened.filesStateAt('c', parent);
    expect(state).toEqual([{ path: 'src/big.ts', hash: sha(version(2)), nodeId: parent, originalHash: sha(version(0)) }]);
    await reopened.close();
  });

  it('keeps compressible contents deflated and the rest as they are, and reads both back byte for byte', async () => {
    const file = path.join(dir, 'forms.db');
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation(sampleConversation('c', 2));
    const noise = new Uint8Array(randomBytes(4096));
    const text = bytes(lines(400));
    const small = bytes('tiny\n');
    await storage.recordFileChanges('c', 'n1', [
      { path: 'noise.bin', before: null, after: noise },
      { path: 'big.txt', before: null, after: text },
      { path: 'small.txt', before: null, after: small },
    ]);
    await storage.close();
    const SQL = await initSqlJs();
    const db = new SQL.Database(await fs.readFile(file));
    const forms = Object.fromEntries(db.exec('SELECT hash, compression, length(data) FROM file_contents')[0].values.map(([hash, compression, length]) => [hash, [compression, length]]));
    db.close();
    expect(forms[sha(noise)]).toEqual([null, noise.length]);
    expect(forms[sha(small)]).toEqual([null, small.length]);
    expect(forms[sha(text)][0]).toBe('deflate-raw');
    expect(forms[sha(text)][1]).toBeLessThan(text.length / 2);
    const reopened = await SqlJsConversationStorage.open(file);
    for (const content of [noise, text, small]) expect(Buffer.from((await reopened.fileContent(sha(content))) as Uint8Array).equals(Buffer.from(content))).toBe(true);
    await reopened.close();
  });

  it('replays file changes from the journal after a crash, and keeps them through a checkpoint', async () => {
    const file = path.join(dir, 'replay.db');
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 2));
    await writer.recordFileChanges('c', 'n1', [{ path: 'a.bin', before: null, after: BINARY }, { path: 'b.txt', before: TEXT_BEFORE, after: TEXT_AFTER }]);
    const expected = await writer.fileChanges('c', 'n1');
    // No close: a second process opens what the first left, as after a kill.
    const reader = await SqlJsConversationStorage.open(file);
    expect(await reader.fileChanges('c', 'n1')).toEqual(expected);
    await reader.checkpoint();
    await writer.recordFileChanges('c', 'n1', [{ path: 'c.txt', before: null, after: bytes('late\n') }]);
    expect((await reader.fileChanges('c', 'n1')).map((c) => c.path)).toEqual(['a.bin', 'b.txt', 'c.txt']);
    await reader.close();
    await writer.close();
    const again = await SqlJsConversationStorage.open(file);
    expect(Buffer.from((await again.fileContent(sha(BINARY))) as Uint8Array).equals(Buffer.from(BINARY))).toBe(true);
    expect((await again.fileChanges('c', 'n1')).map((c) => c.path)).toEqual(['a.bin', 'b.txt', 'c.txt']);
    await again.close();
  });

  it('reads file checkpoints from a read-only store and refuses to record them', async () => {
    const file = path.join(dir, 'ro.db');
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 2));
    await writer.recordFileChanges('c', 'n1', [{ path: 'a.txt', before: null, after: bytes('a\n') }]);
    await writer.close();
    const reader = await SqlJsConversationStorage.open(file, { readOnly: true });
    expect((await reader.fileChanges('c', 'n1')).map((c) => c.kind)).toEqual(['created']);
    await expect(reader.recordFileChanges('c', 'n1', [{ path: 'b.txt', before: null, after: bytes('b') }])).rejects.toThrow(StorageError);
    await reader.close();
  });
});
