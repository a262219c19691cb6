/**
 * Prompt rendering and loading costs. Rendering a named prompt through `PromptBuilder` (template compiled
 * once and cached by content hash) against compiling the same template with Handlebars on every render (no
 * cache) and against calling an already compiled Handlebars function (the floor); loading a folder of 300
 * prompt files against reloading it after one file changed. All in one run; prints a Markdown table and
 * writes it into docs/benchmarks.md under "## Prompt rendering". Run: `npx tsx bench/promptRender.ts`.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Handlebars from 'handlebars';
import { FileSystemPromptLibrary } from '../src/core/prompts/fileSystemPromptLibrary';
import { PromptBuilder } from '../src/core/prompts/promptBuilder';
import { median, runBenchmark, writeBenchmarkSection } from './benchReport';

const RENDERS = 2000;
const FILES = 300;

const partial = 'Rules:\n{{#each rules}}- {{this}}\n{{/each}}';
const body = [
  'You review {{language}} code for {{project}} on {{current_date}}.',
  '{{#if focus}}Focus on {{focus}}.{{/if}}',
  ...Array.from({ length: 40 }, (_, i) => `Line ${i}: {{p${i % 10}}} and some fixed prose about reviewing code well.`),
  '```{{language}}\n{{code}}\n```',
  '{{> rules}}',
].join('\n');
const params: Record<string, unknown> = {
  language: 'typescript',
  project: 'Arbor',
  focus: 'errors',
  code: 'export const add = (a: number, b: number) => a + b;\n'.repeat(20),
  rules: ['Be precise', 'Cite lines', 'Say when unsure'],
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, `value ${i}`])),
};

async function timeEach(n: number, fn: () => unknown | Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-prompts-'));
  try {
    const dir = path.join(root, 'prompts');
    await fs.mkdir(path.join(dir, 'user'), { recursive: true });
    await fs.mkdir(path.join(dir, 'partials'), { recursive: true });
    await fs.writeFile(path.join(dir, 'partials', 'rules.md'), partial);
    for (let i = 0; i < FILES; i++) {
      await fs.writeFile(path.join(dir, 'user', `p${i}.md`), `---\ndescription: prompt ${i}\nparams:\n  focus: {default: tests}\n---\n${body}\n<!-- ${i} -->\n`);
    }

    const openTimes = await timeEach(5, async () => (await FileSystemPromptLibrary.open(dir)).dispose());
    const library = await FileSystemPromptLibrary.open(dir);
    const reloadTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await fs.writeFile(path.join(dir, 'user', 'p0.md'), `---\ndescription: edited ${i}\n---\n${body}\n${'x'.repeat(i + 1)}\n`);
      const t = process.hrtime.bigint();
      await library.reload();
      reloadTimes.push(Number(process.hrtime.bigint() - t) / 1e6);
    }

    const builder = new PromptBuilder(library, { now: () => new Date(2026, 0, 1) });
    const context = { ...params, current_date: '2026-01-01' };
    const source = library.getUserPrompt('p1')!.template;
    const compiledOnce = Handlebars.compile(source, { noEscape: true });
    const compiledPartial = Handlebars.compile(partial, { noEscape: true });
    // Warm up every path before measuring.
    for (let i = 0; i < 200; i++) {
      await builder.renderUserPrompt('p1', { params });
      Handlebars.compile(source, { noEscape: true })(context, { partials: { rules: Handlebars.compile(partial, { noEscape: true }) } });
      compiledOnce(context, { partials: { rules: compiledPartial } });
    }
    const check = (await builder.renderUserPrompt('p1', { params })).content;
    if (check !== compiledOnce(context, { partials: { rules: compiledPartial } })) throw new Error('builder and Handlebars disagree');

    // Interleaved, so a busy shared machine slows all three alike.
    const builderTimes: number[] = [];
    const uncachedTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let i = 0; i < RENDERS; i++) {
      builderTimes.push(...(await timeEach(1, () => builder.renderUserPrompt('p1', { params }))));
      uncachedTimes.push(
        ...(await timeEach(1, () =>
          Handlebars.compile(source, { noEscape: true })(context, { partials: { rules: Handlebars.compile(partial, { noEscape: true }) } }),
        )),
      );
      floorTimes.push(...(await timeEach(1, () => compiledOnce(context, { partials: { rules: compiledPartial } }))));
    }
    library.dispose();

    const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
    const msf = (ms: number) => `${ms.toFixed(1)} ms`;
    const b = median(builderTimes);
    const u = median(uncachedTimes);
    const f = median(floorTimes);
    const o = median(openTimes);
    const r = median(reloadTimes);
    const table = [
      '| what | Arbor, median | baseline, median | ratio |',
      '| --- | ---: | ---: | ---: |',
      `| render a named prompt (${body.length} chars, partial, 15 params) vs compiling it on every render | ${us(b)} | ${us(u)} | ${(u / b).toFixed(1)}x faster |`,
      `| the same render vs calling an already compiled Handlebars function (the floor) | ${us(b)} | ${us(f)} | ${(b / f).toFixed(1)}x the floor |`,
      `| reload ${FILES} prompt files after one changed vs opening the folder fresh | ${msf(r)} | ${msf(o)} | ${(o / r).toFixed(1)}x faster |`,
    ].join('\n');
    const section = [
      '## Prompt rendering',
      '',
      `\`npx tsx bench/promptRender.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs (1-minute load average ${os.loadavg()[0].toFixed(1)} during the run${os.loadavg()[0] > os.cpus().length ? ': other jobs were running, so absolute times are inflated and ratios vary between runs' : ''}); ${RENDERS} interleaved renders per row, 5 loads. The builder's render includes the params merge, validation, partial lookup and the result record (sha256 and git blob id are computed at load, not per render); the reload re-reads only files whose size or time changed and re-checks every template.`,
      '',
      table,
      '',
    ].join('\n');
    process.stdout.write(`${table}\n`);
    await writeBenchmarkSection('Prompt rendering', section);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

runBenchmark(main);
