import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { makePng } from '../../../fixtures/pngImages';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError } from '../../../../src/core/errors';
import { POSTGRES_FILES_MIGRATION, PostgresFileStore } from '../../../../src/core/storage/postgres/postgresFiles';
import { CHANGES_CHANNEL, POSTGRES_MIGRATIONS, USERS_ROLE } from '../../../../src/core/storage/postgres/postgresSchema';
import type { FileChange } from '../../../../src/core/storage/storage';
import { filesTestDb, insertConversation, insertNode, inTransaction, type FilesTestDb } from './filesTestDb';

/**
 * File checkpoints and images in the team store, on a real PostgreSQL: the cases of the sql.js store's
 * tests (fileCheckpoints.test.ts, nodeImages.test.ts), with conversations and nodes written in SQL.
 */
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const lines = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));

const TEXT_BEFORE = bytes(lines(20));
const TEXT_AFTER = bytes(lines(20).replace('line 3\n', 'line three\nline 3b\n').replace('line 17\n', ''));
const BOM_CRLF = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('caf\u00e9\r\nsecond\r\n')]);
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x00]);
const NOT_UTF8 = new Uint8Array([0x61, 0x62, 0xc3, 0x28, 0x0a]);
const RED = makePng(64, 48, 1);
const BLUE = makePng(32, 32, 2);

describe('team store migration 2', () => {
  it("is the second migration, and grants to and notifies on migration 1's role and channel", () => {
    expect(POSTGRES_MIGRATIONS[1]).toBe(POSTGRES_FILES_MIGRATION);
    expect(POSTGRES_FILES_MIGRATION).toContain(`TO ${USERS_ROLE};`);
    expect(POSTGRES_FILES_MIGRATION).toContain(`pg_notify('${CHANGES_CHANNEL}'`);
  });
});

