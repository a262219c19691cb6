/**
 * The hooks a webview test file needs: the harness for the whole file, and a fresh page per test,
 * after which no CSP violation and no page error may have happened.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { cspViolations, startHarness, type WebviewHarness } from './harness';

/**
 * Registers the hooks; call `open()` in a test for its page (closed and checked after the test), or
 * `closeUnchecked()` to close it at once without the checks (a test whose point is a violation).
 */
export function useWebviewPages(): { open(): Promise<Page>; closeUnchecked(): Promise<void> } {
  let harness: WebviewHarness | undefined;
  let page: Page | undefined;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    harness = await startHarness();
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
  });

  afterEach(async () => {
    const current = page;
    const errors = pageErrors;
    page = undefined;
    pageErrors = [];
    if (current) {
      const violations = await cspViolations(current);
      await current.context().close();
      expect(violations).toEqual([]);
    }
    expect(errors).toEqual([]);
  });

  return {
    async open(): Promise<Page> {
      if (!harness) throw new Error('The webview harness has not started: call open() inside a test.');
      const opened = await harness.openPage();
      opened.on('pageerror', (error) => pageErrors.push(error.message));
      page = opened;
      return opened;
    },
    async closeUnchecked(): Promise<void> {
      const current = page;
      page = undefined;
      await current?.context().close();
    },
  };
}
