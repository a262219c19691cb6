/**
 * Where a growing Markdown text can be cut so that the part before the cut never renders
 * differently however the text goes on. Plain string logic (no DOM), tested in Node.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The furthest offset after `from` where the text can be cut between finished blocks: the start of
 * an unindented line that follows a blank line, outside code fences. `from` is itself such a point.
 */
export function stableSplit(text: string, from: number): number {
  let split = from;
  let fence: string | undefined;
  let previousBlank = false;
  let lineStart = from;
  while (lineStart < text.length) {
    const end = text.indexOf('\n', lineStart);
    if (end < 0) {
      // The last line is still being written: it may yet turn into a fence or a continuation.
      break;
    }
    const line = text.slice(lineStart, end);
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
      previousBlank = false;
    } else if (line.trim() === '') {
      previousBlank = true;
    } else {
      if (previousBlank && !/^\s/.test(line)) {
        split = lineStart;
      }
      if (marker) {
        fence = marker;
      }
      previousBlank = false;
    }
    lineStart = end + 1;
  }
  return split;
}
