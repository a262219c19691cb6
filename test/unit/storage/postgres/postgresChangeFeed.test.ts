import { afterEach, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { PostgresChangeFeed } from '../../../../src/core/storage/postgres/postgresChangeFeed';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { sampleConversation } from '../../../../src/core/storage/storageTestData';
import { teamStoreSql } from '../../../../scripts/teamStoreSql';

/**
 * The change feed on a real PostgreSQL: a change committed by one connection reaches a feed of another
 * member of the team; a feed never reports another team's conversations; a change whose transaction took
 * its id before a later one committed is still reported; and a feed whose connection is killed reconnects
 * and reports what changed while it was down.
 */
describeWithPostgres('PostgresChangeFeed', (server) => {
  let db: string;
  const opened: { end(): Promise<void> }[] = [];
  const feeds: PostgresChangeFeed[] = [];

  beforeAll(async () => {
    db = await server().createDatabase();
    await server().psql(
      `${teamStoreSql()}
      CREATE ROLE team_a NOLOGIN; CREATE ROLE team_b NOLOGIN; GRANT arbor_users TO team_a, team_b;
      CREATE ROLE alice LOGIN; CREATE ROLE carol LOGIN; CREATE ROLE dave LOGIN; GRANT team_a TO alice, carol, dave;
      CREATE ROLE bob LOGIN; GRANT team_b TO bob;`,
      db,
    );
  }, 60_000);

  afterEach(async () => {
    for (const feed of feeds.splice(0)) await feed.dispose();
    for (const c of opened.splice(0)) await c.end().catch(() => undefined);
  });

  function pool(role: string): pg.Pool {
    const p = new pg.Pool({ connectionString: server().url(role, db), max: 2 });
    opened.push(p);
    return p;
  }

  async function client(role: string): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: server().url(role, db) });
    await c.connect();
    opened.push(c);
    return c;
  }

  /** A feed for `role` that records what it reports and its statuses. */
  async function feedOf(role: string): Promise<{ changed: string[]; statuses: string[]; feed: PostgresChangeFeed }> {
    const changed: string[] = [];
    const statuses: string[] = [];
    const feed = await PostgresChangeFeed.start({
      connectionString: server().url(role, db),
      pool: pool(role),
      onChange: (id) => changed.push(id),
      onStatus: (status) => statuses.push(status),
    });
    feeds.push(feed);
    return { changed, statuses, feed };
  }

  async function addConversation(writer: pg.Client | pg.Pool, id: string, team: string): Promise<void> {
    const { rows } = await writer.query<{ key: string }>('INSERT INTO conversations (id, team) VALUES ($1, $2) RETURNING key', [id, team]);
    await writer.query("INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at) VALUES ($1, 0, NULL, 0, 'system', '', now())", [rows[0].key]);
  }

  it('reports a change committed by another connection of the team, once per conversation and batch, and not changes from before it started', async () => {
    const carol = await client('carol');
    await addConversation(carol, 'before-start', 'team_a');
    const { changed, statuses } = await feedOf('alice');
    expect(statuses).toEqual(['connected']);
    await addConversation(carol, 'c1', 'team_a');
    await expect.poll(() => changed, { timeout: 5000 }).toContain('c1');
    // The conversation's row and its node are two changes of one conversation.
    expect(changed.filter((id) => id === 'c1').length).toBeLessThanOrEqual(2);
    await carol.query("UPDATE conversations SET metadata = '{\"title\":\"t\"}' WHERE id = 'c1'");
    await carol.query("DELETE FROM conversations WHERE id = 'before-start'");
    await expect.poll(() => changed, { timeout: 5000 }).toContain('before-start');
    expect(changed.indexOf('before-start')).toBeGreaterThan(changed.indexOf('c1'));
  });

  it('never reports another team\'s conversations', async () => {
    const bobSide = await feedOf('bob');
    const aliceSide = await feedOf('alice');
    const carol = await client('carol');
    const bob = await client('bob');
    await addConversation(carol, 'secret-a', 'team_a');
    await addConversation(bob, 'b1', 'team_b');
    await expect.poll(() => bobSide.changed, { timeout: 5000 }).toContain('b1');
    await expect.poll(() => aliceSide.changed, { timeout: 5000 }).toContain('secret-a');
    // Notifications arrive in commit order and are read in order: team A's came before team B's.
    // (The conversation's row and its root node are two changes, read in one batch or two.)
    expect([...new Set(bobSide.changed)]).toEqual(['b1']);
    expect(aliceSide.changed).not.toContain('b1');
  });

  it('reports a change whose transaction took a smaller id but committed after a larger one', async () => {
    const { changed } = await feedOf('alice');
    const carol = await client('carol');
    const dave = await client('dave');
    await carol.query('BEGIN');
    await addConversation(carol, 'slow', 'team_a');
    await addConversation(dave, 'fast', 'team_a');
    await expect.poll(() => changed, { timeout: 5000 }).toContain('fast');
    expect(changed).not.toContain('slow');
    await carol.query('COMMIT');
    await expect.poll(() => changed, { timeout: 5000 }).toContain('slow');
  });

  it('reconnects after its connection is killed and reports what changed while it was down', async () => {
    const { changed, statuses } = await feedOf('alice');
    const carol = await client('carol');
    await addConversation(carol, 'before-kill', 'team_a');
    await expect.poll(() => changed, { timeout: 5000 }).toContain('before-kill');
    // Its two changes (conversation, node) may come in one batch or two; wait until both are read.
    await carol.query("UPDATE conversations SET metadata = '{}' WHERE id = 'before-kill'");
    await expect.poll(() => changed.at(-1), { timeout: 5000 }).toBe('before-kill');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const beforeKillReports = changed.filter((id) => id === 'before-kill').length;

    // Alice may not log in again until the changes below are made, so they are made while the feed is
    // down for certain (the pool's open connections stay).
    await server().psql('ALTER ROLE alice NOLOGIN;', db);
    const killed = await server().psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'alice' AND application_name = 'arbor change feed';", db);
    expect(killed.trim()).toBe('t');
    await expect.poll(() => statuses.filter((s) => s === 'reconnecting').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await addConversation(carol, 'while-down-1', 'team_a');
    await addConversation(carol, 'while-down-2', 'team_a');
    expect(changed).not.toContain('while-down-1');
    await server().psql('ALTER ROLE alice LOGIN;', db);

    await expect.poll(() => changed, { timeout: 20_000 }).toEqual(expect.arrayContaining(['while-down-1', 'while-down-2']));
    expect(statuses.at(-1)).toBe('connected');
    // The catch-up looks back over ids already reported, and skips them.
    expect(changed.filter((id) => id === 'before-kill').length).toBe(beforeKillReports);
    await addConversation(carol, 'after', 'team_a');
    await expect.poll(() => changed, { timeout: 5000 }).toContain('after');
    expect(changed.filter((id) => id === 'before-kill').length).toBe(beforeKillReports);
  }, 60_000);

  it('is what a store\'s onDidChange reports: another store\'s changes since the store opened, until it is closed', async () => {
    const reader = await PostgresConversationStorage.open({ connectionString: server().url('alice', db) });
    const writer = await PostgresConversationStorage.open({ connectionString: server().url('carol', db) });
    opened.push({ end: () => writer.close() });
    const heard: string[] = [];
    const statuses: string[] = [];
    // A change after the reader opened but before its feed listens (it starts with the first
    // subscription) is reported too: the feed starts from the newest change at the store's open.
    await writer.saveConversation(sampleConversation('before-subscribing', 2));
    reader.onDidChangeFeedStatus((s) => statuses.push(s.status));
    reader.onDidChange((id) => heard.push(id));
    await expect.poll(() => statuses, { timeout: 5000 }).toContain('connected');
    await writer.saveConversation(sampleConversation('from-carol', 2));
    await expect.poll(() => heard, { timeout: 5000 }).toContain('from-carol');
    expect(heard).toContain('before-subscribing');
    await reader.close();
    // Its listening connection is gone with it.
    await expect.poll(async () => (await server().psql("SELECT count(*) FROM pg_stat_activity WHERE usename = 'alice' AND application_name = 'arbor change feed';", db)).trim(), { timeout: 5000 }).toBe('0');
  });

  it('fails to start with the server\'s error when the role cannot log in', async () => {
    await expect(
      PostgresChangeFeed.start({ connectionString: server().url('team_a', db), pool: pool('alice'), onChange: () => undefined }),
    ).rejects.toThrow(/not permitted to log in/);
  });
});
