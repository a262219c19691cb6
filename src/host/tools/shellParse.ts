/**
 * How a POSIX shell will read a command line, for `commandPolicy`: the words of each simple command as
 * the programs receive them (quotes and escapes removed by `shell-quote`, a maintained shell-word
 * parser), the operators between them, and what cannot be known before the command runs
 * (substitutions, variables, globs, here-documents, comments, a quote left open). What the word parser
 * does not see (line continuations, line breaks, `$(…)` and backticks inside double quotes, brace
 * expansion) is found first by a quote-aware scan of the text, in one pass. `shell-quote` itself grows
 * faster than linearly with the length, which is why `commandPolicy` caps it. Pure.
 */
import { parse, type ParseEntry } from 'shell-quote';

/** One word a program receives. */
export interface ShellWord {
  /** Quotes and escapes removed; a variable reads `$NAME`. */
  text: string;
  /** The shell may expand it into other words first: an unquoted glob (`*`, `?`, `[…]`) or a brace expansion (`{a,b}`). */
  pattern: boolean;
  /** Holds a variable (`$NAME`, `${…}`) whose value is known only when the command runs. */
  variable: boolean;
}

/** A word, or an operator (`;`, `&&`, `|`, `>`, `<<`…; `\n` for a line break). */
export type ShellToken = { word: ShellWord; op?: undefined } | { op: string; word?: undefined };

/** A command line as the shell reads it. */
export interface ParsedShell {
  tokens: ShellToken[];
  /** The simple commands, split at the chaining operators, each its words (redirections and their files left out). */
  commands: ShellWord[][];
  /** Why the line cannot be classified before it runs, most telling first; empty when it can. */
  unsure: string[];
  /**
   * Text the shell may also run as commands: the inside of substitutions, here-strings, and what
   * `shell-quote` read as a comment (it also cuts a word at `#`, where a shell does not).
   */
  nested: string[];
}

/** Operators that chain commands (everything else `shell-quote` returns redirects a command's input or output). */
export const CONTROL_OPS: ReadonlySet<string> = new Set([';', '&&', '||', '|', '|&', '&', '(', ')', ';;', ';;&', ';&', '<(', '>(', '\n']);
const HEREDOC_OPS = new Set(['<<', '<<-']);

/** Marks a variable inside a word while `shell-quote` parses (a NUL never reaches a shell). */
const VAR_MARK = '\u0000';
const VARIABLE = (name: string) => `${VAR_MARK}$${name}${VAR_MARK}`;
const VAR_IN_TEXT = new RegExp(`${VAR_MARK}(\\$[^${VAR_MARK}]*)${VAR_MARK}`, 'g');

interface Scan {
  /** The lines of the command (split at line breaks outside quotes), line continuations removed. */
  lines: string[];
  nested: string[];
  unsure: Set<string>;
  /** Unquoted `{`…`}` / `[`…`]` outside substitutions: words holding them may be expanded. */
  braces: boolean;
  brackets: boolean;
}

type Context = 'single' | 'double' | 'sub' | 'paren' | 'backtick';

/** Whether `#` at `i` starts a comment: a shell reads one only at the start of a word. */
function startsComment(s: string, i: number): boolean {
  return i === 0 || /[\s;&|()<>]/.test(s[i - 1]);
}

