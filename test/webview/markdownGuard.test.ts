import { describe, expect, it } from 'vitest';
import { BLOCK_CHARS, MAX_DEPTH, MAX_MARKS, blockTrouble, inlineTrouble, lineDepth } from '../../webview/render/markdownGuard';
import { splitBlocks } from '../../webview/render/stableSplit';

describe('blockTrouble', () => {
  it('lets ordinary Markdown through', () => {
    const text = '# Title\n\n1. Read the **config** with `loadConfig()`\n2. Validate it\n\n> a note with [a link](https://example.com)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
    expect(blockTrouble(text)).toBeUndefined();
  });

  it('refuses a block larger than the limit outside fences, but not a long code fence', () => {
    expect(blockTrouble('word '.repeat(BLOCK_CHARS / 5 + 10))).toBe('size');
    const code = `\`\`\`ts\n${'const a = 1;\n'.repeat(BLOCK_CHARS / 10)}\`\`\`\n`;
    expect(blockTrouble(code)).toBeUndefined();
    // An unclosed fence runs to the end: nothing after it is parsed as Markdown either.
    expect(blockTrouble(`\`\`\`\n${'*a'.repeat(MAX_MARKS)}`)).toBeUndefined();
  });

  it('refuses deep nesting of lists, quotes and indents', () => {
    expect(blockTrouble(`${'- '.repeat(2000)}deep`)).toBe('depth');
    expect(blockTrouble(`${'>'.repeat(2000)} deep`)).toBe('depth');
    expect(blockTrouble(`${'1. '.repeat(MAX_DEPTH + 1)}deep`)).toBe('depth');
    const lines = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n');
    expect(blockTrouble(lines)).toBe('depth');
    expect(blockTrouble(`${'- '.repeat(MAX_DEPTH)}fine`)).toBeUndefined();
  });

  it('refuses runs of inline markers (emphasis, brackets, table cells)', () => {
    expect(blockTrouble('*a'.repeat(MAX_MARKS / 2))).toBeUndefined();
    expect(blockTrouble('*a'.repeat(MAX_MARKS + 1))).toBe('marks');
    expect(blockTrouble('['.repeat(10_000))).toBe('marks');
    const table = Array.from({ length: 40 }, () => `|${'x|'.repeat(60)}`).join('\n');
    expect(blockTrouble(table)).toBe('marks');
  });

  it('scans a huge line in linear time without counting past what decides', () => {
    expect(lineDepth(' '.repeat(1_000_000), 0, 1_000_000)).toBeGreaterThan(MAX_DEPTH);
    expect(lineDepth('- - text', 0, 8)).toBe(2);
    expect(lineDepth('-text', 0, 5)).toBe(0);
    expect(lineDepth('12) item', 0, 8)).toBe(1);
  });
});

describe('inlineTrouble', () => {
  it('keeps short notices as Markdown and long or marked-up ones as text', () => {
    expect(inlineTrouble('Set `arbor.model` in **User** settings.')).toBe(false);
    expect(inlineTrouble('x'.repeat(10_000))).toBe(true);
    expect(inlineTrouble('['.repeat(MAX_MARKS + 1))).toBe(true);
  });
});

describe('splitBlocks', () => {
  it('cuts a finished text into blocks that join back to it, the last line included', () => {
    const text = 'A\n\nB\n\n```\ncode\n\nmore\n```\n\nC';
    const blocks = splitBlocks(text);
    expect(blocks.join('')).toBe(text);
    expect(blocks).toEqual(['A\n\n', 'B\n\n', '```\ncode\n\nmore\n```\n\n', 'C']);
    expect(splitBlocks('')).toEqual(['']);
  });
});
