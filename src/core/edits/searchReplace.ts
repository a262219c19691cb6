/**
 * Search/replace edits, the format models follow best for changing part of a file (aider, Cline): each
 * edit names text the file has and what to put in its place. An edit first looks for its search text
 * exactly; when that is not there, for the same lines with whitespace ignored (indentation, trailing
 * spaces, spaces around operators), and then shifts the replacement's indentation by what the file's lines add or
 * lack. A search text found in more than one place, or nowhere, fails the whole call with a message that
 * tells the model what to send instead. Edits apply in order, each to the result of the one before.
 */
import { InvalidArgumentError } from '../errors';
import { detectEol, toLf, withEol } from './lineEndings';

/** One edit: `search` must match one place of the file; `replace` takes its place. */
export interface SearchReplaceEdit {
  search: string;
  replace: string;
}

/** How an edit found its place: as written, or with whitespace ignored. */
export type EditMatch = 'exact' | 'whitespace';

/** Where an edit landed, for the result the model reads. */
export interface AppliedEdit {
  /** 1-based number of the edit in the call. */
  edit: number;
  match: EditMatch;
  /** 1-based lines of the replacement in the text after this edit (`endLine < startLine`: it removed lines). */
  startLine: number;
  endLine: number;
  /** The replacement's indentation was shifted to fit the file (whitespace matches only). */
  reindented: boolean;
}

/** Why an edit could not be placed. */
export type EditFailure = 'notFound' | 'ambiguous' | 'emptySearch';

/** An edit of a call could not be placed; the message says how to fix the call. Nothing was written. */
export class EditMatchError extends InvalidArgumentError {
  constructor(
    readonly failure: EditFailure,
    /** 1-based number of the edit. */
    readonly edit: number,
    message: string,
  ) {
    super(message);
  }
}

/** What `applySearchReplace` made. */
export interface SearchReplaceResult {
  /** The new text, with the line ending the old text mostly used. */
  text: string;
  applied: AppliedEdit[];
}

const MAX_LISTED_LINES = 5;

/** A line as the whitespace-tolerant match compares it: without any whitespace. */
function normalizeLine(line: string): string {
  return line.replace(/\s+/g, '');
}

function leadingWhitespace(line: string): string {
  return /^\s*/.exec(line)![0];
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** The lines of a block of text; a final line break ends the last line rather than starting an empty one. */
function blockLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function listLines(lines: readonly number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ');
  return lines.length > MAX_LISTED_LINES ? `${shown} and ${lines.length - MAX_LISTED_LINES} more` : shown;
}

function exactMatches(text: string, search: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(search); i >= 0; i = text.indexOf(search, i + 1)) found.push(i);
  return found;
}

/**
 * The replacement's lines with their indentation shifted as the matched file lines differ from the
 * search lines: every non-blank pair must differ by the same prefix, added or removed; otherwise the
 * replacement is kept as written.
 */
function reindent(fileLines: readonly string[], searchLines: readonly string[], replaceLines: readonly string[]): { lines: string[]; shifted: boolean } {
  // Each non-blank pair's difference: '=' the same, '+p' the file adds prefix p, '-p' the file lacks it, '?' neither.
  const deltas = new Set<string>();
  for (let j = 0; j < searchLines.length; j++) {
    if (isBlank(searchLines[j]) || isBlank(fileLines[j])) continue;
    const f = leadingWhitespace(fileLines[j]);
    const s = leadingWhitespace(searchLines[j]);
    if (f === s) deltas.add('=');
    else if (f.endsWith(s)) deltas.add(`+${f.slice(0, f.length - s.length)}`);
    else if (s.endsWith(f)) deltas.add(`-${s.slice(0, s.length - f.length)}`);
    else deltas.add('?');
  }
  const delta = deltas.size === 1 ? [...deltas][0] : '?';
  const prefix = delta.slice(1);
  if (delta.startsWith('+')) return { lines: replaceLines.map((l) => (isBlank(l) ? l : prefix + l)), shifted: true };
  if (delta.startsWith('-')) return { lines: replaceLines.map((l) => (l.startsWith(prefix) ? l.slice(prefix.length) : l)), shifted: true };
  return { lines: [...replaceLines], shifted: false };
}

function trimBlankEdges(lines: string[]): { lines: string[]; head: number; tail: number } {
  let head = 0;
  while (head < lines.length && isBlank(lines[head])) head++;
  let tail = 0;
  while (tail < lines.length - head && isBlank(lines[lines.length - 1 - tail])) tail++;
  return { lines: lines.slice(head, lines.length - tail), head, tail };
}

