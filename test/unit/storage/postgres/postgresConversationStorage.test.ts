/**
 * What only the team store has, on a real PostgreSQL: sibling positions from the parent's counter under
 * concurrent writers, a current node per reader, a 10,000-node conversation loaded in one query, the
 * migrations run by the administrator only, the team of new conversations, and readable errors.
 */
import { beforeAll, expect, it } from 'vitest';
import { InvalidArgumentError, StorageError } from '../../../../src/core/errors';
import { formatNodeId } from '../../../../src/core/nodeIds';
import { PostgresConversationStorage, type PostgresFiles } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { POSTGRES_SCHEMA_VERSION } from '../../../../src/core/storage/postgres/postgresSchema';
import { sampleConversation } from '../../../../src/core/storage/storageTestData';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { newNode } from '../storageSuite';
import { TEAM_ROLES_SQL, teamDatabase } from './teamDatabase';

const PNG_1x1 = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));

describeWithPostgres('PostgresConversationStorage on its own', (server) => {
  beforeAll(async () => {
    await server().psql(TEAM_ROLES_SQL);
  });
  const open = (role: string, db: string, extra: { team?: string; migrate?: boolean } = {}) => PostgresConversationStorage.open({ connectionString: server().url(role, db), ...extra });

  it('numbers siblings from the parent\'s counter, never reusing a position, and writers under one parent never collide', async () => {
    const db = await teamDatabase(server());
    const alice = await open('alice', db);
    const carol = await open('carol', db);
    await alice.saveConversation(sampleConversation('c', 3));
    const one = await alice.applyChange('c', { addNodes: [newNode('n2', 10, 1), newNode('n1', 10, 2), newNode('n1', 10, 3)], updatedAt: '2025-02-01T00:00:00.000Z' });
    // n2 had no child; n1 had n2 at position 0.
    expect(one.addedNodes.map((n) => [n.nodeId, n.parentId, n.position])).toEqual([
      ['n3', 'n2', 0],
      ['n4', 'n1', 1],
      ['n5', 'n1', 2],
    ]);
    await alice.applyChange('c', { deleteNodeIds: ['n5'], updatedAt: '2025-02-01T00:00:01.000Z' });
    expect((await alice.applyChange('c', { addNodes: [newNode('n1', 10, 4)], updatedAt: '2025-02-01T00:00:02.000Z' })).addedNodes[0].position).toBe(3);

    // 2 clients × 20 messages at once under one parent: every message stored, ids and positions distinct.
    const writes = [alice, carol].flatMap((store, w) => Array.from({ length: 20 }, (_, i) => store.applyChange('c', { addNodes: [newNode('n3', 10, 100 * w + i)], updatedAt: new Date().toISOString() })));
    const added = (await Promise.all(writes)).map((r) => r.addedNodes[0]);
    expect(new Set(added.map((n) => n.nodeId)).size).toBe(40);
    expect(added.map((n) => n.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const loaded = await carol.loadConversation('c');
    const under = loaded?.nodes.filter((n) => n.parentId === 'n3') ?? [];
    expect(under.map((n) => n.metadata.seed).sort((a, b) => Number(a) - Number(b))).toEqual([...Array.from({ length: 20 }, (_, i) => i), ...Array.from({ length: 20 }, (_, i) => 100 + i)]);
    expect(loaded?.nextNodeSeq).toBe(47);
    await alice.close();
    await carol.close();
  }, 60_000);

  it('keeps each reader\'s current node; a reader who has none starts where the conversation was last moved', async () => {
    const db = await teamDatabase(server());
    const alice = await open('alice', db);
    const carol = await open('carol', db);
    const state = sampleConversation('c', 4);
    state.currentNodeId = 'n1';
    await alice.saveConversation(state);
    expect((await carol.loadConversation('c'))?.currentNodeId).toBe('n1');
    await carol.applyChange('c', { currentNodeId: 'n3', updatedAt: '2025-02-01T00:00:00.000Z' });
    expect((await carol.loadConversation('c'))?.currentNodeId).toBe('n3');
    expect((await alice.loadConversation('c'))?.currentNodeId).toBe('n1');
    const added = await alice.applyChange('c', { addNodes: [newNode('n1', 10, 1)], currentIsLastAdded: true, updatedAt: '2025-02-01T00:00:01.000Z' });
    expect((await alice.loadConversation('c'))?.currentNodeId).toBe(added.addedNodes[0].nodeId);
    expect((await carol.loadConversation('c'))?.currentNodeId).toBe('n3');
    // A reader whose node another deleted falls back to the conversation's last current node.
    await alice.applyChange('c', { deleteNodeIds: ['n3'], currentNodeId: 'n2', updatedAt: '2025-02-01T00:00:02.000Z' });
    expect((await carol.loadConversation('c'))?.currentNodeId).toBe('n2');
    await alice.close();
    await carol.close();
  });

  it('loads a 10,000-node conversation in one query and adds to it one row at a time', async () => {
    const db = await teamDatabase(server());
    const alice = await open('alice', db);
    const state = sampleConversation('big', 10_000);
    state.nodes.push({ ...state.nodes[5], nodeId: formatNodeId(10_000), parentId: formatNodeId(4), position: 1 });
    state.nextNodeSeq = 10_001;
    await alice.saveConversation(state);
    const pool = alice.pool as unknown as { query: (...args: unknown[]) => unknown };
    const query = pool.query.bind(pool);
    let queries = 0;
    pool.query = (...args: unknown[]) => {
      queries++;
      return query(...args);
    };
    const loaded = await alice.loadConversation('big');
    expect(queries).toBe(1);
    expect(loaded).toEqual(state);
    pool.query = query;
    await alice.applyChange('big', { addNodes: [newNode(state.currentNodeId, 10, 1)], updatedAt: '2025-02-01T00:00:00.000Z' });
    // The change's transaction wrote two node rows: the new one and its parent's counter; no other was rewritten.
    const rows = await server().psql(`SELECT count(*), count(*) FILTER (WHERE xmin::text = (SELECT xmin::text FROM nodes WHERE seq = 10001)) FROM nodes;`, db);
    expect(rows.trim()).toBe('10002|2');
    await alice.close();
  }, 60_000);

  it('runs the migrations as the administrator only, and tells a role that cannot which version it needs', async () => {
    const empty = await server().createDatabase(undefined, 'arbor_admin');
    const refused = await open('alice', empty).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StorageError);
    expect(String((refused as Error).message)).toMatch(new RegExp(`schema version 0; this version of Arbor needs version ${POSTGRES_SCHEMA_VERSION}\\. Role "alice" may not create or change the tables`));
    const notAsked = await open('arbor_admin', empty, { migrate: false }).catch((error: unknown) => error);
    expect(String((notAsked as Error).message)).toMatch(new RegExp(`needs version ${POSTGRES_SCHEMA_VERSION}\\. Role "arbor_admin" was opened without running migrations`));
    expect(await server().psql(`SELECT to_regclass('conversations') IS NULL;`, empty)).toMatch(/^t/);
    const admin = await open('arbor_admin', empty);
    await admin.close();
    // Now people open it, reading the version without changing anything.
    const alice = await open('alice', empty, { migrate: false });
    await alice.close();
    await server().psql('UPDATE arbor_schema SET version = 99;', empty);
    await expect(open('alice', empty)).rejects.toThrow(new RegExp(`schema version 99, newer than this version of Arbor knows \\(${POSTGRES_SCHEMA_VERSION}\\)`));
  });

  it('puts new conversations in the role\'s team, or the one chosen, and forks into the source\'s team', async () => {
    const db = await teamDatabase(server());
    await expect(open('dave', db)).rejects.toThrow(/belongs to several teams \(team_a, team_b\)/);
    await expect(open('alice', db, { team: 'team_b' })).rejects.toBeInstanceOf(InvalidArgumentError);
    const dave = await open('dave', db, { team: 'team_b' });
    const alice = await open('alice', db);
    const bob = await open('bob', db);
    expect(alice.newConversationTeam).toBe('team_a');
    expect(await dave.teams()).toEqual(['team_a', 'team_b']);
    await dave.saveConversation(sampleConversation('from-dave', 2));
    await alice.saveConversation(sampleConversation('from-alice', 2));
    expect(await alice.loadConversation('from-dave')).toBeNull();
    expect((await bob.loadConversation('from-dave'))?.nodes).toHaveLength(2);
    await dave.forkConversation('from-alice', 'fork-by-dave');
    expect((await alice.loadConversation('fork-by-dave'))?.nodes).toHaveLength(2);
    expect(await bob.loadConversation('fork-by-dave')).toBeNull();
    expect(await server().psql(`SELECT id || '=' || team FROM conversations ORDER BY id;`, db)).toBe('fork-by-dave=team_a\nfrom-alice=team_a\nfrom-dave=team_b\n');
    // An id another team uses is refused, saying why, and that team's conversation is untouched.
    await expect(alice.saveConversation(sampleConversation('from-dave', 3))).rejects.toThrow(/already used in the team store by a conversation this role cannot see/);
    expect((await bob.loadConversation('from-dave'))?.nodes).toHaveLength(2);
    // A role outside arbor_users cannot even read the version; one in it but in no team reads nothing and creates nothing.
    await expect(open('nobody', db)).rejects.toThrow(/Role "nobody" may not read the team store's schema version/);
    const loner = await open('loner', db);
    await expect(loner.saveConversation(sampleConversation('x', 1))).rejects.toThrow(/belongs to no team/);
    expect(await loner.listConversations()).toEqual([]);
    for (const store of [dave, alice, bob, loner]) await store.close();
  });

  it('stores images through the file store inside the change\'s transaction, and hands forks the node keys to copy', async () => {
    const db = await teamDatabase(server());
    await server().psql('CREATE TABLE image_log (node bigint, names text); GRANT ALL ON image_log TO arbor_users;', db);
    const forks: Array<ReadonlyMap<string, string>> = [];
    const unused = () => Promise.reject(new Error('not used in this test'));
    const files = (): PostgresFiles => ({
      recordFileChanges: unused,
      fileChanges: unused,
      fileChangesByNode: unused,
      nodeImages: unused,
      imagesByNode: unused,
      fileContent: unused,
      filesStateAt: unused,
      async addImages(client, nodeKey, images) {
        await client.query('INSERT INTO image_log VALUES ($1, $2)', [nodeKey, images.map((i) => i.name).join(',')]);
      },
      async copyForFork(_client, keyMap) {
        forks.push(keyMap);
      },
    });
    const alice = await PostgresConversationStorage.open({ connectionString: server().url('alice', db) }, files);
    await alice.saveConversation(sampleConversation('c', 2));
    await alice.applyChange('c', { addNodes: [newNode('n1', 10, 1), newNode('n1', 10, 2)], addImages: [undefined, [{ bytes: PNG_1x1, name: 'dot.png' }]], updatedAt: '2025-02-01T00:00:00.000Z' });
    expect(await server().psql(`SELECT n.seq || ':' || l.names FROM image_log l JOIN nodes n ON n.key = l.node;`, db)).toBe('3:dot.png\n');
    // A change refused after its images were handed over leaves neither node nor image.
    await expect(alice.applyChange('c', { addNodes: [newNode('n1', 10, 3)], addImages: [[{ bytes: PNG_1x1, name: 'lost.png' }]], currentNodeId: 'n9', updatedAt: '2025-02-01T00:00:01.000Z' })).rejects.toThrow();
    expect(await server().psql(`SELECT count(*) FROM image_log;`, db)).toBe('1\n');
    await alice.forkConversation('c', 'copy', { upToNodeId: 'n3' });
    expect(forks).toHaveLength(1);
    const keys = await server().psql(`SELECT string_agg(n.key::text, ',' ORDER BY c.id, n.seq) FROM nodes n JOIN conversations c ON c.key = n.conversation WHERE n.seq IN (0, 1, 3);`, db);
    const [src0, src1, src3, copy0, copy1, copy3] = keys.trim().split(',');
    expect([...forks[0]]).toEqual([
      [src0, copy0],
      [src1, copy1],
      [src3, copy3],
    ]);
    await alice.close();
  });

  it('refuses a NUL character, which PostgreSQL text cannot hold, saying so and storing nothing', async () => {
    const alice = await open('alice', await teamDatabase(server()));
    const state = sampleConversation('nul', 2);
    state.nodes[1].message.content = 'binary \u0000 output';
    await expect(alice.saveConversation(state)).rejects.toThrow(/NUL character \(U\+0000\)/);
    expect(await alice.loadConversation('nul')).toBeNull();
    await alice.saveConversation(sampleConversation('nul', 2));
    await expect(alice.applyChange('nul', { addNodes: [{ ...newNode('n1', 10, 1), metadata: { note: 'a\u0000' } }], updatedAt: '2025-02-01T00:00:00.000Z' })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect((await alice.loadConversation('nul'))?.nodes).toHaveLength(2);
    await alice.close();
  });

  it('searches case-insensitively in every language also in a database whose own lower() folds ASCII only', async () => {
    const db = `ctype_c_${process.pid}`;
    await server().psql(`CREATE DATABASE ${db} OWNER arbor_admin TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';`);
    expect(await server().psql(`SELECT lower('ÜBER');`, db)).toBe('Über\n');
    await (await open('arbor_admin', db)).close();
    const alice = await open('alice', db);
    const state = sampleConversation('c', 2);
    state.nodes[1].message.content = 'Grüße from the ÜBER branch';
    await alice.saveConversation(state);
    expect((await alice.searchConversations({ contentContains: 'über' })).map((s) => s.conversationId)).toEqual(['c']);
    expect((await alice.searchMessages('GRÜ')).map((m) => m.nodeId)).toEqual(['n1']);
    await alice.close();
  });

  it('says when the server cannot be reached', async () => {
    await expect(PostgresConversationStorage.open({ connectionString: 'postgresql://alice@127.0.0.1:1/arbor' })).rejects.toThrow(/Cannot reach the team store at 127\.0\.0\.1:1\/arbor/);
  });
});
