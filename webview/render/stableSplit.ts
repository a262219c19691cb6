/**
 * Where a growing Markdown text can be cut so that the part before the cut never renders
 * differently however the text goes on. Plain string logic (no DOM), tested in Node.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Every offset after `from` where the text can be cut between finished blocks, in order: the start
 * of an unindented line that follows a blank line, outside code fences. `from` is itself such a
 * point. The last line counts only once its line break has arrived (it may yet become a fence).
 */
export function splitPoints(text: string, from: number): number[] {
  const points: number[] = [];
  let fence: string | undefined;
  let previousBlank = false;
  let lineStart = from;
  while (lineStart < text.length) {
    const end = text.indexOf('\n', lineStart);
    if (end < 0) {
      break;
    }
    // Only the first few characters decide what a line is: a long line costs no more than a short one.
    const head = text.slice(lineStart, Math.min(end, lineStart + 64));
    const marker = FENCE.exec(head)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.slice(lineStart, end).trim() === marker) {
        fence = undefined;
      }
      previousBlank = false;
    } else if (isBlank(text, lineStart, end)) {
      previousBlank = true;
    } else {
      if (previousBlank && !/^\s/.test(head)) {
        points.push(lineStart);
      }
      if (marker) {
        fence = marker;
      }
      previousBlank = false;
    }
    lineStart = end + 1;
  }
  return points;
}

/**
 * The furthest offset after `from` where the text can be cut between finished blocks (see
 * `splitPoints`), or `from` when there is none yet.
 */
export function stableSplit(text: string, from: number): number {
  return splitPoints(text, from).at(-1) ?? from;
}

/** The text cut into its finished blocks (the whole text is final: its last line counts too). */
export function splitBlocks(text: string): string[] {
  const points = splitPoints(`${text}\n`, 0).filter((point) => point < text.length);
  const blocks: string[] = [];
  let start = 0;
  for (const point of points) {
    blocks.push(text.slice(start, point));
    start = point;
  }
  blocks.push(text.slice(start));
  return blocks;
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    // space, tab, carriage return
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}
