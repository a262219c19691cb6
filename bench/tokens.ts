/**
 * Token counting: gpt-tokenizer (o200k_base, through Arbor's `ExactTokenCounter`) on a 1 MB path of 1,000
 * messages made of this repository's own sources and docs (code) and its dependencies' READMEs (prose),
 * against the chars/4 estimate as the baseline; chars/4's error against the exact count on code, prose,
 * JSON and CJK text; and the meter's update while typing on that path, `PathTokenCache` (only the draft
 * recounted) against counting the whole request again, both counters, in the same process.
 * Writes the "Token counting" section of docs/benchmarks.md.
 *
 * Run: npm run bench -- tokens   (or npx tsx bench/tokens.ts)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PathTokenCache, type CountableNode } from '../src/core/llm/pathTokenCache';
import { EstimatingTokenCounter, exactTokenCounter, type TokenCounter } from '../src/core/llm/tokenCount';
import { estimateMessagesTokens, estimateTokens } from '../src/core/llm/tokens';
import type { LLMMessage } from '../src/core/types';
import { median, runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const ROOT = path.resolve(__dirname, '..');
const MESSAGES = 1000;
const TARGET_CHARS = 1_048_576;
const FULL_RUNS = 7;
const KEYSTROKES = 300;
const BASELINE_KEYSTROKES = 15;

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const git = (pattern: string) =>
  execFileSync('git', ['ls-files', pattern], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

/** Cuts texts into pieces of about `size` characters at line ends. */
function pieces(texts: string[], size: number): string[] {
  const out: string[] = [];
  for (const text of texts) {
    let current = '';
    for (const line of text.split('\n')) {
      current += `${line}\n`;
      if (current.length >= size) {
        out.push(current);
        current = '';
      }
    }
    if (current.trim()) out.push(current);
  }
  return out;
}

function samples(): Record<'code' | 'prose' | 'json' | 'cjk', string> & { codeFiles: string[]; proseFiles: string[] } {
  const codeFiles = git('src/**/*.ts').concat(git('webview/**/*.ts'), git('test/**/*.ts'));
  const deps = Object.keys((JSON.parse(read('package.json')) as { dependencies: Record<string, string> }).dependencies);
  // Not docs/benchmarks.md: this benchmark writes it, and the sample would change from run to run.
  const proseFiles = [...git('*.md').filter((f) => f !== 'docs/benchmarks.md'), ...deps.map((d) => `node_modules/${d}/README.md`)].filter((f) => {
    try {
      read(f);
      return true;
    } catch {
      return false;
    }
  });
  // Chinese: TypeScript's own zh-CN compiler messages (a devDependency), real translated prose.
  const zh = Object.values(JSON.parse(read('node_modules/typescript/lib/zh-cn/diagnosticMessages.generated.json')) as Record<string, string>);
  return {
    codeFiles,
    proseFiles,
    code: codeFiles.map(read).join('\n'),
    prose: proseFiles.map(read).join('\n\n'),
    // Pretty JSON as a tool returns it: this repository's manifest and lock file without its integrity hashes.
    json: [read('package.json'), read('package-lock.json').replace(/^\s*"integrity": ".*",?\n/gm, '').slice(0, 150_000)].join('\n'),
    cjk: zh.join('\n').slice(0, 50_000),
  };
}

/** 1,000 messages of about 1 KB: user turns of prose, assistant turns of code, cycling through the pools. */
function buildPath(code: string, prose: string): CountableNode[] {
  const codePieces = pieces([code], 1100);
  const prosePieces = pieces([prose], 900);
  const nodes: CountableNode[] = [];
  let ci = 0;
  let pi = 0;
  for (let i = 0; i < MESSAGES; i++) {
    const message: LLMMessage = i % 2 === 0 ? { role: 'user', content: prosePieces[pi++ % prosePieces.length] } : { role: 'assistant', content: codePieces[ci++ % codePieces.length] };
    nodes.push({ nodeId: `n${i}`, message });
  }
  // Trim or pad the last message so the path is 1 MiB of message text.
  const chars = nodes.reduce((n, x) => n + x.message.content.length, 0);
  const last = nodes[nodes.length - 1].message;
  last.content = chars > TARGET_CHARS ? last.content.slice(0, Math.max(1, last.content.length - (chars - TARGET_CHARS))) : last.content + code.slice(0, TARGET_CHARS - chars);
  return nodes;
}

