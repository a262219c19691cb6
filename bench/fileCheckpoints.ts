/**
 * What a file checkpoint costs: recording a node that changed 3 files of a 1 MB workspace
 * (`recordFileChanges`, contents hashed, new ones journaled with an fsync), against the baseline of
 * writing the same node without file changes (`applyChange` adding it), both in the same run on twin
 * stores; and how much the stored size grows, against the bytes of the changed contents. Prints
 * Markdown tables and writes them into docs/benchmarks.md under "## File checkpoints".
 *
 * Run: npx tsx bench/fileCheckpoints.ts   (or npm run bench -- fileCheckpoints)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatNodeId } from '../src/core/nodeIds';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from '../src/core/storage/sqlJsConversationStorage';
import { sampleConversation, sampleText } from '../src/core/storage/storageTestData';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const ROOT = path.resolve(__dirname, '..');
const WORKSPACE_BYTES = 1_048_576;
const CHANGED_PER_NODE = 3;
const WARMUP = 50;
const ROUNDS = 400;
const EDITS_OF_ONE_FILE = 10;
const CONVERSATION_NODES = 100;
/** The last node of the conversation the twins start with, under which each run adds its nodes. */
const TIP = formatNodeId(CONVERSATION_NODES - 1);

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The workspace: this repository's own TypeScript sources, in path order, up to 1 MB: real code, as it compresses. */
function loadWorkspace(): { path: string; content: Buffer }[] {
  const files = execFileSync('git', ['ls-files', 'src/*.ts'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  const workspace: { path: string; content: Buffer }[] = [];
  let total = 0;
  for (const file of files) {
    if (total >= WORKSPACE_BYTES) break;
    const content = readFileSync(path.join(ROOT, file));
    workspace.push({ path: file, content });
    total += content.length;
  }
  if (total < WORKSPACE_BYTES) throw new Error(`The workspace should hold 1 MB of sources; src/ has only ${total} bytes.`);
  return workspace;
}

/** The file with three of its lines rewritten for edit `round`. */
function edited(text: string, round: number): string {
  const lines = text.split('\n');
  const n = lines.length;
  for (const at of new Set([Math.min(3, n - 1), Math.floor(n / 2), Math.max(0, n - 4)])) lines[at] = `  const edited${round}_${at} = ${round * 31 + at}; // changed by node ${round}`;
  return lines.join('\n');
}

function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

function formatKb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** Wall and CPU milliseconds of one operation, per measured round. */
interface Samples {
  wall: number[];
  cpu: number[];
}

interface Timing {
  plainAdd: Samples;
  add: Samples;
  record: Samples;
}

/** Runs `task`, adding its wall time and this process's CPU time (all its threads) to `samples` when `measured`. */
async function timed<T>(samples: Samples, measured: boolean, task: () => Promise<T>): Promise<T> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await task();
  if (measured) {
    samples.wall.push(since(start));
    const used = process.cpuUsage(cpu);
    samples.cpu.push((used.user + used.system) / 1000);
  }
  return result;
}

const samples = (): Samples => ({ wall: [], cpu: [] });

/** Twin stores with the same conversation: `plain` gets the nodes only, `files` the nodes and their file changes. */
async function openTwins(dir: string, tag: string, inMemory: boolean): Promise<{ plain: SqlJsConversationStorage; files: SqlJsConversationStorage }> {
  // No checkpoint until close, so the journal and the database are measured apart (a checkpoint runs every 8 MiB of journal otherwise).
  const options = { checkpointBytes: 2 ** 40, checkpointEntries: 2 ** 30 };
  const open = (name: string) => (inMemory ? SqlJsConversationStorage.open() : SqlJsConversationStorage.open(path.join(dir, `${tag}-${name}.db`), options));
  const plain = await open('plain');
  const files = await open('files');
  for (const storage of [plain, files]) await storage.saveConversation(sampleConversation('bench', CONVERSATION_NODES));
  for (const storage of [plain, files]) await storage.checkpoint();
  return { plain, files };
}

async function addNode(storage: SqlJsConversationStorage, parentId: string, round: number): Promise<string> {
  const { addedNodes } = await storage.applyChange('bench', {
    addNodes: [{ parentId, message: { role: 'assistant', content: `Edited three files (${round}). ${sampleText(400, round)}` }, timestamp: new Date().toISOString(), metadata: {} }],
    currentIsLastAdded: true,
    updatedAt: new Date().toISOString(),
  });
  return addedNodes[0].nodeId;
}

/**
 * Rounds of: add a node to `plain` (baseline), add the same node to `files` and record its 3 changed
 * files. Returns the timings and the distinct contents recorded (hash → size).
 */
async function measureRecords(plain: SqlJsConversationStorage, files: SqlJsConversationStorage): Promise<{ timing: Timing; contents: Map<string, number>; changedPaths: string[] }> {
  const workspace = loadWorkspace();
  const timing: Timing = { plainAdd: samples(), add: samples(), record: samples() };
  const contents = new Map<string, number>();
  const changedPaths: string[] = [];
  let plainParent = TIP;
  let filesParent = TIP;
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const measured = round >= WARMUP;
    const parentOfPlain = plainParent;
    plainParent = await timed(timing.plainAdd, measured, () => addNode(plain, parentOfPlain, round));

    const changes = Array.from({ length: CHANGED_PER_NODE }, (_, k) => {
      const file = workspace[(round * CHANGED_PER_NODE + k) % workspace.length];
      const before = file.content;
      const after = Buffer.from(edited(before.toString(), round));
      file.content = after;
      changedPaths.push(file.path);
      for (const content of [before, after]) contents.set(sha(content), content.length);
      return { path: file.path, before: new Uint8Array(before), after: new Uint8Array(after) };
    });
    const parentOfFiles = filesParent;
    const node = await timed(timing.add, measured, () => addNode(files, parentOfFiles, round));
    filesParent = node;
    await timed(timing.record, measured, () => files.recordFileChanges('bench', node, changes));
  }
  return { timing, contents, changedPaths };
}

