/**
 * A team store database for the file and image tests: every migration applied by the superuser (the
 * tables' owner), two teams (`team_a` with `alice` and `anna`, `team_b` with `bob`), and conversations
 * and nodes written with plain SQL as a person would through the store.
 */
import pg from 'pg';
import type { PostgresServer } from '../../../fixtures/postgresServer';
import { POSTGRES_MIGRATIONS, VERSION_TABLE } from '../../../../src/core/storage/postgres/postgresSchema';
import { formatNodeId } from '../../../../src/core/nodeIds';

/** A database with the schema and the roles; `pool(role)` connects as that person. */
export interface FilesTestDb {
  name: string;
  pool(role: string): pg.Pool;
  /** A superuser connection, for looking at what is stored whatever the policies say. */
  admin: pg.Pool;
  end(): Promise<void>;
}

/**
 * Creates the database on `server`, applies the first `upTo` migrations (every one by default) as its
 * owner, and makes the roles (once per cluster).
 */
export async function filesTestDb(server: PostgresServer, upTo = POSTGRES_MIGRATIONS.length): Promise<FilesTestDb> {
  const name = await server.createDatabase();
  const pools: pg.Pool[] = [];
  const pool = (role: string) => {
    const p = new pg.Pool({ connectionString: server.url(role, name), max: 4 });
    // An idle connection the cluster ends as it stops after a failed test is not a failure of its own.
    p.on('error', () => undefined);
    pools.push(p);
    return p;
  };
  const admin = pool('postgres');
  await admin.query(VERSION_TABLE);
  await applyMigrations(admin, 0, upTo);
  await server.psql(
    `DO $$ BEGIN
       IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'team_a') THEN
         CREATE ROLE team_a NOLOGIN; CREATE ROLE team_b NOLOGIN; GRANT arbor_users TO team_a, team_b;
         CREATE ROLE alice LOGIN; CREATE ROLE anna LOGIN; GRANT team_a TO alice, anna;
         CREATE ROLE bob LOGIN; GRANT team_b TO bob;
       END IF;
     END $$;`,
    name,
  );
  return { name, pool, admin, end: async () => void (await Promise.all(pools.map((p) => p.end()))) };
}

/** Applies migrations `from + 1` to `to` as the conversation store runs them: each in its own transaction, over pg's simple protocol. */
export async function applyMigrations(admin: pg.Pool, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await inTransaction(admin, async (client) => {
      await client.query(POSTGRES_MIGRATIONS[i]);
      await client.query('INSERT INTO arbor_schema (version) VALUES ($1) ON CONFLICT (singleton) DO UPDATE SET version = excluded.version', [i + 1]);
    });
  }
}

/** A conversation written with SQL: `parents[seq]` is the parent seq of node `seq` (the root's is null). */
export interface TestConversation {
  key: string;
  /** `nodes.key` by seq. */
  keys: string[];
  /** The node id (`formatNodeId`) of seq. */
  id(seq: number): string;
}

/** Inserts a conversation of `team` with nodes shaped by `parents`, as `db`'s role. */
export async function insertConversation(db: pg.Pool, id: string, team: string, parents: Array<number | null>): Promise<TestConversation> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query('INSERT INTO conversations (id, team, next_seq) VALUES ($1, $2, $3) RETURNING key', [id, team, parents.length]);
    const key = String(rows[0].key);
    const keys: string[] = [];
    const children = new Map<number | null, number>();
    for (const [seq, parent] of parents.entries()) {
      const position = children.get(parent) ?? 0;
      children.set(parent, position + 1);
      const inserted = await client.query(
        "INSERT INTO nodes (conversation, seq, parent, position, next_child, role, content, created_at) VALUES ($1, $2, $3, $4, 0, $5, $6, now()) RETURNING key",
        [key, seq, parent === null ? null : keys[parent], position, seq === 0 ? 'system' : seq % 2 ? 'user' : 'assistant', `message ${seq}`],
      );
      keys.push(String(inserted.rows[0].key));
    }
    await client.query('COMMIT');
    return { key, keys, id: formatNodeId };
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/** Inserts one more node under `parentSeq` and returns its seq. */
export async function insertNode(db: pg.Pool, conversation: TestConversation, parentSeq: number): Promise<number> {
  const seq = conversation.keys.length;
  const { rows } = await db.query(
    `INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at)
     SELECT $1, $2, $3, (SELECT count(*) FROM nodes WHERE parent = $3), 'user', 'more', now() RETURNING key`,
    [conversation.key, seq, conversation.keys[parentSeq]],
  );
  conversation.keys.push(String(rows[0].key));
  return seq;
}

/** Runs `work` in a transaction of `db`'s role (what the conversation store does around addImages/copyForFork). */
export async function inTransaction<T>(db: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}
