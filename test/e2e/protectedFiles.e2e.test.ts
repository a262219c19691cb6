import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * A protected file in the real VS Code: after the user allowed `edit_file` in this conversation (and an
 * ordinary edit then runs without asking), the fake model asks to write `.vscode/settings.json`. Its card
 * still waits for the user, names the file and why it is protected, and offers Allow once and Deny
 * only; Deny leaves the file as it was and the model is told.
 */
describe('a write to a protected file', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const card = () => chat().frame.locator('[data-testid="tool-card"][data-tool="edit_file"]').last();
  const settingsText = '{\n  "editor.tabSize": 2\n}\n';
  let vscodeDir: string;
  let ordinary: string;
  let madeVscodeDir = false;

  beforeAll(async () => {
    vscodeDir = path.join(session.env.workspace, '.vscode');
    ordinary = path.join(session.env.workspace, 'src', 'protected-e2e.txt');
    // The suite's workspace has no settings of its own; this test brings a harmless one, and takes it away after.
    if (existsSync(path.join(vscodeDir, 'settings.json'))) throw new Error(`${vscodeDir}/settings.json exists already; this test writes its own.`);
    madeVscodeDir = !existsSync(vscodeDir);
    await mkdir(vscodeDir, { recursive: true });
    await writeFile(path.join(vscodeDir, 'settings.json'), settingsText);
    await writeFile(ordinary, 'leaves: 1\n');
  });

  afterAll(async () => {
    if (!vscodeDir) return;
    await rm(path.join(vscodeDir, 'settings.json'), { force: true });
    if (madeVscodeDir) await rm(vscodeDir, { recursive: true, force: true });
    await rm(ordinary, { force: true });
  });

  it('is asked although edit_file is allowed in this conversation, names the file and the reason, offers no wider Allow, and Deny leaves it unchanged', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();

    // An ordinary file: Allow in this conversation.
    await chat().send('Count one more leaf. [[tool:edit_file {"path":"src/protected-e2e.txt","edits":[{"search":"leaves: 1","replace":"leaves: 2"}]}]]');
    await expect.poll(() => card().getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await card().locator('[data-testid="tool-allow-conversation"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    await expect.poll(() => readFile(ordinary, 'utf8'), { timeout: 15_000 }).toBe('leaves: 2\n');

    // The grant is in force: the next ordinary edit runs without a card waiting.
    await chat().send('And one more. [[tool:edit_file {"path":"src/protected-e2e.txt","edits":[{"search":"leaves: 2","replace":"leaves: 3"}]}]]');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    expect(await card().getAttribute('data-state')).toBe('done');
    await expect.poll(() => readFile(ordinary, 'utf8'), { timeout: 15_000 }).toBe('leaves: 3\n');

    // The protected file asks all the same.
    await chat().send('Use tabs of 8. [[tool:edit_file {"path":".vscode/settings.json","edits":[{"search":"\\"editor.tabSize\\": 2","replace":"\\"editor.tabSize\\": 8"}]}]]');
    await expect.poll(() => card().getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    const reason = await card().locator('[data-testid="tool-approval-reason"]').textContent();
    expect(reason).toContain('".vscode/settings.json"');
    expect(reason).toContain('is protected: VS Code settings and tasks decide what runs');
    expect(await card().locator('[data-testid="tool-approval-once"]').textContent()).toContain('Asked every time');
    expect(await card().locator('[data-testid="tool-allow-once"]').count()).toBe(1);
    for (const scope of ['conversation', 'workspace', 'always']) expect(await card().locator(`[data-testid="tool-allow-${scope}"]`).count(), scope).toBe(0);
    expect(await card().locator('[data-testid="tool-diff"]').textContent()).toContain('"editor.tabSize": 8');
    await card().locator('[data-testid="tool-deny"]').scrollIntoViewIfNeeded();
    await session.workbench.screenshot('protected-file-approval-card');

    await card().locator('[data-testid="tool-deny-reason"]').fill('Leave my settings alone');
    await card().locator('[data-testid="tool-deny"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('The user denied this call: Leave my settings alone');
    await chat().waitIdle();
    expect(await card().getAttribute('data-state')).toBe('denied');
    expect(await readFile(path.join(vscodeDir, 'settings.json'), 'utf8')).toBe(settingsText);
  });
});
