/**
 * Reads the team store's settings (`arbor.storage.*`): which store conversations live in, the
 * PostgreSQL address without a password, the team and TLS. Pure (no `vscode` import). A setting that
 * cannot be used is not silently replaced by the local store: `problem` says what to fix, and the
 * store refuses to open with it, so no conversation lands where the user did not mean it to.
 */

/** Where conversations are stored. */
export type StorageKind = 'local' | 'postgres';

/** How the connection to the team store is secured. */
export type TeamStoreSsl = 'off' | 'require' | 'verify-full';

/** The team store's settings, validated. */
export interface TeamStoreSettings {
  /** `arbor.storage.kind`: `local` (this window's sql.js file, the default) or `postgres` (the team store). */
  kind: StorageKind;
  /** `arbor.storage.postgres.url`: `postgres://user@host:5432/db`, never with a password (empty when not set). */
  url: string;
  /** `arbor.storage.postgres.team`: the team role new conversations belong to; undefined: the only team of the user. */
  team?: string;
  /** `arbor.storage.postgres.ssl`: `off`, `require` (encrypted, certificate not checked) or `verify-full` (certificate and host name checked). */
  ssl: TeamStoreSsl;
  /** `arbor.storage.postgres.sslCaFile`: the absolute path of a CA certificate (PEM) to check the server's certificate with. */
  caFile?: string;
  /** Why the team store cannot be opened with these settings (only when `kind` is `postgres`). */
  problem?: string;
}

/** Query parameters of a connection URL that carry a secret or TLS choice, which belong elsewhere. */
const SECRET_PARAMS = ['password'];
const TLS_PARAMS = ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey'];

/**
 * Why `url` cannot be the team store's address, or `undefined` when it can: it must be a
 * `postgres://` or `postgresql://` URL with a host and no password (in the user part or as a
 * parameter), since settings are plain text and often synced; TLS is chosen by `arbor.storage.postgres.ssl`.
 */
export function teamStoreUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `arbor.storage.postgres.url must be a URL such as postgres://alice@db.example.com:5432/arbor; "${url}" is not one.`;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `arbor.storage.postgres.url must start with postgres:// (e.g. postgres://alice@db.example.com:5432/arbor), not ${parsed.protocol}//.`;
  }
  if (!parsed.hostname) return 'arbor.storage.postgres.url has no host: write it as postgres://alice@db.example.com:5432/arbor.';
  const params = [...parsed.searchParams.keys()].map((k) => k.toLowerCase());
  if (parsed.password || params.some((k) => SECRET_PARAMS.includes(k))) {
    return 'arbor.storage.postgres.url contains a password. Settings are stored (and often synced) as plain text: remove the password from the URL and run "Arbor: Set Team Store Password", which keeps it in VS Code\'s secret storage.';
  }
  const tls = params.find((k) => TLS_PARAMS.includes(k));
  if (tls) return `arbor.storage.postgres.url sets "${tls}": remove it and choose TLS with arbor.storage.postgres.ssl (off, require or verify-full) and arbor.storage.postgres.sslCaFile.`;
  return undefined;
}

/** Turns the raw `storage.*` values (keys without `arbor.`) into settings; bad values of a local store are warnings. */
export function parseTeamStoreSettings(get: (key: string) => unknown, warnings: string[]): TeamStoreSettings {
  const rawKind = get('storage.kind');
  let kind: StorageKind = 'local';
  if (rawKind === 'postgres' || rawKind === 'local') kind = rawKind;
  else if (rawKind !== undefined && rawKind !== null && rawKind !== '') warnings.push(`arbor.storage.kind must be "local" or "postgres", not ${JSON.stringify(rawKind)}; using local.`);

  const problems: string[] = [];
  const rawUrl = get('storage.postgres.url');
  const url = typeof rawUrl === 'string' ? rawUrl.trim() : '';
  if (rawUrl !== undefined && rawUrl !== null && typeof rawUrl !== 'string') problems.push('arbor.storage.postgres.url must be a string such as postgres://alice@db.example.com:5432/arbor.');
  else if (url) {
    const problem = teamStoreUrlProblem(url);
    if (problem) problems.push(problem);
  } else if (kind === 'postgres') {
    problems.push('arbor.storage.kind is "postgres" but arbor.storage.postgres.url is empty: set it to the team store\'s address, e.g. postgres://alice@db.example.com:5432/arbor.');
  }

  const rawTeam = get('storage.postgres.team');
  const team = typeof rawTeam === 'string' && rawTeam.trim() ? rawTeam.trim() : undefined;
  if (rawTeam !== undefined && rawTeam !== null && typeof rawTeam !== 'string') problems.push('arbor.storage.postgres.team must be the name of a team role, e.g. "team_web".');

  const rawSsl = get('storage.postgres.ssl');
  let ssl: TeamStoreSsl = 'verify-full';
  if (rawSsl === 'off' || rawSsl === 'require' || rawSsl === 'verify-full') ssl = rawSsl;
  else if (rawSsl !== undefined && rawSsl !== null && rawSsl !== '') problems.push(`arbor.storage.postgres.ssl must be "off", "require" or "verify-full", not ${JSON.stringify(rawSsl)}.`);

  const rawCa = get('storage.postgres.sslCaFile');
  const caFile = typeof rawCa === 'string' && rawCa.trim() ? rawCa.trim() : undefined;
  if (rawCa !== undefined && rawCa !== null && typeof rawCa !== 'string') problems.push('arbor.storage.postgres.sslCaFile must be the path of a PEM file.');
  else if (caFile && !isAbsolutePath(caFile)) problems.push(`arbor.storage.postgres.sslCaFile must be an absolute path, not "${caFile}".`);
  else if (caFile && ssl === 'off') problems.push('arbor.storage.postgres.sslCaFile is set but arbor.storage.postgres.ssl is "off": set ssl to "verify-full" to use the certificate, or clear the file.');

  const settings: TeamStoreSettings = { kind, url, ssl, ...(team ? { team } : {}), ...(caFile ? { caFile } : {}) };
  if (kind === 'postgres' && problems.length > 0) settings.problem = problems.join(' ');
  else warnings.push(...problems);
  return settings;
}

function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
}

/** The URL to show in messages: the user, host, port and database (there is never a password in it). */
export function describeTeamStore(url: string): string {
  try {
    const u = new URL(url);
    return `${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return url;
  }
}
