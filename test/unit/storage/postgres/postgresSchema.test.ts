import { expect, it } from 'vitest';
import pg from 'pg';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { POSTGRES_MIGRATIONS, VERSION_TABLE } from '../../../../src/core/storage/postgres/postgresSchema';
/**
 * The team store's schema on a real PostgreSQL: the policies key on the connecting role's team
 * membership, a node's author is the role that wrote it whatever the client sends, and every change
 * is noted in \`changes\` with a notification carrying its id.
 */
describeWithPostgres('team store schema', (server) => {
  it('lets a role see and change only its team\'s conversations, records who wrote a node, and notifies changes by id', async () => {
    const db = await server().createDatabase();
    await server().psql(`${VERSION_TABLE}\n${POSTGRES_MIGRATIONS[0]}\nCREATE ROLE team_a NOLOGIN; CREATE ROLE team_b NOLOGIN; GRANT arbor_users TO team_a, team_b; CREATE ROLE alice LOGIN; GRANT team_a TO alice; CREATE ROLE bob LOGIN; GRANT team_b TO bob;`, db);
    const alice = new pg.Client({ connectionString: server().url('alice', db) });
    const bob = new pg.Client({ connectionString: server().url('bob', db) });
    await alice.connect();
    await bob.connect();
    const heard: string[] = [];
    await bob.query('LISTEN arbor_changes');
    bob.on('notification', (n) => heard.push(String(n.payload)));
    const c = await alice.query("INSERT INTO conversations (id, team) VALUES ('c1', 'team_a') RETURNING key");
    await alice.query("INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at, author) VALUES ($1, 0, NULL, 0, 'system', '', now(), 'mallory')", [c.rows[0].key]);
    expect((await alice.query('SELECT author FROM nodes')).rows[0].author).toBe('alice');
    expect((await bob.query('SELECT * FROM conversations')).rows).toHaveLength(0);
    expect((await bob.query('SELECT * FROM nodes')).rows).toHaveLength(0);
    expect((await bob.query('SELECT * FROM changes')).rows).toHaveLength(0);
    expect((await alice.query('SELECT * FROM changes')).rows.length).toBeGreaterThan(0);
    await expect(bob.query("INSERT INTO conversations (id, team) VALUES ('c2', 'team_a')")).rejects.toThrow(/row-level security/);
    expect((await bob.query("DELETE FROM conversations WHERE id = 'c1'")).rowCount).toBe(0);
    await expect.poll(() => heard.length).toBeGreaterThan(0);
    // The payloads are change ids only, never a conversation id another team could read.
    expect(heard.every((p) => /^\d+$/.test(p))).toBe(true);
    await alice.end();
    await bob.end();
  });
});
