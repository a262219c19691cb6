import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** A model server that fails: the chat shows the provider's message inline with Retry, and keeps working. */
describe('a failing model request', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('shows the error inline with Retry, and the next message is answered', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().send('[[error]] please fail');
    const error = chat().byTestId('error').last();
    await error.waitFor({ timeout: 30_000 });
    // The provider's own message reaches the person (the fake server says why it failed).
    expect(await error.textContent()).toContain('failed on purpose');
    await chat().byTestId('retry').last().waitFor({ timeout: 10_000 });
    await chat().waitIdle();

    await chat().send('Are you back?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: Are you back?');
    await chat().waitIdle();

    // The message sent after the failure is a new version of the unanswered one, never a second
    // question in a row; the failed one is still there, with its error and Retry.
    const roles = () => chat().messages().evaluateAll((els) => els.map((el) => el.getAttribute('data-role')));
    expect(await roles()).toEqual(['user', 'assistant']);
    const question = chat().messagesOf('user').first();
    expect(await question.locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
    await question.locator('[data-testid="sibling-prev"]').click();
    await expect.poll(() => chat().textOf(chat().messagesOf('user').first()), { timeout: 15_000 }).toBe('[[error]] please fail');
    expect(await roles()).toEqual(['user']);
    const kept = chat().messagesOf('user').first();
    expect(await kept.locator('[data-testid="error"]').textContent()).toContain('failed on purpose');
    await kept.locator('[data-testid="retry"]').waitFor({ timeout: 10_000 });
  });
});
