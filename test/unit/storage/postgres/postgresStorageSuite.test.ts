/**
 * The shared storage cases (`storageSuite.ts`) on the team store, on a real PostgreSQL: each case gets
 * a new database whose tables an administrator role created (by opening the store once), used by
 * `alice`, a member of the team role `team_a`.
 */
import { beforeAll, describe } from 'vitest';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { TEAM_ROLES_SQL, teamDatabase } from './teamDatabase';
import { fileStorageSuite } from '../fileStorageSuite';
import { storageSuite } from '../storageSuite';

describeWithPostgres('PostgresConversationStorage', (server) => {
  beforeAll(async () => {
    await server().psql(TEAM_ROLES_SQL);
  });
  describe('the shared storage cases', () => {
    storageSuite(async () => PostgresConversationStorage.open({ connectionString: server().url('alice', await teamDatabase(server())) }));
  });
  describe('the shared file and image cases', () => {
    fileStorageSuite(async () => PostgresConversationStorage.open({ connectionString: server().url('alice', await teamDatabase(server())) }));
  });
});
