/**
 * A message made from a prompt template, in the chat webview in a real browser under the host's CSP:
 * its chip, values and folded rendered text; Edit reopens the form with the values it was sent with
 * (or the prompt's defaults for a message older than Arbor keeping them) and posts `edit` with them;
 * a changed template's Compare posts `openPromptDiff`.
 */
import { describe, expect, it } from 'vitest';
import type { FromWebview, PromptMessageInfo } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { useWebviewPages } from './pages';
import { postToWebview, waitForPosted } from './harness';

const { open } = useWebviewPages();

const ofType =
  <T extends FromWebview['type']>(type: T) =>
  (m: FromWebview): boolean =>
    m.type === type;

const review: PromptMessageInfo = {
  name: 'review',
  kind: 'user',
  path: 'user/review.md',
  gitBlobId: '006c9725d681c93e42e0f1a2b3c4d5e6f7a8b9c0',
  status: 'current',
  params: { code: 'subtotalCents(lines)', focus: 'rounding' },
  text: '',
  rendered: Array.from({ length: 12 }, (_, i) => `line ${i + 1} <img src=x onerror="document.body.dataset.pwned=1">`).join('\n'),
};
const prompts = [
  {
    name: 'review',
    description: 'Find bugs',
    params: [
      { name: 'code', required: true },
      { name: 'focus', required: false, default: 'correctness' },
    ],
  },
];

describe('a prompt message in the chat', () => {
  it('shows its chip, values and folded rendered text as text; Edit reopens the form with its values and posts them', async () => {
    const p = await open();
    await postToWebview(p, { type: 'prompts', prompts });
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', '/review', { promptName: 'review', prompt: review }), message('0.0', 'assistant', 'ok')]) });
    const sent = p.locator('[data-testid=message][data-node-id="0"]');
    await sent.waitFor();
    expect(await sent.locator('[data-testid=prompt-chip-name]').textContent()).toBe('/review');
    expect(await sent.locator('[data-testid=prompt-chip-version]').textContent()).toBe('006c972');
    expect(await sent.locator('[data-testid=prompt-diff]').count()).toBe(0);
    expect(await sent.locator('[data-testid=prompt-value]').allTextContents()).toEqual(['subtotalCents(lines)', 'rounding']);
    // Twelve lines: folded; the markup in it stays text.
    expect(await sent.locator('[data-testid=prompt-rendered]').evaluate((d) => d.hasAttribute('open'))).toBe(false);
    expect(await sent.locator('[data-testid=prompt-rendered] summary').textContent()).toBe('Sent text (12 lines)');
    expect(await sent.locator('[data-testid=prompt-rendered-text] img').count()).toBe(0);
    // Nothing was typed with it, so the plain text line is not shown.
    expect(await sent.locator('[data-testid=message-content]').isVisible()).toBe(false);

    await sent.locator('[data-testid=edit]').click();
    const form = sent.locator('[data-testid=inline-editor]');
    // Every field is filled: the first one has the focus, ready to change.
    await expect.poll(() => form.locator('[data-testid=prompt-param][data-name=code]').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(await form.locator('[data-testid=prompt-param][data-name=code]').inputValue()).toBe('subtotalCents(lines)');
    expect(await form.locator('[data-testid=prompt-param][data-name=focus]').inputValue()).toBe('rounding');
    await form.locator('[data-testid=prompt-param][data-name=focus]').fill('overflow');
    await form.locator('[data-testid=edit-input] textarea').fill('and the types');
    await form.locator('[data-testid=edit-save]').click();
    expect(await waitForPosted(p, ofType('edit'))).toMatchObject({
      type: 'edit',
      nodeId: '0',
      promptName: 'review',
      params: { code: 'subtotalCents(lines)', focus: 'overflow' },
      text: 'and the types',
    });
  });

  it('opens an old message\'s form at the prompt\'s defaults, and a required field left empty holds the edit back', async () => {
    const p = await open();
    await postToWebview(p, { type: 'prompts', prompts });
    const old: PromptMessageInfo = { ...review, params: undefined, rendered: 'Review subtotalCents(lines)' };
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', '/review', { promptName: 'review', prompt: old })]) });
    const sent = p.locator('[data-testid=message][data-node-id="0"]');
    await sent.locator('[data-testid=edit]').click();
    const form = sent.locator('[data-testid=inline-editor]');
    expect(await form.locator('[data-testid=prompt-param][data-name=code]').inputValue()).toBe('');
    expect(await form.locator('[data-testid=prompt-param][data-name=focus]').inputValue()).toBe('correctness');
    await form.locator('[data-testid=edit-save]').click();
    expect(await form.isVisible()).toBe(true);
    await form.locator('[data-testid=prompt-param][data-name=code]').fill('totalCents(cart)');
    await form.locator('[data-testid=edit-save]').click();
    expect(await waitForPosted(p, ofType('edit'))).toMatchObject({ promptName: 'review', params: { code: 'totalCents(cart)', focus: 'correctness' }, text: '' });
  });

  it('says when the template changed since, and Compare posts openPromptDiff', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([message('0', 'user', '/review', { promptName: 'review', prompt: { ...review, status: 'changed' } })]) });
    const chip = p.locator('[data-testid=message][data-node-id="0"] [data-testid=prompt-chip]');
    await chip.waitFor();
    expect(await chip.getAttribute('data-status')).toBe('changed');
    expect(await chip.locator('[data-testid=prompt-chip-note]').textContent()).toBe('changed since');
    await chip.locator('[data-testid=prompt-diff]').click();
    expect(await waitForPosted(p, ofType('openPromptDiff'))).toEqual({ type: 'openPromptDiff', nodeId: '0' });
  });
});
