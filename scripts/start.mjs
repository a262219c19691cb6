// `npm start`: builds and packages Arbor, installs it into a fresh extensions folder of a code-server
// (VS Code in the browser, installed on first use), opens a copy of sample-workspace/ in it on
// 127.0.0.1 and prints the URL. Runs until Ctrl+C, then stops code-server by its process group.
//
//   npm start                   use the model settings you set in that VS Code (Ollama by default)
//   npm start -- --fake-llm     also start the local fake model server and point Arbor at it
//   npm start -- --fresh        forget the previous session's conversations, settings and workspace copy
//   npm start -- --port 8080    serve on this port instead of a free one
//
// The harness is TypeScript shared with the e2e tests (test/e2e/harness), loaded through tsx.
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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
  const install = spawnSync('bash', [path.join(root, 'scripts/installCodeServer.sh')], { stdio: 'inherit' });
  if (install.status !== 0) throw new Error('installing code-server failed (see above)');

  const harness = await tsImport('../test/e2e/harness/codeServer.ts', import.meta.url);
  const fake = await tsImport('../test/e2e/harness/fakeLlm.ts', import.meta.url);

  // A separate sandbox for the fake server, so its settings never leak into a normal session.
  const sandboxDir = path.join(root, '.vscode-test', fakeLlm ? 'start-fake-llm' : 'start');
  const sandbox = await harness.prepareSandbox(sandboxDir, { keep: !fresh });
  await rm(sandbox.extensionsDir, { recursive: true, force: true });

  log('building and packaging the extension');
  const vsix = await harness.packageExtension(path.join(root, '.vscode-test', 'arbor-start.vsix'));
  await harness.installVsix(sandbox, vsix);
  log(`installed ${path.relative(root, vsix)} into ${path.relative(root, sandbox.extensionsDir)}`);

  if (fakeLlm) {
    fakeServer = await fake.startFakeLlm();
    await harness.writeUserSettings(sandbox, fake.fakeLlmSettings(fakeServer), { merge: true });
    log(`fake model server on ${fakeServer.ollamaHost} (models arbor-test-model, arbor-test-model-2; try [[slow]] or [[xss]] in a message)`);
  } else {
    await harness.writeUserSettings(sandbox, {}, { merge: true });
  }

  codeServer = await harness.startCodeServer(sandbox, { port });
  codeServer.process.child.once('exit', (exitCode) => {
    if (!stopping) {
      console.error(`[start] code-server exited (${exitCode}):\n${codeServer.process.output()}`);
      void stop(1);
    }
  });
  log(`workspace: ${sandbox.workspace}`);
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
