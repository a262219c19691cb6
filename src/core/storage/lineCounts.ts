/**
 * Lines added and removed between two versions of a text file, as a line diff counts them (the
 * `+12 −3` of a file chip): Myers' O(ND) algorithm over the lines that differ, after the common
 * start and end are set aside. Only the counts are computed, never the edit script. Line endings are
 * compared as `\n`, as the diffs the edit tools show do, so a chip and an approval card agree.
 */

/** Added and removed line counts. */
export interface LineCounts {
  added: number;
  removed: number;
}

/**
 * How much diagonal work Myers may do before giving up on an exact count (about 20 ms in V8). A file
 * rewritten through and through would cost (N+M)·D: beyond this budget, every differing line in the
 * middle counts as removed and added, which is what such a rewrite amounts to anyway.
 */
const WORK_BUDGET = 5_000_000;

/** The lines of `text`, each with its line break, so a last line that gains or loses one counts as changed. */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Maps each distinct line of `lines[from, to)` to a small integer, so the diff compares numbers. */
function intern(lines: string[], from: number, to: number, ids: Map<string, number>): Int32Array {
  const out = new Int32Array(to - from);
  for (let i = from; i < to; i++) {
    let id = ids.get(lines[i]);
    if (id === undefined) {
      id = ids.size;
      ids.set(lines[i], id);
    }
    out[i - from] = id;
  }
  return out;
}

/**
 * The length of the shortest edit script between `a` and `b` (insertions plus deletions), or -1
 * when it exceeds `maxD`. Myers 1986, forward search with one V array.
 */
function editDistance(a: Int32Array, b: Int32Array, maxD: number): number {
  const n = a.length;
  const m = b.length;
  const offset = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  for (let d = 0; d <= maxD; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return -1;
}

/** Lines added and removed from `before` to `after` (either may be empty). */
export function countLineChanges(before: string, after: string): LineCounts {
  if (before === after) return { added: 0, removed: 0 };
  const linesA = splitLines(before.replace(/\r\n/g, '\n'));
  const linesB = splitLines(after.replace(/\r\n/g, '\n'));
  // The common start and end are set aside by comparing the lines themselves; only the middle is interned.
  let start = 0;
  while (start < linesA.length && start < linesB.length && linesA[start] === linesB[start]) start++;
  let endA = linesA.length;
  let endB = linesB.length;
  while (endA > start && endB > start && linesA[endA - 1] === linesB[endB - 1]) {
    endA--;
    endB--;
  }
  if (endA === start || endB === start) return { added: endB - start, removed: endA - start };
  const ids = new Map<string, number>();
  const midA = intern(linesA, start, endA, ids);
  const midB = intern(linesB, start, endB, ids);
  const maxD = Math.min(midA.length + midB.length, Math.max(64, Math.floor(WORK_BUDGET / (midA.length + midB.length))));
  const d = editDistance(midA, midB, maxD);
  if (d < 0) return { added: midB.length, removed: midA.length };
  // D = removed + added and M − N = added − removed.
  const added = (d + midB.length - midA.length) / 2;
  return { added, removed: d - added };
}
