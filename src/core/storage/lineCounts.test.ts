import { describe, expect, it } from 'vitest';
import { countLineChanges, splitLines } from './lineCounts';

/** Lines added and removed by a plain LCS table: the reference the fast count must match. */
function reference(before: string, after: string): { added: number; removed: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
  }
  return { added: b.length - table[0][0], removed: a.length - table[0][0] };
}

describe('countLineChanges', () => {
  it('counts like a line diff: edits, insertions, deletions, and a last line gaining its line break', () => {
    expect(countLineChanges('', '')).toEqual({ added: 0, removed: 0 });
    expect(countLineChanges('', 'a\nb\n')).toEqual({ added: 2, removed: 0 });
    expect(countLineChanges('a\nb\n', '')).toEqual({ added: 0, removed: 2 });
    expect(countLineChanges('a\nb\nc\n', 'a\nB\nc\n')).toEqual({ added: 1, removed: 1 });
    expect(countLineChanges('a\nb', 'a\nb\n')).toEqual({ added: 1, removed: 1 });
    // Line endings compare as \n: a CRLF file changed by one line counts one line, a conversion none.
    expect(countLineChanges('a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n')).toEqual({ added: 1, removed: 1 });
    expect(countLineChanges('a\r\nb\r\n', 'a\nb\n')).toEqual({ added: 0, removed: 0 });
    expect(countLineChanges('x\na\nb\n', 'a\nb\nx\n')).toEqual({ added: 1, removed: 1 });
  });

  it('matches an exhaustive LCS on many random small files', () => {
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const file = () => Array.from({ length: random(30) }, () => `${'abcde'[random(5)]}\n`).join('');
    for (let round = 0; round < 500; round++) {
      const before = file();
      const after = random(2) ? file() : before.replace(/c/g, 'z');
      expect(countLineChanges(before, after)).toEqual(reference(before, after));
    }
  });

  it('past its work budget, counts the whole differing middle as replaced instead of searching on', () => {
    // 20,000 changed lines between 20,000 unchanged ones: exactly +20,000 −20,000, but the edit
    // distance (40,000) is far past what the budget allows at this size, so every line between the
    // common start ("top") and end ("same", "end") counts.
    const side = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag} ${i}\nsame\n`).join('');
    expect(countLineChanges(`top\n${side('old')}end\n`, `top\n${side('new')}end\n`)).toEqual({ added: 39_999, removed: 39_999 });
    // Within the budget the same shape is counted exactly.
    const small = (tag: string) => Array.from({ length: 20 }, (_, i) => `${tag} ${i}\nsame\n`).join('');
    expect(countLineChanges(small('old'), small('new'))).toEqual({ added: 20, removed: 20 });
  });
});
