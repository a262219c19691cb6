/**
 * Limits that keep a hostile or simply huge answer from freezing the chat. A model or an MCP tool
 * writes the text, so it may be a 400-column table, `*a` twenty thousand times or a list nested
 * two thousand deep: markdown-it, DOMPurify and the DOM each spend time that grows with such input
 * faster than with its length. These checks are plain string scans, linear in the text, tested in
 * Node; the renderer shows a block that fails them as plain text instead of parsing it.
 */

/** Past this many characters the whole answer is shown as plain text, with a Render button. */
export const PLAIN_ANSWER_CHARS = 256 * 1024;
/** Past this many characters outside code fences, a block is shown as plain text. */
export const BLOCK_CHARS = 20_000;
/** Deeper than this many nested quotes, list items or indents on one line, a block is plain text. */
export const MAX_DEPTH = 24;
/** More than this many inline markers (`*`, `_`, `[`, `]`, `` ` ``, `~`, `|`) outside fences, a block is plain text. */
export const MAX_MARKS = 1_000;
/** Code longer than this is shown without syntax highlighting (still a code block with its buttons). */
export const HIGHLIGHT_CHARS = 50_000;
/** Inline Markdown (notices, errors) longer than this is shown as plain text. */
export const INLINE_CHARS = 4_000;

/** Why a block is shown as plain text. */
export type PlainReason = 'size' | 'depth' | 'marks';

/** Says, for a person, why a block or an answer is plain text. */
export const PLAIN_REASONS: Record<PlainReason, string> = {
  size: 'too large to render as Markdown',
  depth: 'nested too deep to render as Markdown',
  marks: 'too many Markdown marks to render',
};

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Why `block` (one block of `splitBlocks`, or the unfinished tail of a stream) must not be rendered
 * as Markdown, or undefined when it may. Lines inside code fences do not count: a fence's text is
 * not parsed as Markdown, and a long one only loses its highlighting (`HIGHLIGHT_CHARS`).
 */
export function blockTrouble(block: string): PlainReason | undefined {
  let chars = 0;
  let marks = 0;
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart <= block.length) {
    let end = block.indexOf('\n', lineStart);
    if (end < 0) end = block.length;
    const head = block.slice(lineStart, Math.min(end, lineStart + 64));
    const marker = FENCE.exec(head)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && block.slice(lineStart, end).trim() === marker) fence = undefined;
    } else if (marker) {
      fence = marker;
    } else {
      chars += end - lineStart + 1;
      if (chars > BLOCK_CHARS) return 'size';
      if (lineDepth(block, lineStart, end) > MAX_DEPTH) return 'depth';
      marks += countMarks(block, lineStart, end);
      if (marks > MAX_MARKS) return 'marks';
    }
    lineStart = end + 1;
  }
  return undefined;
}

/** True when inline Markdown (a notice, an error) should be shown as plain text. */
export function inlineTrouble(text: string): boolean {
  return text.length > INLINE_CHARS || countMarks(text, 0, text.length) > MAX_MARKS;
}

/**
 * How many containers a line opens before its text: `>` quotes, list markers (`-`, `*`, `+`,
 * `1.`, `1)`) and indents of four columns. markdown-it nests a token level for each, and silently
 * drops what lies deeper than its own limit.
 */
export function lineDepth(text: string, start: number, end: number): number {
  let depth = 0;
  // Columns of the current run of white space: each four of them is an indent (a nested block).
  let run = 0;
  let i = start;
  while (i < end && depth <= MAX_DEPTH) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) {
      run += c === 9 ? 4 : 1;
      i += 1;
      continue;
    }
    depth += Math.floor(run / 4);
    run = 0;
    if (c === 62 /* > */) {
      depth += 1;
      i += 1;
    } else if ((c === 45 || c === 42 || c === 43) /* - * + */ && isSpaceOrEnd(text, i + 1, end)) {
      depth += 1;
      i += 1;
    } else if (c >= 48 && c <= 57) {
      let j = i;
      while (j < end && j - i < 9 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j += 1;
      const after = text.charCodeAt(j);
      if (!((after === 46 || after === 41) /* . ) */ && isSpaceOrEnd(text, j + 1, end))) break;
      depth += 1;
      i = j + 1;
    } else {
      break;
    }
  }
  return depth + Math.floor(run / 4);
}

function isSpaceOrEnd(text: string, at: number, end: number): boolean {
  if (at >= end) return true;
  const c = text.charCodeAt(at);
  return c === 32 || c === 9;
}

function countMarks(text: string, start: number, end: number): number {
  let marks = 0;
  for (let i = start; i < end; i += 1) {
    switch (text.charCodeAt(i)) {
      case 42: // *
      case 95: // _
      case 91: // [
      case 93: // ]
      case 96: // `
      case 126: // ~
      case 124: // |
        marks += 1;
        break;
      default:
        break;
    }
  }
  return marks;
}
