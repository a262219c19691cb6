import { describe, expect, it } from 'vitest';
import { applyHunks, changeHunks, fenceInfoOf, fencedBlocks, isFragment, namedPaths, unfence, withoutPathComment } from './applyPlan';

describe('fencedBlocks and fenceInfoOf', () => {
  it('finds each fenced block with its info string, ``` and ~~~, and ignores an unclosed inline fence', () => {
    const md = 'Here:\n```ts src/cart.ts\nconst a = 1;\n```\ntext\n~~~python\nprint(1)\n~~~\n';
    expect(fencedBlocks(md)).toEqual([
      { info: 'ts src/cart.ts', code: 'const a = 1;' },
      { info: 'python', code: 'print(1)' },
    ]);
    expect(fenceInfoOf(md, 'print(1)\n')).toBe('python');
    expect(fenceInfoOf(md, 'nothing')).toBe('');
  });
});

describe('namedPaths', () => {
  it('reads a path from the info string in its usual forms, then from a first-line comment', () => {
    expect(namedPaths('ts src/cart.ts', 'x')).toEqual(['src/cart.ts']);
    expect(namedPaths('ts title="src/cart.ts"', 'x')).toEqual(['src/cart.ts']);
    expect(namedPaths('ts:src/cart.ts', 'x')).toEqual(['src/cart.ts']);
    expect(namedPaths('python', '# file: app/main.py\nprint(1)')).toEqual(['app/main.py']);
    expect(namedPaths('ts', '// src/util.ts\nexport {}')).toEqual(['src/util.ts']);
    expect(namedPaths('html', '<!-- index.html -->\n<p>')).toEqual(['index.html']);
    // A comment that is a sentence names no file; neither does a bare language.
    expect(namedPaths('ts', '// compute the total\nconst t = 1;')).toEqual([]);
    expect(namedPaths('typescript', 'const a = 1;')).toEqual([]);
  });

  it('drops the first-line comment naming the target from the code, and only that', () => {
    expect(withoutPathComment('// src/util.ts\nexport {}', '/ws/src/util.ts')).toBe('export {}');
    expect(withoutPathComment('// other.ts\nexport {}', '/ws/src/util.ts')).toBe('// other.ts\nexport {}');
  });
});

describe('isFragment', () => {
  const file = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
  it('is a fragment when it marks code left out, or is much shorter than a file of 10 lines or more', () => {
    expect(isFragment('function a() {\n  // ... existing code ...\n}', file)).toBe(true);
    expect(isFragment('a\n...\nb', file)).toBe(true);
    expect(isFragment('line 0\nline 1', file)).toBe(true);
    expect(isFragment(file.replace('line 3', 'LINE 3'), file)).toBe(false);
    // A new or empty file takes the block whole; so does a short file.
    expect(isFragment('x', '')).toBe(false);
    expect(isFragment('x', 'a\nb\nc')).toBe(false);
  });
});

describe('unfence', () => {
  it('takes the code out of a fenced answer, and leaves a plain one as it is', () => {
    expect(unfence('```ts\nconst a = 1;\n```')).toBe('const a = 1;\n');
    expect(unfence('const a = 1;\n')).toBe('const a = 1;\n');
  });
});

describe('changeHunks and applyHunks', () => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const after = before.replace('line 2\n', 'line two\n').replace('line 25\n', 'line 25\nline 25b\n');
  it('splits a change into hunks, each with its counts and first changed line', () => {
    const { hunks } = changeHunks(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toMatchObject({ added: 1, removed: 1, preview: 'line two' });
    expect(hunks[1]).toMatchObject({ added: 1, removed: 0, preview: 'line 25b' });
    expect(hunks[1].header).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
  });

  it('applies only the hunks kept: none gives the file as it was, all give the proposal', () => {
    expect(applyHunks(before, after, new Set())).toBe(before);
    expect(applyHunks(before, after, new Set([0, 1]))).toBe(after);
    const second = applyHunks(before, after, new Set([1]));
    expect(second).toContain('line 25b');
    expect(second).toContain('line 2\n');
    expect(second).not.toContain('line two');
  });
});
