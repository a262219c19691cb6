import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** A Meton session file: a flat list of messages under a `session_id`, naive local times. */
const metonSession = {
  session_id: 'e2e-meton-session',
  start_time: '2025-03-01T09:00:00',
  messages: [
    { role: 'user', content: 'Which files does the indexer skip?', timestamp: '2025-03-01T09:00:00' },
    { role: 'assistant', content: 'Binary files, and whatever .gitignore excludes.', timestamp: '2025-03-01T09:00:04' },
  ],
};

/** A dataknobs `to_dict` export with two answers to one question (two branches). */
const dataknobsExport = {
  schema_version: '1.1.0',
  conversation_id: 'e2e-dataknobs-export',
  nodes: [
    { node_id: '', message: { role: 'system', content: 'You are terse.' }, timestamp: '2025-02-01T10:00:00', prompt_name: null, branch_name: null, metadata: {} },
    { node_id: '0', message: { role: 'user', content: 'Name a conifer' }, timestamp: '2025-02-01T10:00:01', prompt_name: null, branch_name: null, metadata: {} },
    { node_id: '0.0', message: { role: 'assistant', content: 'Spruce.' }, timestamp: '2025-02-01T10:00:02', prompt_name: null, branch_name: null, metadata: {} },
    { node_id: '0.1', message: { role: 'assistant', content: 'Larch.' }, timestamp: '2025-02-01T10:00:03', prompt_name: null, branch_name: 'deciduous', metadata: {} },
  ],
  edges: [['', '0'], ['0', '0.0'], ['0', '0.1']],
  current_node_id: '0.1',
  metadata: { title: 'Conifers from dataknobs' },
  created_at: '2025-02-01T10:00:00',
  updated_at: '2025-02-01T10:05:00',
};

/** Import Conversation through the palette and VS Code's own open dialog (the simple file dialog in code-server). */
describe('importing a conversation file', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const dir = () => path.join(session.env.workspace, 'imports');
  const fixture = (name: string) => path.join(dir(), name);

  beforeAll(async () => {
    await mkdir(dir(), { recursive: true });
    await writeFile(fixture('meton-session.json'), JSON.stringify(metonSession, null, 2));
    await writeFile(fixture('dataknobs-export.json'), JSON.stringify(dataknobsExport, null, 2));
    await writeFile(fixture('not-json.json'), '{"session_id": "cut off');
    await writeFile(fixture('not-a-conversation.json'), '{"hello": "world"}');
  });

  afterAll(async () => {
    await rm(dir(), { recursive: true, force: true });
  });

  /** Runs the command and types the file's full path into the open dialog. */
  async function importFile(name: string): Promise<void> {
    const { page } = session.workbench;
    // The palette now and then closes as it opens while a notification appears: try a second time then.
    await session.workbench.runCommand('Arbor: Import Conversation').catch(() => session.workbench.runCommand('Arbor: Import Conversation'));
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('.quick-input-box input');
    // The dialog opens on the workspace folder: wait until it lists it, or it would overwrite what is typed.
    await widget.locator('.monaco-list-row', { hasText: 'imports' }).first().waitFor({ timeout: 15_000 });
    // It re-reads the folder as a path is typed and ignores an Enter meanwhile: type, wait, press until it closes.
    for (let attempt = 0; attempt < 5 && (await widget.isVisible()); attempt++) {
      if ((await input.inputValue()) !== fixture(name)) await input.fill(fixture(name));
      await widget.locator('.monaco-list-row', { hasText: name }).first().waitFor({ timeout: 5_000 }).catch(() => undefined);
      await page.waitForTimeout(500);
      await input.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
    }
    if (await widget.isVisible()) throw new Error(`the open dialog did not accept ${fixture(name)}`);
  }

  /** The text of the notification toasts shown now. */
  const toasts = () => session.workbench.page.locator('.notification-toast').allTextContents();

  it('imports a Meton session: it appears in the tree, selected, and opens in the chat with its messages', async () => {
    await session.workbench.openArborView();
    await importFile('meton-session.json');
    await chat().waitReady();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(2);
    expect(await chat().textOf(chat().messagesOf('user').first())).toBe('Which files does the indexer skip?');
    expect(await chat().textOf(chat().lastAnswer())).toBe('Binary files, and whatever .gitignore excludes.');
    const row = session.workbench.treeRow('Which files does the indexer skip?');
    await row.first().waitFor({ timeout: 15_000 });
    await expect.poll(() => row.first().getAttribute('aria-selected'), { timeout: 10_000 }).toBe('true');
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/Imported .* from imports\/meton-session\.json \(2 messages\)/);
  });

  it('imports a dataknobs export with its branches, and a second import of it as a copy under a new id', async () => {
    await importFile('dataknobs-export.json');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('Larch.');
    expect(await chat().textOf(chat().messagesOf('user').first())).toBe('Name a conifer');
    expect(await chat().lastAnswer().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
    await expect.poll(() => session.workbench.treeRow('Conifers from dataknobs').count(), { timeout: 15_000 }).toBe(1);

    await importFile('dataknobs-export.json');
    await expect.poll(() => session.workbench.treeRow('Conifers from dataknobs').count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/as a copy.*e2e-dataknobs-export/);
  });

  it('imports a .json file dropped on the Conversations view', async () => {
    const { workbench } = session;
    const dropped = { ...metonSession, session_id: 'e2e-dropped-session', messages: [{ role: 'user', content: 'Was this file dropped?' }, { role: 'assistant', content: 'Yes, on the tree.' }] };
    await writeFile(fixture('dropped.json'), JSON.stringify(dropped));
    await workbench.openArborView();
    const target = workbench.treeRows().first();
    await target.waitFor({ timeout: 15_000 });
    // What a file dragged from the Explorer carries: its URI as a `text/uri-list`, on the remote
    // file system code-server serves the workspace from (`vscode-remote://host:port/path`).
    const data = await workbench.page.evaluateHandle((file) => {
      const page = globalThis as unknown as { DataTransfer: new () => { setData(type: string, value: string): void }; location: { host: string } };
      const transfer = new page.DataTransfer();
      transfer.setData('text/uri-list', `vscode-remote://${page.location.host}${file}`);
      return transfer;
    }, pathToFileURL(fixture('dropped.json')).pathname);
    // A drop on a row the tree is redrawing (after the imports before) can be lost: drop again until it is in.
    const imported = workbench.treeRow('Was this file dropped?').first();
    for (let attempt = 0; attempt < 3 && !(await imported.isVisible()); attempt++) {
      for (const type of ['dragenter', 'dragover', 'drop']) await target.dispatchEvent(type, { dataTransfer: data });
      await imported.waitFor({ timeout: 15_000 }).catch(() => undefined);
    }
    await imported.waitFor({ timeout: 5_000 });
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('Yes, on the tree.');
  });

  it('says which file could not be imported, and why', async () => {
    await importFile('not-json.json');
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/Could not import "imports\/not-json\.json".*not JSON/);
    await importFile('not-a-conversation.json');
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/Could not import "imports\/not-a-conversation\.json".*conversation_id/);
    expect(await session.workbench.treeRow('Conifers from dataknobs').count()).toBe(2);
  });
});
