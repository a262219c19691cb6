import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { EVERYTHING_BIN } from '../../src/core/mcp/mcpTestServers';
import { ChatPage } from './harness/chat';
import { prepareOwnSandbox, startCodeServer, type RunningCodeServer, type Sandbox } from './harness/codeServer';
import { Workbench, launchBrowser } from './harness/workbench';

/**
 * Trust in the MCP servers a workspace configures (issue 22, section 2), in a workspace VS Code trusts:
 * a server in `.vscode/mcp.json` whose program writes a marker file the moment it starts. A chat that
 * asks for tools first shows a modal naming the server, its command line and the file; the marker does
 * not exist before "Trust and Start". Changing its arguments in the file holds it back again: the next
 * chat asks again, and "Don't Start" keeps it stopped (and chats stop asking) until Trust… in the MCP
 * Servers view. This file runs its own VS Code on its own sandbox.
 */
describe('trust in the MCP servers a workspace configures', () => {
  const env = inject('arborE2e');
  let sandbox: Sandbox;
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  let workbench: Workbench;
  let script: string;
  let marker: string;
  let mcpJson: string;
  const chat = () => new ChatPage(workbench);
  const card = (tool: string) => chat().frame.locator(`[data-testid="tool-card"][data-tool="${tool}"]`).last();
  const dialog = () => workbench.page.locator('.monaco-dialog-box');
  /** The lines the marker server wrote, one per start: the label it was given. */
  const starts = async () => (existsSync(marker) ? (await readFile(marker, 'utf8')).split('\n').filter(Boolean) : []);
  const configure = (label: string) =>
    writeFile(mcpJson, `${JSON.stringify({ servers: { marker: { type: 'stdio', command: process.execPath, args: [script, marker, label, EVERYTHING_BIN] } } }, null, 2)}\n`);
  const mcpPane = () => workbench.page.locator('.part.sidebar .pane', { has: workbench.page.locator('.pane-header', { hasText: /MCP Servers/i }) });
  const markerRow = (): Locator => mcpPane().locator('[role="treeitem"]', { hasText: 'marker' }).first();

  async function showMcpView(): Promise<void> {
    await workbench.openArborView();
    const header = mcpPane().locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  }

  /** Waits for the trust modal and returns its text. */
  async function trustPrompt(): Promise<string> {
    await dialog().waitFor({ state: 'visible', timeout: 60_000 });
    return (await dialog().textContent()) ?? '';
  }

  async function answer(button: 'Trust and Start' | "Don't Start"): Promise<void> {
    await dialog().locator('.monaco-button', { hasText: button }).first().click();
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
  }

  beforeAll(async () => {
    sandbox = await prepareOwnSandbox('mcpTrust', env.fakeLlmPort);
    // The server's program: it notes that it started (with the label its arguments carry), then runs server-everything over stdio.
    script = path.join(sandbox.workspace, 'tools', 'marker-server.mjs');
    marker = path.join(sandbox.root, 'marker-starts.txt');
    mcpJson = path.join(sandbox.workspace, '.vscode', 'mcp.json');
    await mkdir(path.dirname(script), { recursive: true });
    await writeFile(
      script,
      [
        "import { appendFileSync } from 'node:fs';",
        "import { pathToFileURL } from 'node:url';",
        'const [marker, label, everything] = process.argv.slice(2);',
        "appendFileSync(marker, `${label}\\n`);",
        "process.argv = [process.argv[0], everything, 'stdio'];",
        'await import(pathToFileURL(everything).href);',
        '',
      ].join('\n'),
    );
    await mkdir(path.dirname(mcpJson), { recursive: true });
    await configure('first');
    browser = await launchBrowser();
    server = await startCodeServer(sandbox);
    workbench = await Workbench.open(browser, server.url);
    await workbench.openArborView();
    await workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
  }, 240_000);

  beforeEach((context) => {
    context.onTestFailed(async () => {
      const file = await workbench?.screenshot(`mcpTrust-${context.task.name}`);
      console.error(`[e2e] screenshot of the failure: ${file}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the server as waiting for your OK, asks before the first chat with tools starts it, and starts it on Trust and Start', async () => {
    await showMcpView();
    await expect.poll(() => markerRow().textContent(), { timeout: 30_000 }).toContain('waiting for your OK');
    await workbench.screenshot('mcpTrust-waiting-in-the-view');

    await chat().send('Say hello through the server. [[tool:mcp_marker_echo {"message":"hello from a trusted server"}]]');
    const text = await trustPrompt();
    expect(text).toContain('Start the MCP server "marker" that this workspace configures?');
    expect(text).toContain(`Runs: ${process.execPath} ${script} ${marker} first ${EVERYTHING_BIN}`);
    expect(text).toContain(`Configured in: ${mcpJson}`);
    expect(await starts()).toEqual([]);
    await workbench.screenshot('mcpTrust-the-prompt');
    // The prompt stays while nobody answers, and nothing starts meanwhile.
    await workbench.page.waitForTimeout(2_000);
    expect(await dialog().isVisible()).toBe(true);
    expect(await starts()).toEqual([]);

    await answer('Trust and Start');
    // Its tools are offered: the model's call to its echo tool waits on its card (an MCP tool asks), then runs.
    await expect.poll(() => card('mcp_marker_echo').getAttribute('data-state'), { timeout: 60_000 }).toBe('pendingApproval');
    expect(await starts()).toEqual(['first']);
    await card('mcp_marker_echo').locator('[data-testid="tool-allow-conversation"]').click();
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('hello from a trusted server');
    await chat().waitIdle();
    await showMcpView();
    await expect.poll(() => markerRow().textContent(), { timeout: 30_000 }).toMatch(/running, \d+ tools/);

    // Trusted as configured: the next chat asks nothing.
    await chat().send('Again. [[tool:mcp_marker_echo {"message":"second, no prompt"}]]');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('second, no prompt');
    await chat().waitIdle();
    expect(await dialog().isVisible()).toBe(false);
    expect(await starts()).toEqual(['first']);
  });

  it('asks again once the file changes the server\'s arguments, and the changed server does not start before the OK', async () => {
    await configure('changed');
    await showMcpView();
    // The running server stops (it is no longer what was trusted) and waits for an OK again.
    await expect.poll(() => markerRow().textContent(), { timeout: 30_000 }).toContain('waiting for your OK');

    await chat().send('A question after the change');
    const text = await trustPrompt();
    expect(text).toContain(`Runs: ${process.execPath} ${script} ${marker} changed ${EVERYTHING_BIN}`);
    expect(text).toContain(`Configured in: ${mcpJson}`);
    expect(await starts()).toEqual(['first']);
    await workbench.screenshot('mcpTrust-asked-again-after-the-change');
    await answer("Don't Start");
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('A question after the change');
    await chat().waitIdle();
    expect(await starts()).toEqual(['first']);

    // Declined in this window: the next chat does not ask again, and the server stays stopped.
    await chat().send('Another question, no prompt this time');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Another question, no prompt this time');
    await chat().waitIdle();
    expect(await dialog().isVisible()).toBe(false);
    expect(await starts()).toEqual(['first']);
    await showMcpView();
    await expect.poll(() => markerRow().textContent(), { timeout: 30_000 }).toContain('waiting for your OK');
  });

  it('Trust… in the MCP Servers view shows the same prompt, then starts the server', async () => {
    await showMcpView();
    const row = markerRow();
    await row.click({ button: 'right' });
    await workbench.pickMenuItem(/Trust MCP Server/);
    const text = await trustPrompt();
    expect(text).toContain('Start the MCP server "marker" that this workspace configures?');
    expect(text).toContain(`${marker} changed `);
    expect(await starts()).toEqual(['first']);
    await answer('Trust and Start');
    await expect.poll(() => starts(), { timeout: 60_000 }).toEqual(['first', 'changed']);
    await expect.poll(() => markerRow().textContent(), { timeout: 30_000 }).toMatch(/running, \d+ tools/);
    await workbench.screenshot('mcpTrust-trusted-from-the-view');
  });
});
