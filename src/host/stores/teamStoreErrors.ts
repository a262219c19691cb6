/**
 * The team store's failures as a person can act on them: which store, what went wrong, and what to
 * do (start or reach the server, set the password, fix the TLS settings). Pure.
 */
import { ArborError } from '../../core/index';

/** Node's socket errors that mean the server was not reached (or the connection dropped). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);

/** What kind of failure an error of `pg` (or of the socket under it) is, or `undefined` for another error. */
export type TeamStoreFailure = 'unreachable' | 'auth' | 'tls' | 'database';

/** Classifies a failure of the team store's connection; `undefined` when it is not one (a bug, a refused change). */
export function teamStoreFailure(err: unknown): TeamStoreFailure | undefined {
  if (err instanceof TeamStoreUnavailableError) return err.failure;
  if (!(err instanceof Error)) return undefined;
  const raw = (err as Error & { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : '';
  const message = err.message;
  if (NETWORK_CODES.has(code) || /^08/.test(code) || /^57P0[123]$/.test(code)) return 'unreachable';
  if (/^28/.test(code) || /password authentication failed|SASL|no password/i.test(message)) return 'auth';
  if (code === '3D000') return 'database';
  if (/^(ERR_TLS|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_VERIFY|CERT_)/.test(code) || /does not support SSL|certificate|SSL/.test(message)) return 'tls';
  if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(message)) return 'unreachable';
  return undefined;
}

const HINTS: Record<TeamStoreFailure, string> = {
  unreachable: 'Check that the server is running and reachable from here, and arbor.storage.postgres.url.',
  auth: 'Set your database role\'s password with "Arbor: Set Team Store Password", and check the user in arbor.storage.postgres.url.',
  tls: 'Check arbor.storage.postgres.ssl ("off" for a server without TLS) and arbor.storage.postgres.sslCaFile.',
  database: 'Check the database name in arbor.storage.postgres.url.',
};

/**
 * The team store could not be opened or reached. Retrying is safe: nothing typed is dropped, and the
 * store is opened again on the next use.
 */
export class TeamStoreUnavailableError extends ArborError {
  constructor(
    message: string,
    options?: { cause?: unknown },
    readonly failure: TeamStoreFailure = 'unreachable',
  ) {
    super(message, options);
  }

  /** `err` with the store's name and the fix for its kind of failure (an error already wrapped is kept). */
  static wrap(err: unknown, store?: string): TeamStoreUnavailableError {
    if (err instanceof TeamStoreUnavailableError) return err;
    const failure = teamStoreFailure(err);
    const reason = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err);
    const hint = failure ? ` ${HINTS[failure]}` : '';
    return new TeamStoreUnavailableError(`Could not use the team store${store ? ` ${store}` : ''}: ${reason.replace(/\.$/, '')}.${hint}`, { cause: err }, failure ?? 'unreachable');
  }
}
