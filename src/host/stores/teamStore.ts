/**
 * Opens the team store (PostgreSQL) from the settings and the password in secret storage. The one
 * place the host names the Postgres class, so everything else depends only on `ConversationStorage`.
 */
import { promises as fs } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
// Piece 1 of issue 14 (branch pgstore) exports it from the engine's barrel: `export { PostgresConversationStorage, type PostgresStoreOptions } from './storage/postgres/postgresConversationStorage'`.
import { PostgresConversationStorage, type ConversationStorage } from '../../core/index';
import { TeamStoreUnavailableError } from './teamStoreErrors';
import { describeTeamStore, type TeamStoreSettings } from '../settings/teamStoreSettings';

/** pg's `ssl` option for the chosen TLS mode; reads the CA file the user named in their settings. */
export async function teamStoreSsl(settings: TeamStoreSettings): Promise<false | ConnectionOptions> {
  if (settings.ssl === 'off') return false;
  // `require` is libpq's: encrypted, the certificate is not checked.
  if (settings.ssl === 'require') return { rejectUnauthorized: false };
  if (!settings.caFile) return { rejectUnauthorized: true };
  let ca: string;
  try {
    ca = await fs.readFile(settings.caFile, 'utf8');
  } catch (err) {
    throw new TeamStoreUnavailableError(`Could not read the team store's CA certificate ${settings.caFile} (arbor.storage.postgres.sslCaFile): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return { rejectUnauthorized: true, ca };
}

/**
 * Opens the team store of `settings` (whose `problem` must be unset) as the user's own role with
 * `password`. A server that cannot be reached, or refuses the role, is a `TeamStoreUnavailableError`
 * whose message names the store and what to do.
 */
export async function openTeamStore(settings: TeamStoreSettings, password: string | undefined): Promise<ConversationStorage> {
  if (settings.problem) throw new TeamStoreUnavailableError(settings.problem);
  const ssl = await teamStoreSsl(settings);
  try {
    return await PostgresConversationStorage.open({
      connectionString: settings.url,
      ...(password !== undefined ? { password } : {}),
      ssl,
      ...(settings.team ? { team: settings.team } : {}),
    });
  } catch (err) {
    throw TeamStoreUnavailableError.wrap(err, describeTeamStore(settings.url));
  }
}