/** Drops up to `head` leading and `tail` trailing blank lines of `lines` (those the search text had at its edges). */
function dropBlankEdges(lines: string[], head: number, tail: number): string[] {
  let start = 0;
  while (start < head && start < lines.length && isBlank(lines[start])) start++;
  let end = lines.length;
  while (lines.length - end < tail && end > start && isBlank(lines[end - 1])) end--;
  return lines.slice(start, end);
}

/** Applies one edit to `\n` text, or throws `EditMatchError`. */
function applyOne(text: string, edit: SearchReplaceEdit, n: number, total: number, where: string): { text: string; applied: AppliedEdit } {
  const label = total > 1 ? `Edit ${n} of ${total}` : 'The edit';
  const search = toLf(edit.search);
  const replace = toLf(edit.replace);
  if (search.trim() === '') {
    throw new EditMatchError(
      'emptySearch',
      n,
      `${label} has an empty search text. Give the exact lines to replace; to add code, search for the lines next to where it goes and repeat them in replace along with the new code. No change was written.`,
    );
  }
  const exact = exactMatches(text, search);
  if (exact.length > 1) {
    throw new EditMatchError(
      'ambiguous',
      n,
      `${label}: the search text occurs ${exact.length} times in ${where} (at lines ${listLines(exact.map((o) => lineOf(text, o)))}). Add a few lines before or after it to the search text so it matches one place only. No change was written.`,
    );
  }
  if (exact.length === 1) {
    const at = exact[0];
    const out = text.slice(0, at) + replace + text.slice(at + search.length);
    const startLine = lineOf(out, at);
    return { text: out, applied: { edit: n, match: 'exact', startLine, endLine: startLine + blockLines(replace).length - 1, reindented: false } };
  }

  // Line by line, whitespace ignored.
  const endsWithNewline = text.endsWith('\n');
  const body = endsWithNewline ? text.slice(0, -1) : text;
  const fileLines = body === '' ? [] : body.split('\n');
  const trimmed = trimBlankEdges(blockLines(search));
  const searchLines = trimmed.lines;
  const wanted = searchLines.map(normalizeLine);
  const found: number[] = [];
  for (let i = 0; i + wanted.length <= fileLines.length; i++) {
    let j = 0;
    while (j < wanted.length && normalizeLine(fileLines[i + j]) === wanted[j]) j++;
    if (j === wanted.length) found.push(i);
  }
  if (found.length > 1) {
    throw new EditMatchError(
      'ambiguous',
      n,
      `${label}: the search text is not in ${where} exactly, and ignoring whitespace it matches ${found.length} places (at lines ${listLines(found.map((i) => i + 1))}). Copy the lines exactly as the file has them, with a few lines around them so the search text matches one place only. No change was written.`,
    );
  }
  if (found.length === 0) {
    const first = wanted[0];
    const at = fileLines.flatMap((l, i) => (normalizeLine(l) === first ? [i + 1] : []));
    const hint = at.length
      ? ` Its first line is at line ${listLines(at)}, but the lines after it differ.`
      : ` Not even its first line ("${searchLines[0].trim().slice(0, 80)}") is in the file.`;
    throw new EditMatchError(
      'notFound',
      n,
      `${label}: the search text was not found in ${where}, not even ignoring whitespace.${hint} The file may have changed since you read it: read it again with read_file and copy the lines to replace exactly. No change was written.`,
    );
  }
  const i = found[0];
  const { lines: replaceLines, shifted } = reindent(fileLines.slice(i, i + searchLines.length), searchLines, dropBlankEdges(blockLines(replace), trimmed.head, trimmed.tail));
  const outLines = [...fileLines.slice(0, i), ...replaceLines, ...fileLines.slice(i + searchLines.length)];
  const out = outLines.length ? outLines.join('\n') + (endsWithNewline ? '\n' : '') : '';
  return { text: out, applied: { edit: n, match: 'whitespace', startLine: i + 1, endLine: i + replaceLines.length, reindented: shifted } };
}

/**
 * Applies `edits` in order to `text` (see the file's header). The edits are matched on `\n` text and
 * the result is written with the line ending `text` mostly uses; a text without a final line break keeps
 * none. `where` names the file in error messages. Throws `EditMatchError` for the first edit that cannot
 * be placed.
 */
export function applySearchReplace(text: string, edits: readonly SearchReplaceEdit[], where = 'the file'): SearchReplaceResult {
  const eol = detectEol(text);
  let current = toLf(text);
  const applied: AppliedEdit[] = [];
  edits.forEach((edit, k) => {
    const step = applyOne(current, edit, k + 1, edits.length, where);
    current = step.text;
    applied.push(step.applied);
  });
  return { text: withEol(current, eol), applied };
}
