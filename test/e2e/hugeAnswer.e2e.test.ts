import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Model output may be huge (issue 22, section 6): a 300 KB table streamed by the fake model
 * (`[[huge]]`) shows as plain text with a Render button, whole, and the chat answers at once.
 */
describe('a huge answer', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('shows as plain text with a Render button, and the composer still takes typing right after', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().send('[[huge]] a table please');
    const answer = chat().lastAnswer();
    const content = answer.locator('[data-testid="message-content"]');
    await content.locator('[data-testid="render-markdown"]').waitFor({ timeout: 120_000 });
    await chat().waitIdle(120_000);
    expect(await content.locator('[data-testid="plain-answer-note"]').textContent()).toContain('shown as plain text');
    const text = (await content.locator('[data-testid="plain-text"]').textContent()) ?? '';
    expect(text).toContain('Huge:');
    expect(text.trimEnd().endsWith('END-OF-HUGE')).toBe(true);
    // No table was built from it.
    expect(await content.locator('table').count()).toBe(0);

    const input = chat().input();
    await input.click();
    await input.pressSequentially('still typing');
    await expect.poll(() => input.inputValue(), { timeout: 10_000 }).toBe('still typing');
    await session.workbench.screenshot('huge-answer-plain-text');
  });
});
