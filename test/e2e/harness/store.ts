import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from './codeServer';
import { EXTENSION_ID } from './workbench';

/** The folder where a sandbox's VS Code keeps Arbor's store for the workspace, once Arbor made it. */
export async function findStoreDir(sandbox: Sandbox): Promise<string | undefined> {
  const root = path.join(sandbox.dataDir, 'User', 'workspaceStorage');
  if (!existsSync(root)) return undefined;
  for (const entry of await readdir(root)) {
    const dir = path.join(root, entry, EXTENSION_ID);
    if (existsSync(path.join(dir, 'arbor.sqlite'))) return dir;
  }
  return undefined;
}

/** Waits until Arbor created its store in the sandbox (it does when the Conversations view first lists). */
export async function waitForStoreDir(sandbox: Sandbox, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await findStoreDir(sandbox);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`Arbor did not create its store under ${sandbox.dataDir}/User/workspaceStorage within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
