import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from '../../src/core/storage/sqlJsConversationStorage';
import { sampleConversation } from '../../src/core/storage/storageTestData';
import { useWorkbench } from './harness/session';
import { waitForStoreDir } from './harness/store';
import { EXTENSION_ID } from './harness/workbench';

/**
 * History that follows the folder (issue 15): a store of this folder kept by another workspace (its
 * `workspace.json` names the folder, as VS Code writes it) is listed by "Find Conversations from Other
 * Workspaces" and its conversation opened here; doing it twice duplicates nothing; a store of an
 * unrelated folder is never listed.
 */
describe('conversations from other workspaces', () => {
  const session = useWorkbench();
  const title = 'Kept by another workspace: larch needles';
  const unrelatedTitle = 'Of an unrelated folder: spruce';
  const made: string[] = [];

  /** A storage folder named `id` whose workspace.json names `folder`, with a store holding one conversation. */
  async function otherStore(root: string, id: string, folder: string, conversationId: string, conversationTitle: string): Promise<string> {
    const dir = path.join(root, id);
    await mkdir(path.join(dir, EXTENSION_ID), { recursive: true });
    await writeFile(path.join(dir, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(folder).href }));
    const storage = await SqlJsConversationStorage.open(path.join(dir, EXTENSION_ID, 'arbor.sqlite'));
    await storage.saveConversation(sampleConversation(conversationId, 4, { metadata: { title: conversationTitle } }));
    await storage.close();
    made.push(dir);
    return dir;
  }

  beforeAll(async () => {
    await session.workbench.openArborView();
    const current = await waitForStoreDir({ root: session.env.dataDir, dataDir: session.env.dataDir, extensionsDir: session.env.extensionsDir, workspace: session.env.workspace });
    const root = path.dirname(path.dirname(current));
    await otherStore(root, 'e2e-follow-same-folder', session.env.workspace, 'follow-e2e-larch', title);
    await otherStore(root, 'e2e-follow-unrelated', path.join(path.dirname(session.env.workspace), 'unrelated-folder'), 'follow-e2e-spruce', unrelatedTitle);
  });

  afterAll(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  /** Runs the command and picks the store kept by `e2e-follow-same-folder`; the unrelated one is never listed. */
  async function openFromOtherWorkspace(): Promise<void> {
    const { workbench } = session;
    const { page } = workbench;
    await workbench.runCommand('Arbor: Find Conversations from Other Workspaces');
    const widget = page.locator('.quick-input-widget');
    const row = widget.locator('.monaco-list-row', { hasText: 'e2e-follow-same-folder' }).first();
    await row.waitFor({ timeout: 30_000 });
    const listed = (await widget.locator('.monaco-list-row').allTextContents()).join('\n');
    expect(listed).not.toContain('e2e-follow-unrelated');
    await row.click();
    await widget.locator('.quick-input-box input').press('Enter');
  }

  it('lists a store of this folder kept by another workspace and opens its conversation here, once', async () => {
    const { workbench } = session;
    await openFromOtherWorkspace();
    await expect.poll(() => workbench.treeRow(title).count(), { timeout: 30_000 }).toBe(1);
    // Again: the conversation is here already, so nothing is copied twice.
    await openFromOtherWorkspace();
    // Its summary, in the notification center (a toast may have closed by the time it is looked for).
    await expect
      .poll(
        async () => {
          await workbench.runCommand('Notifications: Show Notifications');
          return (await workbench.page.locator('.notifications-center').allTextContents()).join('\n');
        },
        { timeout: 30_000, interval: 2_000 },
      )
      .toMatch(/1 was here already/);
    expect(await workbench.treeRow(title).count()).toBe(1);
    expect(await workbench.treeRow(unrelatedTitle).count()).toBe(0);
  });
});
