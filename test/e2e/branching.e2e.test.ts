import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * `‹ n/m ›` returns to where the reader was: after visiting the older of two follow-ups under an
 * answer, going over to the other answer and back reopens that follow-up, not the newest one.
 */
describe('branch switching remembers where the reader was', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const echo = (text: string, model = 'arbor-test-model') => `[${model}] Echo: ${text}`;

  it('reopens the follow-up last viewed under an answer when switching back to it', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().send('Where do trees grow?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('Where do trees grow?'));
    await chat().waitIdle();

    // A second answer to the same question, from another model: answers 1/2 and 2/2.
    const answer = chat().messagesOf('assistant').first();
    await answer.hover();
    await answer.locator('[data-testid="regenerate-model"]').click();
    await chat().frame.locator('[data-testid="model-option"]', { hasText: 'arbor-test-model-2' }).first().click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('Where do trees grow?', 'arbor-test-model-2'));
    await chat().waitIdle();

    // Two follow-ups under the second answer: "Oaks?" and then, edited, "Pines?" (the newest).
    await chat().send('Oaks?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('Oaks?'));
    await chat().waitIdle();
    const followUp = chat().messagesOf('user').last();
    await followUp.hover();
    await followUp.locator('[data-testid="edit"]').click();
    const editor = followUp.locator('[data-testid="edit-input"] textarea');
    await editor.fill('Pines?');
    await editor.press('Enter');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('Pines?'));
    await chat().waitIdle();

    // The reader goes back to "Oaks?" (1/2) ...
    await chat().messagesOf('user').last().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(chat().messagesOf('user').last()), { timeout: 15_000 }).toBe('Oaks?');
    // ... then over to the first answer, and back to the second.
    await chat().messagesOf('assistant').first().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(2);
    await chat().messagesOf('assistant').first().locator('[data-testid="sibling-next"]').click();
    // Back where they were: "Oaks?" and its answer, not the newest follow-up "Pines?".
    await expect.poll(() => chat().textOf(chat().messagesOf('user').last()), { timeout: 15_000 }).toBe('Oaks?');
    expect(await chat().textOf(chat().lastAnswer())).toBe(echo('Oaks?'));
    expect(await chat().messagesOf('user').last().locator('[data-testid="sibling-label"]').textContent()).toBe('1/2');
  });

  it('keeps the list in order of the last message: switching branches does not move a conversation to the top', async () => {
    const { workbench } = session;
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().send('A newer conversation');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(echo('A newer conversation'));
    await chat().waitIdle();
    await workbench.openArborView();
    const topRow = () => workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]').first();
    await expect.poll(async () => (await topRow().textContent()) ?? '', { timeout: 15_000 }).toContain('A newer conversation');

    // Back in the first conversation, the reader switches answers: reading is not news.
    await workbench.tab('Where do trees grow?').first().click();
    await chat().messagesOf('assistant').first().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await topRow().textContent()).toContain('A newer conversation');
  });

  it('forks a conversation into a new one with this branch (the default) or with all branches', async () => {
    const { workbench } = session;
    await workbench.openArborView();
    const forkWith = async (choice: string) => {
      const source = workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]', { hasText: /^Where do trees grow\?(?! \(fork\))/ }).first();
      await source.click({ button: 'right' });
      await workbench.pickMenuItem('Fork into New Conversation');
      const option = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: choice }).first();
      await option.waitFor({ timeout: 10_000 });
      await option.click();
    };
    const forks = () => workbench.page.locator('.part.sidebar .pane-body [role="treeitem"][aria-level="1"]', { hasText: 'Where do trees grow? (fork)' });
    // The reader is on the first answer (left there by the test before): this branch is the question and that answer.
    await forkWith('This branch');
    await expect.poll(() => forks().count(), { timeout: 15_000 }).toBe(1);
    expect(await forks().first().textContent()).toContain('2 messages');
    await forkWith('All branches');
    await expect.poll(() => forks().count(), { timeout: 15_000 }).toBe(2);
    const counts = await forks().allTextContents();
    expect(counts.some((t) => t.includes('7 messages'))).toBe(true);
  });
});
