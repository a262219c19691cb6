import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/codeServer';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';
import { waitForStoreDir } from './harness/store';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'imports');

/**
 * Importing other tools' history (issue 13): ChatGPT's conversations.json with its branches, a Continue
 * session, a Copilot Chat session (picked by hand, and listed from VS Code's storage of this workspace),
 * and a Continue config.yaml turned into Arbor's model settings after a confirmation.
 */
describe('importing history from other tools', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const dir = () => path.join(session.env.workspace, 'imports-other');
  const file = (name: string) => path.join(dir(), name);
  const userSettings = () => path.join(session.env.dataDir, 'User', 'settings.json');
  let settingsBefore: string | undefined;
  const copilotFolders: string[] = [];

  beforeAll(async () => {
    await mkdir(dir(), { recursive: true });
    for (const name of ['chatgpt-conversations.json', 'continue-session.json', 'copilot-chat-session.json']) await copyFile(path.join(FIXTURES, name), file(name));
    settingsBefore = await readFile(userSettings(), 'utf8').catch(() => undefined);
  });

  afterAll(async () => {
    await rm(dir(), { recursive: true, force: true });
    for (const folder of copilotFolders) await rm(folder, { recursive: true, force: true });
    // The config test changed the user settings: put them back for the files that run after this one.
    if (settingsBefore !== undefined) await writeFile(userSettings(), settingsBefore);
  });

  /** Runs Import Conversation and types the file's full path into the open dialog (as import.e2e does). */
  async function importFile(full: string): Promise<void> {
    const { page } = session.workbench;
    await session.workbench.runCommand('Arbor: Import Conversation').catch(() => session.workbench.runCommand('Arbor: Import Conversation'));
    const widget = page.locator('.quick-input-widget');
    const input = widget.locator('.quick-input-box input');
    await widget.locator('.monaco-list-row', { hasText: 'imports-other' }).first().waitFor({ timeout: 15_000 });
    // The same widget shows what comes next (the config import's model pick): the dialog is open while its title is.
    const dialogOpen = async () => (await widget.isVisible()) && ((await widget.locator('.quick-input-title').textContent()) ?? '').includes('Import Conversation');
    for (let attempt = 0; attempt < 5 && (await dialogOpen()); attempt++) {
      if ((await input.inputValue()) !== full) await input.fill(full);
      await widget.locator('.monaco-list-row', { hasText: path.basename(full) }).first().waitFor({ timeout: 5_000 }).catch(() => undefined);
      await page.waitForTimeout(500);
      await input.press('Enter');
      await widget.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
    }
    if (await dialogOpen()) throw new Error(`the open dialog did not accept ${full}`);
  }

  const toasts = () => session.workbench.page.locator('.notification-toast').allTextContents();
  const dialog = () => session.workbench.page.locator('.monaco-dialog-box');

  it('imports every conversation of a ChatGPT export, with the edited question as a second branch', async () => {
    await session.workbench.openArborView();
    await importFile(file('chatgpt-conversations.json'));
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 15_000 }).toMatch(/Imported 2 ChatGPT conversations from imports-other\/chatgpt-conversations\.json/);
    // The last conversation of the file opens: its tool call and result are there, its answer last.
    await chat().waitReady();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('2**100 is 1267650600228229401496703205376.');
    // Imported with its own dates, it sorts far down a long list: scrolled to first.
    const row = await session.workbench.revealTreeRow('Sourdough starter hydration');
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('Yes: it has doubled and is full of bubbles.');
    // The current path goes through the edited question, the second of two.
    const edited = chat().messagesOf('user').first();
    expect(await chat().textOf(edited)).toBe('How much water for a rye starter?');
    expect(await edited.locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
    await edited.locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('Equal weights of flour and water: 50 g each.');
    expect(await chat().messagesOf('user').first().locator('[data-testid="sibling-label"]').textContent()).toBe('1/2');
  });

  // Seven history items: the thinking one is the next answer's reasoning, not a message of its own.
  it('imports a Continue session as one branch under its title', async () => {
    await importFile(file('continue-session.json'));
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 15_000 }).toMatch(/Imported "Debounce in the search box" from imports-other\/continue-session\.json \(6 messages\)/);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toBe('The delay is the literal 300 (milliseconds).');
    // The question shows as typed; the file attached in Continue went to the model after it.
    expect(await chat().textOf(chat().messagesOf('user').first())).toContain('What does debounce do in this file?');
    await (await session.workbench.revealTreeRow('Debounce in the search box')).waitFor({ timeout: 15_000 });
  });

  it('imports a Copilot Chat session file picked by hand', async () => {
    await importFile(file('copilot-chat-session.json'));
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 15_000 }).toMatch(/Imported "How do I debounce the search input\? #file:search\.ts" from imports-other\/copilot-chat-session\.json \(4 messages\)/);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toContain('I added search.test.ts with a fake timer.');
  });

  it("lists this workspace's Copilot Chat sessions from VS Code's storage and imports the one picked", async () => {
    const { workbench } = session;
    // Arbor's store is `<workspaceStorage>/<id>/arbor-dev.arbor`; Copilot Chat's sessions are in `<id>/chatSessions`.
    const storeDir = await waitForStoreDir({ root: session.env.dataDir, dataDir: session.env.dataDir, extensionsDir: session.env.extensionsDir, workspace: session.env.workspace });
    // VS Code gives the workspace a new storage folder (`<id>-1`, `<id>-2`…) when it opens it again while
    // an earlier window holds the first one, so the session goes into every folder Arbor has a store in.
    const storageRoot = path.dirname(path.dirname(storeDir));
    const fixture = JSON.parse(await readFile(path.join(FIXTURES, 'copilot-chat-session.json'), 'utf8'));
    const listed = { ...fixture, sessionId: 'e2e-listed-session', customTitle: 'Listed from storage' };
    for (const entry of await readdir(storageRoot)) {
      if (!(await readdir(path.join(storageRoot, entry)).catch(() => [] as string[])).includes(path.basename(storeDir))) continue;
      const folder = path.join(storageRoot, entry, 'chatSessions');
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, 'e2e-listed-session.json'), JSON.stringify(listed));
      copilotFolders.push(folder);
    }
    const widget = workbench.page.locator('.quick-input-widget');
    const item = widget.locator('.monaco-list-row', { hasText: 'Listed from storage' }).first();
    // The palette can swallow the command under load (its row clicked as the palette redraws): run it again.
    for (let attempt = 0; ; attempt++) {
      await workbench.runCommand('Arbor: Import Copilot Chat Sessions…');
      if (await item.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false)) break;
      if (attempt >= 2) throw new Error('the list of Copilot Chat sessions did not show after three tries');
    }
    // A click on a row of this multiple-choice list ticks it; Enter accepts the ticked ones.
    await item.click();
    await widget.locator('.quick-input-box input').press('Enter');
    await expect.poll(() => workbench.treeRow('Listed from storage').count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toContain('I added search.test.ts with a fake timer.');
  });

  it('reads a Continue config.yaml: after the confirmation listing them, the settings are in user settings and the key in the key store', async () => {
    const { workbench } = session;
    const baseUrl = `http://127.0.0.1:${session.env.fakeLlmPort}/v1`;
    await writeFile(
      file('config.yaml'),
      [
        'name: E2E',
        'version: 1.0.0',
        'schema: v1',
        'models:',
        '  - name: Local Llama',
        '    provider: ollama',
        '    model: llama3.1:8b',
        '  - name: Fake Server',
        '    provider: openai',
        '    model: arbor-test-model-2',
        `    apiBase: ${baseUrl}`,
        '    apiKey: sk-e2e-imported-key',
        '',
      ].join('\n'),
    );
    await importFile(file('config.yaml'));
    const widget = workbench.page.locator('.quick-input-widget');
    const item = widget.locator('.monaco-list-row', { hasText: 'Fake Server' }).first();
    await item.waitFor({ timeout: 15_000 });
    expect(await item.textContent()).toContain('arbor.openai.baseUrl');
    await item.click();
    await dialog().waitFor({ timeout: 10_000 });
    const text = (await dialog().textContent()) ?? '';
    expect(text).toContain('arbor.provider = "openai"');
    expect(text).toContain('arbor.model = "arbor-test-model-2"');
    expect(text).toContain(`arbor.openai.baseUrl = "${baseUrl}"`);
    expect(text).not.toContain('sk-e2e-imported-key');
    await dialog().locator('.monaco-button', { hasText: 'Set in User Settings' }).first().click();
    const keyDialog = dialog().filter({ hasText: 'Store it in Arbor' });
    await keyDialog.waitFor({ timeout: 10_000 });
    await keyDialog.locator('.monaco-button', { hasText: 'Store Key' }).first().click();
    await expect.poll(async () => JSON.parse(await readFile(userSettings(), 'utf8')), { timeout: 15_000 }).toMatchObject({
      'arbor.provider': 'openai',
      'arbor.model': 'arbor-test-model-2',
      'arbor.openai.baseUrl': baseUrl,
    });
    expect(await readFile(userSettings(), 'utf8')).not.toContain('sk-e2e-imported-key');
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/Arbor now uses arbor-test-model-2 \(openai\).*the API key is in the key store/);
    // Leave no key behind for the files that run after this one.
    await workbench.runCommand('Arbor: Clear API Key');
    await expect.poll(async () => (await toasts()).join('\n'), { timeout: 10_000 }).toMatch(/removed from secret storage/);
  });
});
