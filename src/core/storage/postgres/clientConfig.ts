/**
 * The `pg` settings of a team store connection. `pg` drops a `password` given beside a
 * `connectionString` (the parsed URL's fields replace the given ones, and a URL without a password
 * sets it to null), so the URL is parsed here and the password from secret storage is added after it.
 */
import type pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';

/** What a connection needs: the URL without a password, the password apart, TLS. */
export interface PostgresConnectionOptions {
  connectionString: string;
  password?: string;
  ssl?: pg.ClientConfig['ssl'];
}

/** The client settings for `options`: the URL's fields, then the password and TLS given apart. */
export function postgresClientConfig(options: PostgresConnectionOptions): pg.ClientConfig {
  // A URL without a password parses to an empty one: none at all lets pg fall back to PGPASSWORD/.pgpass.
  const { password: _none, ...parsed } = parseIntoClientConfig(options.connectionString);
  return {
    ...parsed,
    ...(options.password !== undefined ? { password: options.password } : {}),
    ...(options.ssl !== undefined ? { ssl: options.ssl } : {}),
  };
}
