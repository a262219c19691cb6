import { describe, expect, it } from 'vitest';
import { STOP_WORDS, tokenize } from './tokenizer';

describe('tokenize', () => {
  it('splits camelCase and PascalCase and keeps the whole identifier', () => {
    expect(tokenize('parseStream')).toEqual(['parse', 'stream', 'parsestream']);
    expect(tokenize('HTTPServer')).toEqual(['http', 'server', 'httpserver']);
    expect(tokenize('XMLHttpRequest')).toEqual(['xml', 'http', 'request', 'xmlhttprequest']);
  });

  it('splits snake_case, kebab-case and digits', () => {
    expect(tokenize('max_file_bytes')).toEqual(['max', 'file', 'bytes', 'max_file_bytes']);
    expect(tokenize('read-only-mode')).toEqual(['read', 'only', 'mode', 'read-only-mode']);
    expect(tokenize('base64Encode')).toEqual(['base', '64', 'encode', 'base64encode']);
  });

  it('lower-cases, drops stop words and one-letter parts, keeps code keywords', () => {
    expect(tokenize('Where is the Config loaded? function x')).toEqual(['config', 'loaded', 'function']);
    expect(tokenize('_private $scope')).toEqual(['private', 'scope']);
  });

  it('keeps every stop word at most five letters long (the tokenizer skips the lookup for longer tokens)', () => {
    for (const w of STOP_WORDS) expect(w.length).toBeLessThanOrEqual(5);
  });

  it('treats a minus between spaces as an operator, not kebab-case', () => {
    expect(tokenize('total - count')).toEqual(['total', 'count']);
  });

  it('keeps words of other scripts and drops overlong blobs', () => {
    expect(tokenize('größe Ünïcode')).toEqual(['größe', 'ünïcode']);
    expect(tokenize('a'.repeat(80))).toEqual([]);
  });

  it('gives a query the same tokens as the code it should match', () => {
    const code = new Set(tokenize('export function parseSseLines(buffer) {}'));
    for (const t of tokenize('parse SSE lines')) expect(code.has(t)).toBe(true);
  });
});
