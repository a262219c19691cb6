// `npm start`: on a bare clone first installs the locked npm dependencies (npm ci, only when node_modules
// is missing or out of date with package-lock.json; scripts/prepareClone.mjs, shared with `npm test`),
// then builds and packages Arbor, installs it into a fresh extensions folder of a code-server
// (VS Code in the browser, installed on first use), opens a copy of sample-workspace/ in it on
// 127.0.0.1 and prints the URL. Runs until Ctrl+C, then stops code-server by its process group.
// When no model server answers, the chat offers a tour with the fake model server: this script tells
// the extension where its launcher is (ARBOR_TOUR_SERVER=scripts/tourServer.mjs).
//
//   npm start                   use the model settings you set in that VS Code (Ollama by default)
//   npm start -- --fake-llm     also start the local fake model server and point Arbor at it
//   npm start -- --fresh        forget the previous session's conversations, settings and workspace copy
//   npm start -- --port 8080    serve on this port instead of a free one
//
// ARBOR_CODE_SERVER_DIR=/path uses (or installs) code-server there instead of .vscode-test/code-server,
// e.g. one already installed for another clone.
//
// The harness is TypeScript shared with the e2e tests (test/e2e/harness), loaded through tsx once the
// npm dependencies are there; until then only Node's built-ins are used.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { ROOT as root, ensureNpmDependencies, inputsFingerprint } from './prepareClone.mjs';

const argv = process.argv.slice(2);
const fakeLlm = argv.includes('--fake-llm');
const fresh = argv.includes('--fresh');
const portIndex = argv.indexOf('--port');
const port = portIndex >= 0 ? Number(argv[portIndex + 1]) : undefined;
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error('[start] --port needs a number between 1 and 65535, e.g. --port 8080');
  process.exit(2);
}
const unknown = argv.filter((a, i) => !['--fake-llm', '--fresh', '--port'].includes(a) && argv[i - 1] !== '--port');
if (unknown.length > 0) {
  console.error(`[start] unknown option(s) ${unknown.join(' ')}; known: --fake-llm, --fresh, --port N`);
  process.exit(2);
}

const log = (message) => console.log(`[start] ${message}`);

let fakeServer;
let codeServer;
let stopping = false;

/** Stops what this script started, each by its process group, then exits. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  if (codeServer || fakeServer) log('stopping');
  await codeServer?.stop();
  await fakeServer?.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

async function main() {
  const started = Date.now();
  ensureNpmDependencies('start');
  const install = spawnSync('bash', [path.join(root, 'scripts/installCodeServer.sh')], { stdio: 'inherit' });
  if (install.status !== 0) throw new Error('installing code-server failed (see above)');

  const { tsImport } = await import('tsx/esm/api');
  const harness = await tsImport('../test/e2e/harness/codeServer.ts', import.meta.url);
  const fake = await tsImport('../test/e2e/harness/fakeLlm.ts', import.meta.url);

  // A separate sandbox for the fake server, so its settings never leak into a normal session.
  const sandboxDir = path.join(root, '.vscode-test', fakeLlm ? 'start-fake-llm' : 'start');
  const sandbox = await harness.prepareSandbox(sandboxDir, { keep: !fresh });
  await rm(sandbox.extensionsDir, { recursive: true, force: true });

  // Packaged again only when a file it is made from changed since the last start (a fingerprint beside it).
  const vsix = path.join(root, '.vscode-test', 'arbor-start.vsix');
  const fingerprintFile = `${vsix}.inputs`;
  const fingerprint = inputsFingerprint(root);
  const packaged = existsSync(vsix) && existsSync(fingerprintFile) && readFileSync(fingerprintFile, 'utf8').trim() === fingerprint;
  if (packaged) {
    log(`the extension's sources are unchanged since the last start: reusing ${path.relative(root, vsix)}`);
  } else {
    log('building and packaging the extension');
    await rm(fingerprintFile, { force: true });
    await harness.packageExtension(vsix);
    writeFileSync(fingerprintFile, `${fingerprint}\n`);
  }
  await harness.installVsix(sandbox, vsix);
  log(`installed ${path.relative(root, vsix)} into ${path.relative(root, sandbox.extensionsDir)}`);

  if (fakeLlm) {
    fakeServer = await fake.startFakeLlm();
    await harness.writeUserSettings(sandbox, fake.fakeLlmSettings(fakeServer), { merge: true });
    log(`fake model server on ${fakeServer.ollamaHost} (models arbor-test-model, arbor-test-model-2; try [[slow]] or [[xss]] in a message)`);
  } else {
    await harness.writeUserSettings(sandbox, {}, { merge: true });
  }

  // The tour's fake model server, which the chat offers to start when no model server answers.
  const env = { ...process.env, ARBOR_TOUR_SERVER: path.join(root, 'scripts/tourServer.mjs') };
  codeServer = await harness.startCodeServer(sandbox, { port, env });
  codeServer.process.child.once('exit', (exitCode) => {
    if (!stopping) {
      console.error(`[start] code-server exited (${exitCode}):\n${codeServer.process.output()}`);
      void stop(1);
    }
  });
  log(`workspace: ${sandbox.workspace} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  console.log(
    `\n  Arbor is running in VS Code at ${codeServer.url}\n` +
      '  It asks for no password and listens on 127.0.0.1 only: do not forward or expose the port.\n' +
      '  Open it in a browser; press Ctrl+C here to stop.\n',
  );
}

main().catch((error) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  void stop(1);
});
