// Runs the benchmarks one after another (each writes its table into docs/benchmarks.md).
// `npm run bench` runs them all; `npm run bench -- storage rag` runs the ones named.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Modules under bench/ that are helpers of a benchmark, not benchmarks themselves.
const helpers = new Set(['benchReport', 'ragCorpus', 'webviewTiming']);
const all = readdirSync(path.join(root, 'bench'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.slice(0, -3))
  .filter((name) => !helpers.has(name))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n=== bench/${name}.ts`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join('bench', `${name}.ts`)], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    failed++;
    console.error(`bench/${name}.ts exited with ${run.status ?? run.signal}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