/** Wall time and the process's CPU time of `fn`, in ms (on a shared machine the CPU time shows the work, the wall time the wait too). */
function timeBoth(fn: () => unknown): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const wall = time(fn);
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

function time(fn: () => unknown): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const ms = (n: number) => (n >= 100 ? `${n.toFixed(0)} ms` : n >= 1 ? `${n.toFixed(1)} ms` : `${(n * 1000).toFixed(0)} µs`);
const pct = (est: number, exact: number) => `${est >= exact ? '+' : '−'}${Math.abs(((est - exact) / exact) * 100).toFixed(1)} %`;
const int = (n: number) => n.toLocaleString('en-US');
const ratio = (r: number) => (r >= 10 ? `${r.toFixed(0)}x faster` : r >= 1 ? `${r.toFixed(1)}x faster` : `${(1 / r).toFixed(1)}x slower`);

/** A draft typed one character at a time; each keystroke asks for the whole request's count. */
function typing(cache: PathTokenCache | undefined, counter: TokenCounter, nodes: CountableNode[], system: LLMMessage, keystrokes: number): number[] {
  const sentence = 'Could you explain why the window keeps whole turns, and what happens to a tool result that is cut? ';
  const times: number[] = [];
  let draft = '';
  const messages = nodes.map((n) => n.message);
  for (let k = 0; k < keystrokes; k++) {
    draft += sentence[k % sentence.length];
    const current = draft;
    times.push(time(() => (cache ? cache.count(nodes, { system, draft: { role: 'user', content: current } }) : counter.countMessages([system, ...messages, { role: 'user', content: current }]))));
  }
  return times;
}

