import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/** The parts of a DOM element these tests read in the page (the test files compile without DOM types). */
interface Box {
  offsetHeight: number;
  offsetWidth: number;
  scrollHeight: number;
  clientHeight: number;
  clientWidth: number;
  children: ArrayLike<Box>;
  getBoundingClientRect(): { top: number; height: number; left: number; right: number };
  querySelector(selector: string): Box | null;
}
declare function getComputedStyle(el: Box): { lineHeight: string; display: string; transform: string; paddingTop: string; paddingBottom: string };

/**
 * The chat's own pieces in a real VS Code: the message box growing with its text, a header that
 * stays one line in a narrow editor, the thinking section's chevron, Insert at cursor, a `#file`
 * attachment fenced with its language, and Ask About Selection with nothing selected.
 */
describe('the composer, the header and answers', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const scratch = 'insert-target.ts';

  afterAll(async () => {
    await rm(path.join(session.env.workspace, scratch), { force: true });
  });

  /** Opens a workspace file in an editor with Go to File. */
  async function openFile(name: string): Promise<void> {
    const { page } = session.workbench;
    await session.workbench.runCommand('Go to File');
    await page.keyboard.type(name);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.part.editor .tab.active', { hasText: name }).first().waitFor({ timeout: 15_000 });
  }

  it('grows the message box with its text up to about 12 lines, then scrolls', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const input = chat().input();
    const size = () =>
      input.evaluate((el: Box) => {
        const style = getComputedStyle(el);
        return { height: el.offsetHeight, scroll: el.scrollHeight, client: el.clientHeight, padding: parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) };
      });
    await input.click();
    const empty = await size();
    // The box starts three lines high; a line is a third of its inner height then.
    const line = (empty.client - empty.padding) / 3;
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');
    await input.fill(lines(8));
    const eight = await size();
    // Eight lines are taller than the three the box starts with, and all of them show.
    expect(eight.height).toBeGreaterThan(empty.height + 3 * line);
    expect(eight.scroll).toBeLessThanOrEqual(eight.client + 1);
    await input.fill(lines(30));
    const thirty = await size();
    // Thirty lines stop at about twelve, and the rest scrolls.
    expect(thirty.height).toBeGreaterThan(11.5 * line);
    expect(thirty.height).toBeLessThan(13 * line);
    expect(thirty.scroll).toBeGreaterThan(thirty.client);
    await session.workbench.screenshot('composer-grown-to-twelve-lines');
    // Typing grows it as well (not only a filled value), and sending shrinks it back.
    await input.fill('');
    for (let i = 0; i < 5; i++) await input.press('Shift+Enter');
    expect((await size()).height).toBeGreaterThan(empty.height);
    await input.fill('a grown question');
    await input.press('Enter');
    await expect.poll(async () => (await size()).height, { timeout: 15_000 }).toBe(empty.height);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('a grown question');
    await chat().waitIdle();
  });

  it('shows thinking under a codicon chevron that turns when opened', async () => {
    await chat().send('[[think]] short question');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('short question');
    await chat().waitIdle();
    const summary = chat().lastAnswer().locator('[data-testid="thinking-summary"]');
    await summary.waitFor({ timeout: 15_000 });
    const chevron = summary.locator('.codicon-chevron-right');
    expect(await chevron.count()).toBe(1);
    // The browser's own triangle is gone: the summary is not a list item.
    expect(await summary.evaluate((el: Box) => getComputedStyle(el).display)).toBe('flex');
    expect(await chevron.evaluate((el: Box) => getComputedStyle(el).transform)).toBe('none');
    await summary.click();
    await expect.poll(() => chevron.evaluate((el: Box) => getComputedStyle(el).transform), { timeout: 5_000 }).not.toBe('none');
    await session.workbench.screenshot('thinking-open-with-chevron');
  });

  it('keeps the header on one line in a narrow editor', async () => {
    const { page } = session.workbench;
    await page.setViewportSize({ width: 900, height: 900 });
    try {
      // The chat beside an editor: half of what the sidebar leaves.
      await session.workbench.runCommand('View: Split Editor Right');
      const header = chat().frame.locator('.chat-header');
      await header.waitFor({ timeout: 15_000 });
      const layout = await header.evaluate((el: Box) => {
        const shown = Array.from(el.children).filter((c) => c.offsetWidth > 0);
        const model = el.querySelector('.chat-model') as Box;
        const line = parseFloat(getComputedStyle(el).lineHeight) || 18;
        return {
          width: el.clientWidth,
          tops: shown.map((c) => Math.round(c.getBoundingClientRect().top)),
          heights: shown.map((c) => c.getBoundingClientRect().height),
          modelHeight: model.getBoundingClientRect().height,
          right: el.getBoundingClientRect().right,
          cost: (el.querySelector('[data-testid="total-cost"]') as Box).getBoundingClientRect(),
          line,
        };
      });
      await session.workbench.screenshot('chat-header-half-width');
      expect(layout.width).toBeLessThan(450);
      // Every item sits on the one line, none of them wrapped onto a second.
      expect(Math.max(...layout.tops) - Math.min(...layout.tops)).toBeLessThan(layout.line / 2);
      for (const height of layout.heights) expect(height).toBeLessThan(1.5 * layout.line);
      expect(layout.modelHeight).toBeLessThan(1.5 * layout.line);
      // The cost is whole and inside the header: the other items gave way.
      expect(layout.cost.right - layout.cost.left).toBeGreaterThan(20);
      expect(layout.cost.right).toBeLessThanOrEqual(layout.right);
    } finally {
      await session.workbench.runCommand('View: Join All Editor Groups');
      await page.setViewportSize({ width: 1400, height: 900 });
    }
  });

  it('inserts exactly the code block at the cursor, without an extra line', async () => {
    const file = path.join(session.env.workspace, scratch);
    await writeFile(file, '');
    await openFile(scratch);
    const { page } = session.workbench;
    await page.locator('.part.editor .monaco-editor .view-lines').first().click();
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().send('Insert this\n```ts\nconst inserted = 1;\n```');
    const block = chat().lastAnswer().locator('[data-testid="code-block"]');
    await block.first().waitFor({ timeout: 30_000 });
    await chat().waitIdle();
    await block.first().locator('[data-testid="insert-code"]').click();
    // Insert shows the editor it wrote to; save it and read the file.
    await page.locator('.part.editor .tab.active', { hasText: scratch }).first().waitFor({ timeout: 15_000 });
    await page.locator('.part.editor .view-lines', { hasText: 'const inserted' }).first().waitFor({ timeout: 15_000 });
    // Insert leaves the focus in that editor: save it from there.
    await page.keyboard.press('Control+S');
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 15_000 }).toBe('const inserted = 1;');
  });

  it('fences a #file attachment with its language', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await chat().byTestId('attach-file').click();
    const query = chat().byTestId('file-query');
    await query.waitFor({ timeout: 15_000 });
    await query.fill('format');
    const option = chat().byTestId('file-option').filter({ hasText: 'src/format.ts' }).first();
    await option.waitFor({ timeout: 15_000 });
    await option.click();
    await chat().byTestId('attachment').first().waitFor({ timeout: 15_000 });
    await chat().send('What is in this file?');
    // The fake model echoes what it got: the message with the file in a block fenced as typescript.
    const block = chat().lastAnswer().locator('[data-testid="code-block"]').first();
    await block.waitFor({ timeout: 30_000 });
    await chat().waitIdle();
    expect(((await block.locator('.code-language').textContent()) ?? '').trim()).toBe('typescript');
  });

  it('attaches the whole file on Ctrl+Alt+A with nothing selected', async () => {
    const { page } = session.workbench;
    await openFile('cart.ts');
    await page.locator('.part.editor .view-lines', { hasText: 'subtotalCents' }).first().click();
    // A click leaves the caret with no selection.
    await page.keyboard.press('Control+Alt+A');
    const attachment = chat().byTestId('attachment').first();
    await attachment.waitFor({ timeout: 30_000 });
    expect(((await attachment.textContent()) ?? '').trim()).toBe('src/cart.ts');
  });
});
