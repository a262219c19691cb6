/**
 * What one added message costs to persist, at 1k, 10k and 100k stored nodes: Arbor's journaled
 * `applyChange` against the naive way (insert, `db.export()`, write the whole file), both measured
 * here in the same run. Prints a Markdown table and writes it into docs/benchmarks.md under "## Storage".
 *
 * Run: npx tsx bench/storage.ts   (or npm run bench:storage)
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSqlJs } from '../src/core/storage/databaseFile';
import { SqlJsConversationStorage } from '../src/core/storage/sqlJsConversationStorage';
import { sampleConversation, sampleNode } from '../src/core/storage/storageTestData';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const NODES_PER_CONVERSATION = 100;
const APPENDS = 200;
/** The baseline rewrites the whole file per message, so fewer samples keep the run short at 100k. */
const BASELINE_SAMPLES: Record<number, number> = { 1000: 100, 10000: 30, 100000: 10 };

/** Message sizes from a few hundred bytes to a few KB, spread deterministically. */
function messageBytes(i: number): number {
  return 200 + ((i * 7919) % 2800);
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  nodes: number;
  dbMb: number;
  arbor: { median: number; p95: number };
  baseline: { median: number; p95: number };
  baselineSamples: number;
  checkpointMs: number;
}

async function populate(file: string, nodes: number): Promise<void> {
  const storage = await SqlJsConversationStorage.open(file, { checkpointBytes: 2 ** 40, checkpointEntries: 2 ** 30 });
  for (let c = 0; c < nodes / NODES_PER_CONVERSATION; c++) {
    await storage.saveConversation(sampleConversation(`conv-${c}`, NODES_PER_CONVERSATION, { bytes: (i) => messageBytes(c * 131 + i) }));
  }
  await storage.close();
}

/**
 * Appends to the three stores in turn (one message to each per round), so that the shared machine's
 * disk noise falls on every size alike and the comparison across sizes stays fair.
 */
async function measureArbor(files: Map<number, string>): Promise<Map<number, { samples: number[]; checkpointMs: number }>> {
  const stores = new Map<number, SqlJsConversationStorage>();
  for (const [nodes, file] of files) {
    stores.set(nodes, await SqlJsConversationStorage.open(file));
  }
  const samples = new Map<number, number[]>([...files.keys()].map((nodes) => [nodes, []]));
  for (let i = 0; i < APPENDS; i++) {
    for (const [nodes, storage] of stores) {
      const conversationId = `conv-${(i * 37) % (nodes / NODES_PER_CONVERSATION)}`;
      const { nodeId: _id, position: _position, ...node } = sampleNode('', '', messageBytes(i), i, 'assistant');
      const start = process.hrtime.bigint();
      await storage.applyChange(conversationId, { addNodes: [node], currentIsLastAdded: true, updatedAt: new Date().toISOString() });
      samples.get(nodes)?.push(elapsedMs(start));
    }
  }
  const results = new Map<number, { samples: number[]; checkpointMs: number }>();
  for (const [nodes, storage] of stores) {
    const start = process.hrtime.bigint();
    await storage.checkpoint();
    results.set(nodes, { samples: samples.get(nodes) ?? [], checkpointMs: elapsedMs(start) });
    await storage.close();
  }
  return results;
}

/** Flushes what populating wrote, so its write-back does not land on the measured appends (best effort). */
function flushDisk(): void {
  try {
    execFileSync('sync', { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // No `sync` command here (Windows): the measurement is only noisier.
  }
}

/** The naive design: the same insert, then `db.export()` and a flushed write of the whole file. */
async function measureBaseline(file: string, count: number): Promise<number[]> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database(await fs.readFile(file));
  const target = `${file}.baseline`;
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const node = sampleNode(`base-${i}`, '', messageBytes(i), i, 'assistant');
    const start = process.hrtime.bigint();
    const message = JSON.stringify(node.message);
    db.run(
      `INSERT INTO nodes (conversation_id, node_id, parent_id, message, timestamp, prompt_name, branch_name, metadata, search_text)
       VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?)`,
      ['conv-0', node.nodeId, '', message, node.timestamp, JSON.stringify(node.metadata), message.toLowerCase()],
    );
    const data = db.export();
    const handle = await fs.open(target, 'w');
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    samples.push(elapsedMs(start));
  }
  db.close();
  await fs.rm(target, { force: true });
  return samples;
}

function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-storage-'));
  const rows: Row[] = [];
  const sizes = [1000, 10000, 100000];
  try {
    const files = new Map<number, string>();
    for (const nodes of sizes) {
      const file = path.join(dir, `store-${nodes}.db`);
      process.stderr.write(`${nodes} nodes: populating...\n`);
      await populate(file, nodes);
      files.set(nodes, file);
    }
    flushDisk();
    const sizesMb = new Map<number, number>();
    for (const [nodes, file] of files) {
      sizesMb.set(nodes, (await fs.stat(file)).size / 2 ** 20);
    }
    process.stderr.write(`${APPENDS} journaled appends to each store, interleaved...\n`);
    const arbor = await measureArbor(files);
    for (const nodes of sizes) {
      const baselineSamples = BASELINE_SAMPLES[nodes];
      process.stderr.write(`${nodes} nodes: ${baselineSamples} baseline writes...\n`);
      const baseline = await measureBaseline(files.get(nodes) as string, baselineSamples);
      const measured = arbor.get(nodes) as { samples: number[]; checkpointMs: number };
      rows.push({
        nodes,
        dbMb: sizesMb.get(nodes) ?? 0,
        arbor: summarize(measured.samples),
        baseline: summarize(baseline),
        baselineSamples,
        checkpointMs: measured.checkpointMs,
      });
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }

  const table = [
    '| stored nodes | database | Arbor append, median | Arbor p95 | baseline (export + write), median | baseline p95 | median ratio | one checkpoint |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.nodes.toLocaleString('en-US')} | ${row.dbMb.toFixed(1)} MB | ${formatMs(row.arbor.median)} ms | ${formatMs(row.arbor.p95)} ms | ` +
        `${formatMs(row.baseline.median)} ms | ${formatMs(row.baseline.p95)} ms | ${Math.round(row.baseline.median / row.arbor.median)}x | ${formatMs(row.checkpointMs)} ms |`,
    ),
  ].join('\n');
  const section = [
    '## Storage',
    '',
    `Cost of persisting one added message (\`applyChange\` with one new node of 200 B to 3 KB, journal line flushed with fsync, ` +
      `lock taken and released) against the naive baseline (the same insert, then \`db.export()\` and a flushed write of the whole file), ` +
      `appends to the three stores interleaved, measured in one run of \`npx tsx bench/storage.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ` +
      `${os.cpus().length} shared CPUs. Arbor: ${APPENDS} appends per size; baseline: ${rows.map((r) => r.baselineSamples).join('/')} writes.`,
    '',
    table,
    '',
    'A checkpoint (the same export, written to a temporary file and renamed) runs only when the journal passes 8 MiB or 5000 ' +
      'entries, and on close; the last column is its cost at each size, so its amortized share per message is that divided by thousands.',
    '',
  ].join('\n');
  process.stdout.write(`${table}\n`);
  await writeBenchmarkSection('Storage', section);
}

runBenchmark(main);
