/**
 * Long conversations: one path of 1,000 / 4,000 / 10,000 messages with a fork every 500, built and
 * measured through the public API, against the release before storage schema 2.0 (dot-path ids)
 * run in the same process. That release is checked out from git (commit BASELINE_COMMIT) into
 * bench/.data/baseline and its engine imported from there. Measures stored bytes per node, reopening
 * the store + `resume` + `getHistory()`, and `addMessage` at depth 10 against depth N. Writes the
 * "Long conversations" section of docs/benchmarks.md.
 *
 * Run: npx tsx bench/longConversation.ts [--sizes 1000,4000,10000] [--baseline-sizes 1000,4000]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as core from '../src/core/index';
import { median, runBenchmark, writeBenchmarkSection } from './benchReport';

/** The last release with dot-path node ids (schema 1.1). */
const BASELINE_COMMIT = '80101df';
const ROOT = path.resolve(__dirname, '..');
const FORK_EVERY = 500;
const REOPENS = 5;
const ADDS = 100;

type Engine = Pick<typeof core, 'ConversationManager' | 'SqlJsConversationStorage'>;

const llm = { name: 'bench' } as unknown as core.LLMProvider;

function arg(name: string, fallback: number[]): number[] {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1].split(',').map(Number);
}

function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function text(i: number): string {
  return `message ${i}`;
}

/** Checks out the baseline release (once) and loads its engine. */
async function loadBaseline(): Promise<Engine> {
  const dir = path.join(ROOT, 'bench/.data/baseline');
  if (!existsSync(path.join(dir, 'src/core/index.ts'))) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', BASELINE_COMMIT, 'src/core'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  }
  return (await import(path.join(dir, 'src/core/index.ts'))) as Engine;
}

interface Sizes {
  fillSeconds: number;
  fileBytes: number;
  messageBytes: number;
  nodes: number;
  reopen: number;
  add10: number;
  addDeep: number;
}

/**
 * Builds the conversation with `addMessage` (a sibling of every 500th message makes the fork), closes
 * the store (folding the journal into the file), then measures. Works with either engine's API.
 */
async function measure(engine: Engine, file: string, size: number, adds: number): Promise<Sizes> {
  const fillStart = process.hrtime.bigint();
  let storage = await engine.SqlJsConversationStorage.open(file, { checkpointEntries: 1 << 30, checkpointBytes: 2 ** 40 });
  const manager = await engine.ConversationManager.create({ llm, storage, conversationId: 'long', systemPrompt: 'You help.' } as never);
  let messageBytes = 'You help.'.length;
  let depth10 = '';
  for (let i = 0; i < size; i++) {
    const node = await manager.addMessage({ role: i % 2 ? 'assistant' : 'user', content: text(i) });
    messageBytes += text(i).length;
    if (i === 9) depth10 = node.nodeId;
    if (i > 0 && i % FORK_EVERY === 0) {
      await manager.branchFrom(node.nodeId);
      await manager.addMessage({ role: i % 2 ? 'assistant' : 'user', content: `fork ${i}` });
      messageBytes += `fork ${i}`.length;
      await manager.switchToNode(node.nodeId);
    }
  }
  const nodes = manager.getAllNodes().length;
  await storage.close();
  const fillSeconds = since(fillStart) / 1000;
  const fileBytes = (await fs.stat(file)).size;

  const reopen: number[] = [];
  for (let r = 0; r < REOPENS; r++) {
    const start = process.hrtime.bigint();
    const s = await engine.SqlJsConversationStorage.open(file);
    const m = await engine.ConversationManager.resume('long', { llm, storage: s } as never);
    const history = m.getHistory();
    reopen.push(since(start));
    if (history.length !== size + 1) throw new Error(`history has ${history.length} messages, expected ${size + 1}`);
    await s.close();
  }

  // addMessage at depth 10 and at depth N, interleaved, in the same store.
  storage = await engine.SqlJsConversationStorage.open(file, { checkpointEntries: 1 << 30, checkpointBytes: 2 ** 40 });
  const m = await engine.ConversationManager.resume('long', { llm, storage } as never);
  const deepTip = m.currentNodeId;
  let shallowTip = depth10;
  let deep = deepTip;
  const add10: number[] = [];
  const addDeep: number[] = [];
  for (let i = 0; i < adds; i++) {
    await m.switchToNode(shallowTip);
    let start = process.hrtime.bigint();
    shallowTip = (await m.addMessage({ role: 'user', content: text(i) })).nodeId;
    add10.push(since(start));
    await m.switchToNode(deep);
    start = process.hrtime.bigint();
    deep = (await m.addMessage({ role: 'user', content: text(i) })).nodeId;
    addDeep.push(since(start));
  }
  await storage.close();
  return { fillSeconds, fileBytes, messageBytes, nodes, reopen: median(reopen), add10: median(add10), addDeep: median(addDeep) };
}

