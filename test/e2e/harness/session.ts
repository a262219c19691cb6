import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
import { prepareOwnSandbox, startCodeServer, type RunningCodeServer, type Sandbox } from './codeServer';
import type { E2eEnvironment } from './environment';
import { Workbench, launchBrowser } from './workbench';

/** What a test file works with: the environment, and the workbench opened for it. */
export interface E2eSession {
  env: E2eEnvironment;
  workbench: Workbench;
}

/**
 * Registers the hooks a test file needs: a browser and a VS Code window before its tests, a
 * screenshot in test-results/ when a test fails, and closing the browser after. The returned
 * object is filled in by `beforeAll`, so read its fields inside tests.
 */
export function useWorkbench(): E2eSession {
  const session = { env: inject('arborE2e') } as E2eSession;
  let browser: Browser | undefined;

  beforeAll(async () => {
    browser = await launchBrowser();
    session.workbench = await Workbench.open(browser, session.env.url);
  });

  beforeEach((context) => {
    context.onTestFailed(async () => {
      if (!session.workbench) return;
      const file = await session.workbench.screenshot(`${context.task.file?.name ?? 'e2e'}-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  return session;
}

/** What a file with a VS Code of its own works with: its sandbox too. */
export interface OwnE2eSession extends E2eSession {
  sandbox: Sandbox;
}

/** How `useOwnWorkbench` sets its VS Code up. */
export interface OwnWorkbenchOptions {
  /** The port of the model server the sandbox's settings point at (default: the suite's fake server). */
  fakeLlmPort?: () => number;
  /** Runs before the sandbox is made (e.g. starting a model server of the file's own). */
  before?: () => Promise<void>;
  /** Fills the sandbox before VS Code starts: workspace files, extensions, settings. */
  prepare?: (sandbox: Sandbox) => Promise<void>;
  /** Runs after the browser and VS Code are closed. */
  after?: () => Promise<void>;
}

/**
 * Registers the hooks of a test file that runs its own VS Code on its own sandbox (`.vscode-test/e2e/<name>`,
 * with the packaged extension and the fake model's settings): the sandbox made and `prepare`d, code-server
 * started and opened in a browser on the Arbor view with a new conversation, a screenshot in test-results/
 * when a test fails, and everything closed after. Read the returned object's fields inside tests.
 */
export function useOwnWorkbench(name: string, options: OwnWorkbenchOptions = {}): OwnE2eSession {
  const session = { env: inject('arborE2e') } as OwnE2eSession;
  let browser: Browser | undefined;
  let server: RunningCodeServer | undefined;

  beforeAll(async () => {
    await options.before?.();
    session.sandbox = await prepareOwnSandbox(name, options.fakeLlmPort?.() ?? session.env.fakeLlmPort);
    await options.prepare?.(session.sandbox);
    browser = await launchBrowser();
    server = await startCodeServer(session.sandbox);
    session.workbench = await Workbench.open(browser, server.url);
    await session.workbench.openArborView();
    await session.workbench.runCommand('Arbor: New Conversation');
    await session.workbench.chat().locator('[data-testid="composer-input"] textarea').waitFor({ timeout: 30_000 });
  }, 240_000);

  beforeEach((context) => {
    context.onTestFailed(async () => {
      if (!session.workbench) return;
      const file = await session.workbench.screenshot(`${name}-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await options.after?.();
  });

  return session;
}
