import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, run, spawnGroup, waitForPort, type GroupProcess } from './processes';

/** The repository's root folder. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Where scripts/installCodeServer.sh puts code-server: `.vscode-test/code-server`, or the folder
 * ARBOR_CODE_SERVER_DIR names (one installed for another clone, say).
 */
export const CODE_SERVER_BIN = path.join(
  process.env.ARBOR_CODE_SERVER_DIR ? path.resolve(process.env.ARBOR_CODE_SERVER_DIR) : path.join(REPO_ROOT, '.vscode-test/code-server'),
  'node_modules/.bin/code-server',
);

/** The folders one VS Code instance uses: its user data, its extensions and the workspace it opens. */
export interface Sandbox {
  root: string;
  dataDir: string;
  extensionsDir: string;
  workspace: string;
}

/** A running code-server and how to reach and stop it. */
export interface RunningCodeServer {
  port: number;
  /** The workbench URL with the workspace folder open. */
  url: string;
  process: GroupProcess;
  stop(): Promise<void>;
}

/** Throws an actionable error when code-server has not been installed yet. */
export function assertCodeServerInstalled(): void {
  if (!existsSync(CODE_SERVER_BIN)) {
    throw new Error(`code-server is not installed at ${CODE_SERVER_BIN}: run \`bash scripts/installCodeServer.sh\` first`);
  }
}

/**
 * Builds the extension and packages it with vsce into `outFile` (the `package` npm script, so the
 * tests install exactly what a user would).
 */
export async function packageExtension(outFile: string): Promise<string> {
  await mkdir(path.dirname(outFile), { recursive: true });
  await run('npm', ['run', '--silent', 'package', '--', '--out', outFile], { cwd: REPO_ROOT });
  return outFile;
}

/**
 * Makes fresh sandbox folders under `root`: an empty user-data and extensions folder, and a copy of
 * `sample-workspace/` with the repository's sample prompts added (its own files win on a clash).
 * With `keep` an existing sandbox is reused as it is, so `npm start` keeps conversations between runs.
 */
export async function prepareSandbox(root: string, options: { keep?: boolean } = {}): Promise<Sandbox> {
  const sandbox: Sandbox = {
    root,
    dataDir: path.join(root, 'data'),
    extensionsDir: path.join(root, 'extensions'),
    workspace: path.join(root, 'workspace'),
  };
  if (!options.keep) await rm(root, { recursive: true, force: true });
  await mkdir(path.join(sandbox.dataDir, 'User'), { recursive: true });
  await mkdir(sandbox.extensionsDir, { recursive: true });
  if (!existsSync(sandbox.workspace)) {
    await cp(path.join(REPO_ROOT, 'sample-workspace'), sandbox.workspace, { recursive: true });
    const repoPrompts = path.join(REPO_ROOT, 'prompts');
    if (existsSync(repoPrompts) && (await readdir(repoPrompts)).length > 0) {
      await cp(repoPrompts, path.join(sandbox.workspace, 'prompts'), { recursive: true, force: false, errorOnExist: false });
    }
  }
  return sandbox;
}

/**
 * Writes the user settings VS Code reads at start (`$data/User/settings.json`): quiet defaults for a
 * scripted window plus `settings`. With `merge`, settings already in the file (the user's own changes
 * in an `npm start` sandbox) are kept unless `settings` names them; a file that is not plain JSON is
 * left alone rather than lost.
 */
export async function writeUserSettings(sandbox: Sandbox, settings: Record<string, unknown>, options: { merge?: boolean } = {}): Promise<void> {
  const base = {
    'workbench.startupEditor': 'none',
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'workbench.tips.enabled': false,
    'chat.commandCenter.enabled': false,
    'workbench.enableExperiments': false,
    // The sandbox lives inside this repository: keep VS Code's Git from offering to open it.
    'git.openRepositoryInParentFolders': 'never',
    'git.autoRepositoryDetection': false,
  };
  const file = path.join(sandbox.dataDir, 'User', 'settings.json');
  await mkdir(path.dirname(file), { recursive: true });
  let existing: Record<string, unknown> = {};
  if (options.merge && existsSync(file)) {
    try {
      existing = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    } catch {
      console.warn(`[arbor] ${file} is not plain JSON (comments?); leaving it as it is`);
      return;
    }
  }
  await writeFile(file, `${JSON.stringify({ ...base, ...existing, ...settings }, null, 2)}\n`);
}

/**
 * A sandbox of its own, for a test file that starts its own VS Code: fresh folders under
 * `.vscode-test/e2e/<name>`, the suite's packaged extension installed, and user settings that point
 * Arbor at the suite's fake model server.
 */
export async function prepareOwnSandbox(name: string, fakeLlmPort: number): Promise<Sandbox> {
  const sandbox = await prepareSandbox(path.join(REPO_ROOT, '.vscode-test/e2e', name));
  await installVsix(sandbox, process.env.ARBOR_E2E_VSIX ? path.resolve(process.env.ARBOR_E2E_VSIX) : path.join(REPO_ROOT, '.vscode-test/e2e/arbor.vsix'));
  await writeUserSettings(sandbox, {
    'arbor.provider': 'ollama',
    'arbor.model': 'arbor-test-model',
    'arbor.ollama.host': `http://127.0.0.1:${fakeLlmPort}`,
  });
  return sandbox;
}

/** Installs a .vsix into the sandbox's extensions folder with code-server's own CLI. */
export async function installVsix(sandbox: Sandbox, vsix: string): Promise<void> {
  assertCodeServerInstalled();
  await run(CODE_SERVER_BIN, [
    '--extensions-dir', sandbox.extensionsDir,
    '--user-data-dir', sandbox.dataDir,
    '--install-extension', vsix,
    '--force',
  ]);
}

/**
 * Starts code-server (no auth, 127.0.0.1, a free port unless given) on the sandbox's workspace; `env`
 * replaces the environment it (and so the extension host) gets.
 */
export async function startCodeServer(sandbox: Sandbox, options: { port?: number; echo?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<RunningCodeServer> {
  assertCodeServerInstalled();
  const port = options.port ?? (await freePort());
  const proc = spawnGroup(
    CODE_SERVER_BIN,
    [
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', sandbox.dataDir,
      '--extensions-dir', sandbox.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      sandbox.workspace,
    ],
    { cwd: sandbox.root, echo: options.echo, ...(options.env ? { env: options.env } : {}) },
  );
  await waitForPort(port, 60_000, proc);
  return {
    port,
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(sandbox.workspace)}`,
    process: proc,
    stop: () => proc.stop(),
  };
}

/**
 * Packages the fixture extension that registers language model tools with VS Code
 * (test/e2e/fixtures/lmToolExtension: `leaf_counter`, and `leaf_shaker` with a schema no API takes) and
 * installs it into the sandbox, as a user installs another extension.
 */
export async function installLmToolExtension(sandbox: Sandbox): Promise<void> {
  const vsix = path.join(sandbox.root, 'leaf-counter.vsix');
  await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/@vscode/vsce/vsce'), 'package', '--allow-missing-repository', '--no-dependencies', '-o', vsix], {
    cwd: path.join(REPO_ROOT, 'test/e2e/fixtures/lmToolExtension'),
  });
  await installVsix(sandbox, vsix);
}
