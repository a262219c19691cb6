/**
 * The secret formats the redaction missed (issue 8, item 10): each is masked with the text around it
 * kept, and ordinary code, hashes and ids are left alone.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REDACTION_PATTERNS, redactText, RedactionMiddleware } from '../../../src/core/conversation/middleware/redactionMiddleware';
import { GITLEAKS_RULE_COUNT, GITLEAKS_RULES, gitleaksRuleSource } from '../../../src/core/conversation/middleware/gitleaksRules';

const mask = (text: string) => redactText(text, DEFAULT_REDACTION_PATTERNS);

/** Asserts `secret` is gone from `before + secret + after` and both sides are kept. */
function masks(before: string, secret: string, after: string): void {
  const out = mask(`${before}${secret}${after}`);
  expect(out, out).not.toContain(secret);
  expect(out.startsWith(before), out).toBe(true);
  expect(out.endsWith(after), out).toBe(true);
  expect(out, out).toMatch(/\[REDACTED:[\w-]+\]/);
}

// Random-looking values, built so no real token sits in the source.
const rnd = (alphabet: string, n: number, seed = 7) => Array.from({ length: n }, (_, i) => alphabet[(i * 31 + seed * 17 + ((i * i) % 13)) % alphabet.length]).join('');
const ALNUM = 'aB3dE5gH7jK9mN2pQ4sT6vW8yZ0cF1hL';
const LOWER = 'qwertyuiopasdfghjklzxcvbnm';

describe('masks the formats the old patterns missed', () => {
  it('a PGP private key block', () => {
    const key = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF${rnd(ALNUM, 58)}\n${rnd(ALNUM, 64)}\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----`;
    masks('before\n', key, '\nafter');
  });

  it('a private key without its END line', () => {
    const key = `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${rnd(ALNUM, 58)}\n${rnd(ALNUM, 64)}\n${rnd(ALNUM, 40)}`;
    masks('pasted:\n', key, '\n\nwhat is wrong with it?');
    masks('pasted:\n', key, '');
  });

  it('env-style password and API key lines, export lines and YAML', () => {
    masks('DB_PASSWORD=', 'hunter2hunter2', '\nDB_HOST=localhost');
    masks('OPENWEATHER_API_KEY=', rnd(ALNUM, 32), '\n');
    masks('export STRIPE_API_KEY=', rnd(ALNUM, 24), '\n');
    masks('export DB_PASSWORD="', 'correct-horse-battery', '"\n');
    masks('database:\n  password: ', 'Tr0ub4dor&3xyz', '\n  host: db\n');
  });

  it('a Stripe live key', () => masks('stripe ', `sk_live_${rnd(ALNUM, 24)}`, ' ok'));
  it('a Slack bot token', () => masks('slack ', `xoxb-1234567890123-1234567890123-${rnd(ALNUM, 24)}`, ' ok'));
  it('a Google API key', () => masks('maps ', `AIza${rnd(ALNUM + '_-', 35, 3)}`, ' ok'));
  it('a GitLab personal access token', () => masks('gitlab ', `glpat-${rnd(ALNUM, 20)}`, ' ok'));
  it('a Hugging Face token', () => masks('hf ', `hf_${rnd(LOWER + LOWER.toUpperCase(), 34)}`, ' ok'));
  it('an npm token', () => masks('npm ', `npm_${rnd(ALNUM, 36)}`, ' ok'));

  it('a password in a URL, keeping the user and host', () => {
    expect(mask('clone https://alice:s3cretPass@git.example.com/repo.git now')).toBe('clone https://alice:[REDACTED:url-password]@git.example.com/repo.git now');
    masks('DATABASE_URL=postgres://app:', 'pa55w0rd', '@db:5432/app');
  });

  it('Authorization: Basic', () => {
    expect(mask('Authorization: Basic dXNlcjpwYXNzd29yZA==\nAccept: */*')).toBe('Authorization: Basic [REDACTED:basic-auth]\nAccept: */*');
  });
});

describe('leaves ordinary text alone', () => {
  it('code, hashes and ids', () => {
    const code = [
      'const apiKey = getKey();',
      'const password = getPassword();',
      'commit 1b0ad68e4f5c2a9d3b7e8f01a2b3c4d5e6f70819',
      'id: 3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      'const token = tokens[0];',
      'Basic information about the https://example.com/docs page',
      'import { secretKeyFor } from "./keys";',
    ].join('\n');
    expect(mask(code)).toBe(code);
  });
});

describe('the vendored gitleaks rules', () => {
  it('name their source and licence, and every rule compiles to a JavaScript regex', () => {
    expect(gitleaksRuleSource).toMatchObject({ project: 'gitleaks', license: 'MIT' });
    expect(gitleaksRuleSource.version).toMatch(/^v8\./);
    expect(GITLEAKS_RULE_COUNT).toBeGreaterThan(150);
    expect(GITLEAKS_RULES).toHaveLength(GITLEAKS_RULE_COUNT);
    for (const r of GITLEAKS_RULES) expect(r.pattern.flags, r.name).toContain('g');
  });

  it('run in the middleware on content and tool-call arguments', () => {
    const token = `glpat-${rnd(ALNUM, 20)}`;
    const [m] = new RedactionMiddleware().processRequest([{ role: 'user', content: `use ${token} please` }]);
    expect(m.content).toBe('use [REDACTED:gitlab-pat] please');
  });
});
