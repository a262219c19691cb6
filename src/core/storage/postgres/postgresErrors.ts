/**
 * The team store's errors as people can act on them: a server that cannot be reached, a refused login,
 * a missing database or right, each said with the server's name (never the role's password).
 */
import { ArborError, InvalidArgumentError, StorageError } from '../../errors';

/** SQLSTATE classes and Node error codes that mean the server cannot be reached (or went away). */
const UNREACHABLE = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN|EPIPE|08...|57P0[1-3])$/;

/** Errors of the driver and server as `StorageError`s that say what to do; Arbor's own errors pass through. */
export function translateError(error: unknown, connectionString: string): unknown {
  if (error instanceof ArborError || !(error instanceof Error)) return error;
  const code = String((error as { code?: unknown }).code ?? '');
  const where = serverName(connectionString);
  if (UNREACHABLE.test(code)) return new StorageError(`Cannot reach the team store at ${where}: ${error.message}. Check that the server is running and reachable, then retry.`, { cause: error });
  if (code === '28P01' || code === '28000') return new StorageError(`The team store at ${where} refused the login: ${error.message}. Check the role in the URL and its password.`, { cause: error });
  if (code === '22P05') return new InvalidArgumentError('The team store cannot hold the NUL character (U+0000) in a message, a name or metadata (PostgreSQL text cannot); nothing was stored. Remove it and try again.', { cause: error });
  if (code === '3D000') return new StorageError(`The team store at ${where} has no such database: ${error.message}. Check the database name in the URL.`, { cause: error });
  if (code === '42501') return new StorageError(`The team store at ${where} refused this: ${error.message}. Ask the administrator to grant your team role arbor_users and you the team role (see the README's "Team store").`, { cause: error });
  return error;
}

/** `host:port/database` of a connection string, without its role or any password, for messages. */
function serverName(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } catch {
    return 'the configured address';
  }
}
