// `npm test`: on a bare clone, first installs what the tests need (the locked npm dependencies, Debian's
// chromium and ripgrep, PostgreSQL for the team-store tests), each only when missing and with one line
// saying so; then, for a whole run, eslint (its rules keep the layers: the host's rooms, the core's
// folders); then vitest's unit and webview suites, passing on any arguments (`npm test -- src/core/llm`,
// which skips the lint). Node built-ins only: node_modules may not exist yet.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, ensureNpmDependencies, ensurePostgres, ensureTestPackages } from './prepareClone.mjs';

const TAG = 'test';

try {
  ensureNpmDependencies(TAG);
  ensureTestPackages(TAG);
  ensurePostgres(TAG);
} catch (error) {
  console.error(`[${TAG}] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

if (process.argv.length <= 2) {
  console.log(`[${TAG}] eslint: the layer rules and the rest`);
  const lint = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '.'], { cwd: ROOT, stdio: 'inherit' });
  if (lint.status !== 0) {
    console.error(`[${TAG}] eslint failed: fix the problems above (\`npx eslint --fix .\` fixes some), then run npm test again.`);
    process.exit(lint.status ?? 1);
  }
}

const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
process.exit(result.status ?? 1);
