/**
 * Answers that froze the chat webview (issue 22, section 6): huge, deeply nested or full of Markdown
 * marks, in a `state` and streamed. These check what the page shows, never how long it took (the
 * benchmark, bench/pathologicalAnswers.ts, measures that).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chatState, message } from './fixtures';
import { postToWebview } from './harness';
import { useWebviewPages } from './pages';
import { END, bigTable, deepList, deltas, emphasisRun, openBrackets, ordinaryAnswer } from './pathological';

const { open } = useWebviewPages();

const question = message('0', 'user', 'Show me everything');
const answer = (content: string) => message('0.0', 'assistant', content, { model: 'llama3.2' });
const shown = (p: Page) => p.locator('[data-node-id="0.0"] [data-testid=message-content]');

/** The text of an element as written in the page, without the note above a plain answer. */
async function textOf(p: Page, selector: string): Promise<string> {
  return p.evaluate((s) => {
    const element = (globalThis as any).document.querySelector(s);
    return element ? String(element.querySelector('[data-testid=plain-text]')?.textContent ?? element.textContent) : '';
  }, selector);
}

async function stream(p: Page, text: string): Promise<void> {
  await postToWebview(p, { type: 'state', state: chatState([question], { busy: true }) });
  await postToWebview(p, { type: 'streamStart', requestId: 'r1', parentNodeId: '0', model: 'llama3.2' });
  await p.locator('[data-testid=message][data-streaming=true]').waitFor();
  // One task per delta, as the host's messages arrive, then the end of the stream.
  await p.evaluate(
    (parts) =>
      new Promise<void>((resolve) => {
        const g = globalThis as any;
        let i = 0;
        const next = (): void => {
          if (i < parts.length) {
            g.postMessage({ type: 'streamDelta', requestId: 'r1', delta: parts[i++] }, '*');
            setTimeout(next, 0);
            return;
          }
          g.postMessage({ type: 'streamDone', requestId: 'r1' }, '*');
          resolve();
        };
        next();
      }),
    deltas(text),
  );
}

// The machine is shared: generous limits, since these check what is shown, not how fast.
describe('pathological answers', { timeout: 300_000 }, () => {
  it('shows a 1 MB answer as plain text with a Render button, and Render renders it as Markdown', async () => {
    const p = await open();
    const text = ordinaryAnswer();
    await postToWebview(p, { type: 'state', state: chatState([question, answer(text)]) });
    await shown(p).locator('[data-testid=plain-answer]').waitFor({ timeout: 60_000 });
    expect(await shown(p).locator('[data-testid=plain-answer-note]').textContent()).toContain('1.0 MB');
    expect(await textOf(p, '[data-node-id="0.0"] [data-testid=message-content]')).toBe(text);
    expect(await shown(p).locator('h2').count()).toBe(0);

    await shown(p).locator('[data-testid=render-markdown]').click();
    await expect.poll(() => shown(p).locator('h2').first().textContent(), { timeout: 60_000 }).toBe('Step 0');
    expect(await shown(p).locator('[data-testid=plain-answer]').count()).toBe(0);
    // The rest renders in short slices after the click, the page answering in between.
    await expect.poll(() => shown(p).locator('[data-testid=block-pending]').count(), { timeout: 240_000 }).toBe(0);
    expect(await shown(p).locator('[data-testid=code-block]').first().locator('[data-testid=apply-code]').count()).toBe(1);
    expect(await shown(p).locator('[data-testid=plain-block]').count()).toBe(0);
    expect(await shown(p).textContent()).toContain(END);
  });

  it('keeps every character of a list nested 2,000 deep, without an error', async () => {
    const p = await open();
    const text = deepList();
    await postToWebview(p, { type: 'state', state: chatState([question, answer(text)]) });
    await shown(p).waitFor();
    await expect.poll(() => textOf(p, '[data-node-id="0.0"] [data-testid=message-content]'), { timeout: 60_000 }).toBe(text);
    expect(await shown(p).locator('[data-testid=plain-block]').getAttribute('title')).toContain('nested too deep');
  });

  for (const [name, make] of [
    ['a 400×300 table', bigTable],
    ['*a × 20,000', emphasisRun],
    ['a list nested 2,000 deep', deepList],
    ['[ × 10,000', openBrackets],
  ] as const) {
    it(`streams ${name} in 200 deltas and ends with the complete text shown`, async () => {
      const p = await open();
      const text = make();
      await stream(p, text);
      const bubble = '[data-request-id=r1] [data-testid=message-content]';
      await expect.poll(() => textOf(p, bubble), { timeout: 60_000 }).toContain(END);
      const whole = (await textOf(p, bubble)).replace(/\s+/g, '');
      expect(whole).toBe(text.replace(/\s+/g, ''));
      // The answer stored afterwards renders the same way from a state.
      await postToWebview(p, { type: 'state', state: chatState([question, answer(text)]) });
      await expect.poll(() => textOf(p, '[data-node-id="0.0"] [data-testid=message-content]')
        .then((t) => t.replace(/\s+/g, '')), { timeout: 60_000 }).toBe(text.replace(/\s+/g, ''));
    });
  }

  it('streams a 1 MB answer into plain text that ends with a Render button', async () => {
    const p = await open();
    const text = ordinaryAnswer();
    await stream(p, text);
    const bubble = p.locator('[data-request-id=r1] [data-testid=message-content]');
    await bubble.locator('[data-testid=render-markdown]').waitFor({ timeout: 60_000 });
    expect(await textOf(p, '[data-request-id=r1] [data-testid=message-content]')).toBe(text);
  });

  it('still renders an ordinary answer as Markdown, with highlighted code blocks and their buttons', async () => {
    const p = await open();
    const text = 'Steps:\n\n1. Read the **config**\n2. See [the docs](https://example.com/lru)\n\n| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n```ts\nconst cache = new Map<string, number>();\n```\n';
    await postToWebview(p, { type: 'state', state: chatState([question, answer(text)]) });
    const content = shown(p);
    await content.locator('[data-testid=code-block]').waitFor();
    expect(await content.locator('ol li').count()).toBe(2);
    expect(await content.locator('strong').textContent()).toBe('config');
    expect(await content.locator('a').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await content.locator('td.align-center').textContent()).toBe('1');
    expect(await content.locator('[data-testid=code-block] .hljs-keyword').first().textContent()).toBe('const');
    for (const id of ['copy-code', 'insert-code', 'apply-code']) expect(await content.locator(`[data-testid=${id}]`).count()).toBe(1);
    expect(await content.locator('[data-testid=plain-block], [data-testid=plain-answer], [data-testid=block-pending]').count()).toBe(0);
  });

  it('renders a long ordinary answer block by block, every block as Markdown', async () => {
    const p = await open();
    const text = ordinaryAnswer(60_000);
    await postToWebview(p, { type: 'state', state: chatState([question, answer(text)]) });
    await expect.poll(() => shown(p).locator('[data-testid=block-pending]').count(), { timeout: 60_000 }).toBe(0);
    const steps = text.match(/^## /gm)?.length ?? 0;
    expect(await shown(p).locator('h2').count()).toBe(steps);
    expect(await shown(p).locator('[data-testid=code-block]').count()).toBe(steps);
    expect(await shown(p).locator('[data-testid=plain-block]').count()).toBe(0);
  });
});
