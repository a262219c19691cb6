/**
 * Which commands `run_command` runs without asking, asks about, or refuses, by the user's
 * `arbor.tools.commandAllowList` and `arbor.tools.commandDenyList`, judged on the words the shell will
 * run (`parseShell`: quotes and escapes removed, so `npm "publish"` and `npm pub\lish` are `npm publish`)
 * rather than on their spelling.
 *
 * - Deny: an entry matches a simple command whose program is the entry's first word (also by path:
 *   `/usr/bin/git` is `git`) and whose later words hold the entry's other words in order, with only
 *   options and their values between them (`npm --yes publish`, `git -C . push`). Every simple command
 *   of a chain is judged, and what wrappers run (`commandWrappers`: `env`, `sudo`, `timeout`, `xargs`,
 *   `sh -c '…'`…), the inside of substitutions, here-strings and comments. A match anywhere refuses the
 *   whole command; a variable or a pattern that could complete a match asks. Only a longer allow entry
 *   that matches the start of the same command outranks a deny entry (`git push --dry-run` over
 *   `git push`).
 * - Allow: an entry matches when its words start the command (the last one may be the start of a word
 *   when it ends in a non-word character: `npm run test:` allows `npm run test:unit`). Options in between
 *   allow nothing. The command still asks when anything the parser cannot classify is in it (a quote left
 *   open, a substitution, a here-document, a comment, a variable or a pattern in a command's place), when
 *   an operator follows the allowed words (`;`, `&&`, `||`, `|`, `&`, a redirection to a file, a line
 *   break), and when a wrapper the entry names runs a command no entry allows (`env sh`, `timeout 5 sh -c
 *   '…'`).
 *
 * The deny list is a convenience, not a sandbox: a command it misses still asks, since only the allow
 * list skips the question. Pure.
 */
import { RE2JS } from 're2js';
import { programName, wrappedCommands } from './commandWrappers';
import { CONTROL_OPS, parseShell, wordsText, type ParsedShell, type ShellToken, type ShellWord } from './shellParse';

/** What happens to a command. */
export interface CommandVerdict {
  kind: 'run' | 'ask' | 'deny';
  /** Why, for the approval card (and, for `deny`, the model). */
  reason: string;
}

/** Wrappers and nested shell text looked through, at most: deeper asks. */
export const MAX_COMMAND_DEPTH = 16;
/**
 * Longest command judged (characters): a longer one asks, unjudged. `shell-quote` takes some 60 ms on
 * 16,000 characters and grows faster than linearly, so the extension host is never held longer.
 */
export const MAX_COMMAND_CHARS = 10_000;
/** Most characters parsed for one verdict, nested text included (each level parses again what it holds). */
const PARSE_BUDGET = 4 * MAX_COMMAND_CHARS;
/** Longest pattern word matched against a deny entry's word; a longer one asks. */
const MAX_PATTERN_CHARS = 256;

interface Entry {
  raw: string;
  tokens: ShellToken[];
  /** The entry's words when it has no operator. */
  words?: ShellWord[];
}

function entries(list: readonly string[]): Entry[] {
  const out: Entry[] = [];
  for (const raw of list) {
    if (typeof raw !== 'string' || !raw.trim()) continue;
    const parsed = parseShell(raw.trim());
    if (parsed.tokens.length === 0) continue;
    out.push({ raw: raw.trim().replace(/[ \t]+/g, ' '), tokens: parsed.tokens, words: parsed.tokens.every((t) => t.word) ? parsed.tokens.map((t) => t.word!) : undefined });
  }
  return out;
}

/** Whether `entry` (an entry's word) is `w`, or starts it when it is the entry's last word (see the file's header). */
function sameWord(w: ShellWord, entry: ShellWord, last: boolean): boolean {
  if (w.text === entry.text) return true;
  if (!last || !entry.text || !w.text.startsWith(entry.text)) return false;
  return !/\w$/.test(entry.text) || !/\w/.test(w.text[entry.text.length]);
}

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/g;

/**
 * A shell pattern word (`*`, `?`, `[…]`, `{a,b}`) as a regex for one whole word, run by RE2 so that no
 * pattern a model writes can make the match take long; `undefined` when it cannot be read (asked).
 */
