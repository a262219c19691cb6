import { existsSync } from 'node:fs';
import { copyFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { REPO_ROOT, prepareOwnSandbox, startCodeServer, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { waitForStoreDir } from './harness/store';
import { Workbench, launchBrowser } from './harness/workbench';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/storeV1');

/**
 * A user upgrading Arbor: the workspace's store was written by the release before schema 2.0 (the
 * real 1.x fixture, journal included). This file runs its own VS Code on its own sandbox: one start
 * lets Arbor create the store's folder, the fixture replaces the store while VS Code is down, and
 * the next start must show everything as it was, migrated, with the old file kept beside it.
 */
describe('opening a workspace whose store an older Arbor wrote', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  let storeDir: string;
  const chat = () => new ChatPage(workbench);

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('migration', env.fakeLlmPort);
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    storeDir = await waitForStoreDir(sandbox);
    await workbench.page.close();
    // code-server keys workspace storage by the workspace URI, which holds its address: come back on the same port.
    const port = server.port;
    await server.stop();
    server = undefined;
    for (const name of await readdir(storeDir)) if (name.startsWith('arbor.sqlite')) await rm(path.join(storeDir, name), { recursive: true, force: true });
    await copyFile(path.join(FIXTURE, 'arbor.sqlite'), path.join(storeDir, 'arbor.sqlite'));
    await copyFile(path.join(FIXTURE, 'arbor.sqlite.arbor-journal'), path.join(storeDir, 'arbor.sqlite.arbor-journal'));
    server = await startCodeServer(sandbox, { port });
    workbench = await Workbench.open(browser, server.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists the old conversations, with what the journal held after the last checkpoint', async () => {
    await workbench.openArborView();
    // The title was changed after the fixture's checkpoint: only a replayed journal shows it.
    await workbench.treeRow('Review the SSE parser').first().waitFor({ timeout: 60_000 });
    await workbench.treeRow('Long session').first().waitFor({ timeout: 15_000 });
    expect(existsSync(path.join(storeDir, 'arbor.sqlite.v1.bak'))).toBe(true);
  });

  it('shows a migrated conversation\'s branches, names and current position in the tree', async () => {
    const conversation = workbench.treeRow('Review the SSE parser').first();
    await workbench.expand(conversation);
    const retry = workbench.treeRow('gpt-4.1 retry').first();
    await retry.waitFor({ timeout: 15_000 });
    expect(await retry.textContent()).toContain('current');
  });

  it('opens the 60-message conversation with its newest 50 and loads the older ones when scrolled to the top', async () => {
    await workbench.treeRow('Long session').first().click();
    await chat().waitReady();
    await expect.poll(() => chat().messages().count(), { timeout: 30_000 }).toBe(50);
    expect(await chat().textOf(chat().messages().last())).toMatch(/^message 59 /);
    const earlier = chat().byTestId('load-earlier-button');
    expect(await earlier.textContent()).toBe('Show 10 earlier messages');
    // Scrolling up to the row loads the older messages by itself, as a reader scrolling back would.
    await earlier.scrollIntoViewIfNeeded();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(60);
    expect(await chat().textOf(chat().messages().first())).toBe('message 0');
    await expect.poll(() => chat().byTestId('load-earlier').isVisible(), { timeout: 15_000 }).toBe(false);
  });

  it('continues the migrated conversation: a new answer streams in after the old messages', async () => {
    await chat().send('And one more after the upgrade');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: And one more after the upgrade');
    await chat().waitIdle();
  });
});
