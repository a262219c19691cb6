import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Branch from Here continues from the chosen message in a new branch: the chat shows the path up to
 * it with a banner and Cancel, and the next message never makes two user messages follow each other,
 * an answer the sibling of a question, or an empty chat. The tree tells the branches apart.
 */
describe('Branch from Here', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const echo = (text: string) => `[arbor-test-model] Echo: ${text}`;
  const roles = () => chat().messages().evaluateAll((els) => els.map((el) => el.getAttribute('data-role')));
  const banner = () => chat().byTestId('branch-banner');
  const inputIsFocused = () => chat().input().evaluate((el) => (el.getRootNode() as unknown as { activeElement: unknown }).activeElement === el);

  const ask = (text: string) => chat().ask(text, echo(text));

  it('on an answer: shows the path up to it with a banner, and the next message is a new follow-up beside the others', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await ask('How does the cache work?');
    await ask('Explain the eviction in detail');

    const firstAnswer = chat().messagesOf('assistant').first();
    await firstAnswer.hover();
    await firstAnswer.locator('[data-testid="branch-here"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(2);
    await banner().waitFor({ state: 'visible', timeout: 15_000 });
    expect(await chat().byTestId('branch-banner-text').textContent()).toBe(`New branch from ‹${echo('How does the cache work?')}›`);
    await expect.poll(inputIsFocused, { timeout: 10_000 }).toBe(true);
    await session.workbench.screenshot('branch-from-here-banner');

    await ask('Explain the eviction briefly');
    expect(await roles()).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await chat().messagesOf('user').last().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
    expect(await banner().isVisible()).toBe(false);
  });

  it('on a question: starts a new version of it from its text, and Cancel goes back to where the reader was', async () => {
    const question = chat().messagesOf('user').first();
    await question.hover();
    await question.locator('[data-testid="branch-here"]').click();
    // Never an empty chat: the question stays in view, and the composer starts from its text.
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(1);
    await banner().waitFor({ state: 'visible', timeout: 15_000 });
    expect(await chat().byTestId('branch-banner-text').textContent()).toBe('New branch from ‹How does the cache work?›: your message replaces it');
    await expect.poll(() => chat().input().inputValue(), { timeout: 10_000 }).toBe('How does the cache work?');

    await chat().byTestId('branch-cancel').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(4);
    expect(await chat().textOf(chat().messagesOf('user').last())).toBe('Explain the eviction briefly');
    expect(await banner().isVisible()).toBe(false);

    await question.hover();
    await question.locator('[data-testid="branch-here"]').click();
    await banner().waitFor({ state: 'visible', timeout: 15_000 });
    await ask('How does the cache work under load?');
    expect(await roles()).toEqual(['user', 'assistant']);
    expect(await chat().messagesOf('user').first().locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
  });

  it('from the tree: tells sibling branches apart by the words that differ, and branches from a question there', async () => {
    const { workbench } = session;
    // Back on the first question's branch, where the follow-ups fork.
    await chat().messagesOf('user').first().locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(4);

    await workbench.openArborView();
    const conversation = workbench.treeRow('How does the cache work?').first();
    await conversation.waitFor({ timeout: 15_000 });
    await workbench.expand(conversation);
    // The two first questions share their first words: each row shows what follows them.
    await workbench.treeRow('You: …work under load?').first().waitFor({ timeout: 15_000 });
    const opening = workbench.treeRow(/^You: …work\?/).first();
    await workbench.expand(opening);
    const detail = workbench.treeRow('You: …in detail').first();
    const brief = workbench.treeRow('You: …briefly').first();
    await detail.waitFor({ timeout: 15_000 });
    expect(await brief.textContent()).toContain('just now');
    // The full question is in the row's hover.
    await workbench.hoverFor(detail, 'You: Explain the eviction in detail');
    await workbench.screenshot('branch-labels-in-tree');

    await detail.click({ button: 'right' });
    await workbench.pickMenuItem('Branch from Here');
    await banner().waitFor({ state: 'visible', timeout: 15_000 });
    expect(await chat().byTestId('branch-banner-text').textContent()).toContain('‹Explain the eviction in detail›');
    await expect.poll(() => chat().messages().count(), { timeout: 15_000 }).toBe(3);
    await chat().input().fill('');
    await ask('Explain the eviction with an example');
    expect(await roles()).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await chat().messagesOf('user').last().locator('[data-testid="sibling-label"]').textContent()).toBe('3/3');
  });
});
