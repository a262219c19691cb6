import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { useWorkbench } from './harness/session';

/**
 * The header shows what the branch being read cost beside the conversation's total, once another
 * branch cost something too. Priced models come from the workspace's settings: the fake server on
 * the OpenAI wire format, with a price for each of its two models.
 */
describe('the cost of this branch and of the whole conversation', () => {
  const session = useWorkbench();
  const chat = () => new ChatPage(session.workbench);
  const settingsDir = () => path.join(session.env.workspace, '.vscode');

  afterAll(async () => {
    await rm(settingsDir(), { recursive: true, force: true });
    // Back on the fake Ollama server, unpriced, for the files that follow.
    await chat().byTestId('chat-model').filter({ hasText: 'ollama' }).waitFor({ timeout: 15_000 });
  });

  it('shows this branch beside the total after a regenerated answer on another model', async () => {
    const price = { input: 1000, output: 2000 };
    await mkdir(settingsDir(), { recursive: true });
    await writeFile(
      path.join(settingsDir(), 'settings.json'),
      `${JSON.stringify({ 'arbor.provider': 'openai', 'arbor.pricing': { 'arbor-test-model': price, 'arbor-test-model-2': price } })}\n`,
    );
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain('openai');
    await chat().send('What does this cost?');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: What does this cost?');
    await chat().waitIdle();
    const total = chat().byTestId('total-cost');
    await expect.poll(async () => (await total.textContent()) ?? '', { timeout: 15_000 }).not.toBe('$0.00');
    // One branch so far: its cost is the total, shown once.
    expect(await chat().byTestId('branch-cost').isVisible()).toBe(false);
    const one = (await total.textContent()) ?? '';

    const answer = chat().messagesOf('assistant').first();
    await answer.hover();
    await answer.locator('[data-testid="regenerate-model"]').click();
    await chat().frame.locator('[data-testid="model-option"]', { hasText: 'arbor-test-model-2' }).first().click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toContain('arbor-test-model-2');
    await chat().waitIdle();
    // Two answers priced alike: the total doubled, and this branch holds one of them.
    await expect.poll(async () => (await chat().byTestId('branch-cost').textContent()) ?? '', { timeout: 15_000 }).toBe(`this branch ${one} ·`);
    expect(await total.textContent()).not.toBe(one);
  });
});
