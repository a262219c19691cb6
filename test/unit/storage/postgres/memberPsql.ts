/**
 * A team member's own `psql`: the real client binary, connected to the test cluster as that member's
 * login role with the member's password, running SQL as any member could by hand, outside Arbor. The
 * attacks on the team store's rules are tried this way, so they hold for any client, not only Arbor's.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { postgresBinDir, type PostgresServer } from '../../../fixtures/postgresServer';

/** What psql did: its exit code, and what it printed (rows unaligned, one a line). */
export interface PsqlOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

function psqlBinary(): string {
  const dir = postgresBinDir();
  return dir && existsSync(path.join(dir, 'psql')) ? path.join(dir, 'psql') : 'psql';
}

/**
 * Runs `sql` with psql as `role` (password `password`, in PGPASSWORD as a person's shell would pass it)
 * on `database`, stopping at the first error. Never rejects: a refused statement is an outcome.
 */
export function memberPsql(server: PostgresServer, database: string, role: string, password: string, sql: string): Promise<PsqlOutcome> {
  const url = server.url(role, database);
  return new Promise((resolve) => {
    execFile(
      psqlBinary(),
      ['-v', 'ON_ERROR_STOP=1', '-X', '-q', '-A', '-t', '-c', sql, url],
      { env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout).trim(), stderr: String(stderr).trim() });
      },
    );
  });
}
