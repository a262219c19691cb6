import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVERYTHING_BIN, FILESYSTEM_BIN } from '../../src/core/mcp/mcpTestServers';
import { ChatPage } from './harness/chat';
import { useOwnWorkbench } from './harness/session';

/** A chat request as the fake model server received it, with its own count of the prompt's tokens. */
interface ReceivedRequest {
  path: string;
  rawBody: string;
  promptTokens: number;
}

/**
 * Tools in a small window, as a laptop running Ollama has it: the fake server's Ollama model runs with
 * Ollama's default 4,096-token `num_ctx`. The header's meter must count what the next request carries,
 * the tool definitions as they go on the wire included (held against the fake server's own count of the
 * body it received, on both wire formats, with and without the real MCP servers from npm), and with the
 * 11 built-in tools and the 27 of server-everything and server-filesystem no request may pass the window: the tools the question needs are offered,
 * and the chat says how many were left out. This file runs its own VS Code on its own sandbox.
 */
describe('tools in a small window', () => {
  const session = useOwnWorkbench('toolWindow', {
    prepare: async (sandbox) => {
      await mkdir(path.join(sandbox.workspace, 'src'), { recursive: true });
      await mkdir(path.join(sandbox.workspace, '.vscode'), { recursive: true });
      await writeFile(path.join(sandbox.workspace, 'src', 'cart.ts'), 'export function totalCents(items: number[], discount = 0): number {\n  return Math.max(0, items.reduce((a, b) => a + b, 0) - discount);\n}\n');
    },
  });
  const { env } = session;
  const chat = () => new ChatPage(session.workbench);
  /** The workspace's settings, which VS Code reads again as soon as the file changes. */
  const workspaceSettings = (settings: Record<string, unknown>) => writeFile(path.join(session.sandbox.workspace, '.vscode', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  const openaiWindowed = { 'arbor.provider': 'openai', 'arbor.openai.baseUrl': `http://127.0.0.1:${env.fakeLlmPort}/v1`, 'arbor.contextLength': { 'arbor-test-model': 4096 } };

  const received = async (): Promise<ReceivedRequest[]> => (await (await fetch(`http://127.0.0.1:${env.fakeLlmPort}/__fake/chat-requests`)).json()) as ReceivedRequest[];
  const toolNames = (request: ReceivedRequest): string[] => ((JSON.parse(request.rawBody) as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
  /** The meter's tooltip: "Context: 2,310 of 4,096 tokens (56%), estimated" or "Context: 2,310 tokens, estimated; …". */
  const meterTitle = async () => (await chat().byTestId('context-meter').getAttribute('title')) ?? '';
  /** What the meter says the next request carries, without the answer's reserve. */
  const meterUsed = async (): Promise<number> => {
    const title = await meterTitle();
    const number = (text: string | undefined) => Number((text ?? 'NaN').replace(/,/g, ''));
    const windowed = /^Context: ([\d,]+) of [\d,]+ tokens/.exec(title);
    const reserved = /Reserved for the answer: ([\d,]+)/.exec(title);
    if (windowed) return number(windowed[1]) - number(reserved?.[1]);
    return number(/^Context: ([\d,]+) tokens/.exec(title)?.[1]);
  };

  /**
   * Types `text`, waits for the meter to count it, reads the meter, sends, and returns what the meter
   * said beside the request the server received for it.
   */
  const measure = async (text: string): Promise<{ meter: number; request: ReceivedRequest }> => {
    await chat().waitIdle();
    const before = (await received()).length;
    await chat().input().fill(text);
    await expect.poll(meterTitle, { timeout: 15_000 }).not.toContain('Your draft: 0\n');
    // The count settles once the draft's tools are fitted: two equal readings in a row.
    let meter = NaN;
    await expect
      .poll(async () => {
        const last = meter;
        meter = await meterUsed();
        return meter === last;
      }, { timeout: 15_000, interval: 300 })
      .toBe(true);
    await chat().input().press('Enter');
    await expect.poll(async () => (await received()).length, { timeout: 60_000 }).toBeGreaterThan(before);
    await chat().waitIdle();
    return { meter, request: (await received())[before] };
  };
  const modelShown = async () => (await chat().byTestId('chat-model').textContent()) ?? '';
  const within3Percent = (meter: number, server: number) => expect(Math.abs(meter - server) / server).toBeLessThanOrEqual(0.03);

  it('counts what the request carries, tools included, on the Ollama wire and the OpenAI wire', async () => {
    const ollama = await measure('read src/cart.ts and tell me what totalCents does');
    expect(ollama.request.path).toBe('/api/chat');
    expect(toolNames(ollama.request)).toContain('read_file');
    within3Percent(ollama.meter, ollama.request.promptTokens);

    // The same chat on the OpenAI-compatible wire, its window set for the model: the count is the same kind.
    await workspaceSettings(openaiWindowed);
    await expect.poll(modelShown, { timeout: 30_000 }).toContain('openai');
    const openai = await measure('which file defines totalCents?');
    expect(openai.request.path).toBe('/v1/chat/completions');
    within3Percent(openai.meter, openai.request.promptTokens);
    await workspaceSettings({});
    await expect.poll(modelShown, { timeout: 30_000 }).toContain('ollama');
  });

  it('keeps every request within a 4k window with the built-in tools and two MCP servers\' 27, offers what the question needs, and says what it left out', async () => {
    // The two real MCP servers from npm, as the workspace configures them: the first request with tools asks
    // to start each, and the meter counts their tools once they run.
    const servers = {
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] },
      files: { type: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, session.sandbox.workspace] },
    };
    await writeFile(path.join(session.sandbox.workspace, '.vscode', 'mcp.json'), `${JSON.stringify({ servers }, null, 2)}\n`);
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const before = (await received()).length;
    await chat().send('hello');
    for (const name of Object.keys(servers)) {
      const trust = session.workbench.page.locator('.monaco-dialog-box', { hasText: `Start the MCP server "${name}"` });
      await trust.waitFor({ timeout: 60_000 });
      await trust.locator('.monaco-button', { hasText: 'Trust and Start' }).click();
    }
    await chat().waitIdle();
    const offeredOf = /Tool definitions: [\d,]+ \((\d+) of (\d+) tools, to fit the window\)/;
    await expect.poll(async () => Number(offeredOf.exec(await meterTitle())?.[2] ?? 0), { timeout: 60_000 }).toBeGreaterThanOrEqual(35);
    const total = Number(offeredOf.exec(await meterTitle())?.[2]);

    const sum = await measure('add 2 and 40 with the everything server');
    expect(toolNames(sum.request)).toContain('mcp_everything_get-sum');
    within3Percent(sum.meter, sum.request.promptTokens);
    const read = await measure('read src/cart.ts');
    expect(toolNames(read.request)).toContain('read_file');
    within3Percent(read.meter, read.request.promptTokens);

    // The same on the OpenAI-compatible wire.
    await workspaceSettings(openaiWindowed);
    await expect.poll(modelShown, { timeout: 30_000 }).toContain('openai');
    const openai = await measure('read src/cart.ts once more');
    expect(openai.request.path).toBe('/v1/chat/completions');
    expect(toolNames(openai.request)).toContain('read_file');
    within3Percent(openai.meter, openai.request.promptTokens);
    await workspaceSettings({});
    await expect.poll(modelShown, { timeout: 30_000 }).toContain('ollama');

    // Every request the chat sent fits the window, by the server's own count.
    const sent = (await received()).slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(4);
    for (const request of sent) expect(request.promptTokens).toBeLessThanOrEqual(4096);
    // Without fitting, the definitions alone would not: all of them went to the server in none of the requests.
    expect(Math.max(...sent.map((r) => toolNames(r).length))).toBeLessThan(total);
    const notice = chat().byTestId('notice').filter({ hasText: new RegExp(`\\d+ of ${total} tools offered to fit arbor-test-model's 4,096-token window`) });
    await notice.first().waitFor({ timeout: 15_000 });
    // The tools were what did not fit, so they were fitted; the messages were not compacted.
    expect(await chat().byTestId('notice').filter({ hasText: /summarised/i }).count()).toBe(0);
    await session.workbench.screenshot('toolWindow-left-out');
  });

  it('never sends a request larger than the window: it says so with what would fix it, and Raise the Window makes it fit', async () => {
    await session.workbench.runCommand('Arbor: New Conversation');
    await chat().waitReady();
    const before = (await received()).length;
    // About 4,500 tokens in one message (one long word of hex, which the fake model echoes at once), and nothing
    // older to compact: no choice of tools makes it fit 4,096.
    const blob = Array.from({ length: 2100 }, (_, i) => ((i * 7919) % 65536).toString(16).padStart(4, '0')).join('');
    await chat().send(`Summarise this dump: ${blob}`);
    const error = chat().byTestId('error').last();
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/window.*Nothing was sent\./s);
    const buttons = (await error.locator('[data-testid="error-action"]').allTextContents()).map((t) => t.trim());
    expect(buttons).toEqual(['Choose Tools…', 'Raise the Window…']);
    expect((await received()).length).toBe(before);

    // The model was trained for 8,192 (what the fake's /api/show says): the button offers it, with its memory.
    await error.locator('[data-testid="error-action"]', { hasText: 'Raise the Window…' }).click();
    const rows = session.workbench.page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    await rows.filter({ hasText: '8,192 tokens' }).first().click();
    await expect.poll(async () => (await meterTitle()).includes('of 8,192 tokens'), { timeout: 30_000 }).toBe(true);
    await chat().byTestId('retry').last().click();
    await expect.poll(async () => (await received()).length, { timeout: 60_000 }).toBeGreaterThan(before);
    await chat().waitIdle();
    const sent = (await received())[before];
    expect((JSON.parse(sent.rawBody) as { options?: { num_ctx?: number } }).options?.num_ctx).toBe(8192);
    expect(sent.promptTokens).toBeLessThanOrEqual(8192);
  });
});