function globRegex(glob: string): RE2JS | undefined {
  if (compiledGlobs.has(glob)) return compiledGlobs.get(glob);
  if (compiledGlobs.size >= 256) compiledGlobs.clear();
  const compiled = compileGlob(glob);
  compiledGlobs.set(glob, compiled);
  return compiled;
}
const compiledGlobs = new Map<string, RE2JS | undefined>();

function compileGlob(glob: string): RE2JS | undefined {
  let re = '';
  let open = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      const end = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, end);
      const negate = body[0] === '!' || body[0] === '^';
      re += `[${negate ? '^' : ''}${(negate ? body.slice(1) : body).replace(/[\\[\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      open++;
      re += '(?:';
    } else if (c === ',' && open > 0) re += '|';
    else if (c === '}' && open > 0) {
      open--;
      re += ')';
    } else re += c.replace(REGEX_SPECIAL, '\\$&');
  }
  if (open > 0) return undefined;
  try {
    return RE2JS.compile(re);
  } catch {
    return undefined;
  }
}

/** Whether the shell may turn `w` into the deny entry's word `entry`: `undefined` when that cannot be told. */
function denyWord(w: ShellWord, entry: ShellWord, last: boolean): boolean | undefined {
  if (sameWord(w, entry, last)) return true;
  if (!w.pattern) return false;
  if (w.text.length > MAX_PATTERN_CHARS) return undefined;
  return globRegex(w.text)?.matches(entry.text);
}

type DenyMatch = { kind: 'hit'; end: number } | { kind: 'maybe'; word: string };

/** Whether the deny entry `entry` matches the simple command `words` (see the file's header). */
function matchDeny(words: readonly ShellWord[], entry: readonly ShellWord[]): DenyMatch | undefined {
  const first = words[0];
  if (!first || first.variable) return undefined;
  // By name also when run by path, and without case (macOS and Windows find `NPM` as `npm`).
  const byPath = entry[0].text.includes('/');
  const program = byPath ? first : { ...first, text: programName(first).toLowerCase() };
  if (!denyWord(program, byPath ? entry[0] : { ...entry[0], text: entry[0].text.toLowerCase() }, entry.length === 1)) return undefined;
  let unknown: string | undefined;
  let i = 1;
  for (let j = 1; j < entry.length; j++) {
    let afterOption = false;
    for (;;) {
      const w = words[i];
      if (!w) return unknown ? { kind: 'maybe', word: unknown } : undefined;
      i++;
      const same = denyWord(w, entry[j], j === entry.length - 1);
      if (same) break;
      if (w.variable || same === undefined) {
        unknown ??= w.text;
        afterOption = true;
      } else if (w.text.length > 1 && w.text.startsWith('-')) afterOption = true;
      else if (afterOption) afterOption = false;
      else return unknown ? { kind: 'maybe', word: unknown } : undefined;
    }
  }
  return { kind: 'hit', end: i };
}

/** Whether `entry`'s tokens start `tokens`; the length of the match. */
function prefixMatch(tokens: readonly ShellToken[], entry: readonly ShellToken[]): boolean {
  if (entry.length > tokens.length) return false;
  return entry.every((e, k) => {
    const t = tokens[k];
    if (e.op !== undefined) return t.op === e.op;
    return t.word !== undefined && t.word.variable === e.word.variable && sameWord(t.word, e.word, k === entry.length - 1);
  });
}

/** The longest entry whose tokens start `tokens`. */
function longestPrefix(tokens: readonly ShellToken[], list: readonly Entry[]): Entry | undefined {
  let best: Entry | undefined;
  for (const e of list) if (prefixMatch(tokens, e.tokens) && (!best || e.tokens.length > best.tokens.length)) best = e;
  return best;
}

interface Lists {
  allow: Entry[];
  deny: Entry[];
  /** Characters that may still be parsed (see `PARSE_BUDGET`). */
  budget: number;
}

/** `text` parsed, charged to the budget; `undefined` when the budget is spent. */
function parseCharged(text: string, lists: Lists): ParsedShell | undefined {
  lists.budget -= text.length;
  return lists.budget < 0 ? undefined : parseShell(text);
}

type DenyFound = { kind: 'hit' | 'maybe' | 'deep'; entry?: string; where: string; word?: string };

/** Finds a deny match in `words` and in what it wraps; `outranked` says whether the allow list outranks a hit. */
function denyInCommand(words: readonly ShellWord[], lists: Lists, depth: number, outranked?: (entry: Entry, end: number) => boolean): DenyFound | undefined {
  if (depth > MAX_COMMAND_DEPTH) return { kind: 'deep', where: wordsText(words) };
  let maybe: DenyFound | undefined;
  for (const entry of lists.deny) {
    if (!entry.words) continue;
    const m = matchDeny(words, entry.words);
    if (m?.kind === 'hit' && !outranked?.(entry, m.end)) return { kind: 'hit', entry: entry.raw, where: wordsText(words) };
    if (m?.kind === 'maybe') maybe ??= { kind: 'maybe', entry: entry.raw, where: wordsText(words), word: m.word };
  }
  for (const inner of wrappedCommands(words)) {
    const found = inner.kind === 'command' ? denyInCommand(words.slice(inner.at, inner.end), lists, depth + 1) : denyInText(inner.script, lists, depth + 1);
    if (found?.kind === 'hit') return found;
    maybe ??= found;
  }
  return maybe;
}

/** Finds a deny match anywhere in shell text (see the file's header). */
function denyInText(text: string, lists: Lists, depth: number, given?: ParsedShell, outranked?: (entry: Entry, end: number) => boolean): DenyFound | undefined {
  const parsed = depth > MAX_COMMAND_DEPTH ? undefined : (given ?? parseCharged(text, lists));
  if (!parsed) return { kind: 'deep', where: text };
  let maybe: DenyFound | undefined;
  for (const entry of lists.deny) {
    if (!entry.words && prefixMatch(parsed.tokens, entry.tokens)) return { kind: 'hit', entry: entry.raw, where: text };
  }
  for (const [n, words] of parsed.commands.entries()) {
    const found = denyInCommand(words, lists, depth, n === 0 ? outranked : undefined);
    if (found?.kind === 'hit') return found;
    maybe ??= found;
  }
  for (const inner of parsed.nested) {
    if (inner === text) continue;
    const found = denyInText(inner, lists, depth + 1);
    if (found?.kind === 'hit') return found;
    maybe ??= found;
  }
  return maybe;
}

/**
 * Whether what the simple command `words` runs through wrappers is allowed, when an allow entry names
 * its first `named` words (the last of them only partly when `partial`).
 */
function wrappedAllowed(words: readonly ShellWord[], named: number, partial: boolean, lists: Lists, depth: number): boolean {
  if (depth > MAX_COMMAND_DEPTH) return false;
  for (const inner of wrappedCommands(words)) {
    const part = words.slice(inner.at, inner.end);
    if (inner.kind === 'script') {
      // Shell text the entry spells out in full is the user's choice; otherwise it is judged as a command.
      const spelled = named >= inner.end && !(partial && named === inner.end);
      const parsed = spelled ? undefined : parseCharged(inner.script, lists);
      if (!spelled && (!parsed || allowVerdict(parsed, lists, depth + 1).kind !== 'run')) return false;
    } else if (named > inner.at) {
      if (!wrappedAllowed(part, Math.min(named, inner.end) - inner.at, partial && named <= inner.end, lists, depth + 1)) return false;
    } else if (!allowedAlone(part, lists, depth + 1)) return false;
  }
  return true;
}

/** Whether the simple command `words`, which a wrapper runs, is allowed by an entry of its own. */
function allowedAlone(words: readonly ShellWord[], lists: Lists, depth: number): boolean {
  const tokens = words.map((word) => ({ word }));
  const entry = longestPrefix(tokens, lists.allow.filter((e) => e.words));
  if (!entry) return false;
  const last = entry.words!.length - 1;
  return wrappedAllowed(words, entry.words!.length, words[last].text !== entry.words![last].text, lists, depth);
}

function opText(op: string): string {
  return op === '\n' ? 'a line break' : `"${op}"`;
}

/** Duplicating or closing a descriptor (`2>&1`, `>&2`, `3>&-`) writes no file. */
function descriptorDup(tokens: readonly ShellToken[], i: number): boolean {
  const op = tokens[i].op;
  return (op === '>&' || op === '<&') && /^(?:\d+-?|-)$/.test(tokens[i + 1]?.word?.text ?? '');
}

/** The allow list's verdict on a command no deny entry refuses: `run` or `ask` (see the file's header). */
function allowVerdict(parsed: ParsedShell, lists: Lists, depth: number): CommandVerdict {
  const entry = longestPrefix(parsed.tokens, lists.allow);
  if (!entry) return { kind: 'ask', reason: 'not on arbor.tools.commandAllowList' };
  if (parsed.unsure.length > 0) return { kind: 'ask', reason: parsed.unsure[0] };
  for (let i = entry.tokens.length; i < parsed.tokens.length; i++) {
    const op = parsed.tokens[i].op;
    if (op === undefined) continue;
    if (descriptorDup(parsed.tokens, i)) {
      i++;
      continue;
    }
    return { kind: 'ask', reason: `it goes on past "${entry.raw}" (on arbor.tools.commandAllowList) with ${opText(op)}` };
  }
  // The last simple command is the one the entry's last words start (when it ends in an operator, none);
  // the words a redirection names are no command words.
  let lastOp = entry.tokens.length - 1;
  while (lastOp >= 0 && !CONTROL_OPS.has(entry.tokens[lastOp].op ?? '')) lastOp--;
  const entryWords = entry.tokens.flatMap((t, k) => (k > lastOp && t.word && (k === 0 || entry.tokens[k - 1].op === undefined || CONTROL_OPS.has(entry.tokens[k - 1].op!)) ? [t.word] : []));
  const named = entryWords.length;
  const words = parsed.commands.at(-1) ?? [];
  const partial = named > 0 && words[named - 1]?.text !== entryWords[named - 1].text;
  const allowed = named > 0 ? wrappedAllowed(words, named, partial, lists, depth) : allowedAlone(words, lists, depth);
  if (!allowed) return { kind: 'ask', reason: `"${entry.raw}" is on arbor.tools.commandAllowList, but not the command it runs ("${wordsText(words)}")` };
  return { kind: 'run', reason: `"${entry.raw}" is on arbor.tools.commandAllowList` };
}

/**
 * The verdict on `command` under the allow and deny lists (see the file's header). An empty command
 * and one no allowed entry matches ask. The lists are plain arrays of entries, as the settings hold them.
 */
export function commandPolicy(command: string, allow: readonly string[], deny: readonly string[]): CommandVerdict {
  const text = command.trim();
  if (!text) return { kind: 'ask', reason: 'the command is empty' };
  // A NUL ends a C string: what a shell would get is not what is shown (and it marks variables here).
  if (text.includes('\u0000')) return { kind: 'ask', reason: 'it holds a NUL character' };
  if (text.length > MAX_COMMAND_CHARS) return { kind: 'ask', reason: `it is longer than ${MAX_COMMAND_CHARS.toLocaleString('en')} characters, too long to judge` };
  const lists: Lists = { allow: entries(allow), deny: entries(deny), budget: PARSE_BUDGET - text.length };
  const parsed = parseShell(text);
  // A longer allow entry that starts the same command outranks a deny entry matched within its words.
  const top = longestPrefix(parsed.tokens, lists.allow);
  const outranked = (entry: Entry, end: number) =>
    top?.words !== undefined && entry.words !== undefined && top.words.length > entry.words.length && top.words.length >= end;
  const found = denyInText(text, lists, 0, parsed, outranked);
  if (found?.kind === 'hit') {
    const single = parsed.commands.length === 1 && found.where === wordsText(parsed.commands[0]);
    return {
      kind: 'deny',
      reason: `"${found.entry}" is on arbor.tools.commandDenyList, so Arbor does not run ${single ? 'this command' : `"${found.where}"`}. Do not try it another way; tell the user, who can run it themselves or change the setting.`,
    };
  }
  if (found?.kind === 'maybe') return { kind: 'ask', reason: `it may run "${found.entry}" (on arbor.tools.commandDenyList): "${found.word}" is known only when it runs` };
  if (found?.kind === 'deep') return { kind: 'ask', reason: `it nests commands too deeply to judge (more than ${MAX_COMMAND_DEPTH} levels, or more than ${PARSE_BUDGET.toLocaleString('en')} characters to read)` };
  return allowVerdict(parsed, lists, 0);
}
