/**
 * Line diffs of a file's text before and after a change: a unified diff (what an approval card and the
 * model read) with its added and removed line counts (what a chip shows), and the smallest single
 * replacement that turns one text into the other (so an editor keeps its cursor and folds when a tool
 * writes through it). Line endings are compared as `\n`: a CRLF file changed by one line diffs as one line.
 */
import { formatPatch, structuredPatch, FILE_HEADERS_ONLY, type StructuredPatch } from 'diff';
import { toLf } from './lineEndings';

/** One hunk of a unified diff; `lines` start with ' ', '-', '+' or '\' (no newline at end of file). */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** A file's change as a unified diff and its line counts. */
export interface TextDiff {
  /** `--- a/path`, `+++ b/path`, then the hunks; empty when nothing changed. */
  unified: string;
  /** Lines added and removed (a changed line counts once in each). */
  added: number;
  removed: number;
  hunks: DiffHunk[];
}

/** Options of `diffText`. */
export interface DiffTextOptions {
  /** The path named in the headers (`a/<path>`, `b/<path>`); default `file`. */
  path?: string;
  /** Unchanged lines shown around each change; default 3. */
  context?: number;
  /**
   * Most edits the line diff looks for before it gives up and shows the whole text as replaced (the
   * diff's cost grows with the number of edits); default 20,000.
   */
  maxEditLength?: number;
}

const DEFAULT_MAX_EDIT_LENGTH = 20_000;

function splitForHunk(text: string, sign: '-' | '+'): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  const noNewline = lines[lines.length - 1] !== '';
  if (!noNewline) lines.pop();
  const out = lines.map((l) => sign + l);
  if (noNewline) out.push('\\ No newline at end of file');
  return out;
}

/** One hunk replacing all of `before` by all of `after`, for changes too large to diff line by line. */
function wholeTextPatch(oldName: string, newName: string, before: string, after: string): StructuredPatch {
  const removed = splitForHunk(before, '-');
  const added = splitForHunk(after, '+');
  const count = (lines: string[]) => lines.filter((l) => !l.startsWith('\\')).length;
  return {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [{ oldStart: 1, oldLines: count(removed), newStart: 1, newLines: count(added), lines: [...removed, ...added] }],
  };
}

/**
 * The diff from `before` to `after`; `before` undefined is a new file (`--- /dev/null`). Texts are
 * compared with `\r\n` read as `\n`.
 */
export function diffText(before: string | undefined, after: string, options: DiffTextOptions = {}): TextDiff {
  const name = options.path ?? 'file';
  const oldName = before === undefined ? '/dev/null' : `a/${name}`;
  const newName = `b/${name}`;
  const oldText = toLf(before ?? '');
  const newText = toLf(after);
  if (oldText === newText && before !== undefined) return { unified: '', added: 0, removed: 0, hunks: [] };
  const patch =
    structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {
      context: options.context ?? 3,
      maxEditLength: options.maxEditLength ?? DEFAULT_MAX_EDIT_LENGTH,
    }) ?? wholeTextPatch(oldName, newName, oldText, newText);
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  const hunks = patch.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: [...h.lines] }));
  // An empty new file has no hunks, only its headers.
  const unified = hunks.length || before === undefined ? formatPatch(patch, FILE_HEADERS_ONLY).replace(/\n$/, '') : '';
  return { unified, added, removed, hunks };
}

/** One replacement of `before`'s characters `start` to `end` by `text`. */
export interface TextReplacement {
  start: number;
  end: number;
  text: string;
}

function splitsPair(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return false;
  const prev = text.charCodeAt(at - 1);
  const next = text.charCodeAt(at);
  // Between \r and \n, or between the two halves of a surrogate pair: no editor position lies there.
  return (prev === 13 && next === 10) || (prev >= 0xd800 && prev <= 0xdbff && next >= 0xdc00 && next <= 0xdfff);
}

/**
 * The smallest single replacement that turns `before` into `after`: the common start and end are left
 * alone, and neither boundary falls inside a `\r\n` or a surrogate pair. `undefined` when they are equal.
 */
export function minimalReplacement(before: string, after: string): TextReplacement | undefined {
  if (before === after) return undefined;
  const max = Math.min(before.length, after.length);
  let start = 0;
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  while (start > 0 && (splitsPair(before, start) || splitsPair(after, start))) start--;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  while (tail > 0 && (splitsPair(before, before.length - tail) || splitsPair(after, after.length - tail))) tail--;
  return { start, end: before.length - tail, text: after.slice(start, after.length - tail) };
}
