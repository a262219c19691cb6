import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { EVERYTHING_BIN } from '../../src/core/mcp/mcpTestServers';
import { ChatPage } from './harness/chat';
import { installLmToolExtension, prepareOwnSandbox, startCodeServer, writeUserSettings, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { LARGE_WINDOW, setFakeModelContext } from './harness/fakeLlm';
import { ToolPicker } from './harness/toolPicker';
import { Workbench, launchBrowser } from './harness/workbench';

/**
 * Tools in the chat, against the real MCP server-everything over stdio, configured in the workspace's
 * `.vscode/mcp.json`: the fake model calls the built-in `read_file` and `search_workspace` (they run
 * without asking) and an MCP tool (asked, then allowed in this conversation), a denied call and the
 * model's answer to it, Stop during a slow MCP tool, and Branch from Here at a tool step in the tree.
 * The fake model server calls a tool for each `[[tool:NAME {json}]]` in the question and answers
 * "Tool results: …" once the results are in. This file runs its own VS Code on its own sandbox.
 */
describe('tools and MCP in the chat', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  const chat = () => new ChatPage(workbench);
  const card = (tool: string) => chat().frame.locator(`[data-testid="tool-card"][data-tool="${tool}"]`).last();

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('tools', env.fakeLlmPort);
    // Fifty edits in one message, and every tool at once: more than Ollama's default 4,096-token window holds.
    await setFakeModelContext(env.fakeLlmPort, 'arbor-test-model', LARGE_WINDOW.context);
    await writeUserSettings(sandbox, LARGE_WINDOW.settings, { merge: true });
    await mkdir(path.join(sandbox.workspace, 'src'), { recursive: true });
    await writeFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), "// Why leaves fall\nexport const reason = 'abscission: the tree seals each leaf off before winter';\n");
    await mkdir(path.join(sandbox.workspace, '.vscode'), { recursive: true });
    await writeFile(
      path.join(sandbox.workspace, '.vscode', 'mcp.json'),
      `${JSON.stringify({ servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] } } }, null, 2)}\n`,
    );
    // A git repository with one commit and a change since, for git_log and git_diff; a JSON file with an
    // error for get_diagnostics.
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Arbor Test', '-c', 'user.email=test@arbor.invalid', ...args], { cwd: sandbox.workspace });
    await writeFile(path.join(sandbox.workspace, '.gitignore'), '.vscode/\n');
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'First commit of the leaves');
    await writeFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), "// Why leaves fall\nexport const reason = 'abscission: the tree seals each leaf off before winter';\nexport const season = 'autumn';\n");
    await writeFile(path.join(sandbox.workspace, 'broken.json'), '{ "leaves": }\n');
    // Another extension that registers a language model tool with VS Code, packaged and installed as a user would.
    await installLmToolExtension(sandbox);
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
  }, 240_000);

  beforeEach((context) => {
    context.onTestFailed(async () => {
      const file = await workbench?.screenshot(`tools-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await setFakeModelContext(env.fakeLlmPort, 'arbor-test-model', null);
    await browser?.close();
    await server?.stop();
  });

  it('runs read_file and search_workspace without asking, asks for the MCP tool, and answers once it is allowed in this conversation', async () => {
    await chat().send(
      'Why do leaves fall? [[tool:read_file {"path":"src/leaves.ts"}]] [[tool:search_workspace {"query":"abscission"}]] [[tool:mcp_everything_echo {"message":"hello from arbor"}]]',
    );
    // The server is the workspace's (.vscode/mcp.json): Arbor asks before it starts it (mcpTrust.e2e.test.ts tests the prompt).
    const trust = workbench.page.locator('.monaco-dialog-box', { hasText: 'Start the MCP server "everything"' });
    await trust.waitFor({ timeout: 60_000 });
    await trust.locator('.monaco-button', { hasText: 'Trust and Start' }).click();
    // The built-in tools run on their own (side by side with the MCP call, all three read-only); the MCP tool waits on its card.
    await expect.poll(() => card('mcp_everything_echo').getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await expect.poll(() => card('read_file').getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
    await expect.poll(() => card('search_workspace').getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
    expect(await card('mcp_everything_echo').locator('[data-testid="tool-name"]').textContent()).toBe('everything › echo');
    await workbench.screenshot('tools-asks-for-the-mcp-tool');
    await card('mcp_everything_echo').locator('[data-testid="tool-allow-conversation"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    const answer = await chat().textOf(chat().lastAnswer());
    expect(answer).toContain('abscission: the tree seals each leaf off before winter');
    expect(answer).toContain('hello from arbor');
    expect(await card('mcp_everything_echo').getAttribute('data-state')).toBe('done');
    // Its output is on the card, collapsed.
    expect(await card('mcp_everything_echo').locator('[data-testid="tool-output"] pre').textContent()).toContain('hello from arbor');

    // Allowed in this conversation: the next call of it runs without asking.
    await chat().send('Again. [[tool:mcp_everything_echo {"message":"second time"}]]');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('second time');
    await chat().waitIdle();
    expect(await chat().frame.locator('[data-testid="tool-approval"]').count()).toBe(0);
    await workbench.screenshot('tools-answer-after-allow');
  });

  it('tells the model of a denied call, with the reason, and shows its answer to the denial', async () => {
    await chat().send('Add them. [[tool:mcp_everything_get-sum {"a":2,"b":3}]]');
    const sum = card('mcp_everything_get-sum');
    await expect.poll(() => sum.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await sum.locator('[data-testid="tool-deny-reason"]').fill('Do it in your head');
    await sum.locator('[data-testid="tool-deny"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('The user denied this call: Do it in your head');
    await chat().waitIdle();
    expect(await card('mcp_everything_get-sum').getAttribute('data-state')).toBe('denied');
  });

  it('Stop during a slow MCP tool cancels it and records the call as cancelled', async () => {
    await chat().send('Take your time. [[tool:mcp_everything_trigger-long-running-operation {"duration":60,"steps":60}]]');
    const slow = card('mcp_everything_trigger-long-running-operation');
    await expect.poll(() => slow.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await slow.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => slow.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    await chat().byTestId('stop').click();
    await expect.poll(() => card('mcp_everything_trigger-long-running-operation').getAttribute('data-state'), { timeout: 30_000 }).toBe('cancelled');
    await chat().waitIdle(30_000);
    await card('mcp_everything_trigger-long-running-operation').locator('[data-testid="tool-output"] summary').click();
    expect(await card('mcp_everything_trigger-long-running-operation').locator('[data-testid="tool-output"] pre').textContent()).toContain('Stopped by the user while it ran');
  });

  it('branches from a tool step in the tree: the next message follows that step', async () => {
    await workbench.openArborView();
    const conversation = workbench.treeRow(/Why do leaves fall/).first();
    await workbench.expand(conversation);
    const question = workbench.treeRow(/You: Why do leaves fall/).first();
    await workbench.expand(question);
    const step = workbench.treeRow(/^search_workspace/).first();
    await step.waitFor({ timeout: 15_000 });
    expect(await step.textContent()).toContain('done');
    await step.click({ button: 'right' });
    await workbench.pickMenuItem('Branch from Here');
    await chat().byTestId('branch-banner').waitFor({ timeout: 15_000 });
    await chat().send('A new question after the search');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('A new question after the search');
    await chat().waitIdle();
    // The path: the question, the answer with its calls, and the new question after the search's result.
    const users = await chat().messagesOf('user').allTextContents();
    expect(users.at(-1)).toContain('A new question after the search');
    expect(await card('read_file').getAttribute('data-state')).toBe('done');
    expect(await card('search_workspace').getAttribute('data-state')).toBe('done');
    await workbench.screenshot('tools-branch-from-a-tool-step');
  });

  it('lists the MCP server as running with its tools in the MCP Servers view, and Restart starts it again', async () => {
    await workbench.openArborView();
    const pane = workbench.page.locator('.part.sidebar .pane', { has: workbench.page.locator('.pane-header', { hasText: /MCP Servers/i }) });
    const header = pane.locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    const row = pane.locator('[role="treeitem"]', { hasText: 'everything' }).first();
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/running, \d+ tools/);
    await workbench.expand(row);
    await expect.poll(() => pane.locator('[role="treeitem"]', { hasText: 'everything › echo' }).count(), { timeout: 15_000 }).toBe(1);
    await workbench.screenshot('tools-mcp-servers-view');
    await row.click({ button: 'right' });
    await workbench.pickMenuItem(/Restart MCP Server/);
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/running, \d+ tools/);
  });

  it('the tools button turns tools off for this chat: a call marker then gets a plain answer', async () => {
    const toggle = chat().byTestId('tools-toggle');
    await expect.poll(() => toggle.getAttribute('aria-pressed'), { timeout: 15_000 }).toBe('true');
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), { timeout: 15_000 }).toBe('false');
    await chat().ask('No tools now [[tool:read_file {"path":"src/leaves.ts"}]]', '[arbor-test-model] Echo: No tools now [[tool:read_file {"path":"src/leaves.ts"}]]');
    expect(await chat().lastAnswer().locator('[data-testid="tool-card"]').count()).toBe(0);
    await toggle.click();
    await expect.poll(() => toggle.getAttribute('aria-pressed'), { timeout: 15_000 }).toBe('true');
  });

  it('Reset Tool Approvals forgets the Allow given in this conversation: the MCP tool asks again, and runs with the arguments edited on its card', async () => {
    await workbench.runCommand('Arbor: Reset Tool Approvals');
    await expect
      .poll(async () => (await workbench.page.locator('.notification-toast').allTextContents()).join('\n'), { timeout: 15_000 })
      .toContain('Arbor forgot 1 tool approval');
    await chat().send('Once more [[tool:mcp_everything_echo {"message":"asks again"}]]');
    const echo = card('mcp_everything_echo');
    await expect.poll(() => echo.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    // The arguments are edited on the card before Allow: the tool runs with the edited ones, and the model is told.
    await echo.locator('[data-testid="tool-arguments-editor"]').fill('{ "message": "edited on the card" }');
    await echo.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('edited on the card');
    await chat().waitIdle();
    const answer = await chat().textOf(chat().lastAnswer());
    expect(answer).toContain('The user changed the arguments before approving');
    expect(answer).not.toContain('Echo: asks again');
    await card('mcp_everything_echo').locator('[data-testid="tool-arguments"] summary').click();
    expect(await card('mcp_everything_echo').locator('[data-testid="tool-arguments"] pre').textContent()).toContain('edited on the card');
  });

  it('reads the editor, the Problems panel and git through get_selection, get_diagnostics, git_diff and git_log', async () => {
    const { page } = workbench;
    const open = async (name: string) => {
      await workbench.runCommand('Go to File');
      await page.keyboard.type(name);
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
      await page.keyboard.press('Enter');
      await page.locator('.part.editor .tab.active', { hasText: name }).first().waitFor({ timeout: 15_000 });
    };
    await open('broken.json');
    // The JSON language server reports the error in the Problems panel (its count shows in the status bar).
    const problems = page.locator('.statusbar-item', { has: page.locator('.codicon-error') }).first();
    await expect.poll(async () => ((await problems.textContent()) ?? '').trim(), { timeout: 30_000 }).toMatch(/^[1-9]/);
    await open('leaves.ts');
    await page.locator('.part.editor .view-lines', { hasText: 'abscission' }).first().click();
    await page.keyboard.press('Control+A');
    await workbench.tab(/Why do leaves fall/).first().click();
    await chat().waitReady();
    await chat().send('What is going on? [[tool:get_selection {}]] [[tool:get_diagnostics {}]] [[tool:git_diff {}]] [[tool:git_log {}]]');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    for (const tool of ['get_selection', 'get_diagnostics', 'git_diff', 'git_log']) expect(await card(tool).getAttribute('data-state')).toBe('done');
    const answer = await chat().textOf(chat().lastAnswer());
    // get_selection: the selected file and its text; get_diagnostics: the JSON error; git: the change and the commit.
    expect(answer).toContain('src/leaves.ts');
    expect(answer).toContain("export const season = 'autumn'");
    expect(answer).toContain('broken.json');
    expect(answer).toContain("+export const season = 'autumn';");
    expect(answer).toContain('First commit of the leaves');
    await workbench.screenshot('tools-editor-and-git');
  });

  it('offers a tool another extension registered with VS Code once ticked in the tools picker, behind an approval, and answers with its result', async () => {
    // Other extensions' tools are off until the user ticks them (toolPicker.e2e.test.ts tests the picker itself).
    const picker = new ToolPicker(workbench, chat());
    await picker.open();
    await picker.toggle('leaf_counter');
    await picker.accept();
    await chat().send('How many leaves? [[tool:leaf_counter {"tree":"oak"}]]');
    const counter = card('leaf_counter');
    await expect.poll(() => counter.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    expect(await counter.locator('[data-testid="tool-approval-reason"]').textContent()).toContain('a tool of another extension');
    await counter.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('The oak has 1234 leaves.');
    await chat().waitIdle();
  });

  it('edits a file through edit_file once the user has reviewed its diff on the card', async () => {
    await chat().send('Say fall. [[tool:edit_file {"path":"src/leaves.ts","edits":[{"search":"\'autumn\'","replace":"\'fall\'"}]}]]');
    const edit = card('edit_file');
    await expect.poll(() => edit.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    const diff = edit.locator('[data-testid="tool-diff"]');
    await diff.waitFor({ timeout: 15_000 });
    expect(await diff.textContent()).toContain("-export const season = 'autumn';");
    expect(await diff.textContent()).toContain("+export const season = 'fall';");
    // Nothing is written before Allow.
    expect(await readFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), 'utf8')).toContain("'autumn'");
    await workbench.screenshot('tools-edit-file-review');
    await edit.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Tool results:');
    await chat().waitIdle();
    expect(await card('edit_file').getAttribute('data-state')).toBe('done');
    await expect.poll(() => readFile(path.join(sandbox.workspace, 'src', 'leaves.ts'), 'utf8'), { timeout: 15_000 }).toContain("export const season = 'fall';");
    // The edit is a file checkpoint of its step: the answer that made the call shows the file it changed.
    const chipOf = chat().frame.locator('[data-testid="message"][data-role="assistant"]', { has: chat().frame.locator('[data-tool="edit_file"]') }).last().locator('[data-testid="file-change"]');
    await expect.poll(() => chipOf.textContent(), { timeout: 15_000 }).toContain('src/leaves.ts +1 −1');
  });

  it('asks before run_command with the exact command; a denied one never runs and the model is told', async () => {
    const marker = path.join(sandbox.workspace, 'ran.txt');
    await chat().send(`Make a file. [[tool:run_command {"command":"touch ran.txt"}]]`);
    const run = card('run_command');
    await expect.poll(() => run.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    expect(await run.locator('[data-testid="tool-arguments-editor"]').inputValue()).toContain('touch ran.txt');
    expect(await run.locator('[data-testid="tool-approval-reason"]').textContent()).toContain('arbor.tools.commandAllowList');
    await run.locator('[data-testid="tool-deny-reason"]').fill('No files today');
    await run.locator('[data-testid="tool-deny"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('The user denied this call: No files today');
    await chat().waitIdle();
    await expect(readFile(marker, 'utf8')).rejects.toThrow();
  });

  it('runs an allowed run_command and its output reaches the model', async () => {
    await chat().send('List them. [[tool:run_command {"command":"echo counted-leaves && ls src"}]]');
    const run = card('run_command');
    await expect.poll(() => run.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    await run.locator('[data-testid="tool-allow-once"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 90_000 }).toContain('Tool results:');
    await chat().waitIdle();
    const answer = await chat().textOf(chat().lastAnswer());
    expect(answer).toContain('counted-leaves');
    expect(answer).toContain('leaves.ts');
  });

  it('restores a file 50 edits back from the tree: byte for byte, in one edit that Undo takes back', async () => {
    const { page } = workbench;
    const file = path.join(sandbox.workspace, 'src', 'counter.txt');
    // CRLF, text beyond ASCII and no final newline: all of it must come back exactly.
    const version = (n: number) => `count = ${n}\r\nünïcødé ✓ — ${'·'.repeat(n)}`;
    await writeFile(file, version(0));
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const edits = Array.from({ length: 50 }, (_, i) =>
      `[[tool:edit_file ${JSON.stringify({ path: 'src/counter.txt', edits: [{ search: `count = ${i}\r\nünïcødé ✓ — ${'·'.repeat(i)}`, replace: version(i + 1) }] })}]]`,
    );
    await chat().send(`Count to fifty. ${edits.join(' ')}`);
    const first = chat().frame.locator('[data-testid="tool-card"][data-tool="edit_file"]').first();
    await expect.poll(() => first.getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    // Allowed in this conversation: the other 49 edits run without asking, one after another.
    await first.locator('[data-testid="tool-allow-conversation"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 180_000 }).toContain('Tool results:');
    await chat().waitIdle();
    expect(await readFile(file, 'utf8')).toBe(version(50));

    // In the tree, the first edit's step: Restore Files to Here takes the file back 49 edits.
    await workbench.openArborView();
    await workbench.expand(workbench.treeRow(/Count to fifty/).first());
    await workbench.expand(workbench.treeRow(/You: Count to fifty/).first());
    const step = workbench.treeRow(/^edit_file/).first();
    await step.waitFor({ timeout: 15_000 });
    await step.click({ button: 'right' });
    await workbench.pickMenuItem('Restore Files to Here');
    const ask = page.locator('.notification-toast', { hasText: 'Restore src/counter.txt to how it was after this message?' }).last();
    await ask.waitFor({ timeout: 30_000 });
    await ask.locator('.monaco-button', { hasText: /^Restore$/ }).click();
    await expect.poll(() => readFile(file), { timeout: 15_000 }).toEqual(Buffer.from(version(1), 'utf8'));

    // One edit: a single Undo in the file's editor brings back what the fiftieth edit wrote.
    // By its absolute path: Go to File may not have indexed a file made during the session yet.
    await workbench.runCommand('Go to File');
    await page.keyboard.type(file);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'counter.txt' }).first().waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.locator('.part.editor .tab.active', { hasText: 'counter.txt' }).first().waitFor({ timeout: 15_000 });
    await page.locator('.part.editor .view-lines').first().click();
    await page.keyboard.press('Control+Z');
    await expect.poll(async () => (await page.locator('.part.editor .view-lines').first().textContent())?.replace(/\u00a0/g, ' '), { timeout: 15_000 }).toContain('count = 50');
    await workbench.runCommand('File: Save');
    await expect.poll(() => readFile(file), { timeout: 15_000 }).toEqual(Buffer.from(version(50), 'utf8'));
    // Fifty tool steps one after another, each a model turn and a checked write: 80 s of the suite's
    // 120 s on a loaded two-core machine, so this one test gets the time its steps need.
  }, 300_000);
});
