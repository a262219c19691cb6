import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * What goes to a model from files picked by hand: the `#file` picker does not offer secret files
 * (`.env`, Terraform variables), and a file the workspace's rules leave out (gitignored) can still
 * be attached, its chip saying "ignored".
 */
describe('files picked by hand with #file', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const secrets = ['.env', 'prod.tfvars'];
  // Ordinary files whose names hold the same words: their presence shows the picker answered the query.
  const notes = ['env-notes.md', 'tfvars-notes.md'];

  afterAll(async () => {
    for (const name of [...secrets, ...notes, '.gitignore', 'build']) await rm(path.join(session.env.workspace, name), { recursive: true, force: true });
  });

  it('offers source files but not .env or *.tfvars', async () => {
    for (const name of secrets) await writeFile(path.join(session.env.workspace, name), 'API_TOKEN=not-for-a-model\n');
    for (const name of notes) await writeFile(path.join(session.env.workspace, name), '# notes\n');
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('attach-file').click();
    const query = chat().byTestId('file-query');
    await query.waitFor({ timeout: 15_000 });
    await query.fill('cart');
    // An option shows the file's name, then its path.
    const offered = async () => (await chat().byTestId('file-option').allTextContents()).map((t) => t.trim());
    await expect.poll(async () => (await offered()).some((t) => t.endsWith('src/cart.ts')), { timeout: 15_000 }).toBe(true);
    for (const [search, note] of [['env', 'env-notes.md'], ['tfvars', 'tfvars-notes.md']]) {
      await query.fill(search);
      // This query's answer has come when its ordinary file shows; no secret file may be beside it.
      await expect.poll(async () => (await offered()).some((t) => t.endsWith(note)), { timeout: 15_000 }).toBe(true);
      expect((await offered()).filter((t) => secrets.some((s) => t.endsWith(s)))).toEqual([]);
    }
  });

  it('attaches a gitignored file picked by hand, and its chip says it is ignored', async () => {
    await writeFile(path.join(session.env.workspace, '.gitignore'), 'build/\n');
    await mkdir(path.join(session.env.workspace, 'build'), { recursive: true });
    await writeFile(path.join(session.env.workspace, 'build', 'bundle.js'), 'console.log("built");\n');
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('attach-file').click();
    const query = chat().byTestId('file-query');
    await query.waitFor({ timeout: 15_000 });
    await query.fill('bundle');
    const option = chat().byTestId('file-option').filter({ hasText: 'build/bundle.js' }).first();
    await option.waitFor({ timeout: 15_000 });
    await option.click();
    await chat().byTestId('attachment').first().waitFor({ timeout: 15_000 });
    await chat().send('What does this file do?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toMatch(/Echo: /);
    await chat().waitIdle();
    const question = chat().messagesOf('user').last();
    expect(await question.locator('[data-testid="chip"]').first().textContent()).toContain('build/bundle.js');
    expect(await question.locator('[data-testid="chip-ignored"]').count()).toBe(1);
  });
});
