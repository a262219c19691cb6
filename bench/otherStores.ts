/**
 * What the search for conversations from other workspaces costs where a folder has left many storage
 * folders behind (a test suite's windows, code-server's `-N` windows, years of reopening): every
 * candidate store opened read-only to list its ids (the baseline, as before the cache), against the
 * same search with the ids cache (`idsCacheFile`) warm, and its first run that fills it, all in one run
 * on the same folders. Prints a Markdown table and writes it into docs/benchmarks.md under
 * "## Conversations from other workspaces".
 *
 * Run: npx tsx bench/otherStores.ts   (or npm run bench -- otherStores)
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findOtherStores } from '../src/core/storage/otherStores/findOtherStores';
import { SqlJsConversationStorage } from '../src/core/storage/sqlJsConversationStorage';
import { sampleConversation } from '../src/core/storage/storageTestData';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const EXT = 'arbor-dev.arbor';
const FILE = 'arbor.sqlite';
const STORES = [10, 40];
const CONVERSATIONS = 20;
const MESSAGES = 30;
const ROUNDS = 7;

function formatMs(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

async function makeRoot(tmp: string, project: string, stores: number): Promise<string> {
  const root = path.join(tmp, `storage-${stores}`);
  for (let s = 0; s < stores; s++) {
    const dir = path.join(root, `folder-${s}`, EXT);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(root, `folder-${s}`, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(project).href }));
    const store = await SqlJsConversationStorage.open(path.join(dir, FILE));
    for (let c = 0; c < CONVERSATIONS; c++) await store.saveConversation(sampleConversation(`s${s}-c${c}`, MESSAGES));
    await store.close();
  }
  return root;
}

async function main(): Promise<void> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-other-'));
  try {
    const project = path.join(tmp, 'project');
    await fs.mkdir(project);
    const rows: string[] = [];
    let result40 = { baseline: 0, warm: 0 };
    for (const stores of STORES) {
      const root = await makeRoot(tmp, project, stores);
      let bytes = 0;
      for (const entry of await fs.readdir(root)) bytes += (await fs.stat(path.join(root, entry, EXT, FILE))).size;
      const options = { storageRoot: root, currentStoreDir: path.join(root, 'current', EXT), folders: [project], storeFile: FILE };
      const baseline: number[] = [];
      const cold: number[] = [];
      const warm: number[] = [];
      const time = async (samples: number[], cacheFile?: string) => {
        const start = process.hrtime.bigint();
        const found = await findOtherStores({ ...options, ...(cacheFile ? { idsCacheFile: cacheFile } : {}) });
        samples.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (found.length !== stores || found.some((s) => s.conversations !== CONVERSATIONS)) throw new Error(`The search found ${found.length} stores, not ${stores} of ${CONVERSATIONS} conversations each.`);
      };
      await time([]); // warm-up: the wasm module compiled once, as in a running extension host
      // Interleaved rounds: each takes a fresh cache file for its cold run, then the same file warm.
      for (let round = 0; round < ROUNDS; round++) {
        const cacheFile = path.join(tmp, `cache-${stores}-${round}.json`);
        await time(baseline);
        await time(cold, cacheFile);
        await time(warm, cacheFile);
      }
      const b = summarize(baseline);
      const c = summarize(cold);
      const w = summarize(warm);
      if (stores === 40) result40 = { baseline: b.median, warm: w.median };
      const label = `${stores} stores × ${CONVERSATIONS} conversations (${(bytes / 1024 / 1024).toFixed(1)} MB)`;
      rows.push(`| ${label} | baseline: every store opened | ${formatMs(b.median)} ms | ${formatMs(b.p95)} ms | 1.00x |`);
      rows.push(`| ${label} | first search with the cache (fills it) | ${formatMs(c.median)} ms | ${formatMs(c.p95)} ms | ${(c.median / b.median).toFixed(2)}x |`);
      rows.push(`| ${label} | **later searches (cache warm)** | ${formatMs(w.median)} ms | ${formatMs(w.p95)} ms | ${(w.median / b.median).toFixed(3)}x |`);
    }
    const load = os.loadavg()[0].toFixed(1);
    const section = [
      `\`npx tsx bench/otherStores.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs (1-minute load average ${load} at the end). One folder whose conversations sit in N other storage folders (each with \`workspace.json\` naming it and a closed sql.js store of ${CONVERSATIONS} conversations of ${MESSAGES} messages); \`findOtherStores\` lists them all. The baseline opens every candidate store read-only to list its ids, as the search did before its cache; with \`idsCacheFile\` a store whose database file and journal keep their size and time is not opened again. ${ROUNDS} interleaved rounds after one warm-up; wall time.`,
      '',
      '| storage folders | search | median | p95 | median vs baseline |',
      '| --- | --- | ---: | ---: | ---: |',
      ...rows,
      '',
      `The offer at start and **Find Conversations from Other Workspaces** pay the first search once per store change; after that, 40 storage folders cost ${formatMs(result40.warm)} ms instead of ${formatMs(result40.baseline)} ms (the stat of each store's files and the read of the cache file). The cache is one JSON file in the extension's global storage, shared by every window.`,
    ].join('\n');
    console.log(section);
    await writeBenchmarkSection('Conversations from other workspaces', section);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

runBenchmark(main);
