/**
 * Bringing a team store's database to the schema this code writes, and finding the team of new
 * conversations. The administrator (the role that owns, or may create, the tables) runs the migrations,
 * usually by opening the store once; people's own roles only read the version and get a clear error
 * naming the version they need when the database is behind.
 */
import type pg from 'pg';
import { InvalidArgumentError, StorageError } from '../../errors';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION, USERS_ROLE, VERSION_TABLE } from './postgresSchema';

/** A lock key of `pg_advisory_xact_lock` that serialises migrations ("arbor" in ASCII). */
const MIGRATION_LOCK = 0x6172626f72;

/** PostgreSQL's SQLSTATE for a missing privilege (also what a missing CREATE on the schema gives). */
const INSUFFICIENT_PRIVILEGE = '42501';

function sqlState(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
}

/** The schema version stored in the database: 0 when there is no `arbor_schema` table yet. */
async function storedVersion(client: pg.PoolClient): Promise<number> {
  const exists = await client.query<{ present: boolean }>(`SELECT to_regclass('arbor_schema') IS NOT NULL AS present`);
  if (!exists.rows[0].present) return 0;
  const result = await client.query<{ version: number }>('SELECT version FROM arbor_schema');
  return result.rows.length ? Number(result.rows[0].version) : 0;
}

function behindMessage(role: string, version: number, reason: string): string {
  return (
    `The team store's database is at schema version ${version}; this version of Arbor needs version ${POSTGRES_SCHEMA_VERSION}. ` +
    `Role "${role}" ${reason}. Ask the database's administrator to run the migrations: open the team store once as the role that owns its tables ` +
    `(see the README's "Team store"), then connect again.`
  );
}

/**
 * Reads the schema version and, when `migrate` is set, applies every pending migration, each in its own
 * transaction under an advisory lock (two clients migrating at once apply each migration once). The
 * version table is readable by every member of `arbor_users`, so their clients can check it.
 */
export async function migrate(client: pg.PoolClient, migrate: boolean): Promise<void> {
  const role = (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
  let version: number;
  try {
    version = await storedVersion(client);
  } catch (error) {
    if (sqlState(error) === INSUFFICIENT_PRIVILEGE) {
      throw new StorageError(
        `Role "${role}" may not read the team store's schema version (table arbor_schema). Ask the administrator to grant the team role ${USERS_ROLE} (see the README's "Team store").`,
        { cause: error },
      );
    }
    throw error;
  }
  if (version > POSTGRES_SCHEMA_VERSION) {
    throw new StorageError(`The team store's database is at schema version ${version}, newer than this version of Arbor knows (${POSTGRES_SCHEMA_VERSION}). Update Arbor to use it.`);
  }
  if (version === POSTGRES_SCHEMA_VERSION) return;
  if (!migrate) throw new StorageError(behindMessage(role, version, 'was opened without running migrations'));
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(VERSION_TABLE);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (sqlState(error) === INSUFFICIENT_PRIVILEGE) throw new StorageError(behindMessage(role, version, 'may not create or change the tables'), { cause: error });
    throw error;
  }
  // Once all are applied, members of arbor_users may read the version (the group role comes with migration 1).
  for (;;) {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const current = await storedVersion(client);
      if (current >= POSTGRES_SCHEMA_VERSION) {
        await client.query(`GRANT SELECT ON arbor_schema TO ${USERS_ROLE}`);
        await client.query('COMMIT');
        return;
      }
      await client.query(POSTGRES_MIGRATIONS[current]);
      await client.query('INSERT INTO arbor_schema (singleton, version) VALUES (true, $1) ON CONFLICT (singleton) DO UPDATE SET version = excluded.version', [current + 1]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (sqlState(error) === INSUFFICIENT_PRIVILEGE) throw new StorageError(behindMessage(role, version, 'may not create or change the tables'), { cause: error });
      throw error;
    }
  }
}

/**
 * The team roles the connecting role belongs to: roles it is a member of (directly or through others)
 * that are themselves members of `arbor_users`, sorted by name.
 */
export async function memberTeams(client: pg.Pool | pg.PoolClient): Promise<string[]> {
  const result = await client.query<{ rolname: string }>(
    `SELECT r.rolname FROM pg_roles r, pg_roles u
     WHERE u.rolname = $1 AND r.oid <> u.oid AND r.rolname <> current_user
       AND pg_has_role(r.oid, u.oid, 'MEMBER') AND pg_has_role(current_user, r.oid, 'MEMBER')
     ORDER BY r.rolname COLLATE "C"`,
    [USERS_ROLE],
  );
  return result.rows.map((row) => row.rolname);
}

/**
 * The team of new conversations: `team` when given (the role must be a member of it), else the only
 * team the role belongs to. Undefined when it belongs to none (it can still read nothing and create
 * nothing; creating says why). Several teams and no `team` is an error naming them.
 */
export async function resolveTeam(client: pg.Pool | pg.PoolClient, team: string | undefined): Promise<string | undefined> {
  const teams = await memberTeams(client);
  const role = (await client.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
  if (team !== undefined) {
    if (!teams.includes(team)) {
      throw new InvalidArgumentError(
        `Role "${role}" is not a member of the team role "${team}"${teams.length ? ` (its teams: ${teams.join(', ')})` : ' (it belongs to no team)'}. Set the team to one of its teams, or ask the administrator to GRANT ${team} TO ${role}.`,
      );
    }
    return team;
  }
  if (teams.length > 1) {
    throw new InvalidArgumentError(`Role "${role}" belongs to several teams (${teams.join(', ')}): choose the team of new conversations in the team store's settings.`);
  }
  return teams[0];
}
