import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BOOKMARKED, SqlJsConversationStorage, type ConversationState } from '../../src/core/index';
import { prepareOwnSandbox, startCodeServer, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { waitForStoreDir } from './harness/store';
import { Workbench, launchBrowser } from './harness/workbench';

const DAY_MS = 86_400_000;

/** A stored conversation of one question and its answer, last changed `daysAgo` days ago. */
function conversation(id: string, title: string, daysAgo: number, options: { bookmarked?: boolean } = {}): ConversationState {
  const at = new Date(Date.now() - daysAgo * DAY_MS).toISOString();
  return {
    conversationId: id,
    nodes: [
      { nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: at, metadata: {} },
      { nodeId: 'n1', parentId: '', position: 1, message: { role: 'user', content: `${title}?` }, timestamp: at, metadata: options.bookmarked ? { ...BOOKMARKED } : {} },
      { nodeId: 'n2', parentId: 'n1', position: 2, message: { role: 'assistant', content: 'An answer.' }, timestamp: at, metadata: {} },
    ],
    currentNodeId: 'n2',
    metadata: { title },
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * `arbor.retention.days` set in the workspace: at the next start Arbor deletes the conversations
 * nobody changed for that long, keeps a bookmarked one however old, and says what it removed. This
 * file runs its own VS Code on its own sandbox. The old conversations are written into the running
 * window's store by a second writer, as another window or tool sharing the store would write them.
 */
describe('retention of old conversations', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  const toasts = () => workbench.page.locator('.notification-toast').allTextContents();
  const topRows = () => workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]');

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('retention', env.fakeLlmPort);
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    const storeDir = await waitForStoreDir(sandbox);

    const store = await SqlJsConversationStorage.open(path.join(storeDir, 'arbor.sqlite'));
    try {
      await store.saveConversation(conversation('old', 'Old question nobody came back to', 400));
      await store.saveConversation(conversation('old-bookmarked', 'Old but bookmarked question', 400, { bookmarked: true }));
      await store.saveConversation(conversation('recent', 'Recent question', 2));
    } finally {
      await store.close();
    }
    // Set only now: retention runs once, in the background after activation, and on a busy machine the
    // first start's run can come after the writes above, which must wait for the next start.
    await mkdir(path.join(sandbox.workspace, '.vscode'), { recursive: true });
    await writeFile(path.join(sandbox.workspace, '.vscode', 'settings.json'), `${JSON.stringify({ 'arbor.retention.days': 30 }, null, 2)}\n`);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the conversations another writer stored, before Arbor starts again', async () => {
    // The running window reads the other writer's changes on its next poll.
    await expect.poll(() => topRows().count(), { timeout: 30_000 }).toBe(3);
  });

  it('at the next start deletes the one nobody changed in 30 days, keeps the bookmarked and the recent one, and says so', async () => {
    await workbench.reload();
    await workbench.openArborView();
    await expect
      .poll(async () => (await toasts()).join('\n'), { timeout: 60_000 })
      .toContain('Arbor removed 1 conversation nobody changed in 30 days: "Old question nobody came back to"');
    await expect.poll(() => topRows().count(), { timeout: 30_000 }).toBe(2);
    const titles = (await topRows().allTextContents()).join('\n');
    expect(titles).toContain('Old but bookmarked question');
    expect(titles).toContain('Recent question');
    expect(titles).not.toContain('Old question nobody came back to');
    await workbench.screenshot('retention-removed-an-old-conversation');
  });

  it('at the start after that removes nothing more, and says nothing', async () => {
    await workbench.reload();
    await workbench.openArborView();
    await expect.poll(() => topRows().count(), { timeout: 30_000 }).toBe(2);
    // Retention runs in the background after activation: give it the time it took above.
    await workbench.page.waitForTimeout(5_000);
    expect((await toasts()).join('\n')).not.toContain('Arbor removed');
    expect(await topRows().count()).toBe(2);
  });
});
