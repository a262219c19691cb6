import { expect, it } from 'vitest';
import pg from 'pg';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { POSTGRES_SCHEMA_VERSION } from '../../../../src/core/storage/postgres/postgresSchema';
import { teamStoreSql } from '../../../../scripts/teamStoreSql';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { sampleConversation } from '../../../../src/core/storage/storageTestData';

/**
 * The administrator's path of the README's "Team store", on a real PostgreSQL: a schema owner that is
 * not a superuser runs the printed schema SQL (twice: the second run changes nothing), then adds a team
 * and a person with the README's statements, and the person can use the store while another team's
 * person cannot see it.
 */
describeWithPostgres('team store administrator SQL', (server) => {
  it('creates the schema as a non-superuser owner, runs again harmlessly, and the README\'s team and person statements work', async () => {
    const db = 'arbor_admin_test';
    // The README's first block, as the superuser.
    await server().psql(`CREATE ROLE arbor_owner LOGIN CREATEROLE PASSWORD 'owner-secret';
      CREATE DATABASE ${db} OWNER arbor_owner;
      REVOKE ALL ON DATABASE ${db} FROM PUBLIC;
      CREATE ROLE arbor_users NOLOGIN;
      GRANT CONNECT ON DATABASE ${db} TO arbor_users;
      GRANT arbor_users TO arbor_owner WITH ADMIN OPTION;
      CREATE ROLE outsider LOGIN;`);
    const owner = new pg.Client({ connectionString: server().url('arbor_owner', db) });
    await owner.connect();
    try {
      await owner.query(teamStoreSql());
      await owner.query(teamStoreSql());
      expect((await owner.query('SELECT version FROM arbor_schema')).rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
      await owner.query(`
        CREATE ROLE team_x NOLOGIN; GRANT arbor_users TO team_x;
        CREATE ROLE alice LOGIN PASSWORD 'alice-secret'; GRANT team_x TO alice;
        CREATE ROLE team_y NOLOGIN; GRANT arbor_users TO team_y;
        CREATE ROLE bob LOGIN PASSWORD 'bob-secret'; GRANT team_y TO bob;`);
    } finally {
      await owner.end();
    }
    const alice = new pg.Client({ connectionString: server().url('alice', db) });
    const bob = new pg.Client({ connectionString: server().url('bob', db) });
    await alice.connect();
    await bob.connect();
    await expect(new pg.Client({ connectionString: server().url('outsider', db) }).connect()).rejects.toThrow(/permission denied for database/);
    try {
      await alice.query("INSERT INTO conversations (id, team) VALUES ('x1', 'team_x')");
      expect((await alice.query('SELECT id FROM conversations')).rows).toEqual([{ id: 'x1' }]);
      expect((await bob.query('SELECT id FROM conversations')).rows).toEqual([]);
      await expect(bob.query("INSERT INTO conversations (id, team) VALUES ('y1', 'team_x')")).rejects.toThrow(/row-level security/);
    } finally {
      await alice.end();
      await bob.end();
    }
    // Arbor opens it as a person without migrating anything (the version is current and readable).
    const store = await PostgresConversationStorage.open({ connectionString: server().url('alice', db), password: 'alice-secret', migrate: false });
    try {
      await store.saveConversation(sampleConversation('x2', 3));
      expect((await store.listConversations()).map((c) => c.conversationId).sort()).toEqual(['x1', 'x2']);
    } finally {
      await store.close();
    }
  });
});
