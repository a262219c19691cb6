import { describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** Ask About Selection: from code in an editor to a chat that has that code attached. */
describe('Ask About Selection from an editor', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);

  it('opens a chat with the selection, its file and line range attached, and asks about it', async () => {
    const { page } = session.workbench;
    await session.workbench.runCommand('Go to File');
    await page.keyboard.type('cart.ts');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'cart.ts' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    const editor = page.locator('.part.editor .monaco-editor').first();
    await editor.waitFor({ timeout: 15_000 });
    await page.locator('.part.editor .view-lines', { hasText: 'subtotalCents' }).first().waitFor({ timeout: 15_000 });

    // Select lines 22 to 25 (subtotalCents) with the keyboard: Go to Line, then extend down.
    await session.workbench.runCommand('Go to Line/Column');
    await page.keyboard.type('22');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowDown');

    await session.workbench.runCommand('Arbor: Ask About Selection');
    const attachment = chat().frame.locator('[data-testid="attachment"]', { hasText: 'cart.ts' }).first();
    await attachment.waitFor({ timeout: 30_000 });
    // Lines 22 to 25 (a selection ending at the start of line 26 may count that line too).
    expect(await attachment.textContent()).toMatch(/src\/cart\.ts:22-2[56]/);

    await chat().send('What does this function do?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('What does this function do?');
    await chat().waitIdle();
    // The selected code went to the model with the message (the fake model echoes what it got).
    expect(await chat().textOf(chat().lastAnswer())).toContain('subtotalCents');
    // Only the selected lines went, not the whole file: the next function (line 27 on) is not in it.
    expect(await chat().textOf(chat().lastAnswer())).not.toContain('The total after an optional discount');
    expect(await chat().messagesOf('user').last().locator('[data-testid="chip"], [data-testid="attachment"]', { hasText: 'cart.ts' }).count()).toBeGreaterThan(0);
  });
});
