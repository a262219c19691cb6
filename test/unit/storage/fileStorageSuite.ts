/**
 * The file changes and images of nodes, as every `ConversationStorage` must keep them: the cases of the
 * sql.js store's fileCheckpoints.test.ts and nodeImages.test.ts that use only the interface, run on the
 * sql.js store (`sqlJsStorageSuite.test.ts`) and on the team store once its file store is built
 * (`postgres/postgresStorageSuite.test.ts`). What is only the sql.js store's (its journal, deflated
 * contents on disk, read-only files) stays beside it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError } from '../../../src/core/errors';
import type { ConversationStorage, FileChange, NewNode } from '../../../src/core/storage/storage';
import { sampleConversation, sampleNode } from '../../../src/core/storage/storageTestData';
import { makePng } from '../../fixtures/pngImages';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));
const RED = makePng(64, 48, 1);
const BLUE = makePng(32, 32, 2);

const TEXT_BEFORE = bytes(lines(20));
const TEXT_AFTER = bytes(lines(20).replace('line 3\n', 'line three\nline 3b\n').replace('line 17\n', ''));
// A BOM, CRLF line ends and a non-ASCII letter must come back byte for byte.
const BOM_CRLF = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('caf\u00e9\r\nsecond\r\n')]);
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x00]);
const NOT_UTF8 = new Uint8Array([0x61, 0x62, 0xc3, 0x28, 0x0a]);

function newNode(parentId: string, seed: number): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, 100, seed);
  return node;
}

/** Adds a child of `parentId` and returns its id. */
async function add(storage: ConversationStorage, conversationId: string, parentId: string, seed: number): Promise<string> {
  const { addedNodes } = await storage.applyChange(conversationId, { addNodes: [newNode(parentId, seed)], currentIsLastAdded: true, updatedAt: new Date().toISOString() });
  return addedNodes[0].nodeId;
}

/** Adds a child of `parentId` with `images` and returns its id. */
async function addWithImages(storage: ConversationStorage, conversationId: string, parentId: string, seed: number, images: Uint8Array[]): Promise<string> {
  const { addedNodes } = await storage.applyChange(conversationId, {
    addNodes: [newNode(parentId, seed)],
    addImages: [images.map((bytes, i) => ({ bytes, name: `shot-${seed}-${i}.png` }))],
    currentIsLastAdded: true,
    updatedAt: new Date().toISOString(),
  });
  return addedNodes[0].nodeId;
}

/** Registers the shared file and image cases; `open` gives a new, empty store for each case. */
export function fileStorageSuite(open: () => Promise<ConversationStorage>): void {
  describe('file checkpoints', () => {
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

  it('keeps the workspace folder of the last change on the path, through a merge without one and a fork', async () => {
    const storage = await open();
    await storage.saveConversation(sampleConversation('c', 1));
    const a = await add(storage, 'c', '', 1);
    await storage.recordFileChanges('c', a, [{ path: 'src/x.ts', folder: 'lib', before: bytes('x0\n'), after: bytes('x1\n') }, { path: 'y.txt', before: null, after: bytes('y\n') }]);
    // A second record of the same file by the same node that does not say its folder keeps the one it had.
    await storage.recordFileChanges('c', a, [{ path: 'src/x.ts', before: bytes('x1\n'), after: bytes('x2\n') }]);
    const b = await add(storage, 'c', a, 2);
    await storage.recordFileChanges('c', b, [{ path: 'y.txt', folder: 'app', before: bytes('y\n'), after: bytes('y2\n') }]);
    const folders = async (conversationId: string, nodeId: string) => (await storage.filesStateAt(conversationId, nodeId)).map((s) => [s.path, s.folder]);
    expect(await folders('c', a)).toEqual([['src/x.ts', 'lib'], ['y.txt', undefined]]);
    expect(await folders('c', b)).toEqual([['src/x.ts', 'lib'], ['y.txt', 'app']]);
    const fork = await storage.forkConversation('c', 'fork');
    expect(await folders('fork', fork.currentNodeId)).toEqual([['src/x.ts', 'lib'], ['y.txt', 'app']]);
    await expect(storage.recordFileChanges('c', b, [{ path: 'z.txt', folder: 'a/b', before: null, after: bytes('z') }])).rejects.toThrow(InvalidArgumentError);
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

  describe('images of messages', () => {
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
}
