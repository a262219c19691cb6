import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { REPO_ROOT, prepareOwnSandbox, startCodeServer, writeUserSettings, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { freePort } from './harness/processes';
import { Workbench, launchBrowser } from './harness/workbench';

const TOUR = 'Start the Fake Model Server for a Tour';
const OLLAMA = 'Use Ollama…';
const OPENAI = 'Set an OpenAI-Compatible URL and Key…';

/** The chat requests the suite's fake model server received (raw bodies). */
async function sentBodies(port: number): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  return ((await response.json()) as Array<{ rawBody: string }>).map((r) => r.rawBody);
}

/**
 * A first run with no model server at the configured address: the chat's error offers the first-run
 * choice instead of a bare error. Setting an OpenAI-compatible URL (the suite's fake server) and a key
 * gets an answer on Retry; so does the tour, whose fake model server the extension starts itself from
 * the launcher `npm start` names in ARBOR_TOUR_SERVER. This file runs its own VS Code, started as
 * `npm start` starts it.
 */
describe('the first-run choice when no model server answers', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  let nobodyThere: string;
  const chat = () => new ChatPage(workbench);
  const quickInput = () => workbench.page.locator('.quick-input-widget .quick-input-box input');
  /** Ollama, at an address where nothing listens: Arbor's defaults on a machine without Ollama. */
  const unreachable = () => writeUserSettings(sandbox, { 'arbor.provider': 'ollama', 'arbor.model': 'llama3.2', 'arbor.ollama.host': nobodyThere });

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('firstRun', env.fakeLlmPort);
    nobodyThere = `http://127.0.0.1:${await freePort()}`;
    await unreachable();
    browser = await launchBrowser();
    server = await startCodeServer(sandbox, { env: { ...process.env, ARBOR_TOUR_SERVER: path.join(REPO_ROOT, 'scripts/tourServer.mjs') } });
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Sends `text` in a new conversation and returns its error, once it shows the first-run choice. */
  async function sendIntoNothing(text: string) {
    await workbench.runCommand('Arbor: New Conversation');
    await chat().send(text);
    const error = chat().byTestId('error').last();
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toContain(`Cannot reach Ollama at ${nobodyThere}`);
    expect(await error.textContent()).toContain('No model server yet? Choose one below, then Retry.');
    const choices = await chat().byTestId('error-action').allTextContents();
    expect(choices.map((c) => c.trim())).toEqual([TOUR, OLLAMA, OPENAI, 'Open Settings']);
    await chat().byTestId('retry').last().waitFor({ timeout: 10_000 });
    await chat().waitIdle();
    return error;
  }

  it('offers the choice, and an OpenAI-compatible URL and key answer on Retry', async ({ task }) => {
    // Tried again after a failure, it starts from nothing again: the first try may have set the OpenAI URL.
    if (task.result?.retryCount) {
      await unreachable();
      await workbench.reload();
      await workbench.openArborView();
    }
    await sendIntoNothing('Hello from a fresh machine');
    await chat().byTestId('error-action').filter({ hasText: OPENAI }).click();

    // The base URL (checked as it is typed), then the key, then one of the server's models.
    const input = quickInput();
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await input.fill('127.0.0.1 nowhere');
    await workbench.page.locator('.quick-input-widget', { hasText: 'is not a URL' }).waitFor({ timeout: 10_000 });
    await input.fill(`http://127.0.0.1:${env.fakeLlmPort}/v1`);
    await input.press('Enter');
    await workbench.page.locator('.quick-input-widget', { hasText: 'The API key for' }).waitFor({ timeout: 15_000 });
    await input.fill('sk-first-run-test-key');
    await input.press('Enter');
    // Arbor: Select Model's picker (its placeholder names the provider).
    await workbench.page.locator('.quick-input-widget .quick-input-box input[placeholder^="Model for openai"]').waitFor({ timeout: 15_000 });
    await input.fill('arbor-test-model');
    await input.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 10_000 });

    await chat().byTestId('retry').last().click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: Hello from a fresh machine');
    await chat().waitIdle();
    expect((await sentBodies(env.fakeLlmPort)).some((body) => body.includes('Hello from a fresh machine'))).toBe(true);
  });

  it('starts the bundled fake model server for a tour, which answers on Retry', async () => {
    await unreachable();
    // A window watches its settings file only loosely once it wrote to it itself: a reload reads it for sure.
    await workbench.reload();
    await workbench.openArborView();
    await workbench.runCommand('Arbor: New Conversation');
    await workbench.page.locator('.part.statusbar', { hasText: 'llama3.2' }).waitFor({ timeout: 30_000 });

    await sendIntoNothing('Show me around');
    await chat().byTestId('error-action').filter({ hasText: TOUR }).click();
    const started = workbench.page.locator('.notification-toast', { hasText: 'Arbor now asks the fake model server at' }).first();
    await started.waitFor({ timeout: 90_000 });
    const address = /at (http:\/\/127\.0\.0\.1:\d+)/.exec((await started.textContent()) ?? '')?.[1];
    expect(address).toBeDefined();
    expect(address).not.toBe(`http://127.0.0.1:${env.fakeLlmPort}`);

    await chat().byTestId('retry').last().click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 30_000 }).toBe('[arbor-test-model] Echo: Show me around');
    await chat().waitIdle();
    // The tour's own server answered, not the suite's.
    expect((await sentBodies(env.fakeLlmPort)).some((body) => body.includes('Show me around'))).toBe(false);
    expect((await sentBodies(Number(new URL(address!).port))).some((body) => body.includes('Show me around'))).toBe(true);
  });
});
