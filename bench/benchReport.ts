/**
 * What every benchmark in bench/ needs to report: medians and percentiles of its samples, and a
 * writer that puts its Markdown section into docs/benchmarks.md in place, keeping everyone else's.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** The shared results file, docs/benchmarks.md at the repository root. */
const BENCHMARKS_FILE = path.resolve(__dirname, '../docs/benchmarks.md');

/**
 * The `p`th percentile (0 to 100) of `samples` by the nearest-rank-below rule (the sample at
 * index floor(p/100 * n), capped at the last), so every reported number is a measured one.
 * Throws on an empty list or a `p` outside 0..100, since a missing number would read as NaN in a table.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError('No samples to take a percentile of: the benchmark measured nothing.');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`Percentile ${p} is outside 0..100.`);
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The median of `samples` (for an even count, the upper of the two middle samples, a measured value). */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Median and 95th percentile of `samples`, the pair the latency tables report. */
export function summarize(samples: readonly number[]): { median: number; p95: number } {
  return { median: percentile(samples, 50), p95: percentile(samples, 95) };
}

/**
 * Writes `sectionMarkdown` as the `## title` section of `file`: replaces that section where it stands
 * (up to the next `## ` heading), or appends it when the file has none, and keeps every other section
 * as it is. The heading is added when `sectionMarkdown` does not start with it. Creates the file (and
 * its folder) with a `# Benchmarks` title when it is missing.
 */
export async function writeBenchmarkSection(title: string, sectionMarkdown: string, file = BENCHMARKS_FILE): Promise<void> {
  const heading = `## ${title.trim()}`;
  const body = sectionMarkdown.trim();
  const section = body.split('\n', 1)[0].trim() === heading ? body : `${heading}\n\n${body}`;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    text = '# Benchmarks\n';
  }
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  let next: string;
  if (start < 0) {
    next = `${text.trimEnd()}\n\n${section}`;
  } else {
    const found = lines.findIndex((line, i) => i > start && line.startsWith('## '));
    const end = found < 0 ? lines.length : found;
    next = [...lines.slice(0, start), ...section.split('\n'), '', ...lines.slice(end)].join('\n');
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${next.trimEnd()}\n`);
}

/**
 * Runs a benchmark's `main`: a failure prints its stack and exits with 1, so `npm run bench`
 * counts it as failed instead of leaving a half-written section unnoticed.
 */
export function runBenchmark(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  });
}
