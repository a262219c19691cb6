import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Apply on a code block of an answer: the block names its file in its fence, VS Code's diff editor
 * shows the change, and Accept writes it (Reject leaves the file as it was). The fake model echoes the
 * question, so a question holding a fenced block gets an answer holding the same block.
 */
describe('Apply a code block to its file', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const file = 'apply-target.ts';
  const original = "export const greeting = 'hello';\n";
  const abs = () => path.join(session.env.workspace, file);
  const toast = () => toastFor(file);
  const diffTab = () => session.workbench.tab(`${file} ↔ Arbor's change`);

  beforeAll(async () => {
    await writeFile(abs(), original);
  });
  afterAll(async () => {
    await rm(abs(), { force: true });
  });

  /**
   * Rewrites the file from outside and waits until VS Code shows the new text in its open editor (an
   * Apply that read the editor's text before VS Code noticed would propose against the old one).
   */
  async function rewrite(content: string, probe: string): Promise<void> {
    await writeFile(abs(), content);
    const tab = session.workbench.page.locator('.part.editor .tabs-container .tab', { hasText: new RegExp(`^${file.replace('.', '\\.')}`) }).first();
    if ((await tab.count()) === 0) return;
    await tab.click();
    const shown = session.workbench.page.locator('.part.editor .view-lines', { hasText: probe }).first();
    if (await shown.waitFor({ timeout: 10_000 }).then(() => true, () => false)) return;
    // VS Code has not noticed the write yet: read the file again from disk.
    await session.workbench.runCommand('File: Revert File');
    await shown.waitFor({ timeout: 15_000 });
  }

  /** Asks a question holding `code` fenced with the file's name (`target`), and presses Apply on the answer's block. */
  async function applyFromAnswer(code: string, target = file): Promise<void> {
    await chat().send(`Change it like this:\n\`\`\`ts ${target}\n${code}\n\`\`\``);
    await pressApply(target);
  }

  /** Presses Apply on the last answer's block and waits for the diff and the question. */
  async function pressApply(target = file): Promise<void> {
    await expect.poll(() => chat().lastAnswer().locator('[data-testid="apply-code"]').count(), { timeout: 30_000 }).toBe(1);
    await chat().waitIdle();
    // A click that lands while the chat redraws the answer (a state post) is lost; the reader would press
    // Apply again, and so does the test when neither the question nor a merge's progress shows.
    const { page } = session.workbench;
    for (let attempt = 0; attempt < 3; attempt++) {
      await chat().lastAnswer().locator('[data-testid="apply-code"]').click();
      const shown = (locator: ReturnType<typeof toastFor>) => locator.waitFor({ timeout: 10_000 }).then(() => true, () => false);
      if (await Promise.race([shown(toastFor(target)), shown(page.locator('.notification-toast', { hasText: 'to merge the change into' }).first())])) break;
    }
    await toastFor(target).waitFor({ timeout: 30_000 });
    await session.workbench.tab(`${target} ↔ Arbor's change`).first().waitFor({ timeout: 15_000 });
  }

  const toastFor = (target: string) => session.workbench.page.locator('.notification-toast', { hasText: `Apply Arbor's change to ${target}?` }).last();

  it('shows the change as a diff and Accept writes it to the file', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const code = "export const greeting = 'hello, world';\nexport const farewell = 'bye';";
    await applyFromAnswer(code);
    expect(await toast().textContent()).toContain('+2 −1');
    await session.workbench.screenshot('apply-diff-review');
    await toast().locator('.monaco-button', { hasText: /^Accept$/ }).click();
    await expect.poll(() => readFile(abs(), 'utf8'), { timeout: 15_000 }).toBe(`${code}\n`);
    await expect.poll(() => diffTab().count(), { timeout: 15_000 }).toBe(0);
  });

  it('Reject leaves the file as it was and closes the diff', async () => {
    const before = await readFile(abs(), 'utf8');
    await session.workbench.tab(/Change it like this/).first().click();
    await chat().waitReady();
    await applyFromAnswer("export const greeting = 'rejected';");
    await toast().locator('.monaco-button', { hasText: /^Reject$/ }).click();
    await expect.poll(() => diffTab().count(), { timeout: 15_000 }).toBe(0);
    expect(await readFile(abs(), 'utf8')).toBe(before);
  });

  it('Choose Parts… applies only the parts left ticked', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `export const line${i} = ${i};`);
    await rewrite(`${lines.join('\n')}\n`, 'export const line2 = 2;');
    const changed = [...lines];
    changed[2] = 'export const line2 = 200;';
    changed[25] = 'export const line25 = 2500;';
    await session.workbench.tab(/Change it like this/).first().click();
    await chat().waitReady();
    await applyFromAnswer(changed.join('\n'));
    expect(await toast().textContent()).toContain('in 2 parts');
    await toast().locator('.monaco-button', { hasText: /^Choose Parts/ }).click();
    const { page } = session.workbench;
    const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    // Untick the second part (line 25), keep the first.
    const second = rows.filter({ hasText: 'line25 = 2500' }).first();
    await second.click();
    await expect.poll(() => page.locator('.quick-input-widget', { hasText: '1 Selected' }).count(), { timeout: 10_000 }).toBe(1);
    await page.locator('.quick-input-widget .monaco-button', { hasText: /^OK$/ }).first().click();
    await expect.poll(() => readFile(abs(), 'utf8'), { timeout: 15_000 }).toContain('export const line2 = 200;');
    const after = await readFile(abs(), 'utf8');
    expect(after).toContain('export const line25 = 25;');
    expect(after).not.toContain('2500');
  });

  it('asks the model to merge a fragment into the file, then shows the merged change', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `export const line${i} = ${i};`);
    await rewrite(`${lines.join('\n')}\n`, 'export const line2 = 2;');
    await session.workbench.tab(/Change it like this/).first().click();
    await chat().waitReady();
    await applyFromAnswer('// ... existing code ...\nexport const line7 = 700;\n// ... existing code ...');
    // The merged file changes the one line: the rest of the file stays.
    expect(await toast().textContent()).toContain('+1 −1 in 1 part');
    await toast().locator('.monaco-button', { hasText: /^Accept$/ }).click();
    const expected = [...lines];
    expected[7] = 'export const line7 = 700;';
    await expect.poll(() => readFile(abs(), 'utf8'), { timeout: 15_000 }).toContain('export const line7 = 700;');
    expect((await readFile(abs(), 'utf8')).split('\n')).toEqual(`${expected.join('\n')}\n`.split('\n'));
  });

  it('refuses a block whose fence names .git/config, as edit_file does: no diff, nothing written, the reason shown', async () => {
    const gitConfig = path.join(session.env.workspace, '.git', 'config');
    await session.workbench.tab(/Change it like this/).first().click();
    await chat().waitReady();
    await chat().send('Change it like this:\n```ini .git/config\n[core]\n\tfsmonitor = "sh -c \'echo owned\'"\n```');
    await expect.poll(() => chat().lastAnswer().locator('[data-testid="apply-code"]').count(), { timeout: 30_000 }).toBe(1);
    await chat().waitIdle();
    const refusal = session.workbench.page.locator('.notification-toast', { hasText: '".git/config" is inside a .git folder' }).last();
    // A click that lands while the chat redraws the answer is lost; a reader would press Apply again.
    for (let attempt = 0; attempt < 3; attempt++) {
      await chat().lastAnswer().locator('[data-testid="apply-code"]').click();
      if (await refusal.waitFor({ timeout: 10_000 }).then(() => true, () => false)) break;
    }
    await refusal.waitFor({ timeout: 15_000 });
    await session.workbench.screenshot('apply-refuses-git-config');
    expect(await refusal.textContent()).toContain('Apply does not write this block');
    expect(await session.workbench.tab('.git/config ↔ Arbor\'s change').count()).toBe(0);
    await expect(readFile(gitConfig, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('Restore Files to Here brings back what a branch wrote, after another branch wrote the same file differently', async () => {
    const target = 'restore-target.ts';
    const targetAbs = path.join(session.env.workspace, target);
    await writeFile(targetAbs, "export const v = 'zero';\n");
    try {
      // One chat in one group: the earlier tests left diffs and files open beside their chat.
      await session.workbench.runCommand('View: Close All Editors');
      await session.workbench.runCommand('Arbor: New Conversation');
      await chat().waitReady();
      await applyFromAnswer("export const v = 'one';", target);
      await toastFor(target).locator('.monaco-button', { hasText: /^Accept$/ }).click();
      await expect.poll(() => readFile(targetAbs, 'utf8'), { timeout: 15_000 }).toBe("export const v = 'one';\n");

      // A second branch: a new version of the question, whose answer writes the file differently.
      const question = chat().messagesOf('user').first();
      await question.hover();
      await question.locator('[data-testid="branch-here"]').click();
      await chat().byTestId('branch-banner').waitFor({ state: 'visible', timeout: 15_000 });
      await chat().input().fill(`Change it like this:\n\`\`\`ts ${target}\nexport const v = 'two';\n\`\`\``);
      await chat().input().press('Enter');
      await pressApply(target);
      await toastFor(target).locator('.monaco-button', { hasText: /^Accept$/ }).click();
      await expect.poll(() => readFile(targetAbs, 'utf8'), { timeout: 15_000 }).toBe("export const v = 'two';\n");
      // The answer that changed the file says so, with the line counts.
      await expect.poll(() => chat().lastAnswer().locator('[data-testid="file-change"]').textContent(), { timeout: 15_000 }).toContain(`${target} +1 −1`);

      // Back on the first branch: moving in the tree never touches files.
      await chat().messagesOf('user').first().locator('[data-testid="sibling-prev"]').click();
      await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toContain("'one'");
      expect(await readFile(targetAbs, 'utf8')).toBe("export const v = 'two';\n");

      await chat().lastAnswer().locator('[data-testid="restore-files"]').click();
      const ask = session.workbench.page.locator('.notification-toast', { hasText: `Restore ${target} to how it was after this message?` }).last();
      await ask.waitFor({ timeout: 30_000 });
      await session.workbench.screenshot('restore-files-to-here');
      await ask.locator('.monaco-button', { hasText: /^Restore$/ }).click();
      await expect.poll(() => readFile(targetAbs, 'utf8'), { timeout: 15_000 }).toBe("export const v = 'one';\n");

      // Any message can restore, also one that changed nothing: the question comes before the first change.
      const first = chat().messagesOf('user').first();
      await first.hover();
      await first.locator('[data-testid="restore-files-here"]').click();
      const back = session.workbench.page.locator('.notification-toast', { hasText: `Restore ${target} to how it was after this message?` }).last();
      await back.waitFor({ timeout: 30_000 });
      await back.locator('.monaco-button', { hasText: /^Restore$/ }).click();
      await expect.poll(() => readFile(targetAbs, 'utf8'), { timeout: 15_000 }).toBe("export const v = 'zero';\n");

      // Compare with… in the tree: the two branches side by side, each with the file as it left it.
      const { workbench } = session;
      await workbench.openArborView();
      const conversation = workbench.treeRow(/Change it like this/).first();
      await workbench.expand(conversation);
      const branchRows = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="2"]');
      await expect.poll(() => branchRows.count(), { timeout: 15_000 }).toBe(2);
      await branchRows.first().click({ button: 'right' });
      await workbench.pickMenuItem(/^Compare with/);
      await workbench.page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ timeout: 15_000 });
      await workbench.page.keyboard.press('Enter');
      const diff = workbench.page.locator('.part.editor .monaco-diff-editor').first();
      await diff.waitFor({ timeout: 15_000 });
      // The editor draws spaces as no-break spaces.
      const shown = async () => (await diff.locator('.view-lines').allTextContents()).join('\n').replace(/\u00a0/g, ' ');
      await expect.poll(shown, { timeout: 15_000 }).toContain('Files at the end of this branch');
      const sides = await shown();
      expect(sides).toContain("export const v = 'one';");
      expect(sides).toContain("export const v = 'two';");
      await workbench.screenshot('compare-branches-with-files');
    } finally {
      await rm(targetAbs, { force: true });
    }
  });
});
