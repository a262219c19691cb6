/**
 * Converts Go RE2 regular expressions (the flavour of gitleaks' rules) to JavaScript ones. RE2's
 * scoped flags (`(?i)` from the middle of a pattern to the end of its group, `(?i:…)`, `(?-i:…)`,
 * `(?s:…)`) have no portable JavaScript form, so they are written out: a case-insensitive letter
 * becomes `[aA]`, a dot-all `.` becomes `[\s\S]`. `(?P<name>` becomes `(?<name>`, `\z` and `\A`
 * become `$` and `^` (the result is used without the `m` flag), POSIX classes are spelt out.
 */

/** The pattern uses something this converter does not translate. */
export class UnsupportedRegexError extends Error {}

interface Scope {
  ci: boolean;
  dotAll: boolean;
}

const POSIX: Record<string, string> = {
  alnum: 'a-zA-Z0-9', alpha: 'a-zA-Z', digit: '0-9', lower: 'a-z', upper: 'A-Z', space: '\\s', word: '\\w',
  xdigit: '0-9a-fA-F', punct: '!-\\/:-@\\[-`{-~', blank: ' \\t', cntrl: '\\x00-\\x1f\\x7f', print: ' -~', graph: '!-~',
};

const isLetter = (c: string) => /^[A-Za-z]$/.test(c);
const other = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());

/** A JavaScript source (no flags needed beyond `g`/`d`) matching what the RE2 `source` matches. */
export function re2ToJs(source: string): string {
  let out = '';
  let i = 0;
  let cur: Scope = { ci: false, dotAll: false };
  const stack: Scope[] = [];

  /** Copies the escape at `i` (which is a backslash); returns the JavaScript text. */
  const escape = (inClass: boolean): string => {
    const n = source[i + 1];
    if (n === undefined) throw new UnsupportedRegexError('trailing backslash');
    if (n === 'x') {
      if (source[i + 2] === '{') {
        const end = source.indexOf('}', i);
        const code = parseInt(source.slice(i + 3, end), 16);
        if (!(code <= 0xffff)) throw new UnsupportedRegexError('\\x{…} beyond the BMP');
        i = end + 1;
        return `\\u${code.toString(16).padStart(4, '0')}`;
      }
      const hex = source.slice(i, i + 4);
      i += 4;
      return hex;
    }
    if (n === 'p' || n === 'P' || n === 'Q' || n === 'C') throw new UnsupportedRegexError(`\\${n}`);
    i += 2;
    if (!inClass && n === 'z') return '$';
    if (!inClass && n === 'A') return '^';
    return `\\${n}`;
  };

  const charClass = (): string => {
    let body = '';
    i++; // [
    let negate = '';
    if (source[i] === '^') {
      negate = '^';
      i++;
    }
    let first = true;
    while (i < source.length && (source[i] !== ']' || first)) {
      first = false;
      const c = source[i];
      if (c === '[' && source[i + 1] === ':') {
        const end = source.indexOf(':]', i);
        const cls = POSIX[source.slice(i + 2, end)];
        if (end < 0 || cls === undefined) throw new UnsupportedRegexError(`POSIX class at ${i}`);
        body += cls;
        i = end + 2;
      } else if (c === '\\') {
        body += escape(true);
      } else if (c === ']' || c === '[') {
        body += `\\${c}`;
        i++;
      } else if (source[i + 1] === '-' && source[i + 2] !== undefined && source[i + 2] !== ']') {
        const to = source[i + 2];
        body += `${c}-${to}`;
        if (cur.ci && isLetter(c) && isLetter(to) && (c === c.toLowerCase()) === (to === to.toLowerCase())) body += `${other(c)}-${other(to)}`;
        i += 3;
      } else {
        body += cur.ci && isLetter(c) ? `${c}${other(c)}` : c;
        i++;
      }
    }
    if (source[i] !== ']') throw new UnsupportedRegexError('unclosed character class');
    i++;
    return `[${negate}${body}]`;
  };

  /** Applies a flag string such as `i`, `-i`, `is` or `i-s` to `scope`. */
  const applyFlags = (flags: string, scope: Scope): Scope => {
    const next = { ...scope };
    let on = true;
    for (const f of flags) {
      if (f === '-') on = false;
      else if (f === 'i') next.ci = on;
      else if (f === 's') next.dotAll = on;
      else if (f === 'U') throw new UnsupportedRegexError('ungreedy flag');
      else if (f !== 'm') throw new UnsupportedRegexError(`flag ${f}`);
    }
    return next;
  };

  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      out += escape(false);
    } else if (c === '[') {
      out += charClass();
    } else if (c === '(') {
      stack.push(cur);
      if (source.startsWith('(?P<', i)) {
        out += '(?<';
        i += 4;
      } else if (source[i + 1] === '?') {
        const m = /^\(\?([a-zA-Z-]*)([:)])/.exec(source.slice(i));
        if (!m) throw new UnsupportedRegexError(`group at ${i}`);
        const scoped = applyFlags(m[1], cur);
        i += m[0].length;
        if (m[2] === ')') {
          // `(?i)`: on to the end of the enclosing group; no group of its own.
          stack.pop();
          cur = scoped;
        } else {
          out += '(?:';
          cur = scoped;
        }
      } else {
        out += '(';
        i++;
      }
    } else if (c === ')') {
      cur = stack.pop() ?? cur;
      out += ')';
      i++;
    } else if (c === '.' && cur.dotAll) {
      out += '[\\s\\S]';
      i++;
    } else if (cur.ci && isLetter(c)) {
      out += `[${c}${other(c)}]`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
