import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { makePng } from '../../../fixtures/pngImages';
import { ConversationNotFoundError } from '../../../../src/core/errors';
import { PostgresFileStore } from '../../../../src/core/storage/postgres/postgresFiles';
import { filesTestDb, insertConversation, insertNode, inTransaction, type FilesTestDb } from './filesTestDb';

/**
 * Who may read and write file checkpoints and images in the team store, and what happens when people
 * write the same contents at the same instant, on a real PostgreSQL with one role per person.
 */
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));
const SECRET = bytes('API_KEY=team-a-only\n');
const RED = makePng(16, 16, 3);

describeWithPostgres('team store file checkpoints: access and concurrency', (server) => {
  let db: FilesTestDb;
  beforeEach(async () => {
    db = await filesTestDb(server());
  });
  afterEach(async () => db.end());

  const count = async (table: string) => Number((await db.admin.query(`SELECT count(*) FROM ${table}`)).rows[0].count);

  it("keeps a team's file changes, images and contents from another team's roles, even by exact hash", async () => {
    const alicePool = db.pool('alice');
    const bobPool = db.pool('bob');
    const alice = new PostgresFileStore(alicePool);
    const bob = new PostgresFileStore(bobPool);
    const anna = new PostgresFileStore(db.pool('anna'));
    const a = await insertConversation(alicePool, 'ca', 'team_a', [null, 0, 1]);
    await alice.recordFileChanges('ca', a.id(2), [{ path: '.env', before: null, after: SECRET }]);
    await inTransaction(alicePool, (client) => alice.addImages(client, a.keys[1], [{ bytes: RED, name: 'whiteboard.png' }]));

    // A teammate sees everything.
    expect(same(await anna.fileContent(sha(SECRET)), SECRET)).toBe(true);
    expect(Object.keys(await anna.imagesByNode('ca'))).toEqual([a.id(1)]);

    // Another team's role: the conversation is not found, and contents are not there even by hash.
    for (const read of [() => bob.fileChanges('ca', a.id(2)), () => bob.fileChangesByNode('ca'), () => bob.nodeImages('ca', a.id(1)), () => bob.imagesByNode('ca'), () => bob.filesStateAt('ca', a.id(2))]) {
      await expect(read()).rejects.toThrow(ConversationNotFoundError);
    }
    await expect(bob.recordFileChanges('ca', a.id(2), [{ path: '.env', before: SECRET, after: bytes('stolen') }])).rejects.toThrow(ConversationNotFoundError);
    expect(await bob.fileContent(sha(SECRET))).toBeNull();
    expect(await bob.fileContent(sha(RED))).toBeNull();
    for (const table of ['file_contents', 'file_changes', 'node_images']) expect((await bobPool.query(`SELECT * FROM ${table}`)).rows).toEqual([]);

    // Nor can it write under the other team's nodes, or touch contents other than through the store's function.
    const forged = bytes('planted\n');
    await expect(
      inTransaction(bobPool, async (client) => {
        await client.query('SELECT arbor_store_contents($1::bytea[])', [[Buffer.from(forged)]]);
        await client.query("INSERT INTO file_changes (node, position, path, after_hash) VALUES ($1, 5, 'x', $2)", [a.keys[2], sha(forged)]);
      }),
    ).rejects.toThrow(/row-level security/);
    await expect(inTransaction(bobPool, (client) => bob.addImages(client, a.keys[2], [{ bytes: RED }]))).rejects.toThrow(/row-level security/);
    await expect(bobPool.query("INSERT INTO file_contents (hash, size, bytes) VALUES ('forged', 1, '\\x00')")).rejects.toThrow(/permission denied/);
    await expect(bobPool.query('DELETE FROM file_contents')).rejects.toThrow(/permission denied/);
    await expect(bobPool.query('SELECT arbor_release_contents(ARRAY[$1])', [sha(SECRET)])).rejects.toThrow(/permission denied/);
    expect((await bobPool.query("UPDATE file_changes SET after_hash = NULL WHERE path = '.env'")).rowCount).toBe(0);
    // Nor refer to the content by its hash from rows of its own: that would make it readable.
    const own = await insertConversation(bobPool, 'own', 'team_b', [null, 0]);
    for (const attempt of [
      () => bobPool.query("INSERT INTO file_changes (node, position, path, after_hash) VALUES ($1, 0, 'x', $2)", [own.keys[1], sha(SECRET)]),
      () => bobPool.query("INSERT INTO node_images (node, position, hash, mime, name) VALUES ($1, 0, $2, 'image/png', 'x.png')", [own.keys[1], sha(RED)]),
      () => bobPool.query("INSERT INTO file_changes (node, position, path, after_hash) VALUES ($1, 0, 'x', $2)", [own.keys[1], 'f'.repeat(64)]),
    ]) {
      await expect(attempt()).rejects.toThrow(/neither stored in this transaction nor can read/);
    }
    await bob.recordFileChanges('own', own.id(1), [{ path: 'mine.txt', before: null, after: bytes('mine\n') }]);
    await expect(bobPool.query("UPDATE file_changes SET after_hash = $1 WHERE path = 'mine.txt'", [sha(SECRET)])).rejects.toThrow(/neither stored in this transaction nor can read/);
    expect(await bob.fileContent(sha(SECRET))).toBeNull();
    await bobPool.query("DELETE FROM conversations WHERE id = 'own'");
    // Storing the same bytes through the function gives no way to read them either.
    await bobPool.query('SELECT arbor_store_contents($1::bytea[])', [[Buffer.from(SECRET)]]);
    expect(await bob.fileContent(sha(SECRET))).toBeNull();
    // A fork copying the other team's nodes copies nothing: their rows are invisible.
    const b = await insertConversation(bobPool, 'cb', 'team_b', [null, 0, 1]);
    await inTransaction(bobPool, (client) => bob.copyForFork(client, new Map(a.keys.map((key, seq) => [key, b.keys[seq]]))));
    expect(await bob.fileChangesByNode('cb')).toEqual({});
    expect(await bob.imagesByNode('cb')).toEqual({});
    expect(same(await alice.fileContent(sha(SECRET)), SECRET)).toBe(true);

    // Bytes both teams stored are one row; each team reads them through its own change, and keeps them when the other deletes.
    await bob.recordFileChanges('cb', b.id(1), [{ path: 'copy.env', before: null, after: SECRET }]);
    expect(same(await bob.fileContent(sha(SECRET)), SECRET)).toBe(true);
    expect(await count('file_contents')).toBe(2);
    await alicePool.query("DELETE FROM conversations WHERE id = 'ca'");
    expect(await alice.fileContent(sha(SECRET))).toBeNull();
    expect(same(await bob.fileContent(sha(SECRET)), SECRET)).toBe(true);
    expect(await count('file_contents')).toBe(1);
  });

  it('lets two connections record the same contents at the same instant, under one node or many, without a duplicate or a lost change', async () => {
    const alicePool = db.pool('alice');
    const alice = new PostgresFileStore(alicePool);
    const anna = new PostgresFileStore(db.pool('anna'));
    const rounds = 24;
    // Per round: a node for each person, and one they both write to.
    const c = await insertConversation(alicePool, 'c', 'team_a', [null, ...Array.from({ length: rounds * 3 }, () => 0)]);
    const p = (i: number) => bytes(`shared p ${i}\n`);
    const q = (i: number) => bytes(`shared q ${i}\nsecond line\n`);
    const results = await Promise.allSettled(
      Array.from({ length: rounds }, (_, i) => [
        alice.recordFileChanges('c', c.id(3 * i + 1), [{ path: 'p.txt', before: null, after: p(i) }, { path: 'q.txt', before: null, after: q(i) }]),
        // The other order, so two writers take the same contents in opposite orders.
        anna.recordFileChanges('c', c.id(3 * i + 2), [{ path: 'q.txt', before: null, after: q(i) }, { path: 'p.txt', before: null, after: p(i) }]),
        alice.recordFileChanges('c', c.id(3 * i + 3), [{ path: 'from-alice.txt', before: p(i), after: q(i) }]),
        anna.recordFileChanges('c', c.id(3 * i + 3), [{ path: 'from-anna.txt', before: q(i), after: p(i) }]),
      ]).flat(),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await count('file_contents')).toBe(rounds * 2);
    const byNode = await alice.fileChangesByNode('c');
    for (let i = 0; i < rounds; i++) {
      expect(byNode[c.id(3 * i + 1)].map((x) => x.path)).toEqual(['p.txt', 'q.txt']);
      expect(byNode[c.id(3 * i + 2)].map((x) => x.path)).toEqual(['q.txt', 'p.txt']);
      expect(byNode[c.id(3 * i + 3)].map((x) => x.path).sort()).toEqual(['from-alice.txt', 'from-anna.txt']);
    }
    const positions = await db.admin.query('SELECT node, array_agg(position ORDER BY position) AS p FROM file_changes GROUP BY node HAVING count(*) <> count(DISTINCT position)');
    expect(positions.rows).toEqual([]);
    // What each transaction stored is noted while it runs, and the notes of finished ones go with the next store.
    await alice.recordFileChanges('c', c.id(1), [{ path: 'last.txt', before: null, after: bytes('last\n') }]);
    expect(await count('content_claims')).toBe(1);
  });

  it('never collects a content a writer is referring to while another deletes its last reference', async () => {
    const alicePool = db.pool('alice');
    const alice = new PostgresFileStore(alicePool);
    const anna = new PostgresFileStore(db.pool('anna'));
    const c = await insertConversation(alicePool, 'c', 'team_a', [null]);
    for (let i = 0; i < 12; i++) {
      const content = bytes(`round ${i}\n`);
      const old = await insertNode(alicePool, c, 0);
      const fresh = await insertNode(alicePool, c, 0);
      await alice.recordFileChanges('c', c.id(old), [{ path: 'f.txt', before: null, after: content }]);
      // The old node's change is the content's only reference as anna starts referring to it.
      const [deleted, recorded] = await Promise.allSettled([alicePool.query('DELETE FROM nodes WHERE key = $1', [c.keys[old]]), anna.recordFileChanges('c', c.id(fresh), [{ path: 'f.txt', before: null, after: content }])]);
      expect([deleted.status, recorded.status]).toEqual(['fulfilled', 'fulfilled']);
      expect(same(await anna.fileContent(sha(content)), content)).toBe(true);
      await alicePool.query('DELETE FROM nodes WHERE key = $1', [c.keys[fresh]]);
      expect(await alice.fileContent(sha(content))).toBeNull();
    }
    expect(await count('file_contents')).toBe(0);
  });

  /** Waits until a backend of this database is waiting for a lock (the interleaving a test sets up). */
  const someoneWaits = () => expect.poll(async () => Number((await db.admin.query("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'", [db.name])).rows[0].count), { timeout: 20_000 }).toBeGreaterThan(0);

  it('keeps a content whose last reference is deleted while a writer, not yet committed, refers to it anew', async () => {
    const alicePool = db.pool('alice');
    const alice = new PostgresFileStore(alicePool);
    const c = await insertConversation(alicePool, 'c', 'team_a', [null, 0, 0, 0]);
    const content = bytes('kept\n');
    await alice.recordFileChanges('c', c.id(1), [{ path: 'f.txt', before: null, after: content }]);
    const writer = await db.pool('anna').connect();
    try {
      await writer.query('BEGIN');
      await writer.query("INSERT INTO file_changes (node, position, path, after_hash) VALUES ($1, 0, 'f.txt', $2)", [c.keys[2], sha(content)]);
      // The deleter's collector sees no committed reference, and must neither delete the content nor fail.
      const deleting = alicePool.query('DELETE FROM nodes WHERE key = $1', [c.keys[1]]);
      const outcome = await Promise.race([deleting.then(() => 'deleted'), someoneWaits().then(() => 'waiting')]);
      await writer.query('COMMIT');
      await deleting;
      expect(outcome).toBe('deleted');
    } finally {
      writer.release();
    }
    expect(same(await alice.fileContent(sha(content)), content)).toBe(true);
    expect((await alice.fileChanges('c', c.id(2))).map((x) => x.after?.hash)).toEqual([sha(content)]);
  });

  it('keeps a content referred to since the snapshot of a REPEATABLE READ transaction that deletes its old reference', async () => {
    const alicePool = db.pool('alice');
    const alice = new PostgresFileStore(alicePool);
    const anna = new PostgresFileStore(db.pool('anna'));
    const c = await insertConversation(alicePool, 'c', 'team_a', [null, 0, 0]);
    const content = bytes('seen late\n');
    await alice.recordFileChanges('c', c.id(1), [{ path: 'f.txt', before: null, after: content }]);
    const deleter = await alicePool.connect();
    try {
      await deleter.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await deleter.query('SELECT count(*) FROM nodes');
      // Committed after the deleter's snapshot: the deleter cannot see this reference.
      await anna.recordFileChanges('c', c.id(2), [{ path: 'f.txt', before: null, after: content }]);
      await deleter.query('DELETE FROM nodes WHERE key = $1', [c.keys[1]]);
      await deleter.query('COMMIT');
    } finally {
      deleter.release();
    }
    expect(same(await anna.fileContent(sha(content)), content)).toBe(true);
    expect(await alice.fileChangesByNode('c')).toEqual({ [c.id(2)]: await anna.fileChanges('c', c.id(2)) });
  });

  it('records a content again when the one it saw stored is collected before its change refers to it', async () => {
    const alicePool = db.pool('alice');
    const alice = new PostgresFileStore(alicePool);
    const anna = new PostgresFileStore(db.pool('anna'));
    const c = await insertConversation(alicePool, 'c', 'team_a', [null, 0, 0]);
    const content = bytes('collected then needed\n');
    await alice.recordFileChanges('c', c.id(1), [{ path: 'f.txt', before: null, after: content }]);
    const deleter = await alicePool.connect();
    try {
      await deleter.query('BEGIN');
      // Deletes the only reference and collects the content, not committed yet: anna still sees it stored.
      await deleter.query('DELETE FROM nodes WHERE key = $1', [c.keys[1]]);
      const recording = anna.recordFileChanges('c', c.id(2), [{ path: 'f.txt', before: null, after: content }]);
      await someoneWaits();
      await deleter.query('COMMIT');
      expect((await recording).map((x) => x.after?.hash)).toEqual([sha(content)]);
    } finally {
      deleter.release();
    }
    expect(same(await anna.fileContent(sha(content)), content)).toBe(true);
  });
});
