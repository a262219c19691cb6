import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { ChatPage } from './harness/chat';
import { prepareOwnSandbox, startCodeServer, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { Workbench, launchBrowser } from './harness/workbench';

/**
 * Flows in the chat: the sample flow `review-fix` (prompts/flows/review-fix.yaml, copied into the sandbox
 * with the repository's prompts) started from the `/` menu, run against the fake model with one fix loop:
 * the reviewer asks for a change (JSON verdict), the fixer edits the file through edit_file (approved on its
 * card), the reviewer then says ok, and the finish step writes the summary. Each step's messages carry their
 * marker in the chat and in the Conversations tree; the flow panel shows the states, the memory and the
 * step count. Then Re-run from the first reviewer step makes a new branch that runs the flow again from
 * there. The fake model's replies are queued over HTTP (`POST /__fake/enqueue`) in the order the flow asks:
 * an agent step with tools first answers in prose (the tool run), then with the JSON its schema asks for.
 */
describe('flows in the chat', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  const chat = () => new ChatPage(workbench);
  const fake = (route: string, body: unknown) =>
    fetch(`http://127.0.0.1:${env.fakeLlmPort}/__fake/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const markers = () => chat().frame.locator('[data-testid="flow-marker"]');
  const panel = () => chat().byTestId('flow-panel');

  const issue = { file: 'src/leaves.ts', line: 2, problem: 'The reason misspells "abscission".', fix: 'Write "abscission".' };

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('flows', env.fakeLlmPort);
    await mkdir(path.join(sandbox.workspace, 'src'), { recursive: true });
    await writeFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), "// Why leaves fall\nexport const reason = 'absission: the tree seals each leaf off';\n");
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
  }, 240_000);

  beforeEach(async (context) => {
    await fake('reset-queue', {});
    context.onTestFailed(async () => {
      const file = await workbench?.screenshot(`flows-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await fake('reset-queue', {}).catch(() => undefined);
    await browser?.close();
    await server?.stop();
  });

  it('runs review-fix with one fix loop: steps marked in the chat and the tree, the panel with its states and memory', async () => {
    await fake('enqueue', [
      // Step 1, review: the tool run's answer, then the verdict as JSON.
      { content: 'I read src/leaves.ts.' },
      { content: JSON.stringify({ verdict: 'changes_needed', issues: [issue] }) },
      // Step 2, fix: an edit_file call (approved on its card), then what it changed.
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/leaves.ts', edits: [{ search: 'absission', replace: 'abscission' }] } }] },
      { content: 'Fixed the spelling of abscission in src/leaves.ts.' },
      // Step 3, review again: prose, then ok.
      { content: 'I read the fix.' },
      { content: JSON.stringify({ verdict: 'ok', issues: [] }) },
      // Step 4, summary: a finish step, no model.
    ]);

    // The / menu lists the flow with its description; its inputs are the form.
    await chat().input().click();
    await chat().input().fill('/review-fix');
    const option = chat().frame.locator('[data-testid="prompt-option"]', { hasText: 'review-fix' }).first();
    await option.waitFor({ timeout: 30_000 });
    expect(await option.textContent()).toContain('flow: Review code, fix the issues found');
    await option.click();
    await chat().byTestId('prompt-form').waitFor({ timeout: 15_000 });
    expect(await chat().byTestId('prompt-form-source').textContent()).toBe('flow');
    await chat().frame.locator('[data-testid="prompt-param"][data-name="target"]').fill('src/leaves.ts');
    await chat().byTestId('send').click();

    // The panel shows up with the three states, review first.
    await panel().waitFor({ timeout: 60_000 });
    expect(await chat().frame.locator('[data-testid="flow-state"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['review', 'fix', 'summary']);

    // The fixer's edit waits for approval on its card; allowed once, the file changes.
    const card = chat().frame.locator('[data-testid="tool-card"][data-tool="edit_file"]').last();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 90_000 }).toBe('pendingApproval');
    await expect.poll(() => panel().getAttribute('data-status')).toBe('running');
    expect(await chat().frame.locator('[data-testid="flow-state"][data-current="true"]').getAttribute('data-name')).toBe('fix');
    expect(await chat().byTestId('flow-steps').textContent()).toBe('step 2 / 12');
    await workbench.screenshot('flows-fix-waits-for-approval');
    await card.locator('[data-testid="tool-allow-once"]').click();

    // The flow ends: the summary is the last answer, the panel says finished with the memory of the run.
    await expect.poll(() => panel().getAttribute('data-status'), { timeout: 90_000 }).toBe('finished');
    await chat().waitIdle();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toContain('Review of src/leaves.ts');
    const summary = await chat().textOf(chat().lastAnswer());
    expect(summary).toContain('Fix rounds: 1.');
    expect(summary).toContain('Verdict of the last review: ok');
    expect(await readFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), 'utf8')).toContain("'abscission: the tree seals each leaf off'");
    expect(await chat().frame.locator('[data-testid="flow-memory-row"][data-key="verdict"] td').textContent()).toBe('ok');
    expect(await chat().frame.locator('[data-testid="flow-memory-row"][data-key="round"] td').textContent()).toBe('1');

    // Every step's messages carry their marker, steps 1 to 4 in order of the states.
    const shown = async () => [...new Set((await markers().allTextContents()).map((t) => t.trim()))];
    await expect.poll(shown, { timeout: 15_000 }).toEqual(['review-fix · review · step 1', 'review-fix · fix · step 2', 'review-fix · review · step 3', 'review-fix · summary · step 4']);
    await workbench.screenshot('flows-finished');

    // The Conversations tree says the flow on the row of the run (one chain: steps 1–4).
    await workbench.openArborView();
    // Named after the flow and its first input, as a typed message names a chat.
    const conversation = workbench.treeRow('review-fix: src/leaves.ts').first();
    await workbench.expand(conversation);
    await expect.poll(async () => (await workbench.treeRows().allTextContents()).some((t) => t.includes('review-fix · steps 1–4')), { timeout: 15_000 }).toBe(true);

    // The chat's requests: the reviewer's JSON turns asked for the verdict's schema.
    const requests = (await (await fetch(`http://127.0.0.1:${env.fakeLlmPort}/__fake/chat-requests`)).json()) as Array<{ rawBody: string }>;
    expect(requests.some((r) => r.rawBody.includes('changes_needed') && /"(response_format|format)"/.test(r.rawBody))).toBe(true);
  });

  it('re-runs the flow from the first reviewer step on a new branch', async () => {
    await fake('enqueue', [
      { content: 'I read src/leaves.ts again.' },
      { content: JSON.stringify({ verdict: 'ok', issues: [] }) },
    ]);
    const firstReview = chat().frame.locator('[data-testid="message"]', { has: chat().frame.locator('[data-testid="flow-marker"][data-state="review"][data-step="1"]') }).last();
    await firstReview.locator('[data-testid="flow-rerun"]').click();
    await expect.poll(() => panel().getAttribute('data-status'), { timeout: 90_000 }).toBe('finished');
    await chat().waitIdle();
    // The new branch: the review said ok at once, so the summary came at step 2 with no fix round.
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 15_000 }).toContain('No fixes were needed.');
    const steps = [...new Set((await markers().allTextContents()).map((t) => t.trim()))];
    expect(steps).toEqual(['review-fix · review · step 1', 'review-fix · summary · step 2']);
    // The step's first message is now one of two versions (‹ 2/2 ›): the old run is its sibling.
    const rerunQuestion = chat().frame.locator('[data-testid="message"][data-role="user"]', { has: chat().frame.locator('[data-testid="flow-marker"][data-step="1"]') }).first();
    expect(await rerunQuestion.locator('[data-testid="sibling-label"]').textContent()).toBe('2/2');
    await workbench.screenshot('flows-rerun-branch');

    // The tree shows the new branch beside the first run.
    await workbench.openArborView();
    await expect.poll(async () => (await workbench.treeRows().allTextContents()).filter((t) => t.includes('review-fix')).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  });

  it('Branch from Here on a flow message offers the re-run beside the usual branch', async () => {
    const message = chat().frame.locator('[data-testid="message"]', { has: chat().frame.locator('[data-testid="flow-marker"]') }).first();
    await message.hover();
    await message.locator('[data-testid="branch-here"]').click();
    const pick = workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Re-run the flow from this step' });
    await pick.first().waitFor({ timeout: 15_000 });
    expect(await workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Branch from here' }).count()).toBe(1);
    // The usual branch: the banner, as for any message.
    await workbench.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Branch from here' }).first().click();
    await chat().byTestId('branch-banner').waitFor({ timeout: 15_000 });
    await chat().byTestId('branch-cancel').click();
  });
});
