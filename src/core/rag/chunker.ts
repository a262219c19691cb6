/**
 * Cuts a file into retrieval chunks along its structure, so a result is a readable unit (a function,
 * a class, a Markdown section) with exact line numbers rather than an arbitrary window of bytes.
 */

/** A piece of a file. Lines are 1-based and inclusive; `text` is exactly those lines. */
export interface Chunk {
  startLine: number;
  endLine: number;
  text: string;
}

export interface ChunkOptions {
  /** Lines a chunk aims for (default 50). */
  targetLines?: number;
  /** Bytes (UTF-16 units) a chunk aims for (default 1500). */
  targetChars?: number;
  /** Whether to split at Markdown headings; by default decided from `path`. */
  markdown?: boolean;
  /** File path, used to recognise Markdown. */
  path?: string;
}

/** A line at column 0 that starts a declaration: a good place to start a new chunk. */
const TOP_LEVEL_DECLARATION =
  /^(?:export|import|function|class|def|interface|type|const|let|var|fn|struct|impl|public|private|protected|internal|static|async|abstract|final|enum|module|namespace|package|func|pub|trait|object|describe|it|test|@|#\[|template|typedef|union)\b/;

const HEADING = /^#{1,6}\s/;
const FENCE = /^\s*(```|~~~)/;

const MARKDOWN_EXT = /\.(md|markdown|mdx|mdown)$/i;

/** Splits text into lines without their terminators (`\n` or `\r\n`); a final newline adds no line. */
export function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.length > 0 && l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
  }
  return lines;
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

interface Block {
  start: number;
  end: number;
  chars: number;
  decl: boolean;
}

/**
 * Chunks `text`: blank-line-separated blocks merged up to the target size, breaking preferably
 * before top-level declarations; Markdown is split at headings first. Lines are never split, and
 * chunks hold no leading or trailing blank lines. An empty or blank file gives no chunk.
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const targetLines = options.targetLines ?? 50;
  const targetChars = options.targetChars ?? 1500;
  const markdown = options.markdown ?? (options.path !== undefined && MARKDOWN_EXT.test(options.path));
  const lines = splitLines(text);
  const ranges: Array<[number, number]> = [];

  const sections = markdown ? markdownSections(lines) : [[0, lines.length - 1] as [number, number]];
  for (const [s, e] of sections) chunkRange(lines, s, e, targetLines, targetChars, ranges);

  return ranges.map(([s, e]) => ({ startLine: s + 1, endLine: e + 1, text: lines.slice(s, e + 1).join('\n') }));
}

/** Line ranges (0-based, inclusive) of Markdown sections, each starting at a heading outside code fences. */
function markdownSections(lines: string[]): Array<[number, number]> {
  const sections: Array<[number, number]> = [];
  let start = 0;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    if (FENCE.test(lines[i])) inFence = !inFence;
    else if (!inFence && i > start && HEADING.test(lines[i])) {
      sections.push([start, i - 1]);
      start = i;
    }
  }
  if (lines.length > 0) sections.push([start, lines.length - 1]);
  return sections;
}

function chunkRange(lines: string[], from: number, to: number, targetLines: number, targetChars: number, out: Array<[number, number]>): void {
  const blocks: Block[] = [];
  let i = from;
  while (i <= to) {
    while (i <= to && isBlank(lines[i])) i++;
    if (i > to) break;
    const start = i;
    let chars = 0;
    while (i <= to && !isBlank(lines[i])) chars += lines[i++].length + 1;
    splitBlock(lines, start, i - 1, chars, targetLines, targetChars, blocks);
  }

  const minLines = Math.max(1, Math.floor(targetLines / 3));
  let curStart = -1;
  let curEnd = -1;
  let curChars = 0;
  for (const b of blocks) {
    if (curStart >= 0) {
      const lineCount = b.end - curStart + 1;
      const tooBig = lineCount > targetLines || curChars + b.chars > targetChars;
      const niceBreak = b.decl && curEnd - curStart + 1 >= minLines;
      if (tooBig || niceBreak) {
        out.push([curStart, curEnd]);
        curStart = -1;
      }
    }
    if (curStart < 0) {
      curStart = b.start;
      curChars = 0;
    }
    curEnd = b.end;
    curChars += b.chars;
  }
  if (curStart >= 0) out.push([curStart, curEnd]);
}

/** Splits one block of consecutive non-blank lines that exceeds the target, before declarations where it can. */
function splitBlock(lines: string[], start: number, end: number, chars: number, targetLines: number, targetChars: number, out: Block[]): void {
  if (end - start + 1 <= targetLines && chars <= targetChars) {
    out.push({ start, end, chars, decl: TOP_LEVEL_DECLARATION.test(lines[start]) });
    return;
  }
  let s = start;
  let c = 0;
  for (let i = start; i <= end; i++) {
    const len = lines[i].length + 1;
    const n = i - s;
    const atDecl = i > s && TOP_LEVEL_DECLARATION.test(lines[i]) && n >= targetLines / 3;
    if (i > s && (n >= targetLines || c + len > targetChars || atDecl)) {
      out.push({ start: s, end: i - 1, chars: c, decl: TOP_LEVEL_DECLARATION.test(lines[s]) });
      s = i;
      c = 0;
    }
    c += len;
  }
  out.push({ start: s, end, chars: c, decl: TOP_LEVEL_DECLARATION.test(lines[s]) });
}
