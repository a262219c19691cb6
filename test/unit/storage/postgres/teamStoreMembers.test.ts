/**
 * The team store's promises under a hostile member (issue 22, section 7 and the checkpoint column of
 * section 9): each attack is typed into the real `psql` by a member connected as their own role, as
 * anyone with a password could, and the database itself refuses it. Arbor's own writes still work.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { sampleConversation } from '../../../../src/core/storage/storageTestData';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { memberPsql } from './memberPsql';
import { TEAM_ROLES_SQL, teamDatabase } from './teamDatabase';

const PASSWORDS = { alice: 'alice-pw', carol: 'carol-pw', bob: 'bob-pw', dave: 'dave-pw' };
type Member = keyof typeof PASSWORDS;
const bytes = (text: string) => new TextEncoder().encode(text);

describeWithPostgres('team store under a hostile member', (server) => {
  let db: string;
  let owner: pg.Pool;
  const stores: PostgresConversationStorage[] = [];
  const psql = (member: Member, sql: string) => memberPsql(server(), db, member, PASSWORDS[member], sql);
  const open = async (member: Member) => {
    const store = await PostgresConversationStorage.open({ connectionString: server().url(member, db), password: PASSWORDS[member], migrate: false });
    stores.push(store);
    return store;
  };
  /** What the tables hold, whatever the policies say (the owner bypasses them). */
  const look = async (sql: string, params: unknown[] = []) => (await owner.query(sql, params)).rows;

  beforeAll(async () => {
    await server().psql(`${TEAM_ROLES_SQL}\n${Object.entries(PASSWORDS).map(([role, pw]) => `ALTER ROLE ${role} PASSWORD '${pw}';`).join('\n')}`);
    db = await teamDatabase(server());
    owner = new pg.Pool({ connectionString: server().url('arbor_admin', db), max: 2 });
    const alice = await open('alice');
    const bob = await open('bob');
    await alice.saveConversation(sampleConversation('a1', 4));
    await alice.recordFileChanges('a1', 'n2', [{ path: 'src/app.ts', before: bytes('old\n'), after: bytes('new\n') }]);
    await bob.saveConversation(sampleConversation('b1', 2));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await owner?.end();
  });

  it('keeps the author of a message as the role that wrote it: a teammate cannot rewrite it', async () => {
    const before = await look("SELECT n.seq, n.author FROM nodes n JOIN conversations c ON c.key = n.conversation WHERE c.id = 'a1' ORDER BY n.seq");
    expect(before.every((row) => row.author === 'alice')).toBe(true);
    const forged = await psql('carol', "UPDATE nodes SET author = 'carol'");
    expect(forged.code).not.toBe(0);
    expect(forged.stderr).toMatch(/author/);
    expect((await psql('alice', "UPDATE nodes SET author = 'bob' WHERE seq = 1")).code).not.toBe(0);
    expect(await look("SELECT n.seq, n.author FROM nodes n JOIN conversations c ON c.key = n.conversation WHERE c.id = 'a1' ORDER BY n.seq")).toEqual(before);
    // The same holds for who created a conversation.
    expect((await psql('carol', "UPDATE conversations SET created_by = 'carol'")).code).not.toBe(0);
    expect((await psql('carol', "INSERT INTO conversations (id, team, created_by) VALUES ('a-forged', 'team_a', 'alice')")).code).toBe(0);
    expect(await look("SELECT created_by FROM conversations WHERE id IN ('a1', 'a-forged') ORDER BY id")).toEqual([{ created_by: 'carol' }, { created_by: 'alice' }]);
    // What a teammate may do (edit the shared conversation's messages) still works.
    expect((await psql('carol', "UPDATE nodes SET metadata = '{\"bookmarked\": true}' WHERE seq = 1")).code).toBe(0);
  });

  it("lets a conversation's team become only one of the caller's own teams, never every team", async () => {
    for (const [member, sql] of [
      ['alice', "UPDATE conversations SET team = 'arbor_users' WHERE id = 'a1'"],
      ['alice', "UPDATE conversations SET team = 'alice' WHERE id = 'a1'"],
      ['alice', "UPDATE conversations SET team = 'team_b' WHERE id = 'a1'"],
      ['alice', "INSERT INTO conversations (id, team) VALUES ('a-public', 'arbor_users')"],
      ['bob', "INSERT INTO conversations (id, team) VALUES ('b-public', 'arbor_users')"],
    ] as Array<[Member, string]>) {
      const outcome = await psql(member, sql);
      expect({ sql, refused: outcome.code !== 0 }).toEqual({ sql, refused: true });
      expect(outcome.stderr).toMatch(/row-level security/);
    }
    expect(await look("SELECT id, team FROM conversations WHERE id LIKE '%public' OR id = 'a1'")).toEqual([{ id: 'a1', team: 'team_a' }]);
    // Bob sees only his team's conversations and their changes, not a1.
    expect((await psql('bob', 'SELECT id FROM conversations ORDER BY id')).stdout).toBe('b1');
    expect((await psql('bob', "SELECT count(*) FROM changes WHERE conversation_id <> 'b1'")).stdout).toBe('0');
    // A member of two teams moves a conversation between them.
    expect((await psql('dave', "INSERT INTO conversations (id, team) VALUES ('d1', 'team_a')")).code).toBe(0);
    expect((await psql('dave', "UPDATE conversations SET team = 'team_b' WHERE id = 'd1'")).code).toBe(0);
    expect((await psql('bob', "SELECT id FROM conversations WHERE id = 'd1'")).stdout).toBe('d1');
  });

  it("refuses a node whose parent is another conversation's node, and says the same whether that node exists or not", async () => {
    const [secret] = await look("SELECT n.key FROM nodes n JOIN conversations c ON c.key = n.conversation WHERE c.id = 'a1' AND n.seq = 3");
    const [missing] = await look('SELECT max(key) + 1000 AS key FROM nodes');
    const hang = (parent: string) =>
      psql('bob', `INSERT INTO nodes (conversation, seq, parent, position, role, content, created_at) SELECT key, 99, ${parent}, 0, 'user', 'hi', now() FROM conversations WHERE id = 'b1'`);
    const underSecret = await hang(secret.key);
    const underMissing = await hang(missing.key);
    expect(underSecret.code).not.toBe(0);
    const neutral = (text: string) => text.replace(/\d+/g, 'N');
    expect(neutral(underSecret.stderr)).toBe(neutral(underMissing.stderr));
    // Nor can an existing node be moved under it.
    expect((await psql('bob', `UPDATE nodes SET parent = ${secret.key} WHERE seq = 1`)).code).not.toBe(0);
    expect(await look('SELECT count(*)::int AS n FROM nodes WHERE parent = $1', [secret.key])).toEqual([{ n: 0 }]);
    // Within its own conversation, a node hangs under any node (Arbor's own adds).
    const bobStore = stores[1];
    const added = await bobStore.applyChange('b1', { addNodes: [{ parentId: 'n1', message: { role: 'user', content: 'mine' }, timestamp: new Date().toISOString(), metadata: {} }], updatedAt: new Date().toISOString() });
    expect(added.addedNodes[0].parentId).toBe('n1');
  });

  it('refuses in the checkpoint column every path the recorder refuses', async () => {
    const refused = ['../escape/evil.sh', '/etc/passwd', 'src\\app.ts', 'C:/x.txt', 'c:x.txt', 'src//app.ts', 'src/./app.ts', 'src/../../x', 'src/', '', '.', '..'];
    for (const path of refused) {
      const literal = `'${path.replace(/'/g, "''")}'`;
      const updated = await psql('carol', `UPDATE file_changes SET path = ${literal}`);
      expect({ path, refused: updated.code !== 0 }).toEqual({ path, refused: true });
      expect(updated.stderr).toMatch(/file_changes_path/);
      if (!['../escape/evil.sh', '/etc/passwd', 'C:/x.txt'].includes(path)) continue;
      const inserted = await psql(
        'carol',
        `INSERT INTO file_changes (node, position, path, before_hash, after_hash) SELECT node, position + 1, ${literal}, before_hash, after_hash FROM file_changes LIMIT 1`,
      );
      expect({ path, refused: inserted.code !== 0 }).toEqual({ path, refused: true });
    }
    expect(await look('SELECT path FROM file_changes')).toEqual([{ path: 'src/app.ts' }]);
    // A NUL never reaches the column.
    expect((await psql('carol', "UPDATE file_changes SET path = 'a' || chr(0) || 'b'")).code).not.toBe(0);
    // The paths the recorder takes are taken.
    for (const path of ['README.md', '.github/workflows/ci.yml', 'a b/é.txt', '...', 'x..y/z']) {
      expect({ path, code: (await psql('carol', `UPDATE file_changes SET path = '${path}'`)).code }).toEqual({ path, code: 0 });
    }
  });
});
