/**
 * Ask Several Models in the chat webview (real Chromium, the esbuild bundle): ticking models sends
 * `sendSeveral`, the answers stream side by side with a failed column keeping its error, and a run's
 * answers offer Compare and Merge.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { FromWebview, SeveralView } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { clearPosted, postToWebview, waitForPosted } from './harness';
import { useWebviewPages } from './pages';

const { open } = useWebviewPages();
const input = (p: Page) => p.locator('[data-testid=composer-input] textarea');
const ofType = <T extends FromWebview['type']>(type: T) => (m: FromWebview) => m.type === type;

describe('Ask Several Models in the webview', () => {
  it('sends the ticked models in the order ticked, then streams each into its own column', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await postToWebview(p, { type: 'models', models: ['llama3.2', 'qwen2.5-coder', 'phi4'], current: 'llama3.2' });
    await p.locator('[data-testid=several-toggle]').click();
    await p.locator('[data-testid=several-option][data-model=phi4]').click();
    await p.locator('[data-testid=several-option][data-model="llama3.2"]').click();
    expect(await p.locator('[data-testid=several-option][data-model=phi4]').getAttribute('aria-checked')).toBe('true');
    expect(await p.locator('[data-testid=several-count]').textContent()).toBe('2');
    await input(p).fill('Which sort is stable?');
    await input(p).press('Enter');
    const sent = (await waitForPosted(p, ofType('sendSeveral'))) as Extract<FromWebview, { type: 'sendSeveral' }>;
    expect(sent).toMatchObject({ text: 'Which sort is stable?', attachments: [], models: ['phi4', 'llama3.2'] });
    // One-shot: the ticks clear once sent.
    expect(await p.locator('[data-testid=several-count]').textContent()).toBe('');

    const requestId = sent.requestId;
    await postToWebview(p, { type: 'severalStart', requestId, parentNodeId: '1', models: ['phi4', 'llama3.2'] });
    await postToWebview(p, { type: 'severalDelta', requestId, column: 0, delta: 'Merge sort ' });
    await postToWebview(p, { type: 'severalDelta', requestId, column: 1, delta: 'Timsort' });
    await postToWebview(p, { type: 'severalDelta', requestId, column: 0, delta: 'is stable.' });
    const columns = p.locator('[data-testid=several-column]');
    await expect.poll(() => columns.count()).toBe(2);
    await expect.poll(async () => (await columns.nth(0).locator('[data-testid=message-content]').textContent())?.trim()).toBe('Merge sort is stable.');
    await expect.poll(async () => (await columns.nth(1).locator('[data-testid=message-content]').textContent())?.trim()).toBe('Timsort');
    expect(await columns.nth(1).locator('[data-testid=message-model]').textContent()).toBe('llama3.2');
    // One model fails: its column shows the error (no Retry of its own), the other keeps streaming.
    await postToWebview(p, { type: 'severalColumnDone', requestId, column: 1, error: { message: 'llama3.2 is not loaded', kind: 'server', retryable: true } });
    await postToWebview(p, { type: 'severalDelta', requestId, column: 0, delta: ' Yes.' });
    await expect.poll(() => columns.nth(1).locator('[data-testid=error]').textContent()).toContain('llama3.2 is not loaded');
    expect(await columns.nth(1).locator('[data-testid=retry]').count()).toBe(0);
    await expect.poll(async () => (await columns.nth(0).locator('[data-testid=message-content]').textContent())?.trim()).toBe('Merge sort is stable. Yes.');
    expect(await columns.nth(0).getAttribute('data-done')).toBeNull();
    // Stop stops the run by its id.
    await clearPosted(p);
    await p.locator('[data-testid=stop]').click();
    expect(await waitForPosted(p, ofType('stop'))).toEqual({ type: 'stop', requestId });
    await postToWebview(p, { type: 'severalColumnDone', requestId, column: 0 });
    await postToWebview(p, { type: 'streamDone', requestId });
    expect(await columns.nth(0).getAttribute('data-done')).toBe('true');
    await expect.poll(() => p.locator('[data-testid=send]').isVisible()).toBe(true);
  });

  it('offers Compare and Merge under a run\'s answers and posts what was picked', async () => {
    const p = await open();
    await postToWebview(p, { type: 'models', models: ['llama3.2', 'qwen2.5-coder', 'phi4'], current: 'llama3.2' });
    const several: SeveralView = {
      answers: [
        { nodeId: '1.0', model: 'phi4', hasText: true },
        { nodeId: '1.1', model: 'llama3.2', hasText: true },
        { nodeId: '1.2', model: 'qwen2.5-coder', hasText: false },
      ],
    };
    const path = [
      message('1', 'user', 'Which sort is stable?'),
      message('1.1', 'assistant', 'Timsort', { model: 'llama3.2', siblings: { index: 2, count: 3, prevNodeId: '1.0', nextNodeId: '1.2' }, several }),
    ];
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const bar = p.locator('[data-testid=message][data-node-id="1.1"] [data-testid=several-bar]');
    await bar.waitFor();
    expect(await bar.locator('[data-testid=several-label]').textContent()).toBe('3 answers from several models');
    // Only one other answer has text: Compare opens it at once.
    await bar.locator('[data-testid=several-compare]').click();
    expect(await waitForPosted(p, ofType('compareAnswers'))).toEqual({ type: 'compareAnswers', leftNodeId: '1.1', rightNodeId: '1.0' });
    await bar.locator('[data-testid=several-merge]').click();
    await p.locator('[data-testid=several-merge-option][data-model="qwen2.5-coder"]').click();
    const merge = await waitForPosted(p, ofType('mergeAnswers'));
    expect(merge).toMatchObject({ type: 'mergeAnswers', nodeIds: ['1.0', '1.1'], model: 'qwen2.5-coder' });
  });

  it('says which answers a merge fused, and lists the others to compare with', async () => {
    const p = await open();
    const several: SeveralView = {
      answers: [
        { nodeId: '1.0', model: 'phi4', hasText: true },
        { nodeId: '1.1', model: 'llama3.2', hasText: true },
        { nodeId: '1.2', model: 'phi4', hasText: true, merged: true },
      ],
      mergedFrom: ['1.0', '1.1'],
    };
    const path = [message('1', 'user', 'Q'), message('1.2', 'assistant', 'Both', { model: 'phi4', siblings: { index: 3, count: 3, prevNodeId: '1.1' }, several })];
    await postToWebview(p, { type: 'state', state: chatState(path) });
    const bar = p.locator('[data-testid=several-bar]');
    await bar.waitFor();
    expect(await bar.locator('[data-testid=several-label]').textContent()).toBe('Merge of 1/3 phi4, 2/3 llama3.2');
    await bar.locator('[data-testid=several-compare]').click();
    const options = p.locator('[data-testid=several-compare-option]');
    expect(await options.allTextContents()).toEqual(['1/3 phi4', '2/3 llama3.2']);
    await options.nth(1).click();
    expect(await waitForPosted(p, ofType('compareAnswers'))).toEqual({ type: 'compareAnswers', leftNodeId: '1.2', rightNodeId: '1.1' });
  });
});