async function main(): Promise<void> {
  const s = samples();
  const loadStart = process.hrtime.bigint();
  const exact = await exactTokenCounter('o200k_base');
  const loadMs = Number(process.hrtime.bigint() - loadStart) / 1e6;
  const nodes = buildPath(s.code, s.prose);
  const messages = nodes.map((n) => n.message);
  const pathChars = messages.reduce((n, m) => n + m.content.length, 0);

  // Whole-path counts: the first (cold merge cache) and the median of the next runs; chars/4 alongside.
  let exactTokens = 0;
  const first = timeBoth(() => (exactTokens = exact.countMessages(messages)));
  const exactRuns = Array.from({ length: FULL_RUNS }, () => timeBoth(() => exact.countMessages(messages)));
  let estimateTokensOfPath = 0;
  const estimateRuns = Array.from({ length: FULL_RUNS }, () => timeBoth(() => (estimateTokensOfPath = estimateMessagesTokens(messages))));
  const pathText = messages.map((m) => m.content).join('');
  const textRuns = Array.from({ length: FULL_RUNS }, () => timeBoth(() => exact.countText(pathText)));
  const wall = (runs: Array<{ wall: number }>) => median(runs.map((r) => r.wall));
  const cpu = (runs: Array<{ cpu: number }>) => median(runs.map((r) => r.cpu));

  // chars/4 against the exact count.
  const errorRows = ([['code (this repo\'s TypeScript)', s.code], ['prose (Markdown docs, READMEs)', s.prose], ['JSON (package.json, package-lock.json, pretty)', s.json], ['CJK (TypeScript\'s zh-CN messages)', s.cjk], ['the 1 MiB mixed path, as messages', '']] as const).map(([name, text]) => {
    if (!text) return `| ${name} | ${int(pathChars)} | ${int(exactTokens)} | ${int(estimateTokensOfPath)} | ${pct(estimateTokensOfPath, exactTokens)} |`;
    const e = exact.countText(text);
    const est = estimateTokens(text);
    return `| ${name} | ${int(text.length)} | ${int(e)} | ${int(est)} | ${pct(est, e)} |`;
  });

  // The meter while typing: cached path count against counting the whole request again.
  const system: LLMMessage = { role: 'system', content: read('prompts/system/code-assistant.md') };
  const rows: string[] = [];
  for (const [label, counter] of [['exact (o200k_base)', exact], ['estimate (chars/4, calibrated)', new EstimatingTokenCounter()]] as const) {
    const cache = new PathTokenCache(counter);
    const prime = time(() => cache.count(nodes, { system, draft: { role: 'user', content: '' } }));
    const cached = summarize(typing(cache, counter, nodes, system, KEYSTROKES));
    const whole = summarize(typing(undefined, counter, nodes, system, counter.exact ? BASELINE_KEYSTROKES : KEYSTROKES));
    rows.push(`| ${label} | ${ms(prime)} | ${ms(cached.median)} | ${ms(cached.p95)} | ${ms(whole.median)} | ${ratio(whole.median / cached.median)} |`);
  }

  const load = os.loadavg()[0].toFixed(1);
  const section = [
    `\`npm run bench -- tokens\` (\`bench/tokens.ts\`) on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs (1-minute load average ${load} at the end). gpt-tokenizer 4.0.0, o200k_base, counted through Arbor's \`ExactTokenCounter\` (the chat framing adds 3 tokens per message and 1 token per role). The path: ${MESSAGES} messages, ${int(pathChars)} characters, user turns cut from ${s.proseFiles.length} Markdown files (this repository's docs and prompts, its dependencies' READMEs) and assistant turns from ${s.codeFiles.length} TypeScript files of this repository, about 1 KB each, the pools reused in turn.`,
    '',
    '| counting the 1 MiB path | wall time | CPU time |',
    '| --- | ---: | ---: |',
    `| loading the o200k_base encoding (once per session, on first use) | ${ms(loadMs)} | |`,
    `| gpt-tokenizer, whole path as messages, first run (cold merge cache) | ${ms(first.wall)} | ${ms(first.cpu)} |`,
    `| gpt-tokenizer, whole path as messages, median of the next ${FULL_RUNS} | **${ms(wall(exactRuns))}** | ${ms(cpu(exactRuns))} |`,
    `| gpt-tokenizer, the path's text as one string, median of ${FULL_RUNS} | ${ms(wall(textRuns))} | ${ms(cpu(textRuns))} |`,
    `| chars/4 (baseline), whole path as messages, median of ${FULL_RUNS} | ${ms(wall(estimateRuns))} | ${ms(cpu(estimateRuns))} |`,
    '',
    `Target for an exact count of a 1 MB path: 150 ms, with a warm merge cache ${wall(exactRuns) <= 150 ? 'met' : 'missed'} in wall time (${ms(wall(exactRuns))}) and ${cpu(exactRuns) <= 150 ? 'met' : 'missed'} in CPU time (${ms(cpu(exactRuns))}); the wall time is the CPU time plus waiting for a core on this shared machine (load average ${load}). The first run, while the merge cache fills, costs more. The meter pays a whole count once per path it opens; after that only what changed is counted (below).`,
    '',
    'How far chars/4 is from the exact o200k count (positive: it over-counts):',
    '',
    '| text | characters | o200k tokens | chars/4 | chars/4 error |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...errorRows,
    '',
    `The meter while the user types a draft at the end of the ${MESSAGES}-message path (system prompt included): \`PathTokenCache.count\` recounts only what changed (the draft) and takes the rest from its per-node cache; the baseline counts the whole request again on every keystroke. ${KEYSTROKES} keystrokes (${BASELINE_KEYSTROKES} for the exact baseline, which takes a whole count each).`,
    '',
    '| counter | first count (fills the cache) | cached update, median | cached update, p95 | whole recount, median | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    'Target for the update while typing: 5 ms on a 1,000-message path. For chars/4 the whole recount is itself only microseconds, so the cache buys nothing there beyond keeping one code path for both counters.',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  await writeBenchmarkSection('Token counting', section);
}

runBenchmark(main);
