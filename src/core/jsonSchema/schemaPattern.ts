/**
 * The regular expression engine Ajv uses for JSON Schema `pattern` and `patternProperties`: RE2 (the
 * `re2js` package), whose matching time grows linearly with the input, instead of JavaScript's
 * backtracking engine, where a pattern such as `^(a+)+$` from a tool's or a file's schema blocks the
 * extension host for seconds per character a model writes. A pattern is first checked as JSON Schema
 * reads it (an ECMAScript regular expression with the `u` flag), then translated to RE2's syntax so that
 * it matches the same strings; what RE2 cannot run (backreferences, lookahead, lookbehind) is refused
 * with a `SchemaPatternError`, never handed to the backtracking engine.
 */
import { RE2JS } from 're2js';
import { InvalidArgumentError } from '../errors';

/** A schema's `pattern` that Arbor will not run: not a valid regular expression, or one that needs backtracking. */
export class SchemaPatternError extends InvalidArgumentError {
  constructor(
    readonly pattern: string,
    readonly reason: 'invalid' | 'backtracking',
    detail: string,
  ) {
    super(
      reason === 'invalid'
        ? `pattern ${quote(pattern)} is not a valid regular expression (${detail})`
        : `pattern ${quote(pattern)} uses ${detail}, which needs a backtracking regular expression engine; Arbor evaluates schema patterns with a linear-time engine (RE2), since a crafted pattern could freeze VS Code. Rewrite the pattern without backreferences or lookaround`,
    );
  }
}

/** What Ajv calls `.test` on: the compiled pattern. `toString` is the key Ajv shares compiled patterns by. */
export interface SchemaRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** Most compiled patterns kept; schemas from many MCP servers rarely hold more than a few hundred. */
const MAX_CACHED_PATTERNS = 2000;
const cache = new Map<string, SchemaRegExp | SchemaPatternError>();

/** JavaScript's `\s` (with or without `u`): ASCII and Unicode white space and line terminators. */
const JS_SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** JavaScript's `.` without the `s` flag: anything but a line terminator (RE2's `.` only leaves out `\n`). */
const JS_DOT = '[^\\n\\r\\u2028\\u2029]';

function quote(pattern: string): string {
  return JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 120)}…` : pattern);
}

/**
 * The RE2 engine in the shape of Ajv's `code.regExp` option: `(pattern, flags) => { test }`. Ajv passes
 * `u` as the flags (its `unicodeRegExp` default); RE2 reads text as code points, as `u` does. Compiled
 * patterns are cached. Throws a `SchemaPatternError` for a pattern it will not run, which makes Ajv's
 * `compile` throw, so the schema is refused as a whole.
 */
export const re2RegExp = Object.assign(
  (pattern: string, flags: string): SchemaRegExp => {
    const key = `${flags}/${pattern}`;
    let entry = cache.get(key);
    if (!entry) {
      entry = compilePattern(pattern, flags);
      if (cache.size >= MAX_CACHED_PATTERNS) cache.delete(cache.keys().next().value as string);
      cache.set(key, entry);
    }
    if (entry instanceof SchemaPatternError) throw entry;
    return entry;
  },
  // Only Ajv's standalone code generation reads `code`; it must not be "new RegExp", which Ajv takes for its own default.
  { code: 'require("re2js").RE2JS' },
);

function compilePattern(pattern: string, flags: string): SchemaRegExp | SchemaPatternError {
  try {
    // Construction parses the pattern; nothing is matched with it.
    new RegExp(pattern, flags.includes('u') ? 'u' : '');
  } catch (err) {
    return new SchemaPatternError(pattern, 'invalid', err instanceof Error ? err.message.replace(/^Invalid regular expression: \/.*\/u?: /s, '') : String(err));
  }
  const translated = toRe2Syntax(pattern);
  if ('refused' in translated) return new SchemaPatternError(pattern, 'backtracking', translated.refused);
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(translated.source));
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    if (/\(\?[=!]|\(\?<[=!]/.test(pattern) || /Perl syntax|named capture/.test(detail)) return new SchemaPatternError(pattern, 'backtracking', 'lookahead or lookbehind');
    return new SchemaPatternError(pattern, 'backtracking', `syntax the linear-time engine does not read (${detail})`);
  }
  const shown = `/${pattern}/${flags}`;
  return { test: (text: string) => re.test(text), toString: () => shown };
}

/**
 * `pattern` (ECMAScript syntax, already known valid with `u`) rewritten where RE2 reads the same text
 * differently: `.` and `\s` spelled out as JavaScript means them, `[` inside a class escaped (RE2 would
 * start a POSIX class), a `\uD83D\uDE00` surrogate pair joined into one code point. Backreferences are
 * refused here, since the translator of `re2js` would turn `\k<name>` or `\8` into plain letters.
 */
export function toRe2Syntax(pattern: string): { source: string } | { refused: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'k') return { refused: 'a named backreference (\\k<…>)' };
      if (next >= '1' && next <= '9') return { refused: `a backreference (\\${next})` };
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else if (next === 'u' && /^[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(pattern.slice(i + 2, i + 12))) {
        const high = parseInt(pattern.slice(i + 2, i + 6), 16);
        const low = parseInt(pattern.slice(i + 8, i + 12), 16);
        out += `\\u{${((high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000).toString(16)}}`;
        i += 10;
      } else out += ch + next;
      i++;
    } else if (ch === '[') {
      out += inClass ? '\\[' : ch;
      inClass = true;
    } else if (ch === ']') {
      out += ch;
      inClass = false;
    } else if (ch === '.' && !inClass) {
      out += JS_DOT;
    } else {
      out += ch;
    }
  }
  return { source: out };
}
