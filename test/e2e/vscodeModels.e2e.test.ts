import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { REPO_ROOT, installVsix, prepareOwnSandbox, startCodeServer, writeUserSettings, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { run } from './harness/processes';
import { Workbench, launchBrowser } from './harness/workbench';

/** How many chat requests the fake model server has received. */
async function fakeRequestCount(port: number): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  return ((await response.json()) as unknown[]).length;
}

/** The echo model's id as Arbor names it: `vscode:<vendor>/<id>`. */
const ECHO = 'vscode:arbor-e2e/echo';

/**
 * VS Code's own language models in Arbor: another extension (test/e2e/fixtures/lmChatModelExtension)
 * contributes the chat model "Echo" through `vscode.lm.registerChatModelProvider` (the `chatProvider`
 * proposal of VS Code 1.100, which code-server lets every extension use that lists it in
 * `enabledApiProposals`); the chat picker and the Regenerate menu show it in a "VS Code" group, an answer
 * streams from it (the fake model server gets nothing), the system prompt reaches it as a fenced User
 * message, and a tool call goes through `LanguageModelToolCallPart` and back as a tool result.
 * This file runs its own VS Code on its own sandbox.
 */
describe("VS Code's language models", () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  const chat = () => new ChatPage(workbench);
  const picker = () => chat().byTestId('model-picker');
  const options = async () => (await picker().locator('vscode-option').allTextContents()).map((t) => t.trim());

  /** Picks a model in the chat's picker (the element's own value and change event, as its list does). */
  async function pick(select: Locator, model: string): Promise<void> {
    await select.evaluate((el, value) => {
      const p = el as unknown as { value: string; dispatchEvent(event: Event): boolean };
      p.value = value;
      p.dispatchEvent(new Event('change', { bubbles: true }));
    }, model);
  }

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('vscode-models', env.fakeLlmPort);
    await writeFile(path.join(sandbox.workspace, 'leaves.txt'), 'Leaves turn red when chlorophyll breaks down.\n');
    // The model's extension, packaged and installed as a user would (vsce packages proposed-API users; only publishing refuses them).
    const vsix = path.join(sandbox.root, 'echo-model.vsix');
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/@vscode/vsce/vsce'), 'package', '--allow-missing-repository', '--no-dependencies', '-o', vsix], {
      cwd: path.join(REPO_ROOT, 'test/e2e/fixtures/lmChatModelExtension'),
    });
    await installVsix(sandbox, vsix);
    // A system prompt, to see it reach the model as the fenced User message the stable API allows.
    await writeUserSettings(sandbox, { 'arbor.systemPrompt': 'default' }, { merge: true });
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
  }, 240_000);

  beforeEach((context) => {
    context.onTestFailed(async () => {
      const file = await workbench?.screenshot(`vscode-models-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists the extension\'s model under "VS Code" in the chat picker, and an answer streams from it with the system prompt first', async () => {
    // The model's extension starts after Arbor: the picker fills in when VS Code says its models changed.
    await expect.poll(options, { timeout: 60_000 }).toEqual(expect.arrayContaining(['VS Code', 'Echo']));
    const all = await options();
    expect(all.indexOf('VS Code')).toBeLessThan(all.indexOf('Echo'));
    // The option's value is a property of the element (not reflected as an attribute).
    const values = await picker().locator('vscode-option').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    expect(values.filter((v) => v === 'vscode:arbor-e2e/echo')).toHaveLength(1);
    await pick(picker(), ECHO);
    await expect.poll(() => chat().byTestId('chat-model').textContent(), { timeout: 15_000 }).toContain(ECHO);

    const before = await fakeRequestCount(env.fakeLlmPort);
    await chat().send('Why do leaves fall?');
    // The echo model says "system: yes." when the request began with the fenced system text.
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('system: yes. Echo: Why do leaves fall?');
    await chat().waitIdle();
    // The model as chosen is on the answer, and nothing went to the configured (fake Ollama) server.
    expect(await chat().lastAnswer().locator('[data-testid=message-model]').textContent()).toContain(ECHO);
    expect(await fakeRequestCount(env.fakeLlmPort)).toBe(before);
    await workbench.screenshot('vscode-models-answer');
  });

  it('shows the "VS Code" group in the Regenerate menu, and regenerates with the model picked there', async () => {
    const answer = chat().lastAnswer();
    await answer.locator('[data-testid=regenerate-model]').click();
    const group = chat().frame.locator('[data-testid=model-menu] [data-testid=model-group]');
    await group.waitFor({ timeout: 15_000 });
    expect(await group.getAttribute('aria-label')).toBe('VS Code');
    const echo = group.locator(`[data-testid=model-option][data-model="${ECHO}"]`);
    expect(await echo.locator('.popup-detail').textContent()).toBe('arbor-e2e · echo');
    await echo.click();
    await expect.poll(() => chat().lastAnswer().locator('[data-testid="sibling-label"]').textContent(), { timeout: 60_000 }).toBe('2/2');
    await chat().waitIdle();
    expect(await chat().textOf(chat().lastAnswer())).toContain('Echo: Why do leaves fall?');
  });

  it('calls a tool through LanguageModelToolCallPart and answers from its result', async () => {
    await chat().send('Read it. [[tool:read_file {"path":"leaves.txt"}]]');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    expect(await chat().textOf(chat().lastAnswer())).toContain('chlorophyll breaks down');
    expect(await chat().frame.locator('[data-testid="tool-card"][data-tool="read_file"]').last().getAttribute('data-state')).toBe('done');
  });

  it('Arbor: Select Model lists it under a "VS Code" separator with vendor and family', async () => {
    // VS Code lists an extension's models once its host has registered them: under load the first
    // picker can come before that (the chat's model then shows as its bare id), so it is opened again.
    const row = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'arbor-e2e · echo' }).first();
    for (let attempt = 0; ; attempt++) {
      await workbench.runCommand('Arbor: Select Model');
      if (await row.waitFor({ timeout: 10_000 }).then(() => true, () => false)) break;
      if (attempt >= 3) throw new Error('the VS Code model was not listed with its vendor and family after four tries');
    }
    expect(await row.textContent()).toContain('Echo');
    expect(await workbench.page.locator('.quick-input-widget .quick-input-list-separator', { hasText: 'VS Code' }).count()).toBeGreaterThan(0);
    await workbench.page.keyboard.press('Escape');
  });
});
