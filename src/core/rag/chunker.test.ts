import { describe, expect, it } from 'vitest';
import { chunkText, splitLines } from './chunker';

function lines(n: number, prefix = 'x'): string[] {
  return Array.from({ length: n }, (_, i) => `  ${prefix}${i} = ${i};`);
}

describe('chunkText', () => {
  it('keeps a small file whole with exact 1-based inclusive lines, trimming blank edges', () => {
    const text = '\n\nfunction a() {\n  return 1;\n}\n\n';
    expect(chunkText(text)).toEqual([{ startLine: 3, endLine: 5, text: 'function a() {\n  return 1;\n}' }]);
  });

  it('gives nothing for an empty or blank file', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('\n  \n\t\n')).toEqual([]);
  });

  it('breaks before a top-level declaration once the chunk has some size', () => {
    const a = ['function a() {', ...lines(20), '}'];
    const b = ['export class B {', ...lines(10), '}'];
    const text = [...a, '', ...b].join('\n');
    const chunks = chunkText(text);
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 22],
      [24, 35],
    ]);
    expect(chunks[1].text.split('\n')[0]).toBe('export class B {');
  });

  it('merges small blocks up to the target and never splits a line', () => {
    const blocks: string[] = [];
    for (let i = 0; i < 30; i++) blocks.push(`  let v${i} = ${i};\n  use(v${i});`);
    const text = blocks.join('\n\n');
    const chunks = chunkText(text, { targetLines: 20, targetChars: 10_000 });
    const all = splitLines(text);
    for (const c of chunks) {
      expect(c.endLine - c.startLine + 1).toBeLessThanOrEqual(20);
      expect(c.text).toBe(all.slice(c.startLine - 1, c.endLine).join('\n'));
    }
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0].startLine).toBe(1);
    expect(chunks[chunks.length - 1].endLine).toBe(all.length);
  });

  it('splits one long block by size, covering every line once', () => {
    const text = lines(130).join('\n');
    const chunks = chunkText(text, { targetLines: 50, targetChars: 100_000 });
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 50],
      [51, 100],
      [101, 130],
    ]);
  });

  it('respects the character target', () => {
    const text = Array.from({ length: 40 }, (_, i) => `const s${i} = "${'y'.repeat(90)}";`).join('\n');
    for (const c of chunkText(text, { targetChars: 1500 })) expect(c.text.length).toBeLessThanOrEqual(1500);
  });

  it('splits Markdown at headings, not inside code fences', () => {
    const md = ['# Title', 'intro', '', '## Install', 'npm i', '```', '# not a heading', '```', '', '## Use', 'call it'].join('\n');
    expect(chunkText(md, { path: 'README.md' }).map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 2],
      [4, 8],
      [10, 11],
    ]);
    expect(chunkText(md, { path: 'notes.txt' })).toHaveLength(1);
  });

  it('handles CRLF line endings', () => {
    expect(chunkText('a = 1;\r\nb = 2;\r\n')).toEqual([{ startLine: 1, endLine: 2, text: 'a = 1;\nb = 2;' }]);
  });
});
