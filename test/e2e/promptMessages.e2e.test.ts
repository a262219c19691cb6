import { execFileSync } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * What a `/` prompt message shows and what can be done with it afterwards, in the sandbox workspace's
 * library (sample-workspace/prompts plus the repository's prompts/): its template's name and version,
 * the values it was sent with and the rendered text; Edit reopens its form; a template changed since
 * offers the diff from git; a few-shot prompt puts its example messages on the path.
 */
describe('messages made from prompt templates', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const workspace = () => session.env.workspace;
  const testCases = () => path.join(workspace(), 'prompts/user/test-cases.md');
  let original: string | undefined;

  afterAll(async () => {
    await rm(path.join(workspace(), 'prompts/user/ask-docs.md'), { force: true });
    if (original !== undefined) await writeFile(testCases(), original);
    await rm(path.join(workspace(), '.git'), { recursive: true, force: true });
  });

  /** Types `/name` until the library has loaded and offers it, then picks it. */
  async function pickPrompt(name: string): Promise<void> {
    const input = chat().input();
    const option = chat().frame.locator('[data-testid="prompt-option"]', { hasText: `/${name}` }).first();
    const form = chat().byTestId('prompt-form-name').filter({ hasText: `/${name}` });
    // Type and pick until the form is open: on a busy machine the menu can close between seeing and clicking.
    await expect
      .poll(
        async () => {
          await input.fill('');
          await input.pressSequentially(`/${name}`);
          if (await option.isVisible()) await option.click({ timeout: 5_000 }).catch(() => undefined);
          return form.isVisible();
        },
        { timeout: 60_000, interval: 1000 },
      )
      .toBe(true);
  }

  /** The value of a form field, in the composer's form or in an Edit form inside `scope`. */
  function field(scope: { locator(selector: string): Locator }, name: string): Locator {
    return scope.locator(`[data-testid="prompt-param"][data-name="${name}"]`);
  }

  /** The blob id git itself gives a file: the version a message records. */
  function gitHashObject(file: string): string {
    return execFileSync('git', ['hash-object', file], { encoding: 'utf8' }).trim();
  }

  it('shows the chip, the values and the folded rendered text; the title comes from the values; Edit reopens the form with them', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await pickPrompt('check-conventions');
    await field(chat().frame, 'code').fill('subtotalCents(lines)');
    // The default shows in its field and is sent as filled.
    expect(await field(chat().frame, 'focus').inputValue()).toBe('naming, structure and error handling');
    await chat().input().click();
    await chat().input().press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Check whether this code follows the conventions');
    await chat().waitIdle();

    const sent = chat().messagesOf('user').last();
    expect(await sent.locator('[data-testid="prompt-chip-name"]').textContent()).toBe('/check-conventions');
    const version = gitHashObject(path.join(workspace(), 'prompts/user/check-conventions.md')).slice(0, 7);
    expect(await sent.locator('[data-testid="prompt-chip-version"]').textContent()).toBe(version);
    expect(await sent.locator('[data-testid="prompt-chip"]').getAttribute('data-status')).toBe('current');
    expect(await sent.locator('[data-testid="prompt-value"][data-name="code"]').textContent()).toBe('subtotalCents(lines)');
    expect(await sent.locator('[data-testid="prompt-value"][data-name="focus"]').textContent()).toBe('naming, structure and error handling');
    // The rendered text is long (template, house rules): folded, and it is what the model got.
    const rendered = sent.locator('[data-testid="prompt-rendered"]');
    expect(await rendered.evaluate((d) => d.hasAttribute('open'))).toBe(false);
    await rendered.locator('summary').click();
    const renderedText = (await sent.locator('[data-testid="prompt-rendered-text"]').textContent()) ?? '';
    expect(renderedText).toContain('looking first at naming, structure and error handling');
    expect(renderedText).toContain('Answer rules:');
    // Named by the value, never by the trigger.
    await expect.poll(() => chat().byTestId('title').textContent(), { timeout: 15_000 }).toBe('subtotalCents(lines)');
    await expect.poll(() => sent.locator('[data-testid="chip"]', { hasText: 'cart.ts' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await session.workbench.screenshot('prompt-message-sent');

    await sent.hover();
    await sent.locator('[data-testid="edit"]').click();
    const editor = sent.locator('[data-testid="inline-editor"]');
    await editor.waitFor({ timeout: 10_000 });
    expect(await field(editor, 'code').inputValue()).toBe('subtotalCents(lines)');
    expect(await field(editor, 'focus').inputValue()).toBe('naming, structure and error handling');
    await session.workbench.screenshot('prompt-message-edit-form');
    await field(editor, 'focus').fill('rounding of cents');
    await editor.locator('[data-testid="edit-save"]').click();

    // Rendered again with the new value, as a sibling of the first version.
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('looking first at rounding of cents');
    await chat().waitIdle();
    const edited = chat().messagesOf('user').last();
    await expect.poll(() => edited.locator('[data-testid="sibling-label"]').textContent(), { timeout: 15_000 }).toBe('2/2');
    expect(await edited.locator('[data-testid="prompt-value"][data-name="focus"]').textContent()).toBe('rounding of cents');
    expect(await edited.locator('[data-testid="prompt-value"][data-name="code"]').textContent()).toBe('subtotalCents(lines)');
    expect(await edited.locator('[data-testid="prompt-chip-name"]').textContent()).toBe('/check-conventions');
    // Retrieval ran for the new version as for the first (it was lost when an edit was sent as raw text).
    await expect.poll(() => edited.locator('[data-testid="chip"]', { hasText: 'cart.ts' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
  });

  it('says when the template changed since and opens the diff of that version, read from git, against the file', async () => {
    original = await readFile(testCases(), 'utf8');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Arbor Test', '-c', 'user.email=test@example.com', ...args], { cwd: workspace() });
    git('init', '-q');
    git('add', 'prompts/user/test-cases.md');
    git('commit', '-qm', 'the test-cases prompt');
    const committed = gitHashObject(testCases()).slice(0, 7);

    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await pickPrompt('test-cases');
    await field(chat().frame, 'code').fill('formatCents(amount)');
    await chat().input().click();
    await chat().input().press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('List the unit tests this code needs');
    await chat().waitIdle();
    const sent = chat().messagesOf('user').last();
    const chip = sent.locator('[data-testid="prompt-chip"]');
    await expect.poll(() => chip.getAttribute('data-status'), { timeout: 15_000 }).toBe('current');
    expect(await chip.getAttribute('data-version')).toBe(committed);
    // A short rendered text stays open.
    expect(await sent.locator('[data-testid="prompt-rendered"]').evaluate((d) => d.hasAttribute('open'))).toBe(true);
    expect(await sent.locator('[data-testid="prompt-diff"]').count()).toBe(0);

    const added = 'Name each test after the behaviour it checks.';
    await writeFile(testCases(), `${original}\n${added}\n`);
    await expect.poll(() => chip.getAttribute('data-status'), { timeout: 30_000 }).toBe('changed');
    expect(await sent.locator('[data-testid="prompt-chip-note"]').textContent()).toBe('changed since');
    await session.workbench.screenshot('prompt-message-template-changed');

    await sent.locator('[data-testid="prompt-diff"]').click();
    const { page } = session.workbench;
    await session.workbench.tab(`test-cases.md (${committed}) ↔ working file`).first().waitFor({ timeout: 20_000 });
    const sideText = async (side: 'original' | 'modified') =>
      ((await page.locator(`.monaco-diff-editor .editor.${side} .view-lines`).first().textContent()) ?? '').replace(/\u00a0/g, ' ');
    await expect.poll(() => sideText('original'), { timeout: 20_000 }).toContain('List the unit tests this code needs');
    expect(await sideText('original')).not.toContain(added);
    await expect.poll(() => sideText('modified'), { timeout: 20_000 }).toContain(added);
    await session.workbench.screenshot('prompt-message-version-diff');

    // A message made from the uncommitted version: git has no such blob, and the error says so.
    await session.workbench.tab('test-cases.md').first().click({ button: 'middle' }).catch(() => undefined);
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await pickPrompt('test-cases');
    await field(chat().frame, 'code').fill('parseCents(text)');
    await chat().input().click();
    await chat().input().press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('parseCents(text)');
    await chat().waitIdle();
    await writeFile(testCases(), `${original}\n${added}\nAnd one more rule.\n`);
    const second = chat().messagesOf('user').last();
    await expect.poll(() => second.locator('[data-testid="prompt-chip"]').getAttribute('data-status'), { timeout: 30_000 }).toBe('changed');
    await second.locator('[data-testid="prompt-diff"]').click();
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: "is not in the workspace's git repository" }).first();
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.textContent()).toContain('never committed or staged');
  });

  it('puts a few-shot prompt\'s example messages on the path before the typed text', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await pickPrompt('few-shot-naming');
    expect(await field(chat().frame, 'language').inputValue()).toBe('typescript');
    await field(chat().frame, 'language').fill('python');
    const input = chat().input();
    await input.click();
    await input.fill('function that sums the lines of a cart');
    await input.press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Echo: function that sums the lines of a cart');
    await chat().waitIdle();

    // system, two worked examples, then the typed text and its answer.
    await expect
      .poll(async () => chat().messages().evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), { timeout: 15_000 })
      .toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const system = chat().messages().first();
    expect(await chat().textOf(system)).toContain('You suggest clear python names');
    expect(await system.locator('[data-testid="prompt-chip-name"]').textContent()).toBe('few-shot-naming');
    expect(await chat().textOf(chat().messages().nth(2))).toContain('canEditDocument');
    // The typed text is a plain message of the user's, not part of the template.
    const typed = chat().messages().nth(5);
    expect(await chat().textOf(typed)).toBe('function that sums the lines of a cart');
    expect(await typed.locator('[data-testid="prompt-chip"]').count()).toBe(0);
    // The model got the examples too: the request counted far more than the typed text's few tokens.
    const tokens = await chat().lastAnswer().locator('[data-testid="message-tokens"]').getAttribute('title');
    expect(Number(/^(\d+) prompt/.exec(tokens ?? '')?.[1])).toBeGreaterThan(50);
    await session.workbench.screenshot('prompt-few-shot-path');
  });

  it('offers distinct sample prompts described in plain words, and New Prompt\'s sample describes what it does, not its name', async () => {
    const { page } = session.workbench;
    await session.workbench.runCommand('Arbor: New Prompt');
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ timeout: 10_000 });
    await box.fill('ask-docs');
    await box.press('Enter');
    await session.workbench.tab('ask-docs.md').first().waitFor({ timeout: 20_000 });
    const written = await readFile(path.join(workspace(), 'prompts/user/ask-docs.md'), 'utf8');
    const description = /^description: (.*)$/m.exec(written)?.[1] ?? '';
    expect(description).toBe('Answer a question with code found in this workspace.');

    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const input = chat().input();
    const options = chat().frame.locator('[data-testid="prompt-option"]');
    // The library reloads after the new file: type the trigger again until the menu lists it.
    await expect
      .poll(
        async () => {
          await input.fill('');
          await input.pressSequentially('/');
          return options.filter({ hasText: '/ask-docs' }).count();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(1);
    const names = await options.locator('.popup-label').allTextContents();
    const details = await options.locator('.popup-detail').allTextContents();
    await session.workbench.screenshot('prompt-menu-samples');
    await input.fill('');
    // The menu shows each prompt once, the old near-copies are gone, and no description shows Markdown.
    expect(details).toHaveLength(names.length);
    expect(names).toEqual(expect.arrayContaining(['/ask-about-files', '/check-conventions', '/explain-code', '/review', '/summarize-diff', '/test-cases', '/few-shot-naming', '/ask-docs']));
    expect(names).not.toContain('/explain');
    expect(names).not.toContain('/review-with-context');
    expect(new Set(names).size).toBe(names.length);
    for (const text of details) expect(text).not.toMatch(/[`*_]/);
  });
});