describeWithPostgres('team store file checkpoints and images', (server) => {
  let db: FilesTestDb;
  let files: PostgresFileStore;
  beforeEach(async () => {
    db = await filesTestDb(server());
    files = new PostgresFileStore(db.pool('alice'));
  });
  afterEach(async () => db.end());

  /** How many contents are stored, whoever may read them. */
  const storedContents = async () => Number((await db.admin.query('SELECT count(*) FROM file_contents')).rows[0].count);

  it('stores each file a node changed with its contents, hashes, sizes and line counts', async () => {
    const c = await insertConversation(db.pool('alice'), 'c', 'team_a', [null, 0, 1]);
    const changes: FileChange[] = [
      { path: 'src/app.ts', before: TEXT_BEFORE, after: TEXT_AFTER },
      { path: 'docs/new.md', before: null, after: BOM_CRLF },
      { path: 'assets/logo.png', before: BINARY, after: null },
      { path: 'data/raw.txt', before: NOT_UTF8, after: bytes('ab\n') },
    ];
    const feed = async () => Number((await db.admin.query("SELECT count(*) FROM changes WHERE conversation_id = 'c'")).rows[0].count);
    const before = await feed();
    const recorded = await files.recordFileChanges('c', c.id(2), changes);
    // Recording is one change of the conversation for the live feed.
    expect(await feed()).toBe(before + 1);
    expect(recorded).toEqual([
      { path: 'src/app.ts', kind: 'modified', before: { hash: sha(TEXT_BEFORE), size: TEXT_BEFORE.length }, after: { hash: sha(TEXT_AFTER), size: TEXT_AFTER.length }, linesAdded: 2, linesRemoved: 2 },
      { path: 'docs/new.md', kind: 'created', before: null, after: { hash: sha(BOM_CRLF), size: BOM_CRLF.length }, linesAdded: 2, linesRemoved: 0 },
      { path: 'assets/logo.png', kind: 'deleted', before: { hash: sha(BINARY), size: BINARY.length }, after: null, linesAdded: null, linesRemoved: null },
      { path: 'data/raw.txt', kind: 'modified', before: { hash: sha(NOT_UTF8), size: NOT_UTF8.length }, after: { hash: sha(bytes('ab\n')), size: 3 }, linesAdded: null, linesRemoved: null },
    ]);
    expect(await files.fileChanges('c', c.id(2))).toEqual(recorded);
    expect(await files.fileChanges('c', c.id(1))).toEqual([]);
    expect(await files.fileChangesByNode('c')).toEqual({ [c.id(2)]: recorded });
    for (const content of [TEXT_BEFORE, TEXT_AFTER, BOM_CRLF, BINARY, NOT_UTF8]) expect(same(await files.fileContent(sha(content)), content)).toBe(true);
    expect(await files.fileContent('0'.repeat(64))).toBeNull();
  });

  it('refuses what cannot be recorded, naming the argument, and skips a change that changes nothing', async () => {
    const c = await insertConversation(db.pool('alice'), 'c', 'team_a', [null, 0]);
    const one = (change: Partial<FileChange>) => files.recordFileChanges('c', c.id(1), [change as FileChange]);
    for (const bad of ['/etc/passwd', '../outside.txt', 'a/../b', 'C:/x.txt', 'src\\app.ts', '', 'a//b', './a']) {
      await expect(one({ path: bad, before: null, after: bytes('x') })).rejects.toThrow(InvalidArgumentError);
    }
    await expect(one({ path: 'a.txt', before: null, after: null })).rejects.toThrow(/neither a before nor an after/);
    await expect(one({ path: 'a.txt', before: null, after: 'text' as unknown as Uint8Array })).rejects.toThrow(/Uint8Array/);
    await expect(files.recordFileChanges('c', c.id(1), [{ path: 'a', before: null, after: bytes('1') }, { path: 'a', before: null, after: bytes('2') }])).rejects.toThrow(/twice/);
    await expect(files.recordFileChanges('c', 'n9', [{ path: 'a', before: null, after: bytes('1') }])).rejects.toThrow(NodeNotFoundError);
    await expect(files.recordFileChanges('c', '0.1', [{ path: 'a', before: null, after: bytes('1') }])).rejects.toThrow(NodeNotFoundError);
    await expect(files.recordFileChanges('missing', c.id(1), [{ path: 'a', before: null, after: bytes('1') }])).rejects.toThrow(ConversationNotFoundError);
    await expect(files.fileChanges('c', 'n9')).rejects.toThrow(NodeNotFoundError);
    await expect(files.filesStateAt('missing', '')).rejects.toThrow(ConversationNotFoundError);
    await expect(files.fileChangesByNode('missing')).rejects.toThrow(ConversationNotFoundError);
    await expect(files.imagesByNode('missing')).rejects.toThrow(ConversationNotFoundError);
    expect(await one({ path: 'same.txt', before: bytes('same'), after: bytes('same') })).toEqual([]);
    expect(await files.fileChangesByNode('c')).toEqual({});
    expect(await storedContents()).toBe(0);
  });

  it('merges a second record of the same file into one change, and drops it when the file is back as it was', async () => {
    const c = await insertConversation(db.pool('alice'), 'c', 'team_a', [null, 0]);
    const v = [bytes('one\n'), bytes('one\ntwo\n'), bytes('one\ntwo\nthree\n')];
    await files.recordFileChanges('c', c.id(1), [{ path: 'a.txt', before: v[0], after: v[1] }, { path: 'b.txt', before: null, after: v[0] }]);
    const merged = await files.recordFileChanges('c', c.id(1), [{ path: 'a.txt', before: v[1], after: v[2] }]);
    expect(merged.map((x) => [x.path, x.before?.hash, x.after?.hash, x.linesAdded, x.linesRemoved])).toEqual([
      ['a.txt', sha(v[0]), sha(v[2]), 2, 0],
      ['b.txt', undefined, sha(v[0]), 1, 0],
    ]);
    expect(await files.fileChanges('c', c.id(1))).toEqual(merged);
    // The intermediate version is referenced by nothing now: collected.
    expect(await files.fileContent(sha(v[1]))).toBeNull();
    expect((await db.admin.query('SELECT 1 FROM file_contents WHERE hash = $1', [sha(v[1])])).rows).toHaveLength(0);
    const after = await files.recordFileChanges('c', c.id(1), [{ path: 'b.txt', before: v[0], after: null }, { path: 'a.txt', before: v[2], after: v[0] }]);
    expect(after).toEqual([]);
    expect(await storedContents()).toBe(0);
  });

  it('gives the state of the files after any node, the last change on its path winning, per branch', async () => {
    const alice = db.pool('alice');
    const c = await insertConversation(alice, 'c', 'team_a', [null]);
    const [v0, v1, v2, v3] = [bytes(lines(5)), bytes(lines(6)), bytes(lines(7)), bytes(lines(5, 'other'))];
    const g = bytes('created on the trunk\n');
    const u1 = c.id(await insertNode(alice, c, 0));
    const a1Seq = await insertNode(alice, c, 1);
    const a1 = c.id(a1Seq);
    await files.recordFileChanges('c', a1, [{ path: 'f.txt', before: v0, after: v1 }, { path: 'g.txt', before: null, after: g }]);
    const left = c.id(await insertNode(alice, c, a1Seq));
    await files.recordFileChanges('c', left, [{ path: 'f.txt', before: v1, after: v2 }]);
    const rightSeq = await insertNode(alice, c, a1Seq);
    const right = c.id(rightSeq);
    await files.recordFileChanges('c', right, [{ path: 'f.txt', before: v1, after: v3 }, { path: 'g.txt', before: g, after: null }]);
    const below = c.id(await insertNode(alice, c, rightSeq));

    expect(await files.filesStateAt('c', u1)).toEqual([]);
    expect(await files.filesStateAt('c', '')).toEqual([]);
    expect(await files.filesStateAt('c', a1)).toEqual([
      { path: 'f.txt', hash: sha(v1), nodeId: a1, originalHash: sha(v0) },
      { path: 'g.txt', hash: sha(g), nodeId: a1, originalHash: null },
    ]);
    expect(await files.filesStateAt('c', left)).toEqual([
      { path: 'f.txt', hash: sha(v2), nodeId: left, originalHash: sha(v0) },
      { path: 'g.txt', hash: sha(g), nodeId: a1, originalHash: null },
    ]);
    const rightState = [
      { path: 'f.txt', hash: sha(v3), nodeId: right, originalHash: sha(v0) },
      { path: 'g.txt', hash: null, nodeId: right, originalHash: null },
    ];
    expect(await files.filesStateAt('c', right)).toEqual(rightState);
    expect(await files.filesStateAt('c', below)).toEqual(rightState);
  });

  it('stores ten edits of one file as its distinct versions only', async () => {
    const alice = db.pool('alice');
    const c = await insertConversation(alice, 'c', 'team_a', [null]);
    const order = [0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 2];
    const version = (i: number) => bytes(`${lines(200, 'stable')}edit ${i}\n`);
    let parent = 0;
    for (let e = 0; e < 10; e++) {
      parent = await insertNode(alice, c, parent);
      await files.recordFileChanges('c', c.id(parent), [{ path: 'src/big.ts', before: version(order[e]), after: version(order[e + 1]) }]);
    }
    const { rows } = await db.admin.query('SELECT count(*)::int AS n, sum(size)::int AS total FROM file_contents');
    expect(rows[0]).toEqual({ n: 6, total: [0, 1, 2, 3, 4, 5].reduce((sum, i) => sum + version(i).length, 0) });
    expect(Number((await db.admin.query('SELECT count(*) FROM file_changes')).rows[0].count)).toBe(10);
    expect(await files.filesStateAt('c', c.id(parent))).toEqual([{ path: 'src/big.ts', hash: sha(version(2)), nodeId: c.id(parent), originalHash: sha(version(0)) }]);
    const noise = new Uint8Array(randomBytes(200_000));
    await files.recordFileChanges('c', c.id(1), [{ path: 'noise.bin', before: null, after: noise }]);
    expect(same(await files.fileContent(sha(noise)), noise)).toBe(true);
  });

  it('removes the rows of deleted branches and conversations, copies them for a fork, and collects unreferenced contents', async () => {
    const alice = db.pool('alice');
    const c = await insertConversation(alice, 'c', 'team_a', [null, 0]);
    const v = [0, 1, 2, 3].map((i) => bytes(lines(3 + i)));
    const a = await insertNode(alice, c, 1);
    await files.recordFileChanges('c', c.id(a), [{ path: 'f.txt', before: v[0], after: v[1] }]);
    const b = await insertNode(alice, c, a);
    await files.recordFileChanges('c', c.id(b), [{ path: 'f.txt', before: v[1], after: v[2] }]);
    const side = await insertNode(alice, c, a);
    const sideChild = await insertNode(alice, c, side);
    await files.recordFileChanges('c', c.id(sideChild), [{ path: 'f.txt', before: v[1], after: v[3] }]);

    // Deleting the side branch (its child goes with it) removes its change and the content only it used.
    await alice.query('DELETE FROM nodes WHERE key = $1', [c.keys[side]]);
    expect(await files.fileContent(sha(v[3]))).toBeNull();
    expect(await files.fileContent(sha(v[1]))).not.toBeNull();
    expect(Object.keys(await files.fileChangesByNode('c'))).toEqual([c.id(a), c.id(b)]);

    // A fork up to `a` copies a's change only; a whole fork copies both.
    const partial = await insertConversation(alice, 'partial', 'team_a', [null, 0, 1]);
    await inTransaction(alice, (client) => files.copyForFork(client, new Map([[c.keys[0], partial.keys[0]], [c.keys[1], partial.keys[1]], [c.keys[a], partial.keys[2]]])));
    expect(await files.fileChangesByNode('partial')).toEqual({ [partial.id(2)]: await files.fileChanges('c', c.id(a)) });
    const whole = await insertConversation(alice, 'whole', 'team_a', [null, 0, 1, 2, 1, 4]);
    const map = new Map(c.keys.map((key, seq) => [key, whole.keys[seq]]).filter(([, copy]) => copy !== undefined) as Array<[string, string]>);
    map.delete(c.keys[side]);
    map.delete(c.keys[sideChild]);
    await inTransaction(alice, (client) => files.copyForFork(client, map));
    expect(await files.fileChangesByNode('whole')).toEqual(await files.fileChangesByNode('c'));
    expect(await files.filesStateAt('whole', whole.id(b))).toEqual(await files.filesStateAt('c', c.id(b)));

    // Contents live while any conversation refers to them.
    await alice.query("DELETE FROM conversations WHERE id = 'c'");
    expect(await files.fileContent(sha(v[2]))).not.toBeNull();
    await alice.query("DELETE FROM conversations WHERE id = 'whole'");
    expect(await files.fileContent(sha(v[2]))).toBeNull();
    expect(await files.fileContent(sha(v[0]))).not.toBeNull();
    await alice.query("DELETE FROM conversations WHERE id = 'partial'");
    expect(await storedContents()).toBe(0);
  });

  it('stores images in order with type, name, size and pixel size, each content once, copies them on fork and collects them with the last row', async () => {
    const alice = db.pool('alice');
    const c = await insertConversation(alice, 'c', 'team_a', [null, 0, 1, 2, 2]);
    const dot = makePng(8, 8, 9);
    await inTransaction(alice, async (client) => {
      await files.addImages(client, c.keys[2], [{ bytes: RED, name: 'shot-2-0.png' }, { bytes: BLUE, name: 'folder/shot-2-1.png' }]);
      await files.addImages(client, c.keys[3], [{ base64: `data:image/png;base64,${Buffer.from(RED).toString('base64')}` }]);
      await files.addImages(client, c.keys[4], [{ bytes: dot, name: 'dot.png' }]);
    });
    expect(await files.nodeImages('c', c.id(2))).toEqual([
      { hash: sha(RED), mime: 'image/png', name: 'shot-2-0.png', size: RED.length, width: 64, height: 48 },
      { hash: sha(BLUE), mime: 'image/png', name: 'shot-2-1.png', size: BLUE.length, width: 32, height: 32 },
    ]);
    expect((await files.nodeImages('c', c.id(3))).map((i) => [i.hash, i.name])).toEqual([[sha(RED), 'image.png']]);
    expect(await files.nodeImages('c', c.id(1))).toEqual([]);
    expect(same(await files.fileContent(sha(BLUE)), BLUE)).toBe(true);
    expect(Object.keys(await files.imagesByNode('c'))).toEqual([c.id(2), c.id(3), c.id(4)]);
    expect(await storedContents()).toBe(3);
    // A second call for a node adds after the images it has.
    await inTransaction(alice, (client) => files.addImages(client, c.keys[3], [{ bytes: BLUE }]));
    expect((await files.nodeImages('c', c.id(3))).map((i) => i.hash)).toEqual([sha(RED), sha(BLUE)]);
    // What is not an image is refused, and the caller's transaction stores nothing.
    await expect(inTransaction(alice, (client) => files.addImages(client, c.keys[1], [{ bytes: bytes('not an image at all'), name: 'notes.png' }]))).rejects.toThrow(/notes\.png.*PNG, JPEG, GIF or WebP/);

    await alice.query('DELETE FROM nodes WHERE key = $1', [c.keys[4]]);
    expect(await files.fileContent(sha(dot))).toBeNull();
    const partial = await insertConversation(alice, 'partial', 'team_a', [null, 0, 1]);
    await inTransaction(alice, (client) => files.copyForFork(client, new Map(partial.keys.map((key, seq) => [c.keys[seq], key]))));
    expect(await files.imagesByNode('partial')).toEqual({ [partial.id(2)]: await files.nodeImages('c', c.id(2)) });
    await alice.query("DELETE FROM conversations WHERE id = 'c'");
    // `partial` still shows RED and BLUE (node 2); nothing else is left.
    expect(same(await files.fileContent(sha(RED)), RED)).toBe(true);
    expect(await storedContents()).toBe(2);
    await alice.query("DELETE FROM conversations WHERE id = 'partial'");
    expect(await storedContents()).toBe(0);
  });

  it('keeps bytes that an image and a file checkpoint share until neither refers to them', async () => {
    const alice = db.pool('alice');
    const c = await insertConversation(alice, 'c', 'team_a', [null, 0, 1, 1, 1]);
    await inTransaction(alice, (client) => files.addImages(client, c.keys[2], [{ bytes: RED }]));
    await files.recordFileChanges('c', c.id(3), [{ path: 'media/red.png', before: null, after: RED }]);
    await alice.query('DELETE FROM nodes WHERE key = $1', [c.keys[3]]);
    expect(same(await files.fileContent(sha(RED)), RED)).toBe(true);
    await files.recordFileChanges('c', c.id(4), [{ path: 'media/red.png', before: null, after: RED }]);
    await alice.query('DELETE FROM nodes WHERE key = $1', [c.keys[2]]);
    expect(same(await files.fileContent(sha(RED)), RED)).toBe(true);
    await files.recordFileChanges('c', c.id(4), [{ path: 'media/red.png', before: RED, after: BLUE }]);
    expect(await files.fileContent(sha(RED))).toBeNull();
    expect(await storedContents()).toBe(1);
  });
});
