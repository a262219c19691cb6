import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { median, percentile, summarize, writeBenchmarkSection } from '../../bench/benchReport';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-report-'));
  file = path.join(dir, 'docs', 'benchmarks.md');
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const existing = ['# Benchmarks', '', '## Storage', '', 'old storage table', '', '## Retrieval', '', '| a | b |', '| 1 | 2 |', '', '## Webview', '', 'webview text', ''].join('\n');

describe('writeBenchmarkSection', () => {
  it('replaces an existing section where it stands and keeps the sections around it', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, existing);
    await writeBenchmarkSection('Retrieval', '## Retrieval\n\nnew retrieval table\n', file);
    expect(await fs.readFile(file, 'utf8')).toBe(
      ['# Benchmarks', '', '## Storage', '', 'old storage table', '', '## Retrieval', '', 'new retrieval table', '', '## Webview', '', 'webview text', ''].join('\n'),
    );
  });

  it('replaces the last section up to the end of the file', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, existing);
    await writeBenchmarkSection('Webview', '## Webview\n\nfaster now', file);
    const text = await fs.readFile(file, 'utf8');
    expect(text.endsWith('## Webview\n\nfaster now\n')).toBe(true);
    expect(text).not.toContain('webview text');
    expect(text).toContain('| a | b |\n| 1 | 2 |');
  });

  it('appends a new section after the others, adding the heading when the Markdown has none', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, existing);
    await writeBenchmarkSection('Extension', 'activation table', file);
    const text = await fs.readFile(file, 'utf8');
    expect(text.startsWith(existing.trimEnd())).toBe(true);
    expect(text.slice(existing.trimEnd().length)).toBe('\n\n## Extension\n\nactivation table\n');
  });

  it('creates the file and its folder when they are missing', async () => {
    await writeBenchmarkSection('Storage', '## Storage\n\ntable', file);
    expect(await fs.readFile(file, 'utf8')).toBe('# Benchmarks\n\n## Storage\n\ntable\n');
  });

  it('does not take a longer heading that starts with the same words for the section', async () => {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, '# Benchmarks\n\n## Storage recovery\n\nkeep me\n');
    await writeBenchmarkSection('Storage', 'table', file);
    expect(await fs.readFile(file, 'utf8')).toBe('# Benchmarks\n\n## Storage recovery\n\nkeep me\n\n## Storage\n\ntable\n');
  });
});

describe('median, percentile, summarize', () => {
  it('report measured samples, whatever order they come in', () => {
    const samples = [9, 1, 5, 3, 7, 2, 8, 4, 6, 10];
    expect(median(samples)).toBe(6);
    expect(median([3, 1, 2])).toBe(2);
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 95)).toBe(10);
    expect(percentile(samples, 100)).toBe(10);
    expect(summarize(samples)).toEqual({ median: 6, p95: 10 });
    expect(samples[0]).toBe(9);
  });

  it('refuse an empty list or a percentile outside 0..100 instead of returning NaN', () => {
    expect(() => median([])).toThrow(/measured nothing/);
    expect(() => percentile([1], 101)).toThrow(/outside 0\.\.100/);
  });
});
