import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from '../../src/core/storage/sqlJsConversationStorage';
import { sampleConversation } from '../../src/core/storage/storageTestData';
import { ChatPage } from './harness/chat';
import { writeUserSettings } from './harness/codeServer';
import { useWorkbench } from './harness/session';
import { waitForStoreDir } from './harness/store';
import { EXTENSION_ID } from './harness/workbench';

/**
 * History that follows the folder (issue 15): a store of this folder kept by another workspace (its
 * `workspace.json` names the folder, as VS Code writes it) is listed by "Find Conversations from Other
 * Workspaces" and its conversation opened here; doing it twice duplicates nothing; a store of an
 * unrelated folder is never listed. Then the folder goes into a multi-root workspace, whose new and
 * empty store gets the offer in the Conversations view.
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
    const current = await waitForStoreDir(sandbox());
    const root = path.dirname(path.dirname(current));
    await otherStore(root, 'e2e-follow-same-folder', session.env.workspace, 'follow-e2e-larch', title);
    await otherStore(root, 'e2e-follow-unrelated', path.join(path.dirname(session.env.workspace), 'unrelated-folder'), 'follow-e2e-spruce', unrelatedTitle);
  });

  afterAll(async () => {
    // The rest of the suite shares this folder and runs without the offer.
    await writeUserSettings(sandbox(), { 'arbor.otherWorkspaces.offer': false }, { merge: true });
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  const sandbox = () => ({ root: path.dirname(session.env.dataDir), dataDir: session.env.dataDir, extensionsDir: session.env.extensionsDir, workspace: session.env.workspace });

  /** The notification center's text (a toast may have closed by the time it is looked for). */
  async function notifications(): Promise<string> {
    await session.workbench.runCommand('Notifications: Show Notifications');
    return (await session.workbench.page.locator('.notifications-center').allTextContents()).join('\n');
  }

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
    await expect.poll(() => workbench.countTreeRows(title), { timeout: 30_000 }).toBe(1);
    // Again: the conversation is here already, so nothing is copied twice.
    await openFromOtherWorkspace();
    // Its summary, in the notification center (a toast may have closed by the time it is looked for).
    await expect.poll(notifications, { timeout: 30_000, interval: 2_000 })
      .toMatch(/1 was here already/);
    expect(await workbench.countTreeRows(title)).toBe(1);
    expect(await workbench.countTreeRows(unrelatedTitle)).toBe(0);
  });

  it('offers, in a multi-root workspace of this folder, the conversations made with the folder alone, and opens them once', async () => {
    const { workbench, env } = session;
    const chat = new ChatPage(workbench);
    const question = 'Made with the folder alone: birch bark';
    await workbench.runCommand('Arbor: New Conversation');
    await chat.send(question);
    await chat.waitIdle();
    await expect.poll(() => workbench.treeRow(question).count(), { timeout: 15_000 }).toBe(1);

    // The suite runs without the offer; this test turns it on, then puts the folder into a workspace with another.
    await writeUserSettings(sandbox(), { 'arbor.otherWorkspaces.offer': true }, { merge: true });
    const parent = path.dirname(env.workspace);
    const second = path.join(parent, 'follow-second-root');
    await mkdir(second, { recursive: true });
    const workspaceFile = path.join(parent, `follow-${Date.now()}.code-workspace`);
    await writeFile(workspaceFile, JSON.stringify({ folders: [{ path: env.workspace }, { path: second }] }, null, 2));
    made.push(workspaceFile, second);
    const storageRoot = path.dirname(path.dirname(await waitForStoreDir(sandbox())));
    const before = new Set(await readdir(storageRoot));
    await workbench.page.goto(`${env.url.split('?')[0]}?workspace=${encodeURIComponent(workspaceFile)}`);
    await workbench.waitReady();
    await workbench.openArborView();

    // Its own store is empty: the view offers what the folder's other workspaces left.
    const offer = workbench.treeRow(/\d+ conversations? from (another workspace|\d+ other workspaces)/).first();
    // The search opens every store of the folder read-only in the background: after the whole suite
    // (a storage folder per window, `<id>-N`) that takes a while on a loaded machine.
    await offer.waitFor({ timeout: 120_000 });
    expect(await offer.textContent()).toMatch(/last used/);
    // The whole sentence is in its hover.
    await workbench.hoverFor(offer, 'Conversations from these folders were found in');
    expect(await workbench.treeRow(question).count()).toBe(0);
    await workbench.screenshot('offer-from-other-workspaces');
    await workbench.treeRow(/^Open Them Here/).first().click();
    await expect.poll(() => workbench.treeRow(question).count(), { timeout: 60_000 }).toBe(1);
    expect(await workbench.countTreeRows(title)).toBe(1);
    expect(await workbench.countTreeRows(unrelatedTitle)).toBe(0);
    expect(await offer.count()).toBe(0);
    // The multi-root workspace has a storage folder of its own, which now holds them.
    made.push(...(await readdir(storageRoot)).filter((id) => !before.has(id)).map((id) => path.join(storageRoot, id)));

    // By hand again: every store is picked, and nothing is copied twice.
    await workbench.runCommand('Arbor: Find Conversations from Other Workspaces');
    const widget = workbench.page.locator('.quick-input-widget');
    await widget.locator('.monaco-list-row').first().waitFor({ timeout: 30_000 });
    expect((await widget.locator('.monaco-list-row').allTextContents()).join('\n')).not.toContain('e2e-follow-unrelated');
    // Every store listed is ticked (a click on a row of this multiple-choice list ticks it).
    const rows = widget.locator('.monaco-list-row');
    for (let i = 0; i < (await rows.count()); i++) await rows.nth(i).click();
    await expect.poll(() => widget.locator('.monaco-list-row[aria-checked="true"]').count(), { timeout: 10_000 }).toBe(await rows.count());
    await widget.locator('.quick-input-box input').press('Enter');
    await expect.poll(notifications, { timeout: 30_000, interval: 2_000 })
      .toMatch(/0 conversations opened here\. \d+ were here already/);
    expect(await workbench.treeRow(question).count()).toBe(1);
    expect(await workbench.countTreeRows(title)).toBe(1);
    // What the searches read is remembered in Arbor's global storage (by each store's size and time), so a
    // later search opens only the stores that changed.
    const cacheFile = path.join(env.dataDir, 'User', 'globalStorage', EXTENSION_ID.toLowerCase(), 'other-stores-cache.json');
    const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as { stores: Record<string, { ids: string[] }> };
    const cachedIds = Object.entries(cached.stores).filter(([file]) => file.startsWith(storageRoot)).flatMap(([, entry]) => entry.ids);
    expect(cachedIds.length).toBeGreaterThan(0);
  });
});