async function fileSize(file: string): Promise<number> {
  return (await fs.stat(file)).size;
}

interface Growth {
  label: string;
  contentBytes: number;
  journalGrowth: number;
  dbGrowth: number;
  /** The closing checkpoint of each twin, in ms. */
  closeMs: { plain: number; files: number };
}

/** Journal and database growth of `files` over `plain` (journal before, database after a checkpoint). */
async function measureGrowth(label: string, dir: string, tag: string, plain: SqlJsConversationStorage, files: SqlJsConversationStorage, contentBytes: number): Promise<Growth> {
  const db = (name: string) => path.join(dir, `${tag}-${name}.db`);
  const journalGrowth = (await fileSize(db('files') + JOURNAL_SUFFIX)) - (await fileSize(db('plain') + JOURNAL_SUFFIX));
  let start = process.hrtime.bigint();
  await plain.close();
  const plainMs = since(start);
  start = process.hrtime.bigint();
  await files.close();
  const filesMs = since(start);
  return { label, contentBytes, journalGrowth, dbGrowth: (await fileSize(db('files'))) - (await fileSize(db('plain'))), closeMs: { plain: plainMs, files: filesMs } };
}

/** One file of the workspace (the one nearest 10 KB) edited EDITS_OF_ONE_FILE times, one node per edit. */
async function editOneFile(plain: SqlJsConversationStorage, files: SqlJsConversationStorage): Promise<{ path: string; contentBytes: number }> {
  const file = loadWorkspace().reduce((best, f) => (Math.abs(f.content.length - 10_240) < Math.abs(best.content.length - 10_240) ? f : best));
  let content = file.content;
  let contentBytes = content.length;
  let plainParent = TIP;
  let filesParent = TIP;
  for (let edit = 0; edit < EDITS_OF_ONE_FILE; edit++) {
    const after = Buffer.from(edited(content.toString(), 10_000 + edit));
    contentBytes += after.length;
    plainParent = await addNode(plain, plainParent, edit);
    filesParent = await addNode(files, filesParent, edit);
    await files.recordFileChanges('bench', filesParent, [{ path: file.path, before: new Uint8Array(content), after: new Uint8Array(after) }]);
    content = after;
  }
  return { path: file.path, contentBytes };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-file-checkpoints-'));
  try {
    process.stderr.write(`${ROUNDS} nodes of 3 changed files, file-backed twins...\n`);
    const disk = await openTwins(dir, 'disk', false);
    const onDisk = await measureRecords(disk.plain, disk.files);
    const distinctBytes = [...onDisk.contents.values()].reduce((sum, size) => sum + size, 0);
    const changedFiles = new Set(onDisk.changedPaths).size;
    const growth = [await measureGrowth(`${WARMUP + ROUNDS} nodes × 3 changed files (${changedFiles} files of the workspace in turn)`, dir, 'disk', disk.plain, disk.files, distinctBytes)];

    process.stderr.write('the same in memory...\n');
    const memory = await openTwins(dir, 'memory', true);
    const inMemory = await measureRecords(memory.plain, memory.files);
    await memory.plain.close();
    await memory.files.close();

    process.stderr.write(`one file edited ${EDITS_OF_ONE_FILE} times...\n`);
    const one = await openTwins(dir, 'one', false);
    const oneFile = await editOneFile(one.plain, one.files);
    growth.push(await measureGrowth(`\`${oneFile.path}\` edited ${EDITS_OF_ONE_FILE} times (${EDITS_OF_ONE_FILE + 1} versions)`, dir, 'one', one.plain, one.files, oneFile.contentBytes));

    const row = (label: string, measured: Samples, baseline: Samples) => {
      const s = summarize(measured.wall);
      const cpu = summarize(measured.cpu).median;
      return `| ${label} | ${formatMs(s.median)} ms | ${formatMs(s.p95)} ms | ${formatMs(cpu)} ms | ${(s.median / summarize(baseline.wall).median).toFixed(2)}x |`;
    };
    const sum = (a: Samples, b: Samples): Samples => ({ wall: a.wall.map((w, i) => w + b.wall[i]), cpu: a.cpu.map((c, i) => c + b.cpu[i]) });
    const costs = [
      '| store | operation | median | p95 | CPU, median | median vs adding the node |',
      '| --- | --- | ---: | ---: | ---: | ---: |',
      ...[
        ['file-backed (flushed journal, as in VS Code)', onDisk.timing],
        ['in memory (sql.js, no file)', inMemory.timing],
      ].flatMap(([store, t]) => {
        const timing = t as Timing;
        return [
          row(`${store as string} | baseline: add the node, no file changes`, timing.plainAdd, timing.plainAdd),
          row(`${store as string} | **record its 3 changed files** (\`recordFileChanges\`)`, timing.record, timing.plainAdd),
          row(`${store as string} | add the node, then record its files`, sum(timing.add, timing.record), timing.plainAdd),
        ];
      }),
    ].join('\n');
    const sizes = [
      '| what was recorded | changed contents (distinct bytes) | journal growth | database file growth | growth / contents | closing checkpoint, with / without file changes |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      ...growth.map(
        (g) =>
          `| ${g.label} | ${formatKb(g.contentBytes)} | ${formatKb(g.journalGrowth)} | ${formatKb(g.dbGrowth)} | ${(g.dbGrowth / g.contentBytes).toFixed(2)} | ` +
          `${formatMs(g.closeMs.files)} ms / ${formatMs(g.closeMs.plain)} ms |`,
      ),
    ].join('\n');
    const recordMedian = summarize(onDisk.timing.record.wall).median;
    const section = [
      '## File checkpoints',
      '',
      `\`npx tsx bench/fileCheckpoints.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs ` +
        `(1-minute load average ${os.loadavg()[0].toFixed(1)} at the end). The workspace is this repository's own TypeScript sources, the first 1 MB of \`src/\` in path order; ` +
        `each node edits 3 of its files (three lines each, the files taken in turn), and records them with their content before and after. The baseline is the same node written without file changes, ` +
        `on a twin store in the same run, interleaved; ${ROUNDS} measured rounds after ${WARMUP} warm-up rounds. Times are wall time; the CPU column is this ` +
        "process's CPU time (all its threads, and the kernel's work for its writes and fsyncs), which other jobs on the machine disturb less.",
      '',
      costs,
      '',
      `Target: a checkpoint of a node that changed 3 files in a 1 MB workspace at most 5 ms: ${recordMedian <= 5 ? 'met' : 'NOT met'} (${formatMs(recordMedian)} ms median on disk). ` +
        'A record hashes the contents (sha-256), counts the changed lines, checks which contents the store has already, deflates the new ones and appends one flushed ' +
        `journal line with them. On disk most of it is what every write pays (the lock, catching up with other windows, the flushed append: the baseline's ` +
        `${formatMs(summarize(onDisk.timing.plainAdd.wall).median)} ms); the record's own share is the difference, ` +
        `${formatMs(recordMedian - summarize(onDisk.timing.plainAdd.wall).median)} ms. Only the touched files are read or hashed, so the cost does not grow with the workspace.`,
      '',
      'Stored size: the twin stores, closed (journal folded into the database file), against the distinct bytes of every content recorded; the journal column is what ' +
        'the records appended before that. A content is stored once however many changes refer to it: in the second row, ' +
        `${EDITS_OF_ONE_FILE} edits cost ${EDITS_OF_ONE_FILE + 1} versions of one file, where a snapshot of the workspace per node would cost ${EDITS_OF_ONE_FILE} MB. ` +
        'A record deflates each new content (zlib level 1) when that saves a tenth or more, and carries it in the journal as hex (else as JSON text, or hex for binary), ' +
        'which is why both grow by less than the contents. The last column is the closing checkpoint of each twin (the whole database written out).',
      '',
      sizes,
      '',
    ].join('\n');
    process.stdout.write(`${costs}\n\n${sizes}\n`);
    await writeBenchmarkSection('File checkpoints', section);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
