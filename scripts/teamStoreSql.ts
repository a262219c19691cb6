/**
 * Prints the SQL that creates or upgrades the team store's schema, for an administrator who would rather
 * run it with psql than let Arbor run it when the schema's owner first connects:
 *
 *   npx tsx scripts/teamStoreSql.ts > arbor-schema.sql
 *   psql "postgresql://arbor_owner@db.example.com/arbor" -v ON_ERROR_STOP=1 -1 -f arbor-schema.sql
 *
 * Each migration runs only when `arbor_schema.version` is below its number, so the file can be run again
 * after an upgrade of Arbor; with `-1` it all happens in one transaction.
 */
import { POSTGRES_MIGRATIONS, USERS_ROLE, VERSION_TABLE } from '../src/core/storage/postgres/postgresSchema';

/** The whole script: the version table, then each migration behind its version check. */
export function teamStoreSql(): string {
  const parts = [VERSION_TABLE.trim()];
  POSTGRES_MIGRATIONS.forEach((migration, index) => {
    const version = index + 1;
    const tag = `$arbor_migration_${version}$`;
    if (migration.includes(tag)) throw new Error(`Migration ${version} contains its own quoting tag ${tag}.`);
    parts.push(`-- Migration ${version}
DO $arbor_apply$ BEGIN
  IF coalesce((SELECT version FROM arbor_schema), 0) < ${version} THEN
    EXECUTE ${tag}${migration}${tag};
    INSERT INTO arbor_schema (version) VALUES (${version}) ON CONFLICT (singleton) DO UPDATE SET version = EXCLUDED.version;
  END IF;
END $arbor_apply$;`);
  });
  // People's Arbor reads the version to check the database is current (as the store's own migration grants it).
  parts.push(`GRANT SELECT ON arbor_schema TO ${USERS_ROLE};`);
  return `${parts.join('\n\n')}\n`;
}

if (process.argv[1]?.endsWith('teamStoreSql.ts')) process.stdout.write(teamStoreSql());
