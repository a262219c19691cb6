import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError, StorageError } from '../errors';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import type { FileChange, NewNode } from './storage';
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
// A BOM, CRLF line ends and a non-ASCII letter must come back byte for byte.
const BOM_CRLF = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('caf\u00e9\r\nsecond\r\n')]);
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x00]);
const NOT_UTF8 = new Uint8Array([0x61, 0x62, 0xc3, 0x28, 0x0a]);

describe.each([
  ['in memory', () => SqlJsConversationStorage.open()],
  ['file-backed', () => SqlJsConversationStorage.open(path.join(dir, 'arbor.db'))],
])('file checkpoints, %s store', (_label, open) => {
  it('stores each file a node changed with its contents, hashes, sizes and line counts', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 3));
    const changes: FileChange[] = [
      { path: 'src/app.ts', before: TEXT_BEFORE, after: TEXT_AFTER },
      { path: 'docs/new.md', before: null, after: BOM_CRLF },
      { path: 'assets/logo.png', before: BINARY, after: null },
      { path: 'data/raw.txt', before: NOT_UTF8, after: bytes('ab\n') },
    ];
    const recorded = await storage.recordFileChanges('c', 'n2', changes);
    expect(recorded).toEqual([
      { path: 'src/app.ts', kind: 'modified', before: { hash: sha(TEXT_BEFORE), size: TEXT_BEFORE.length }, after: { hash: sha(TEXT_AFTER), size: TEXT_AFTER.length }, linesAdded: 2, linesRemoved: 2 },
      { path: 'docs/new.md', kind: 'created', before: null, after: { hash: sha(BOM_CRLF), size: BOM_CRLF.length }, linesAdded: 2, linesRemoved: 0 },
      { path: 'assets/logo.png', kind: 'deleted', before: { hash: sha(BINARY), size: BINARY.length }, after: null, linesAdded: null, linesRemoved: null },
      { path: 'data/raw.txt', kind: 'modified', before: { hash: sha(NOT_UTF8), size: NOT_UTF8.length }, after: { hash: sha(bytes('ab\n')), size: 3 }, linesAdded: null, linesRemoved: null },
    ]);
    expect(await storage.fileChanges('c', 'n2')).toEqual(recorded);
    expect(await storage.fileChanges('c', 'n1')).toEqual([]);
    expect(await storage.fileChangesByNode('c')).toEqual({ n2: recorded });
    for (const content of [TEXT_BEFORE, TEXT_AFTER, BOM_CRLF, BINARY, NOT_UTF8]) {
      expect(Buffer.from((await storage.fileContent(sha(content))) as Uint8Array).equals(Buffer.from(content))).toBe(true);
    }
    expect(await storage.fileContent('0'.repeat(64))).toBeNull();
    // The conversation itself is as it was: no envelope ever becomes a node.
    expect(await storage.loadConversation('c')).toEqual(sampleConversation('c', 3));
    await storage.close();
  });

  it('refuses what cannot be recorded, naming the argument, and skips a change that changes nothing', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const one = (change: Partial<FileChange>) => storage.recordFileChanges('c', 'n1', [change as FileChange]);
    for (const bad of ['/etc/passwd', '../outside.txt', 'a/../b', 'C:/x.txt', 'src\\app.ts', '', 'a//b', './a']) {
      await expect(one({ path: bad, before: null, after: bytes('x') })).rejects.toThrow(InvalidArgumentError);
    }
    await expect(one({ path: 'a.txt', before: null, after: null })).rejects.toThrow(/neither a before nor an after/);
    await expect(one({ path: 'a.txt', before: null, after: 'text' as unknown as Uint8Array })).rejects.toThrow(/Uint8Array/);
    await expect(storage.recordFileChanges('c', 'n1', [{ path: 'a', before: null, after: bytes('1') }, { path: 'a', before: null, after: bytes('2') }])).rejects.toThrow(/twice/);
    await expect(storage.recordFileChanges('c', 'n9', [{ path: 'a', before: null, after: bytes('1') }])).rejects.toThrow(NodeNotFoundError);
    await expect(storage.recordFileChanges('missing', 'n1', [{ path: 'a', before: null, after: bytes('1') }])).rejects.toThrow(ConversationNotFoundError);
    await expect(storage.fileChanges('c', 'n9')).rejects.toThrow(NodeNotFoundError);
    await expect(storage.filesStateAt('missing', '')).rejects.toThrow(ConversationNotFoundError);
    expect(await one({ path: 'same.txt', before: bytes('same'), after: bytes('same') })).toEqual([]);
    // No message can pose as an envelope: their roles are not roles a node may have.
    const posing = { ...newNode('', 1), message: { role: 'arbor:file-content' as 'user', content: 'x' } };
    await expect(storage.applyChange('c', { addNodes: [posing], updatedAt: new Date().toISOString() })).rejects.toThrow(/role must be one of/);
    expect(await storage.fileChangesByNode('c')).toEqual({});
    await storage.close();
  });

  it('merges a second record of the same file into one change, and drops it when the file is back as it was', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const v = [bytes('one\n'), bytes('one\ntwo\n'), bytes('one\ntwo\nthree\n')];
    await storage.recordFileChanges('c', 'n1', [{ path: 'a.txt', before: v[0], after: v[1] }, { path: 'b.txt', before: null, after: v[0] }]);
    const merged = await storage.recordFileChanges('c', 'n1', [{ path: 'a.txt', before: v[1], after: v[2] }]);
    expect(merged.map((c) => [c.path, c.before?.hash, c.after?.hash, c.linesAdded, c.linesRemoved])).toEqual([
      ['a.txt', sha(v[0]), sha(v[2]), 2, 0],
      ['b.txt', undefined, sha(v[0]), 1, 0],
    ]);
    // What a record returns is what is stored.
    expect(await storage.fileChanges('c', 'n1')).toEqual(merged);
    // The intermediate version is referenced by nothing now.
    expect(await storage.fileContent(sha(v[1]))).toBeNull();
    // Created, then deleted within the same node: no change left for b.txt; a.txt back to v0: none either.
    const after = await storage.recordFileChanges('c', 'n1', [{ path: 'b.txt', before: v[0], after: null }, { path: 'a.txt', before: v[2], after: v[0] }]);
    expect(after).toEqual([]);
    expect(await storage.fileContent(sha(v[0]))).toBeNull();
    expect(await storage.fileContent(sha(v[2]))).toBeNull();
    await storage.close();
  });

  it('gives the state of the files after any node, the last change on its path winning, per branch', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 1));
    const v0 = bytes(lines(5));
    const v1 = bytes(lines(6));
    const v2 = bytes(lines(7));
    const v3 = bytes(lines(5, 'other'));
    const g = bytes('created on the trunk\n');
    const u1 = await add(storage, 'c', '', 1);
    const a1 = await add(storage, 'c', u1, 2);
    await storage.recordFileChanges('c', a1, [{ path: 'f.txt', before: v0, after: v1 }, { path: 'g.txt', before: null, after: g }]);
    const left = await add(storage, 'c', a1, 3);
    await storage.recordFileChanges('c', left, [{ path: 'f.txt', before: v1, after: v2 }]);
    const right = await add(storage, 'c', a1, 4);
    await storage.recordFileChanges('c', right, [{ path: 'f.txt', before: v1, after: v3 }, { path: 'g.txt', before: g, after: null }]);
    const below = await add(storage, 'c', right, 5);

    expect(await storage.filesStateAt('c', u1)).toEqual([]);
    expect(await storage.filesStateAt('c', a1)).toEqual([
      { path: 'f.txt', hash: sha(v1), nodeId: a1, originalHash: sha(v0) },
      { path: 'g.txt', hash: sha(g), nodeId: a1, originalHash: null },
    ]);
    expect(await storage.filesStateAt('c', left)).toEqual([
      { path: 'f.txt', hash: sha(v2), nodeId: left, originalHash: sha(v0) },
      { path: 'g.txt', hash: sha(g), nodeId: a1, originalHash: null },
    ]);
    const rightState = [
      { path: 'f.txt', hash: sha(v3), nodeId: right, originalHash: sha(v0) },
      { path: 'g.txt', hash: null, nodeId: right, originalHash: null },
    ];
    expect(await storage.filesStateAt('c', right)).toEqual(rightState);
    expect(await storage.filesStateAt('c', below)).toEqual(rightState);
    await storage.close();
  });

  it('removes the rows of deleted branches and conversations, copies them on fork, and collects unreferenced contents', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 2));
    const v = [0, 1, 2, 3].map((i) => bytes(lines(3 + i)));
    const a = await add(storage, 'c', 'n1', 1);
    await storage.recordFileChanges('c', a, [{ path: 'f.txt', before: v[0], after: v[1] }]);
    const b = await add(storage, 'c', a, 2);
    await storage.recordFileChanges('c', b, [{ path: 'f.txt', before: v[1], after: v[2] }]);
    const side = await add(storage, 'c', a, 3);
    const sideChild = await add(storage, 'c', side, 4);
    await storage.recordFileChanges('c', sideChild, [{ path: 'f.txt', before: v[1], after: v[3] }]);

    // Deleting the side branch (a node and its child) removes its change and the content only it used.
    await storage.applyChange('c', { deleteNodeIds: [side], updatedAt: new Date().toISOString() });
    expect(await storage.fileContent(sha(v[3]))).toBeNull();
    expect(await storage.fileContent(sha(v[1]))).not.toBeNull();
    expect(Object.keys(await storage.fileChangesByNode('c'))).toEqual([a, b]);

    // A fork up to `a` copies a's change only; a whole fork copies both.
    const partial = await storage.forkConversation('c', 'partial', { upToNodeId: a });
    expect(partial.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', a]);
    expect(await storage.fileChangesByNode('partial')).toEqual({ [a]: await storage.fileChanges('c', a) });
    await storage.forkConversation('c', 'whole');
    expect(await storage.fileChangesByNode('whole')).toEqual(await storage.fileChangesByNode('c'));
    expect(await storage.filesStateAt('whole', b)).toEqual(await storage.filesStateAt('c', b));

    // Contents live while any conversation refers to them.
    expect(await storage.deleteConversation('c')).toBe(true);
    expect(await storage.fileContent(sha(v[2]))).not.toBeNull();
    expect(await storage.deleteConversations({ conversationIds: ['whole'] })).toBe(1);
    expect(await storage.fileContent(sha(v[2]))).toBeNull();
    expect(await storage.fileContent(sha(v[0]))).not.toBeNull();
    expect(await storage.deleteConversation('partial')).toBe(true);
    for (const content of v) expect(await storage.fileContent(sha(content))).toBeNull();

    // Saving a conversation over a stored one replaces its file changes too.
    await storage.saveConversation(sampleConversation('again', 2));
    await storage.recordFileChanges('again', 'n1', [{ path: 'x', before: null, after: v[0] }]);
    await storage.saveConversation(sampleConversation('again', 2));
    expect(await storage.fileChangesByNode('again')).toEqual({});
    expect(await storage.fileContent(sha(v[0]))).toBeNull();
    await storage.close();
  });
});

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
