import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';
import { EXTENSION_ID, Workbench, launchBrowser } from './harness/workbench';

/**
 * Two windows of the same folder. VS Code gives the second one a storage folder of its own (`<id>-1`, as
 * it does to a window reloaded while the previous extension host still holds `<id>`, which VS Code in the
 * browser keeps for minutes): Arbor keeps its store in `<id>` for both, so neither window shows another
 * store's conversations and what one asks is listed in the other.
 */
describe('two windows of the same folder', () => {
  const session = useWorkbench();
  let browser: Browser | undefined;
  let second: Workbench | undefined;

  afterAll(async () => {
    await browser?.close();
  });

  it('share one store: a chat asked in the second window is listed in the first, and no numbered storage folder holds a store', async () => {
    const first = session.workbench;
    await first.openArborView();
    browser = await launchBrowser();
    second = await Workbench.open(browser, session.env.url);
    await second.openArborView();

    const question = `Asked in the second window at ${Date.now()}: which wood floats best?`;
    await second.runCommand('Arbor: New Conversation');
    const chat = new ChatPage(second);
    await chat.waitReady();
    await chat.ask(question, `[arbor-test-model] Echo: ${question}`);

    // The first window lists it (the store tells other windows of its writes).
    await expect.poll(() => first.treeRow(question).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await first.screenshot('windows-first-lists-second');

    const root = path.join(session.env.dataDir, 'User', 'workspaceStorage');
    const ids = await readdir(root);
    // VS Code did give a window a numbered folder (the second, or this suite's earlier windows)…
    expect(ids.some((id) => /-[1-9]$/.test(id))).toBe(true);
    // …yet Arbor's store is only ever in the unnumbered one.
    const withStore = ids.filter((id) => existsSync(path.join(root, id, EXTENSION_ID, 'arbor.sqlite')));
    expect(withStore.filter((id) => /-[1-9]$/.test(id) && ids.includes(id.replace(/-[1-9]$/, '')))).toEqual([]);
    expect(withStore.length).toBeGreaterThan(0);
  });
});
