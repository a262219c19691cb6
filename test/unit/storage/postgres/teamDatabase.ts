/**
 * Roles and databases of the team store's tests: an administrator who owns each database and runs the
 * migrations, two teams, and people in one, both or neither of them.
 */
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import type { PostgresServer } from '../../../fixtures/postgresServer';

/** Roles are the cluster's: an administrator who owns the databases, teams, and people in them. */
export const TEAM_ROLES_SQL = `
CREATE ROLE arbor_users NOLOGIN;
CREATE ROLE arbor_admin LOGIN;
CREATE ROLE team_a NOLOGIN; CREATE ROLE team_b NOLOGIN;
GRANT arbor_users TO team_a, team_b;
CREATE ROLE alice LOGIN; GRANT team_a TO alice;
CREATE ROLE carol LOGIN; GRANT team_a TO carol;
CREATE ROLE bob LOGIN; GRANT team_b TO bob;
CREATE ROLE dave LOGIN; GRANT team_a, team_b TO dave;
CREATE ROLE nobody LOGIN;
CREATE ROLE loner LOGIN; GRANT arbor_users TO loner;
`;

/** A new database with the team store's tables, created by the administrator opening the store. */
export async function teamDatabase(server: PostgresServer): Promise<string> {
  const db = await server.createDatabase(undefined, 'arbor_admin');
  const admin = await PostgresConversationStorage.open({ connectionString: server.url('arbor_admin', db) });
  await admin.close();
  return db;
}

