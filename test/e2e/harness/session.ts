import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, inject } from 'vitest';
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
