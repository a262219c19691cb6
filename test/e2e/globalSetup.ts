import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  REPO_ROOT,
  assertCodeServerInstalled,
  installVsix,
  packageExtension,
  prepareSandbox,
  startCodeServer,
  writeUserSettings,
  type RunningCodeServer,
} from './harness/codeServer';
import { fakeLlmSettings, startFakeLlm, type RunningFakeLlm } from './harness/fakeLlm';
import type { E2eEnvironment } from './harness/environment';

const log = (message: string) => console.log(`[e2e] ${message}`);

/**
 * Once for the whole suite: package the extension as a user gets it, install it into a fresh
 * extensions folder, start the fake model server and code-server on free ports, and hand their
 * addresses to the tests. Returns the teardown that stops both by their process groups.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  assertCodeServerInstalled();
  const root = path.join(REPO_ROOT, '.vscode-test/e2e');
  const started = Date.now();
  const sandbox = await prepareSandbox(path.join(root, 'sandbox'));
  // ARBOR_E2E_VSIX tests a .vsix built elsewhere (a release candidate) instead of packaging this tree.
  const vsix = process.env.ARBOR_E2E_VSIX
    ? path.resolve(process.env.ARBOR_E2E_VSIX)
    : await packageExtension(path.join(root, 'arbor.vsix'));
  log(`packaged ${path.relative(REPO_ROOT, vsix)} (${Date.now() - started} ms)`);
  await installVsix(sandbox, vsix);
  log('installed the .vsix into a fresh extensions folder');

  let fake: RunningFakeLlm | undefined;
  let codeServer: RunningCodeServer | undefined;
  const teardown = async () => {
    await codeServer?.stop();
    await fake?.stop();
  };
  try {
    const verbose = process.env.ARBOR_E2E_VERBOSE === '1';
    fake = await startFakeLlm({ echo: verbose });
    const provider = process.env.ARBOR_E2E_PROVIDER === 'openai' ? 'openai' : 'ollama';
    // The suite's files share one folder whose storage folder may change between windows (`<id>-1`):
    // the offer of the other one's conversations is tested on its own (otherStores.e2e.test.ts).
    await writeUserSettings(sandbox, { ...fakeLlmSettings(fake, provider), 'arbor.otherWorkspaces.offer': false });
    log(`fake model server on port ${fake.port} (${provider} wire format)`);
    codeServer = await startCodeServer(sandbox, { echo: verbose });
    log(`code-server on ${codeServer.url} (setup took ${Date.now() - started} ms)`);
  } catch (error) {
    await teardown();
    throw error;
  }

  const environment: E2eEnvironment = {
    url: codeServer.url,
    workspace: sandbox.workspace,
    dataDir: sandbox.dataDir,
    extensionsDir: sandbox.extensionsDir,
    fakeLlmPort: fake.port,
  };
  project.provide('arborE2e', environment);
  return teardown;
}
