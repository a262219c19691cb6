/**
 * Migration 3 (`postgresMemberRules.ts`) on a team store written by the release before it (schema
 * version 2, built by that release's own migrations), into which members had already slipped what the
 * new rules refuse: the migration completes, moves those rows aside for the owner, keeps everything
 * else as it was, and the rules hold from then on.
 */
import { expect, it } from 'vitest';
import pg from 'pg';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, VERSION_TABLE } from '../../../../src/core/storage/postgres/postgresSchema';
import { POSTGRES_MEMBER_RULES_MIGRATION } from '../../../../src/core/storage/postgres/postgresMemberRules';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { insertConversation, inTransaction } from './filesTestDb';
import { TEAM_ROLES_SQL } from './teamDatabase';

describeWithPostgres('team store migration 3 on a store of the release before', (server) => {
  it('moves aside the rows that break the new rules, keeps the rest, and enforces the rules afterwards', async () => {
    // Migration 3 is the member rules; the checkpoints' folder column (migration 4) came after it.
    expect(POSTGRES_MIGRATIONS[2]).toBe(POSTGRES_MEMBER_RULES_MIGRATION);
    await server().psql(TEAM_ROLES_SQL);
    const db = await server().createDatabase(undefined, 'arbor_admin');
    const pools: pg.Pool[] = [];
    const pool = (role: string) => {
      const p = new pg.Pool({ connectionString: server().url(role, db), max: 2 });
      pools.push(p);
      return p;
    };
    const [owner, alice, carol, bob] = ['arbor_admin', 'alice', 'carol', 'bob'].map(pool);
    try {
      // The release before: migrations 1 and 2, as its store ran them.
      await owner.query(VERSION_TABLE);
      for (const version of [1, 2]) {
        await inTransaction(owner, async (client) => {
          await client.query(POSTGRES_MIGRATIONS[version - 1]);
          await client.query('INSERT INTO arbor_schema (version) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET version = excluded.version', [version]);
        });
      }
      await owner.query('GRANT SELECT ON arbor_schema TO arbor_users');

      // Alice's conversation with two checkpoints; a teammate then rewrote one path and the authors.
      const a1 = await insertConversation(alice, 'a1', 'team_a', [null, 0, 1]);
      await inTransaction(alice, async (client) => {
        await client.query('SELECT arbor_store_contents($1::bytea[])', [[Buffer.from('ok\n'), Buffer.from('evil\n')]]);
        await client.query(
          `INSERT INTO file_changes (node, position, path, after_hash) VALUES
             ($1, 0, 'src/ok.txt', encode(sha256('ok\n'::bytea), 'hex')), ($1, 1, 'src/later.sh', encode(sha256('evil\n'::bytea), 'hex'))`,
          [a1.keys[2]],
        );
      });
      await carol.query("UPDATE file_changes SET path = '../escape/evil.sh' WHERE path = 'src/later.sh'");
      await carol.query("UPDATE nodes SET author = 'carol' WHERE seq = 1");
      // Another conversation Alice published to every team.
      await insertConversation(alice, 'a-published', 'team_a', [null]);
      await alice.query("UPDATE conversations SET team = 'arbor_users' WHERE id = 'a-published'");
      // Bob hung a node, and a reply to it, under Alice's message from his own conversation.
      const b1 = await insertConversation(bob, 'b1', 'team_b', [null, 0]);
      const hung = await bob.query(
        "INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at) VALUES ($1, 2, $2, 0, 'user', 'hung', now()) RETURNING key",
        [b1.key, a1.keys[2]],
      );
      await bob.query("INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at) VALUES ($1, 3, $2, 0, 'assistant', 'reply', now())", [b1.key, hung.rows[0].key]);
      expect((await bob.query("SELECT id FROM conversations WHERE id = 'a-published'")).rows).toHaveLength(1);

      // The owner opens the store: migration 3 runs (and every later one).
      await (await PostgresConversationStorage.open({ connectionString: server().url('arbor_admin', db) })).close();
      expect((await owner.query('SELECT version FROM arbor_schema')).rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);

      const refused = (await owner.query('SELECT table_name, rule, row_data FROM refused_rows ORDER BY id')).rows;
      expect(refused.map((r) => [r.table_name, r.row_data.content ?? r.row_data.path])).toEqual([
        ['nodes', 'hung'],
        ['nodes', 'reply'],
        ['file_changes', '../escape/evil.sh'],
      ]);
      expect(refused[2].row_data).toMatchObject({ conversation_id: 'a1', node_seq: 2 });
      expect((await owner.query('SELECT count(*)::int AS n FROM nodes WHERE conversation = $1', [b1.key])).rows).toEqual([{ n: 2 }]);
      // Members cannot read what was moved aside.
      await expect(bob.query('SELECT * FROM refused_rows')).rejects.toThrow(/permission denied/);

      // Alice's conversation is whole, with its valid checkpoint; Bob's is whole without the hung nodes.
      const aliceStore = await PostgresConversationStorage.open({ connectionString: server().url('alice', db), migrate: false });
      const bobStore = await PostgresConversationStorage.open({ connectionString: server().url('bob', db), migrate: false });
      try {
        expect((await aliceStore.loadConversation('a1'))?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2']);
        expect((await aliceStore.fileChanges('a1', 'n2')).map((c) => c.path)).toEqual(['src/ok.txt']);
        expect((await bobStore.loadConversation('b1'))?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1']);
        // The published conversation is withdrawn: only the owner sees it, and may give it a team again.
        expect((await bobStore.listConversations()).map((c) => c.conversationId)).toEqual(['b1']);
        expect(await aliceStore.loadConversation('a-published')).toBeNull();
      } finally {
        await aliceStore.close();
        await bobStore.close();
      }
      // From now on the rules hold.
      await expect(carol.query("UPDATE nodes SET author = 'carol' WHERE seq = 2")).rejects.toThrow(/author/);
      await expect(alice.query("UPDATE conversations SET team = 'arbor_users' WHERE id = 'a1'")).rejects.toThrow(/row-level security/);
      await expect(bob.query("INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at) VALUES ($1, 4, $2, 1, 'user', 'x', now())", [b1.key, a1.keys[1]])).rejects.toThrow(/foreign key/);
      await expect(carol.query("UPDATE file_changes SET path = '/etc/passwd'")).rejects.toThrow(/file_changes_path_relative/);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});
