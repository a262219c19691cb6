// The newcomer's path, checked by .ci/run: a clone of the committed HEAD in a temporary folder, with no
// prior install, where
//   1. `npm test` installs what it needs and passes, and
//   2. in a second fresh clone, `npm start -- --fake-llm` prints its URL, serves VS Code's workbench
//      there with Arbor installed, and a second run of it starts again (the time of each is printed);
//      each run is stopped by its process group.
// The clone has the full history of HEAD, as `git clone` gives a newcomer (some tests read older commits).
// One clone at a time; each is removed afterwards, also on failure.
//
// code-server: a bare clone would install its own (minutes); when this checkout has one installed,
// the clone uses it through ARBOR_CODE_SERVER_DIR, the variable `npm start` honours for everyone.
//
//   node scripts/checkBareClone.mjs [--test-only | --start-only]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './prepareClone.mjs';

const TAG = '[checkBareClone]';
const log = (message) => console.log(`${TAG} ${message}`);
const only = process.argv[2];
if (only && !['--test-only', '--start-only'].includes(only)) {
  console.error(`${TAG} unknown option ${only}; known: --test-only, --start-only`);
  process.exit(2);
}

/** The environment of a fresh shell: none of the npm_* variables an `npm run` around this script sets. */
function freshEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

/** Clones this checkout's committed HEAD into a new temporary folder and returns it. */
async function bareClone() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-bare-'));
  const git = (args, cwd) => {
    const result = spawnSync('git', args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed`);
  };
  git(['init', '-q', dir]);
  git(['fetch', '-q', ROOT, 'HEAD'], dir);
  git(['checkout', '-q', 'FETCH_HEAD'], dir);
  return dir;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function checkTest() {
  const clone = await bareClone();
  try {
    log(`npm test in a bare clone (${clone})`);
    const started = Date.now();
    // Shown as it runs; the lines are kept to check that it said what it installs.
    const child = spawn('npm', ['test'], { cwd: clone, env: freshEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      output = (output + chunk.toString('utf8')).slice(-1_000_000);
    });
    const code = await new Promise((resolve) => child.once('exit', (exitCode, signal) => resolve(signal ?? exitCode)));
    if (code !== 0) throw new Error(`npm test failed in the bare clone (exit ${code})`);
    if (!/Installing the locked npm dependencies \(npm ci\): first run on this clone/.test(output)) {
      throw new Error('npm test in the bare clone did not say that it installs the npm dependencies');
    }
    log(`npm test passed in the bare clone in ${seconds(Date.now() - started)}`);
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `npm start -- --fake-llm` in `clone` (its own process group) until it prints its URL; returns
 * the URL, the time to it, and a stop function that ends the group and waits for it.
 */
async function startOnce(clone, env, port) {
  const started = Date.now();
  const child = spawn('npm', ['start', '--', '--fake-llm', '--port', String(port)], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }, 30_000);
    await exited;
    clearTimeout(timer);
  };
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start printed no URL within 20 min:\n${output.slice(-4000)}`)), 20 * 60_000);
    const onData = (chunk) => {
      const text = chunk.toString('utf8');
      process.stdout.write(text);
      output += text;
      const match = /Arbor is running in VS Code at (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing its URL:\n${output.slice(-4000)}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return { url, ms: Date.now() - started, stop };
}

/** Fetches `url` until it answers with VS Code's workbench page (code-server's HTML loading the workbench). */
async function waitForWorkbench(url) {
  const deadline = Date.now() + 60_000;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { redirect: 'follow' });
      const html = await response.text();
      if (response.ok && /workbench/i.test(html) && /<html/i.test(html)) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`${url} did not serve the workbench within 60 s (last: ${last})`);
}

/** Checks that the clone's `npm start -- --fake-llm` sandbox has Arbor installed, by folder and by code-server's own list. */
function checkExtensionInstalled(clone, codeServerDir) {
  const extensionsDir = path.join(clone, '.vscode-test/start-fake-llm/extensions');
  const folders = existsSync(extensionsDir) ? readdirSync(extensionsDir).filter((name) => name.startsWith('arbor-dev.arbor-')) : [];
  if (folders.length === 0) throw new Error(`Arbor is not installed in ${extensionsDir}`);
  const bin = path.join(codeServerDir, 'node_modules/.bin/code-server');
  const listed = spawnSync(bin, ['--extensions-dir', extensionsDir, '--list-extensions'], { encoding: 'utf8' });
  if (listed.status !== 0 || !listed.stdout.split('\n').includes('arbor-dev.arbor')) {
    throw new Error(`code-server --list-extensions does not list arbor-dev.arbor in ${extensionsDir}:\n${listed.stdout}${listed.stderr}`);
  }
  log(`Arbor is installed: ${folders.join(', ')} (and code-server lists arbor-dev.arbor)`);
}

async function checkStart() {
  const ownCodeServer = path.join(ROOT, '.vscode-test/code-server');
  const codeServerDir = process.env.ARBOR_CODE_SERVER_DIR ?? (existsSync(path.join(ownCodeServer, 'node_modules/.bin/code-server')) ? ownCodeServer : undefined);
  const clone = await bareClone();
  try {
    const env = freshEnv(codeServerDir ? { ARBOR_CODE_SERVER_DIR: codeServerDir } : {});
    log(`npm start -- --fake-llm in a bare clone (${clone})${codeServerDir ? `, with the code-server in ${codeServerDir}` : ''}`);
    for (const run of ['first', 'second']) {
      const { url, ms, stop } = await startOnce(clone, env, await freePort());
      try {
        log(`${run} run: URL printed after ${seconds(ms)}: ${url}`);
        await waitForWorkbench(url);
        log(`${url} serves the workbench`);
        checkExtensionInstalled(clone, codeServerDir ?? path.join(clone, '.vscode-test/code-server'));
      } finally {
        await stop();
      }
      const port = new URL(url).port;
      // npm itself may exit before the script it ran has finished stopping code-server (its own process
      // group, given a few seconds to close): the port must close soon after, not at once.
      const closedBy = Date.now() + 30_000;
      while (await fetch(url).then(() => true, () => false)) {
        if (Date.now() > closedBy) throw new Error(`port ${port} still answers 30 s after npm start was stopped`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

try {
  if (only !== '--start-only') await checkTest();
  if (only !== '--test-only') await checkStart();
  log('passed');
} catch (error) {
  console.error(`${TAG} ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
