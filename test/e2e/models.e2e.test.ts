import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * Models as a person sees them: the fake server lists its models the way Ollama does (`name:latest`),
 * and each shows once; a model picked in one chat answers in that chat and becomes the default for
 * new ones, while a chat that already answered keeps its own.
 */
describe('models', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const picker = () => chat().byTestId('model-picker');
  const options = async () => (await picker().locator('vscode-option').allTextContents()).map((t) => t.trim());

  /** Picks a model in the chat's picker (the element's own value and change event, as its list does). */
  async function pick(select: Locator, model: string): Promise<void> {
    await select.evaluate((el, value) => {
      const picker = el as unknown as { value: string; dispatchEvent(event: Event): boolean };
      picker.value = value;
      picker.dispatchEvent(new Event('change', { bubbles: true }));
    }, model);
  }

  it('lists a model Ollama reports as name:latest once in the chat picker', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(options, { timeout: 30_000 }).toEqual(['arbor-test-model', 'arbor-test-model-2']);
  });

  it('answers with the model picked in that chat, and another chat keeps its own', async () => {
    // First chat: pick the second model; it answers with it.
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(options, { timeout: 30_000 }).toContain('arbor-test-model-2');
    await pick(picker(), 'arbor-test-model-2');
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('arbor-test-model-2');
    await chat().send('First chat speaking');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model-2] Echo: First chat speaking');
    await chat().waitIdle();

    // A new chat starts with the model picked last; picking another there leaves the first chat be.
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(() => picker().evaluate((el) => (el as unknown as { value: string }).value), { timeout: 30_000 }).toBe('arbor-test-model-2');
    await pick(picker(), 'arbor-test-model');
    await chat().send('Second chat speaking');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: Second chat speaking');
    await chat().waitIdle();

    await session.workbench.tab('First chat speaking').first().click();
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('arbor-test-model-2');
    await chat().send('Still the second model?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model-2] Echo: Still the second model?');
    await chat().waitIdle();
  });

  // The workspace's settings override the sandbox's (which point OpenAI at the fake server).
  describe('with OpenAI chosen and no API key stored', () => {
    const settingsDir = () => path.join(session.env.workspace, '.vscode');
    afterAll(async () => {
      await rm(settingsDir(), { recursive: true, force: true });
      // Back on the fake Ollama server for the files that follow.
      await chat().byTestId('chat-model').filter({ hasText: 'ollama' }).waitFor({ timeout: 15_000 });
    });

    it('says the key is missing before sending, with buttons that set it or open the settings', async () => {
      await mkdir(settingsDir(), { recursive: true });
      await writeFile(path.join(settingsDir(), 'settings.json'), `${JSON.stringify({ 'arbor.provider': 'openai', 'arbor.openai.baseUrl': 'https://api.openai.com/v1' })}\n`);
      await session.workbench.runCommand('Arbor: New Conversation');
      await chat().waitReady();
      await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('openai');
      await chat().send('Hello OpenAI?');
      const error = chat().byTestId('error').last();
      await error.waitFor({ timeout: 30_000 });
      expect(await error.textContent()).toMatch(/No OpenAI API key is set\..*Nothing was sent\./);
      const buttons = async () => (await error.locator('[data-testid="error-action"]').allTextContents()).map((t) => t.trim());
      expect(await buttons()).toEqual(['Set OpenAI API Key', 'Open Settings']);
      await error.locator('[data-testid="retry"]').waitFor({ timeout: 10_000 });
      // The failed answer has no text: nothing reached a server.
      expect(await chat().textOf(chat().lastAnswer())).toBe('');

      // The button runs the command: VS Code asks for the key.
      await error.locator('[data-testid="error-action"]', { hasText: 'Set OpenAI API Key' }).click();
      const prompt = session.workbench.page.locator('.quick-input-widget', { hasText: 'OpenAI API key' });
      await prompt.waitFor({ state: 'visible', timeout: 15_000 });
      await session.workbench.page.keyboard.press('Escape');
      await prompt.waitFor({ state: 'hidden', timeout: 10_000 });
    });
  });
});
