/**
 * Choosing the tools a request offers: `toolIndexFor` (built once per tool set) and `fitTools` into a
 * quarter of a 4,096-token window, per request, at 13, 53 and 200 tools, against the baseline of today
 * in the same process and interleaved: counting every definition and serialising all of them into the
 * body. Counts are o200k_base's (the base of the estimate for models without a known tokenizer). Each
 * request gets fresh definition objects, as `ToolExecutor.definitions()` makes them, and the next
 * question of a rotating list. Also reports what was offered and whether the target questions' tools
 * were among it. Writes the "Tool fitting" section of docs/benchmarks.md.
 *
 * Run: npm run bench -- toolFit   (or npx tsx bench/toolFit.ts)
 */
import { exactTokenCounter } from '../src/core/llm/tokenCount';
import { toolsOnWire } from '../src/core/llm/wireTools';
import { fitTools } from '../src/core/tools/toolFit';
import { ToolIndex, toolIndexFor } from '../src/core/tools/toolIndex';
import type { ToolDefinition } from '../src/core/types';
import { toolSet } from '../test/fixtures/toolCatalog';
import { median, runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const SIZES = [13, 53, 200];
const WINDOW = 4096;
const BUDGET = WINDOW / 4;
const REQUESTS = 300;
const WARMUP = 20;
const BUILDS = 15;
const QUESTIONS = [
  'read src/cart.ts',
  'add 2 and 40 with the everything server',
  'what changed since the last commit?',
  'rename utils.ts to helpers.ts and fix the imports',
  'list the open issues of arbor on github',
  'why does the build fail? run the tests',
  'archive the invoice INV-1234 for the customer',
  'search the workspace for where parseStream is defined',
];
const TARGETS: Array<[string, string]> = [
  ['read src/cart.ts', 'read_file'],
  ['add 2 and 40 with the everything server', 'mcp_everything_get-sum'],
];

const fresh = (defs: readonly ToolDefinition[]): ToolDefinition[] => defs.map((d) => structuredClone(d));
const ms = (v: number) => `${v.toFixed(3)} ms`;

async function main(): Promise<void> {
  const o200k = await exactTokenCounter('o200k_base');
  const countTools = (defs: readonly ToolDefinition[]) => o200k.countTools(defs);
  const rows: string[] = [];
  const outcome: string[] = [];
  for (const size of SIZES) {
    const tools = toolSet(size);
    const builds: number[] = [];
    for (let i = 0; i < BUILDS; i++) {
      const start = performance.now();
      new ToolIndex(fresh(tools));
      builds.push(performance.now() - start);
    }
    const baseline: number[] = [];
    const fit: number[] = [];
    let sink = 0;
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const query = QUESTIONS[i % QUESTIONS.length];
      // Interleaved, so both see the same machine load.
      let defs = fresh(tools);
      let start = performance.now();
      sink += countTools(defs) + JSON.stringify(toolsOnWire(defs)).length;
      const base = performance.now() - start;
      defs = fresh(tools);
      start = performance.now();
      const chosen = fitTools({ tools: defs, query, budgetTokens: BUDGET, countTools, index: toolIndexFor(defs) });
      sink += JSON.stringify(toolsOnWire(chosen.offered)).length;
      const took = performance.now() - start;
      if (i >= WARMUP) {
        baseline.push(base);
        fit.push(took);
      }
    }
    if (sink === 0) throw new Error('nothing was counted');
    const b = summarize(baseline);
    const f = summarize(fit);
    rows.push(`| ${size} | ${ms(median(builds))} | ${ms(b.median)} | ${ms(b.p95)} | **${ms(f.median)}** | ${ms(f.p95)} |`);
    for (const [query, needed] of TARGETS) {
      if (!tools.some((t) => t.function.name === needed)) continue;
      const chosen = fitTools({ tools: fresh(tools), query, budgetTokens: BUDGET, countTools });
      const names = chosen.offered.map((d) => d.function.name);
      outcome.push(
        `| ${size} | ${query} | ${chosen.allTokens.toLocaleString('en-US')} | ${names.length - (chosen.leftOut.length + chosen.shortened.length > 0 ? 1 : 0)} of ${size} (${chosen.shortened.length} shortened) + describe_tool | ${chosen.tokens.toLocaleString('en-US')} | ${names.includes(needed) ? 'yes' : '**no**'} |`,
      );
    }
  }
  const section = [
    `Choosing the offered tools per request (\`toolIndexFor\` + \`fitTools\`, budget ${BUDGET.toLocaleString('en-US')} tokens = 25% of a ${WINDOW.toLocaleString('en-US')}-token window, counted with o200k_base), against counting and serialising every definition (today's request), interleaved in one process; ${REQUESTS} requests per size after ${WARMUP} warm-up, each with fresh definition objects. Target: ≤ 5 ms per request at 200 tools. \`npx tsx bench/toolFit.ts\`, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '| tools | index build (once per tool set), median | baseline: count + serialise all, median | baseline p95 | fit, median | fit p95 |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    'What was offered for the target questions:',
    '',
    '| tools | question | all definitions (tokens) | offered | offered tokens | needed tool offered |',
    '|---:|---|---:|---|---:|---|',
    ...outcome,
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (!process.argv.includes('--print')) await writeBenchmarkSection('Tool fitting', section);
}

runBenchmark(main);
