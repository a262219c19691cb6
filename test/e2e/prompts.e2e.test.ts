import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * A workspace prompt with retrieval: `/review` from sample-workspace/prompts/user/review.md renders its
 * template with the `code` parameter and fills `{{RAG_CONTENT}}` from the workspace index.
 */
describe('a workspace prompt with retrieval', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('is picked from the / menu, asks for its parameter, and answers with workspace code as context', async () => {
    const { page } = session.workbench;
    // Index the workspace first and wait for the result, as a person would after opening a project.
    await session.workbench.runCommand('Arbor: Reindex Workspace');
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Arbor indexed the workspace' }).first().waitFor({ timeout: 60_000 });
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const input = chat().input();
    const option = chat().frame.locator('[data-testid="prompt-option"]', { hasText: 'with the related workspace code' }).first();
    // The library loads in the background after the chat opens: type the trigger again until it has.
    await expect
      .poll(
        async () => {
          await input.fill('');
          await input.pressSequentially('/review');
          return option.isVisible();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(true);
    await option.click();

    const param = chat().frame.locator('[data-testid="prompt-param"][data-name="code"]');
    await param.waitFor({ timeout: 10_000 });
    expect(await chat().byTestId('prompt-form-name').textContent()).toBe('/review');
    await param.fill('subtotalCents(lines)');
    await input.click();
    await input.press('Enter');

    // The fake model echoes what it got: the rendered template, with the parameter filled in.
    const answer = chat().lastAnswer();
    await expect.poll(() => chat().textOf(answer), { timeout: 60_000 }).toContain('Review this code for bugs');
    await chat().waitIdle();
    const text = await chat().textOf(chat().lastAnswer());
    expect(text).toContain('subtotalCents(lines)');
    // Retrieval put workspace code into the prompt and shows where it came from as chips.
    expect(text).toContain('unitPriceCents');
    const chips = chat().frame.locator('[data-testid="chip"]', { hasText: 'cart.ts' });
    await expect.poll(() => chips.count(), { timeout: 15_000 }).toBeGreaterThan(0);
  });
});