/** The quote-aware scan (see the file's header); one pass with a stack of open quotes and substitutions. */
function scan(command: string): Scan {
  const stack: Array<{ kind: Context; start: number }> = [];
  const nested: string[] = [];
  const unsure = new Set<string>();
  const lines: string[] = [];
  let out = '';
  let braces = false;
  let brackets = false;
  const open = (kind: Context) => stack.push({ kind, start: out.length });
  const close = () => {
    const ctx = stack.pop()!;
    if ((ctx.kind === 'sub' || ctx.kind === 'backtick') && !stack.some((c) => c.kind === 'sub' || c.kind === 'backtick')) nested.push(out.slice(ctx.start));
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    const ctx = stack.at(-1)?.kind;
    if (ctx === 'single') {
      out += c;
      if (c === "'") stack.pop();
      continue;
    }
    if (c === '\\') {
      // A backslash before a line break joins the lines; before anything else it quotes that character.
      if (next !== '\n') out += c + (next ?? '');
      i++;
      continue;
    }
    if (ctx === 'backtick') {
      if (c === '`') close();
      out += c;
      continue;
    }
    if (c === '`') {
      unsure.add('substitution:`');
      out += c;
      open('backtick');
      continue;
    }
    if (c === '$' && next === '(') {
      unsure.add('substitution:$(');
      out += '$(';
      i++;
      open('sub');
      continue;
    }
    if (c === '$' && next === '{') unsure.add('substitution:${');
    if (c === '$' && next === "'" && ctx !== 'double') unsure.add('ansi-c');
    if (ctx === 'double') {
      if (c === '"') stack.pop();
      out += c;
      continue;
    }
    // Unquoted, at the top or inside a substitution.
    if (c === '#' && startsComment(command, i)) {
      const end = command.indexOf('\n', i);
      const stop = end < 0 ? command.length : end;
      out += command.slice(i, stop);
      i = stop - 1;
      continue;
    }
    if (c === "'") open('single');
    else if (c === '"') open('double');
    else if ((c === '<' || c === '>') && next === '(') {
      unsure.add(`substitution:${c}(`);
      out += c + next;
      i++;
      open('sub');
      continue;
    } else if (ctx === 'sub' || ctx === 'paren') {
      if (c === '(') open('paren');
      else if (c === ')') {
        close();
      }
    } else if (!ctx) {
      if (c === '\n' || c === '\r') {
        lines.push(out);
        out = '';
        continue;
      }
      if (c === '{' || c === '}') braces = true;
      if (c === '[' || c === ']') brackets = true;
    }
    out += c;
  }
  lines.push(out);
  if (stack.length > 0) {
    unsure.add('unclosed');
    // The shell would wait for the rest; judge every piece that could be a command for the deny list.
    const pieces = command.split(/[\n\r;&|()`]/);
    if (pieces.length > 1) nested.push(...pieces);
  }
  return { lines, nested, unsure, braces, brackets };
}

const UNSURE_TEXT: Record<string, string> = {
  unclosed: 'a quote or a substitution in it is not closed',
  'ansi-c': "it uses $'…' quoting, which shells read differently",
  heredoc: 'it has a here-document (<<), whose text is not judged',
  comment: 'it has a comment (#…), which can hide words',
  'bad-substitution': 'it has a ${…} the shell would refuse',
};

/** The reason text of an unsure key; the order of `ORDER` is the order they are told. */
function unsureText(key: string): string {
  if (key.startsWith('substitution:')) return `it uses shell substitution (${key.slice('substitution:'.length)}), which never runs without asking`;
  return UNSURE_TEXT[key] ?? key;
}
const ORDER = ['unclosed', 'substitution', 'ansi-c', 'bad-substitution', 'heredoc', 'comment', 'command-word'];
const rank = (key: string) => {
  const at = ORDER.findIndex((k) => key.startsWith(k));
  return at < 0 ? ORDER.length : at;
};

/** Whether `text` has `open` with `close` somewhere after it. */
function encloses(text: string, open: string, close: string): boolean {
  const at = text.indexOf(open);
  return at >= 0 && text.indexOf(close, at + 1) > at;
}

function word(raw: string, scanned: Scan, glob: boolean): ShellWord {
  const variable = raw.includes(VAR_MARK);
  const text = variable ? raw.replace(VAR_IN_TEXT, '$1').split(VAR_MARK).join('') : raw;
  const expands = (scanned.braces && encloses(text, '{', '}')) || (scanned.brackets && encloses(text, '[', ']'));
  return { text, pattern: glob || expands, variable };
}

/** One line through `shell-quote`; a `${…}` it refuses is judged with its `$` signs left out. */
function parseLine(line: string, unsure: Set<string>): ParseEntry[] {
  try {
    return parse(line, VARIABLE) as ParseEntry[];
  } catch {
    unsure.add('bad-substitution');
    return parse(line.replace(/\$/g, ' '), VARIABLE) as ParseEntry[];
  }
}

/** Reads `command` as a POSIX shell would (see the file's header). */
export function parseShell(command: string): ParsedShell {
  const scanned = scan(command);
  const unsure = scanned.unsure;
  const nested = [...scanned.nested];
  const tokens: ShellToken[] = [];
  scanned.lines.forEach((line, n) => {
    if (n > 0 && tokens.length > 0) tokens.push({ op: '\n' });
    for (const entry of parseLine(line, unsure)) {
      if (typeof entry === 'string') tokens.push({ word: word(entry, scanned, false) });
      else if ('comment' in entry) {
        unsure.add('comment');
        nested.push(entry.comment);
      } else if (entry.op === 'glob') tokens.push({ word: word(entry.pattern, scanned, true) });
      else tokens.push({ op: entry.op });
    }
  });
  const commands: ShellWord[][] = [[]];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.word) commands.at(-1)!.push(t.word);
    else if (CONTROL_OPS.has(t.op)) commands.push([]);
    else {
      // A redirection: the word after it names a file (or a here-document's end, or a here-string's text).
      const target = tokens[i + 1]?.word;
      if (HEREDOC_OPS.has(t.op)) unsure.add('heredoc');
      if (t.op === '<<<' && target) nested.push(target.text);
      if (target) i++;
    }
  }
  const simple = commands.filter((c) => c.length > 0);
  for (const words of simple) {
    const first = words.find((w) => !isAssignment(w));
    if (first?.variable) unsure.add(`command-word:"${first.text}" stands in the command's place, and its value is known only when it runs`);
    else if (first?.pattern) unsure.add(`command-word:a pattern ("${first.text}") stands in the command's place`);
  }
  const keys = [...unsure].sort((a, b) => rank(a) - rank(b));
  return {
    tokens,
    commands: simple,
    unsure: keys.map((k) => (k.startsWith('command-word:') ? k.slice('command-word:'.length) : unsureText(k))),
    nested: [...new Set(nested.map((s) => s.trim()).filter(Boolean))],
  };
}

/** A `NAME=value` word: before a command, it sets that command's environment. */
export function isAssignment(w: ShellWord): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text);
}

/** The words as one line, for messages. */
export function wordsText(words: readonly ShellWord[]): string {
  return words.map((w) => w.text).join(' ');
}
