import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** Model output is untrusted: an answer carrying HTML and script shows as text and nothing of it runs. */
describe('an answer that tries to inject HTML', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('renders inert: no script runs, no image handler fires, Markdown still renders', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().send('[[xss]] show me something');
    const answer = chat().lastAnswer();
    await expect.poll(() => chat().textOf(answer), { timeout: 30_000 }).toContain('bold');
    await chat().waitIdle();
    // Give an onerror handler every chance to fire before looking.
    await session.workbench.page.waitForTimeout(1000);

    const content = answer.locator('[data-testid="message-content"]');
    expect(await content.locator('script').count()).toBe(0);
    expect(await content.locator('img[onerror]').count()).toBe(0);
    expect(await content.locator('[onerror]').count()).toBe(0);
    expect(await content.locator('strong', { hasText: 'bold' }).count()).toBe(1);
    // The page's body carries no mark of the payload having run.
    expect(await chat().frame.locator('body').getAttribute('data-pwned')).toBeNull();
  });
});