const ms = (v: number) => (v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`);
const mb = (v: number) => `${(v / 1e6).toFixed(2)} MB`;

async function main(): Promise<void> {
  const sizes = arg('--sizes', [1000, 4000, 10000]);
  const baselineSizes = arg('--baseline-sizes', [1000, 4000]);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-long-'));
  const rows: string[] = [];
  let largest: Sizes | undefined;
  try {
    const baseline = await loadBaseline();
    for (const size of sizes) {
      const now = await measure(core, path.join(dir, `new-${size}.sqlite`), size, ADDS);
      largest = now;
      process.stdout.write(`new ${size}: ${JSON.stringify(now)}\n`);
      let old: Sizes | undefined;
      if (baselineSizes.includes(size)) {
        old = await measure(baseline, path.join(dir, `old-${size}.sqlite`), size, 20);
        process.stdout.write(`old ${size}: ${JSON.stringify(old)}\n`);
      }
      const row = (release: string, s: Sizes) =>
        `| ${size.toLocaleString('en-US')} (${s.nodes.toLocaleString('en-US')} nodes) | ${release} | ${mb(s.fileBytes)} | ${((s.fileBytes - s.messageBytes) / s.nodes).toFixed(0)} B | ${ms(s.reopen)} | ${ms(s.add10)} | ${ms(s.addDeep)} | ${(s.addDeep / s.add10).toFixed(2)}x | ${s.fillSeconds.toFixed(1)} s |`;
      rows.push(row('new', now));
      rows.push(old ? row(`old (${BASELINE_COMMIT})`, old) : `| ${size.toLocaleString('en-US')} | old (${BASELINE_COMMIT}) | not run: filling it takes minutes | | | | | | |`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  const table = [
    `One conversation whose path holds N messages of a few bytes, with a fork every ${FORK_EVERY} (a sibling of every 500th message), built with \`addMessage\` on a file-backed store, then closed; new (schema 2.0, opaque ids) and old (the release before, commit ${BASELINE_COMMIT}, dot-path ids) both run in one process by \`npx tsx bench/longConversation.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs. Reopen is \`SqlJsConversationStorage.open\` + \`ConversationManager.resume\` + \`getHistory()\`, median of ${REOPENS}; adds are medians of ${ADDS} (old: 20) \`addMessage\` calls at depth 10 and at depth N, interleaved in the same store. Overhead per node is (file size − message bytes) / nodes.`,
    '',
    ...(largest
      ? [
          `Targets at ${sizes[sizes.length - 1].toLocaleString('en-US')}: reopen + resume + getHistory at most 50 ms (${ms(largest.reopen)}, ${largest.reopen <= 50 ? 'met' : 'missed'}); addMessage at depth N within 1.5x of depth 10 (${(largest.addDeep / largest.add10).toFixed(2)}x, ${largest.addDeep <= 1.5 * largest.add10 ? 'met' : 'missed'}); stored bytes per node at most the message's own + 1 KB (${((largest.fileBytes - largest.messageBytes) / largest.nodes).toFixed(0)} B over, ${(largest.fileBytes - largest.messageBytes) / largest.nodes <= 1024 ? 'met' : 'missed'}).`,
          '',
        ]
      : []),
    '| path length | release | database file | overhead per node | reopen + resume + getHistory | addMessage at depth 10 | addMessage at depth N | depth N / depth 10 | fill |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await writeBenchmarkSection('Long conversations', table);
}

runBenchmark(main);
