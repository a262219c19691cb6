/**
 * Timing the chat webview in a harness page, shared by the webview benchmarks: a page ready for
 * evaluated functions, and the time from posting a `state` to the next painted frame.
 */
import type { Page } from 'playwright-core';
import type { WebviewHarness } from '../test/webview/harness';

/** A fresh harness page ready for the functions below to be evaluated in it. */
export async function openBenchPage(harness: WebviewHarness): Promise<Page> {
  const page = await harness.openPage();
  // tsx compiles with keepNames, which wraps named arrow functions in a `__name` helper that exists
  // only in Node; the functions evaluated in the page need an identity version.
  await page.evaluate('globalThis.__name = (fn) => fn');
  return page;
}

/** Dispatches `state` synchronously, then waits for the next painted frame; returns both times. */
export async function timeStateRender(page: Page, state: unknown): Promise<{ sync: number; painted: number }> {
  return page.evaluate(
    (data) =>
      new Promise<{ sync: number; painted: number }>((resolve) => {
        const g = globalThis as any;
        const start = g.performance.now();
        g.dispatchEvent(new g.MessageEvent('message', { data }));
        void g.document.querySelector('[data-testid=message-list]').scrollHeight;
        const sync = g.performance.now() - start;
        g.requestAnimationFrame(() => setTimeout(() => resolve({ sync, painted: g.performance.now() - start }), 0));
      }),
    state,
  );
}

