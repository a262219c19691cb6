import { describe, expect, it } from 'vitest';
import { postgresClientConfig } from './clientConfig';

describe('postgresClientConfig', () => {
  it('keeps the password given apart from a URL that has none (pg alone would drop it)', () => {
    const config = postgresClientConfig({ connectionString: 'postgresql://alice@db.example:6543/team', password: 's3cret', ssl: { rejectUnauthorized: true } });
    expect(config).toMatchObject({ user: 'alice', host: 'db.example', port: 6543, database: 'team', password: 's3cret', ssl: { rejectUnauthorized: true } });
  });

  it('leaves the password unset when there is none, for a server that trusts the role', () => {
    const config = postgresClientConfig({ connectionString: 'postgresql://bob@127.0.0.1:5432/team' });
    expect(config.password ?? undefined).toBeUndefined();
    expect(config.user).toBe('bob');
  });
});
