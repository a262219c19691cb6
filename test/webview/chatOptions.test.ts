/**
 * The chat header's system prompt picker and request options form, in the real webview bundle under the
 * host's CSP: what they show for each provider's thinking support, what they post, and what they refuse.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ChatOptionsMessage, FromWebview } from '../../src/shared/protocol';
import { chatState, message } from './fixtures';
import { useWebviewPages } from './pages';
import { clearPosted, postToWebview, posted, waitForPosted } from './harness';

const { open } = useWebviewPages();

const options = (overrides: Partial<ChatOptionsMessage> = {}): ChatOptionsMessage => ({
  type: 'chatOptions',
  systemPrompts: [{ name: 'code-assistant', description: 'For coding' }, { name: 'default' }],
  systemPrompt: 'default',
  requestOptions: {},
  thinking: 'supported',
  provider: 'ollama',
  ...overrides,
});

const byId = (p: Page, id: string) => p.locator(`[data-testid=${id}]`);
const isOptions = (m: FromWebview) => m.type === 'setRequestOptions';

describe('system prompt and request options in the header', () => {
  it('lists None and the prompts, shows the chat\'s choice, and posts a new pick', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await postToWebview(p, options());
    const picker = byId(p, 'system-prompt-picker');
    await expect.poll(async () => (await picker.locator('vscode-option').allTextContents()).map((t) => t.trim())).toEqual(['No system prompt', 'code-assistant', 'default']);
    expect(await picker.evaluate((el) => (el as unknown as { value: string }).value)).toBe('default');
    await picker.evaluate((el) => {
      (el as unknown as { value: string }).value = 'code-assistant';
      el.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(await waitForPosted(p, (m) => m.type === 'selectSystemPrompt')).toEqual({ type: 'selectSystemPrompt', name: 'code-assistant' });
  });

  it('refuses an out-of-range value with the reason, and posts the parsed options on Apply and none on Reset', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    await postToWebview(p, options({ requestOptions: { temperature: 0.5 } }));
    await byId(p, 'request-options').click();
    expect(await byId(p, 'option-temperature').inputValue()).toBe('0.5');
    await byId(p, 'option-temperature').fill('3');
    await byId(p, 'options-apply').click();
    expect(await byId(p, 'request-options-error').textContent()).toBe('Temperature must be a number from 0 to 2.');
    expect((await posted(p)).filter(isOptions)).toEqual([]);
    await byId(p, 'option-temperature').fill('0.7');
    await byId(p, 'option-max-tokens').fill('300');
    await byId(p, 'option-think').selectOption('high');
    await byId(p, 'options-apply').click();
    expect(await waitForPosted(p, isOptions)).toEqual({ type: 'setRequestOptions', options: { temperature: 0.7, maxTokens: 300, think: 'high' } });
    expect(await byId(p, 'request-options-form').isVisible()).toBe(false);
    await clearPosted(p);
    await byId(p, 'request-options').click();
    await byId(p, 'options-reset').click();
    expect(await waitForPosted(p, isOptions)).toEqual({ type: 'setRequestOptions', options: {} });
  });

  it('offers thinking as the provider reports it', async () => {
    const p = await open();
    await postToWebview(p, { type: 'state', state: chatState([]) });
    const choices = async () => (await byId(p, 'option-think').locator('option').allTextContents()).map((t) => t.trim());
    await postToWebview(p, options({ thinking: 'supported', provider: 'ollama' }));
    expect(await choices()).toEqual(["Model's default", 'Off', 'On', 'Low', 'Medium', 'High']);
    await postToWebview(p, options({ thinking: 'unknown', provider: 'openai', requestOptions: { think: true } }));
    expect(await choices()).toEqual(["Model's default", 'Low', 'Medium', 'High']);
    // On/off set under Ollama does not reach an OpenAI-compatible server, and the button says so.
    expect(await byId(p, 'request-options-summary').textContent()).toBe('think on (not sent)');
    await postToWebview(p, options({ thinking: 'unknown', provider: 'openai', requestOptions: { think: 'medium' } }));
    expect(await byId(p, 'request-options-summary').textContent()).toBe('think medium');
    // A model that cannot think: no choice, the chat's setting is kept (and marked as not sent).
    await postToWebview(p, options({ thinking: 'unsupported', provider: 'ollama', requestOptions: { think: true, maxTokens: 20 } }));
    expect(await byId(p, 'option-think').isDisabled()).toBe(true);
    expect(await byId(p, 'request-options-summary').textContent()).toBe('20 tok · think on (not sent)');
    await byId(p, 'request-options').click();
    await byId(p, 'options-apply').click();
    expect(await waitForPosted(p, isOptions)).toEqual({ type: 'setRequestOptions', options: { maxTokens: 20, think: true } });
  });

  it('shows under an answer the system prompt and version it was made with', async () => {
    const p = await open();
    const version = '2527e9e0c3f1d7b5a1e2f3a4b5c6d7e8f9a0b1c2';
    await postToWebview(p, {
      type: 'state',
      state: chatState([message('0', 'user', 'Hi'), message('0.0', 'assistant', 'Hello', { model: 'm', systemPrompt: { name: 'default', path: 'system/default.md', version } })]),
    });
    const label = p.locator('[data-testid=message][data-node-id="0.0"] [data-testid=message-system-prompt]');
    await label.waitFor();
    expect((await label.textContent())?.trim()).toBe('default 2527e9e');
    expect(await label.getAttribute('title')).toBe(`Made with the system prompt default (system/default.md, version ${version})`);
  });
});
