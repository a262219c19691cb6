import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact';

describe('redactSecrets', () => {
  it('masks keys, bearer tokens, key=value pairs and private keys', () => {
    const text = [
      'key sk-proj-abcdefghijklmnop used',
      'Authorization: Bearer abc.def.ghijklmnop',
      'api_key=hunter2hunter2',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    ].join('\n');
    const out = redactSecrets(text);
    expect(out).not.toMatch(/abcdefghijklmnop|ghijklmnop|hunter2|MIIE/);
    expect(out).toContain('sk-***');
    expect(out).toContain('PRIVATE KEY REDACTED');
  });
  it('masks given secrets anywhere and leaves ordinary text alone', () => {
    expect(redactSecrets('the value is q1w2e3r4', ['q1w2e3r4'])).toBe('the value is ***');
    expect(redactSecrets('Is Ollama running at http://127.0.0.1:11434?')).toBe('Is Ollama running at http://127.0.0.1:11434?');
  });
});
