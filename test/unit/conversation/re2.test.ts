import { describe, expect, it } from 'vitest';
import { re2ToJs, UnsupportedRegexError } from '../../../src/core/conversation/middleware/re2';

const re = (source: string) => new RegExp(re2ToJs(source));

describe('re2ToJs', () => {
  it('scopes (?i) to the rest of its group, and (?i:…) / (?-i:…) to theirs', () => {
    expect(re('a(?i)b').test('aB')).toBe(true);
    expect(re('a(?i)b').test('AB')).toBe(false);
    expect(re('(x(?i)y)z').test('xYz')).toBe(true);
    expect(re('(x(?i)y)z').test('xYZ')).toBe(false);
    expect(re('(?i)k(?-i:Ey)').test('KEy')).toBe(true);
    expect(re('(?i)k(?-i:Ey)').test('KEY')).toBe(false);
    expect(re('^hf_(?i:[a-z]{3})$').test('hf_AbC')).toBe(true);
    expect(re('^hf_(?i:[a-z]{3})$').test('HF_abc')).toBe(false);
  });

  it('keeps escapes intact under (?i): \\x60, \\n, \\w', () => {
    expect(re2ToJs('(?i)\\x6a[\\x60n]\\\\[nr]')).toBe('\\x6a[\\x60nN]\\\\[nNrR]');
  });

  it('translates (?s:.), (?P<name>…), \\z, \\A and POSIX classes', () => {
    expect(re('a(?s:.)b').test('a\nb')).toBe(true);
    expect(re('a.b').test('a\nb')).toBe(false);
    expect(re('(?P<tok>x+)').exec('xx')?.groups?.tok).toBe('xx');
    expect(re('\\Aab\\z').test('ab')).toBe(true);
    expect(re('^[[:alnum:]]+$').test('aZ9')).toBe(true);
    expect(re('^[[:alnum:]]+$').test('a-9')).toBe(false);
  });

  it('refuses what it cannot translate', () => {
    expect(() => re2ToJs('\\p{Greek}')).toThrow(UnsupportedRegexError);
    expect(() => re2ToJs('(?U)a+')).toThrow(UnsupportedRegexError);
  });
});
