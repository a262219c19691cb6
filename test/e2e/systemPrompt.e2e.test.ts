import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { FakeLlmServer, type RecordedRequest } from '../fixtures/fakeLlmServer';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * A chat's system prompt and request options, as a person sets them in the chat's header, checked where
 * they must arrive: in the body of the request the model server receives. The workspace's settings
 * point Arbor at a fake server run in this test's own process, which records every request; it lists
 * `arbor-test-model` as a thinking model and `arbor-test-model-2` as one that cannot think.
 */
describe('system prompt and request options per chat', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const server = new FakeLlmServer({ capabilities: { 'arbor-test-model-2': ['completion', 'tools'] } });
  const settingsFile = () => path.join(session.env.workspace, '.vscode', 'settings.json');
  const picker = () => chat().byTestId('system-prompt-picker');
  const pickerOptions = async () => (await picker().locator('vscode-option').allTextContents()).map((t) => t.trim());
  const lastChat = (): RecordedRequest => {
    const requests = server.chatRequests();
    expect(requests.length).toBeGreaterThan(0);
    return requests[requests.length - 1];
  };

  /** Changes the workspace's settings, keeping what Arbor wrote there (the picked system prompt). */
  async function setWorkspaceSettings(patch: Record<string, unknown>): Promise<void> {
    const current = JSON.parse(await readFile(settingsFile(), 'utf8').catch(() => '{}')) as Record<string, unknown>;
    await mkdir(path.dirname(settingsFile()), { recursive: true });
    await writeFile(settingsFile(), `${JSON.stringify({ ...current, ...patch }, null, 2)}\n`);
  }

  /** Picks a value in a vscode-single-select (its own value and change event, as its list does). */
  async function pick(select: Locator, value: string): Promise<void> {
    await select.evaluate((el, v) => {
      const s = el as unknown as { value: string; dispatchEvent(event: Event): boolean };
      s.value = v;
      s.dispatchEvent(new Event('change', { bubbles: true }));
    }, value);
  }

  /** Opens the request options form, fills it and applies it. */
  async function setOptions(fields: { temperature?: string; maxTokens?: string; think?: string }): Promise<void> {
    const form = chat().byTestId('request-options-form');
    // Open the form, again if a click on a page still settling did not.
    await expect
      .poll(
        async () => {
          if (!(await form.isVisible())) await chat().byTestId('request-options').click({ timeout: 5_000 }).catch(() => undefined);
          return form.isVisible();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toBe(true);
    if (fields.temperature !== undefined) await chat().byTestId('option-temperature').fill(fields.temperature);
    if (fields.maxTokens !== undefined) await chat().byTestId('option-max-tokens').fill(fields.maxTokens);
    if (fields.think !== undefined) await chat().byTestId('option-think').selectOption(fields.think);
    await chat().byTestId('options-apply').click();
    await form.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  async function ask(text: string, model = 'arbor-test-model'): Promise<void> {
    await chat().send(text);
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe(`[${model}] Echo: ${text}`);
    await chat().waitIdle();
  }

  /** The id `git hash-object` gives a file of the sandbox workspace. */
  async function blobId(relative: string): Promise<string> {
    const bytes = await readFile(path.join(session.env.workspace, relative));
    return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
  }

  beforeAll(async () => {
    await server.start();
    // `arbor.systemPrompt` is set here so that picking a prompt writes to this file, which goes after the tests.
    await setWorkspaceSettings({
      'arbor.provider': 'ollama',
      'arbor.model': 'arbor-test-model',
      'arbor.ollama.host': server.url,
      'arbor.openai.baseUrl': server.openaiBaseUrl,
      'arbor.systemPrompt': 'default',
      'arbor.requestOptions': { options: { top_k: 7 }, keep_alive: '1m' },
    });
  });

  afterAll(async () => {
    await rm(path.dirname(settingsFile()), { recursive: true, force: true });
    // Back on the suite's fake Ollama server for the files that follow.
    await chat().byTestId('chat-model').filter({ hasText: 'ollama' }).waitFor({ timeout: 15_000 }).catch(() => undefined);
    await server.stop();
  });

  it('sends the default system prompt and the chat\'s options, then the prompt picked mid-conversation from the next request on', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    // The workspace settings of beforeAll reach the extension a moment after the file is written: once
    // they have, the chat asks this test's server (for its models), not the suite's.
    await expect.poll(() => server.requests.length, { timeout: 30_000 }).toBeGreaterThan(0);
    // The picker lists prompts/system/ and starts on the default, `arbor.systemPrompt`.
    await expect.poll(pickerOptions, { timeout: 30_000 }).toEqual(['No system prompt', 'code-assistant', 'code-reviewer', 'default']);
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('default');

    await setOptions({ temperature: '0.4', maxTokens: '128', think: 'on' });
    await expect.poll(() => chat().byTestId('request-options-summary').textContent(), { timeout: 15_000 }).toBe('T 0.4 · 128 tok · think on');
    await ask('First question');

    const first = lastChat().body;
    expect(first.messages[0].role).toBe('system');
    expect(first.messages[0].content).toContain('You are a careful senior engineer helping with a small TypeScript shopping-cart module.');
    expect(first.messages.slice(1)).toEqual([{ role: 'user', content: 'First question' }]);
    // The chat's options, and the extras of arbor.requestOptions merged as they are.
    expect(first.options).toEqual({ top_k: 7, temperature: 0.4, num_predict: 128, num_ctx: 4096 });
    expect(first).toMatchObject({ think: true, keep_alive: '1m', model: 'arbor-test-model' });

    // The answer says which system prompt, in which version, it was made with.
    const defaultId = await blobId('prompts/system/default.md');
    const firstLabel = chat().messagesOf('assistant').first().locator('[data-testid="message-system-prompt"]');
    expect((await firstLabel.textContent())?.trim()).toBe(`default ${defaultId.slice(0, 7)}`);
    expect(await firstLabel.getAttribute('title')).toBe(`Made with the system prompt default (system/default.md, version ${defaultId})`);

    // Another prompt mid-conversation: the next request carries it, with the whole history.
    await pick(picker(), 'code-assistant');
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('code-assistant');
    const historyBefore = await chat().messages().count();
    await ask('Second question');
    const second = lastChat().body;
    expect(second.messages[0].role).toBe('system');
    expect(second.messages[0].content).toContain('You are a concise senior engineer helping with this project.');
    expect(second.messages.slice(1).map((m: { content: string }) => m.content)).toEqual(['First question', '[arbor-test-model] Echo: First question', 'Second question']);
    expect(second.messages.filter((m: { role: string }) => m.role === 'system')).toHaveLength(1);
    expect(second.options).toEqual({ top_k: 7, temperature: 0.4, num_predict: 128, num_ctx: 4096 });
    // The history is as it was: the earlier answer still names the prompt it was made with.
    expect(await chat().messages().count()).toBe(historyBefore + 2);
    expect((await firstLabel.textContent())?.trim()).toBe(`default ${defaultId.slice(0, 7)}`);
    const assistantId = await blobId('prompts/system/code-assistant.md');
    const labels = chat().frame.locator('[data-testid="message"][data-role="assistant"] [data-testid="message-system-prompt"]');
    expect((await labels.allTextContents()).map((t) => t.trim())).toEqual([`default ${defaultId.slice(0, 7)}`, `code-assistant ${assistantId.slice(0, 7)}`]);
    await session.workbench.screenshot('system-prompt-per-answer');

    // None: the next request has no system message at all.
    await pick(picker(), '');
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('');
    await ask('Third question');
    expect(lastChat().body.messages.filter((m: { role: string }) => m.role === 'system')).toEqual([]);
    expect(await chat().lastAnswer().locator('[data-testid="message-system-prompt"]').count()).toBe(0);
  });

  it('does not offer or send thinking for a model Ollama says cannot think', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(pickerOptions, { timeout: 30_000 }).toContain('code-assistant');
    await setOptions({ think: 'on' });
    await expect.poll(() => chat().byTestId('request-options-summary').textContent(), { timeout: 15_000 }).toBe('think on');
    // Switch this chat to the model that does not think.
    await chat().byTestId('model-picker').locator('vscode-option', { hasText: 'arbor-test-model-2' }).first().waitFor({ state: 'attached', timeout: 30_000 });
    await pick(chat().byTestId('model-picker'), 'arbor-test-model-2');
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('arbor-test-model-2');
    await chat().byTestId('request-options').click();
    await expect.poll(() => chat().byTestId('option-think').isDisabled(), { timeout: 15_000 }).toBe(true);
    expect(await chat().byTestId('option-think-note').textContent()).toContain('does not think');
    expect(await chat().byTestId('request-options-summary').textContent()).toBe('think on (not sent)');
    await session.workbench.screenshot('request-options-no-thinking');
    await chat().byTestId('request-options').click();
    await ask('Can you think?', 'arbor-test-model-2');
    expect(lastChat().body).not.toHaveProperty('think');
    expect(lastChat().body.model).toBe('arbor-test-model-2');
  });

  it('sends reasoning_effort, temperature and max_tokens on the OpenAI wire, and new chats start with the prompt picked last', async () => {
    await setWorkspaceSettings({ 'arbor.provider': 'openai', 'arbor.model': 'arbor-test-model', 'arbor.requestOptions': { top_k: 7 } });
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('openai');
    // The first test picked None last, which became the default: pick code-assistant here, for this chat and new ones.
    await expect.poll(pickerOptions, { timeout: 30_000 }).toContain('code-assistant');
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('');
    await pick(picker(), 'code-assistant');
    await expect.poll(async () => JSON.parse(await readFile(settingsFile(), 'utf8'))['arbor.systemPrompt'], { timeout: 15_000 }).toBe('code-assistant');
    // OpenAI-compatible servers take a level, not on/off.
    await chat().byTestId('request-options').click();
    const thinkChoices = (await chat().byTestId('option-think').locator('option').allTextContents()).map((t) => t.trim());
    expect(thinkChoices).toEqual(["Model's default", 'Low', 'Medium', 'High']);
    await chat().byTestId('request-options').click();
    await setOptions({ temperature: '0.2', maxTokens: '64', think: 'high' });
    await ask('Reason about it');
    const body = lastChat().body;
    expect(lastChat().path).toBe('/v1/chat/completions');
    expect(body).toMatchObject({ model: 'arbor-test-model', temperature: 0.2, max_tokens: 64, reasoning_effort: 'high', top_k: 7 });
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content).toContain('You are a concise senior engineer helping with this project.');

    // A new chat starts with the prompt picked last, and no request options of its own.
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 30_000 }).toBe('code-assistant');
    await ask('Fresh chat');
    const fresh = lastChat().body;
    expect(fresh.messages[0].content).toContain('You are a concise senior engineer');
    for (const key of ['temperature', 'max_tokens', 'reasoning_effort']) expect(fresh).not.toHaveProperty(key);
  });

  it('says which system prompt is gone and how to fix it, and answers again once another is picked', async () => {
    const file = path.join(session.env.workspace, 'prompts', 'system', 'temporary.md');
    await writeFile(file, '---\ndescription: A prompt that is about to go\n---\nYou are temporary.\n');
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    // The library follows the folder: the new file shows up in the picker.
    await expect.poll(pickerOptions, { timeout: 30_000 }).toContain('temporary');
    await pick(picker(), 'temporary');
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('temporary');
    await rm(file);
    // Once the library has seen the file go, the picker marks the chat's choice as missing.
    await picker().locator('vscode-option[data-missing="true"]', { hasText: 'temporary' }).waitFor({ state: 'attached', timeout: 30_000 });
    const requestsBefore = server.chatRequests().length;
    await chat().send('Still there?');
    const error = chat().byTestId('error').last();
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toContain('This chat uses the system prompt "temporary", but prompts/system/ has no such file. Pick another in the chat\'s header (or "None"), or add prompts/system/temporary.md. Nothing was sent.');
    // Nothing was sent without the prompt the chat asked for.
    expect(server.chatRequests().length).toBe(requestsBefore);
    await pick(picker(), '');
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 15_000 }).toBe('');
    await error.locator('[data-testid="retry"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: Still there?');
    await chat().waitIdle();
    expect(lastChat().body.messages.filter((m: { role: string }) => m.role === 'system')).toEqual([]);
  });
});
