import { describe, expect, it } from 'vitest';
import { RedactionMiddleware, redactText, DEFAULT_REDACTION_PATTERNS } from '../../../src/core/conversation/middleware/redactionMiddleware';
import type { LLMMessage } from '../../../src/core/types';
import { InvalidArgumentError } from '../../../src/core/errors';

const mask = (text: string) => redactText(text, DEFAULT_REDACTION_PATTERNS);

describe('redactText with the default patterns', () => {
  it('masks provider keys, cloud and forge tokens', () => {
    expect(mask('key sk-proj-abcdefghijklmnopqrstuvwxyz0123 ok')).toBe('key [REDACTED:api-key] ok');
    expect(mask('sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv')).toBe('[REDACTED:api-key]');
    expect(mask('aws AKIAIOSFODNN7EXAMPLE here')).toBe('aws [REDACTED:aws-access-key] here');
    expect(mask(`token ghp_${'a'.repeat(36)}`)).toBe('token [REDACTED:github-token]');
    expect(mask(`github_pat_${'B'.repeat(40)}`)).toBe('[REDACTED:github-token]');
  });

  it('masks bearer tokens but keeps the word', () => {
    expect(mask('Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.abc-def_ghi')).toBe('Authorization: Bearer [REDACTED:bearer-token]');
  });

  it('masks a whole private key block', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef==\n-----END RSA PRIVATE KEY-----';
    expect(mask(`before\n${pem}\nafter`)).toBe('before\n[REDACTED:private-key]\nafter');
    expect(mask('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----')).toBe('[REDACTED:private-key]');
  });

  it('masks api_key style settings and keeps the setting name', () => {
    expect(mask('api_key=abcd1234efgh5678')).toBe('api_key=[REDACTED:secret]');
    expect(mask('"apiKey": "Zx9-yy8_ww7"')).toBe('"apiKey": "[REDACTED:secret]"');
    expect(mask('PASSWORD: hunter2hunter2')).toBe('PASSWORD: [REDACTED:secret]');
  });

  it('leaves ordinary code alone', () => {
    const code = 'const password = getPassword();\nconst tokens = text.split(" ");\nfor (const k of keys) {}';
    expect(mask(code)).toBe(code);
    expect(mask('the task is done')).toBe('the task is done');
  });
});

describe('RedactionMiddleware', () => {
  it('masks outgoing content and tool-call arguments without changing the input', async () => {
    const messages: LLMMessage[] = [
      { role: 'user', content: 'my key is sk-abcdefghijklmnopqrstuvwx' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"token":"AKIAIOSFODNN7EXAMPLE"}' } }] },
    ];
    const before = structuredClone(messages);
    const out = new RedactionMiddleware().processRequest(messages);
    expect(out[0].content).toBe('my key is [REDACTED:api-key]');
    expect(out[1].toolCalls?.[0].function.arguments).toBe('{"token":"[REDACTED:aws-access-key]"}');
    expect(messages).toEqual(before);
    expect('toolCalls' in out[0]).toBe(false);
  });

  it('takes extra patterns, or only those', () => {
    const extra = { name: 'ticket', pattern: /\bACME-\d{4}\b/g };
    const both = new RedactionMiddleware({ patterns: [extra] }).processRequest([{ role: 'user', content: 'ACME-1234 sk-abcdefghijklmnopqrstuvwx' }]);
    expect(both[0].content).toBe('[REDACTED:ticket] [REDACTED:api-key]');
    const only = new RedactionMiddleware({ patterns: [{ ...extra, replacement: '***' }], replaceDefaults: true }).processRequest([
      { role: 'user', content: 'ACME-1234 sk-abcdefghijklmnopqrstuvwx' },
    ]);
    expect(only[0].content).toBe('*** sk-abcdefghijklmnopqrstuvwx');
  });

  it('refuses a pattern without the g flag', () => {
    expect(() => new RedactionMiddleware({ patterns: [{ name: 'x', pattern: /x/ }] })).toThrow(InvalidArgumentError);
  });
});
