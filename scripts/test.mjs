// `npm test`: on a bare clone, first installs what the tests need (the locked npm dependencies, Debian's
// chromium and ripgrep, PostgreSQL for the team-store tests), each only when missing and with one line
// saying so; then runs vitest's unit and webview suites, passing on any arguments
// (`npm test -- src/core/llm`). Node built-ins only: node_modules may not exist yet.
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

const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const result = spawnSync(process.execPath, [vitest, 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
process.exit(result.status ?? 1);
