import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { EVERYTHING_BIN, LATE_SERVER_BIN } from '../../src/core/mcp/mcpTestServers';
import { ChatPage } from './harness/chat';
import { installLmToolExtension, writeUserSettings } from './harness/codeServer';
import { LARGE_WINDOW, setFakeModelContext } from './harness/fakeLlm';
import { ToolPicker } from './harness/toolPicker';
import { useOwnWorkbench } from './harness/session';

/** The tool names of each chat request the fake model server received whose body contains `text`. */
async function offeredIn(port: number, text: string): Promise<string[][]> {
  const response = await fetch(`http://127.0.0.1:${port}/__fake/chat-requests`);
  const requests = (await response.json()) as Array<{ rawBody: string }>;
  return requests
    .filter((r) => r.rawBody.includes(text))
    .map((r) => ((JSON.parse(r.rawBody) as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name));
}

/**
 * What Arbor offers a model, in the real VS Code: two MCP servers in the user's `arbor.mcp.servers`
 * (no trust prompt), server-everything and a server that never answers `initialize`
 * (test/fixtures/mcpLateServer.mjs), and another extension's tools (test/e2e/fixtures/lmToolExtension:
 * `leaf_counter`, and `leaf_shaker` with an empty schema) beside the `vscode_*_internal` tools VS Code
 * registers itself. The silent server holds no chat: the answer arrives while it is still starting, the
 * MCP Servers view says what it has not answered and for how long, then that it failed; server-everything
 * joins the requests once it runs. VS Code's internal tools and the tool without a usable schema are in
 * no request. This file runs its own VS Code on its own sandbox.
 */
describe('the tools Arbor offers: slow MCP servers and VS Code\'s internal tools', () => {
  const session = useOwnWorkbench('offeredTools', {
    // Every tool at once, as this file checks what is offered: more than Ollama's default 4,096-token window holds.
    before: () => setFakeModelContext(inject('arborE2e').fakeLlmPort, 'arbor-test-model', LARGE_WINDOW.context),
    prepare: async (sandbox) => {
      await installLmToolExtension(sandbox);
      await writeUserSettings(
        sandbox,
        {
          ...LARGE_WINDOW.settings,
          'arbor.mcp.servers': {
            silent: { command: process.execPath, args: [LATE_SERVER_BIN, 'never', 'silent-e2e'] },
            everything: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] },
          },
        },
        { merge: true },
      );
    },
    after: () => setFakeModelContext(inject('arborE2e').fakeLlmPort, 'arbor-test-model', null),
  });
  const { env } = session;
  const chat = () => new ChatPage(session.workbench);
  const mcpPane = () => session.workbench.page.locator('.part.sidebar .pane', { has: session.workbench.page.locator('.pane-header', { hasText: /MCP Servers/i }) });
  const row = (name: string): Locator => mcpPane().locator('[role="treeitem"]', { hasText: name }).first();

  async function showMcpView(): Promise<void> {
    await session.workbench.openArborView();
    const header = mcpPane().locator('.pane-header');
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  }

  beforeAll(async () => {
    // Other extensions' tools are offered once ticked (toolPicker.e2e.test.ts tests the picker).
    const picker = new ToolPicker(session.workbench, chat());
    await picker.open();
    await picker.toggle('leaf_counter');
    await picker.accept();
  });

  it('answers while a server that never answers initialize is still starting, and the view says what it waits for', async () => {
    await showMcpView();
    // A chat with tools starts its servers when it opens: the silent one is starting, or on a slow machine has
    // given up already. Restart starts it afresh, so the request below is sent while it starts.
    await expect.poll(() => row('silent').textContent(), { timeout: 30_000 }).toMatch(/starting…|failed/);
    await row('silent').click({ button: 'right' });
    await session.workbench.pickMenuItem(/Restart MCP Server/);
    await expect.poll(() => row('silent').textContent(), { timeout: 30_000 }).toContain('starting…');
    await chat().send('Why do leaves fall? (with a silent server)');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Echo: Why do leaves fall? (with a silent server)');
    await chat().waitIdle();
    // The answer came while the silent server was still starting: the request did not wait for it to give up.
    expect(await row('silent').textContent()).toContain('starting…');
    const [offered] = await offeredIn(env.fakeLlmPort, 'with a silent server');
    expect(offered).toContain('read_file');
    expect(offered.some((name) => name.startsWith('mcp_silent'))).toBe(false);
    // The view redraws while it starts, saying what it has not answered and for how long.
    await expect.poll(() => row('silent').textContent(), { timeout: 30_000 }).toMatch(/starting… \d+ s, no answer to initialize/);
    // Nothing about the silent server changes now: only the view's own redraw makes its time grow.
    const seconds = async () => Number(/starting… (\d+) s/.exec((await row('silent').textContent()) ?? '')?.[1] ?? -1);
    const before = await seconds();
    await expect.poll(seconds, { timeout: 20_000 }).toBeGreaterThan(before);
    await session.workbench.screenshot('offeredTools-silent-server-starting');
  });

  it('offers server-everything\'s tools once it runs, and shows the silent server as failed after the initialize timeout', async () => {
    await expect.poll(() => row('everything').textContent(), { timeout: 60_000 }).toMatch(/running, \d+ tools/);
    await chat().send('Again, once everything runs');
    await expect.poll(() => chat().textOf(chat().lastAnswer()), { timeout: 60_000 }).toContain('Echo: Again, once everything runs');
    await chat().waitIdle();
    const [offered] = await offeredIn(env.fakeLlmPort, 'Again, once everything runs');
    expect(offered).toContain('mcp_everything_echo');
    expect(offered.some((name) => name.startsWith('mcp_silent'))).toBe(false);
    await expect.poll(() => row('silent').textContent(), { timeout: 90_000 }).toContain('failed: could not start: no answer to initialize within 30 s');
    await session.workbench.screenshot('offeredTools-silent-server-failed');
  });

  it('offers no tool of VS Code\'s own ending in _internal, nor one whose schema is not an object schema, and does offer the other extension\'s tool', async () => {
    await session.workbench.runCommand('Arbor e2e: Write Language Model Tools');
    const file = path.join(session.sandbox.workspace, 'lm-tools.json');
    await expect.poll(() => existsSync(file), { timeout: 30_000 }).toBe(true);
    const listed = JSON.parse(await readFile(file, 'utf8')) as Array<{ name: string; inputSchema?: { type?: unknown } }>;
    const internal = listed.filter((tool) => tool.name.endsWith('_internal')).map((tool) => tool.name);
    const unusable = listed.filter((tool) => tool.inputSchema !== undefined && tool.inputSchema.type !== 'object').map((tool) => tool.name);
    // The attack is real: this VS Code lists internal tools of its own, and the fixture's leaf_shaker.
    expect(internal.length).toBeGreaterThan(0);
    expect(listed.map((tool) => tool.name)).toEqual(expect.arrayContaining(['leaf_counter', 'leaf_shaker']));
    const requests = [...(await offeredIn(env.fakeLlmPort, 'with a silent server')), ...(await offeredIn(env.fakeLlmPort, 'Again, once everything runs'))];
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const offered of requests) {
      expect(offered).toContain('leaf_counter');
      expect(offered.filter((name) => internal.includes(name) || name.endsWith('_internal'))).toEqual([]);
      expect(offered.filter((name) => unusable.includes(name))).toEqual([]);
    }
  });
});
