import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** What the fake model server was sent: every chat request's raw body, as the server received it. */
async function sentBodies(port: number): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  const requests = (await response.json()) as Array<{ rawBody: string }>;
  return requests.map((r) => r.rawBody);
}

/**
 * Bookmarks and notes (display only): set in the chat and in the tree, shown in both, listed by Go
 * to Bookmark across conversations, exported in Markdown, and never part of what the model is sent.
 * Then several conversations are deleted at once from the tree, with one confirmation.
 */
describe('bookmarks and notes', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const question = 'Which conifer loses its needles?';
  const followUp = 'And which one stays green?';
  const note = 'NOTE-check the field guide before the talk';
  const echo = (text: string) => `[arbor-test-model] Echo: ${text}`;
  const exported = () => path.join(session.env.workspace, 'conifers.md');

  afterAll(async () => {
    await rm(exported(), { force: true });
  });

  async function ask(text: string): Promise<void> {
    await chat().send(text);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo(text));
    await chat().waitIdle();
  }

  /** The tree row of this test's conversation's messages (one run: no fork). */
  const runRow = () => session.workbench.treeRow(`You: ${question}`).first();

  it('bookmarks an answer and notes a question in the chat; both show in the chat and in the tree', async () => {
    const { workbench } = session;
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask(question);
    await ask(followUp);

    const answer = chat().messagesOf('assistant').first();
    await answer.hover();
    await answer.locator('[data-testid="bookmark"]').click();
    await expect.poll(() => answer.getAttribute('data-bookmarked'), { timeout: 15_000 }).toBe('true');

    const first = chat().messagesOf('user').first();
    await first.hover();
    await first.locator('[data-testid="add-note"]').click();
    await first.locator('[data-testid="note-input"] textarea').fill(note);
    await first.locator('[data-testid="note-save"]').click();
    await expect.poll(async () => (await first.locator('[data-testid="note-text"]').textContent()) ?? '', { timeout: 15_000 }).toBe(note);

    await workbench.openArborView();
    const conversation = workbench.treeRow(question).first();
    await conversation.waitFor({ timeout: 15_000 });
    await workbench.expand(conversation);
    await expect.poll(async () => (await runRow().textContent()) ?? '', { timeout: 15_000 }).toContain('1 bookmark');
    expect(await runRow().textContent()).toContain(`note: ${note.slice(0, 20)}`);
    await workbench.screenshot('bookmarks-and-notes-in-chat-and-tree');
  });

  it('never sends a note to the model: the next request carries the messages but not the note', async () => {
    await ask('Tell me one more thing');
    const bodies = await sentBodies(session.env.fakeLlmPort);
    const last = bodies.filter((body) => body.includes('Tell me one more thing'));
    expect(last).toHaveLength(1);
    expect(last[0]).toContain(question);
    expect(last[0]).toContain(echo(question));
    for (const body of bodies) expect(body).not.toContain(note);
  });

  it('edits the note and bookmarks the first message from the tree', async () => {
    const { workbench } = session;
    await runRow().click({ button: 'right' });
    await workbench.pickMenuItem('Edit Note…');
    const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ timeout: 10_000 });
    expect(await input.inputValue()).toBe(note);
    await input.fill(`${note} (edited)`);
    await input.press('Enter');
    const first = chat().messagesOf('user').first();
    await expect.poll(async () => (await first.locator('[data-testid="note-text"]').textContent()) ?? '', { timeout: 15_000 }).toBe(`${note} (edited)`);

    await runRow().click({ button: 'right' });
    await workbench.pickMenuItem(/^Bookmark$/);
    await expect.poll(() => first.getAttribute('data-bookmarked'), { timeout: 15_000 }).toBe('true');
    await expect.poll(async () => (await runRow().textContent()) ?? '', { timeout: 15_000 }).toContain('2 bookmarks');
    // Now the menu offers to remove it instead.
    await runRow().click({ button: 'right' });
    await workbench.page.locator('.context-view .monaco-menu .action-item', { hasText: 'Remove Bookmark' }).first().waitFor({ timeout: 10_000 });
    await workbench.page.keyboard.press('Escape');
  });

  it('Go to Bookmark lists bookmarks across conversations and opens the chat at the one picked', async () => {
    const { workbench } = session;
    // Another chat in front, with a bookmark of its own.
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('Is a spruce a fir?');
    const other = chat().messagesOf('user').first();
    await other.hover();
    await other.locator('[data-testid="bookmark"]').click();
    await expect.poll(() => other.getAttribute('data-bookmarked'), { timeout: 15_000 }).toBe('true');

    await workbench.runCommand('Arbor: Go to Bookmark');
    const rows = workbench.page.locator('.quick-input-widget .monaco-list-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    const texts = await rows.allTextContents();
    expect(texts.some((t) => t.includes('Is a spruce a fir?'))).toBe(true);
    expect(texts.some((t) => t.includes(question) && t.includes('(edited)'))).toBe(true);
    await rows.filter({ hasText: echo(question) }).first().click();

    await expect.poll(() => chat().messagesOf('user').first().textContent().then((t) => t ?? ''), { timeout: 15_000 }).toContain(question);
    const revealed = chat().frame.locator('[data-testid="message"].revealed');
    await expect.poll(() => revealed.getAttribute('data-role'), { timeout: 15_000 }).toBe('assistant');
    expect(await chat().textOf(revealed)).toBe(echo(question));
    expect(await revealed.getAttribute('data-bookmarked')).toBe('true');
  });

  it('exports the note in Markdown and marks the bookmarks', async () => {
    const { workbench } = session;
    await workbench.runCommand('Arbor: Export Conversation');
    await workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: question }).first().click();
    await workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Markdown' }).first().click();
    await workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Current branch' }).first().click();
    // VS Code's own save dialog (the simple one in code-server): type the path and accept.
    const input = workbench.page.locator('.quick-input-widget .quick-input-box input');
    await expect.poll(() => input.inputValue(), { timeout: 15_000 }).toMatch(/\.md$/);
    for (let attempt = 0; attempt < 5 && (await input.isVisible()); attempt++) {
      if ((await input.inputValue()) !== exported()) await input.fill(exported());
      await workbench.page.waitForTimeout(500);
      await input.press('Enter');
      await input.waitFor({ state: 'hidden', timeout: 2_000 }).catch(() => undefined);
    }
    await expect.poll(() => readFile(exported(), 'utf8').catch(() => ''), { timeout: 15_000 }).toContain(`> **Note:** ${note} (edited)`);
    const markdown = await readFile(exported(), 'utf8');
    expect(markdown.match(/· bookmarked_/g)).toHaveLength(2);
  });

  it('deletes several conversations selected in the tree with one confirmation', async () => {
    const { workbench } = session;
    for (const text of ['Throwaway one', 'Throwaway two']) {
      await workbench.runCommand('Arbor: New Conversation');
      // Until the new tab shows, the chat in view is the one before: a message typed then would go there.
      await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(0);
      await chat().waitReady();
      await ask(text);
    }
    await workbench.openArborView();
    const one = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]', { hasText: 'Throwaway one' }).first();
    const two = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]', { hasText: 'Throwaway two' }).first();
    await one.waitFor({ timeout: 15_000 });
    await two.waitFor({ timeout: 15_000 });
    await one.click();
    await two.click({ modifiers: ['Control'] });
    await expect.poll(() => one.getAttribute('aria-selected'), { timeout: 5_000 }).toBe('true');
    expect(await two.getAttribute('aria-selected')).toBe('true');
    const dialog = workbench.page.locator('.monaco-dialog-box');
    // A context menu can close without running what was clicked (the tree redrawing under it): open it again until the dialog shows.
    for (let attempt = 0; attempt < 4 && !(await dialog.isVisible()); attempt++) {
      await two.click({ button: 'right' });
      await workbench.pickMenuItem(/^Delete$/).catch(() => undefined);
      await dialog.waitFor({ timeout: 10_000 }).catch(() => undefined);
    }
    await dialog.waitFor({ timeout: 5_000 });
    expect(await dialog.textContent()).toContain('Delete 2 conversations?');
    expect(await dialog.textContent()).toContain('"Throwaway one"');
    await workbench.screenshot('bulk-delete-confirmation');
    await dialog.locator('.monaco-button', { hasText: /^Delete$/ }).first().click();
    await expect.poll(() => workbench.treeRow(/Throwaway (one|two)/).count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => workbench.tab(/Throwaway/).count(), { timeout: 15_000 }).toBe(0);
    // The bookmarked conversation is still there.
    expect(await workbench.treeRow(question).count()).toBeGreaterThan(0);
  });
});
