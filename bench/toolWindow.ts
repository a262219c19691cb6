/**
 * Tools in a small window, in a real VS Code (code-server + Chromium, the e2e harness) against the fake
 * model server, whose usage counts each request as a model server reads it (messages with their framing
 * and the tool definitions, with the `o200k_base` BPE). With the 11 built-in tools and the 27 tools of the
 * real `server-everything` and `server-filesystem` from npm, two questions are asked, each in a new chat:
 * `read src/cart.ts` (needs `read_file`) and "add 2 and 40 with the everything server" (needs
 * `everything › get-sum`).
 *
 * Each question runs twice in the same process: once as Arbor sends it now, on Ollama's default 4,096-token
 * `num_ctx`, and once as the baseline of every tool sent whole (a 128k window with 90 % of it for tools, so
 * nothing is fitted: what a request carried before, whatever the window). Reported per request: the server's
 * token count, the body's size, how many tools went, and whether the tool the question needs was among them.
 *
 * Run: `npx tsx bench/toolWindow.ts`. Needs `bash scripts/installCodeServer.sh`. Writes the table into
 * docs/benchmarks.md under "## Tools in a small window".
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ChatPage } from '../test/e2e/harness/chat';
import { REPO_ROOT, assertCodeServerInstalled, installVsix, packageExtension, prepareSandbox, startCodeServer, writeUserSettings } from '../test/e2e/harness/codeServer';
import { fakeLlmSettings, startFakeLlm } from '../test/e2e/harness/fakeLlm';
import { Workbench, launchBrowser } from '../test/e2e/harness/workbench';
import { writeBenchmarkSection } from './benchReport';

interface Received {
  path: string;
  rawBody: string;
  promptTokens: number;
}

interface Row {
  mode: string;
  question: string;
  needs: string;
  promptTokens: number;
  bodyChars: number;
  tools: number;
  offered: boolean;
}

/** The two MCP servers' entry points (as src/core/mcp/mcpTestServers.ts names them; that module needs vitest). */
const EVERYTHING_BIN = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM_BIN = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const QUESTIONS = [
  { text: 'read src/cart.ts', needs: 'read_file' },
  { text: 'add 2 and 40 with the everything server', needs: 'mcp_everything_get-sum' },
];
const WINDOW = 4096;

async function main(): Promise<void> {
  assertCodeServerInstalled();
  const root = path.join(REPO_ROOT, '.vscode-test/bench-toolWindow');
  const sandbox = await prepareSandbox(root);
  await installVsix(sandbox, await packageExtension(path.join(root, 'arbor.vsix')));
  await mkdir(path.join(sandbox.workspace, 'src'), { recursive: true });
  await mkdir(path.join(sandbox.workspace, '.vscode'), { recursive: true });
  await writeFile(path.join(sandbox.workspace, 'src', 'cart.ts'), 'export function totalCents(items: number[], discount = 0): number {\n  return Math.max(0, items.reduce((a, b) => a + b, 0) - discount);\n}\n');
  const fake = await startFakeLlm();
  const received = async () => (await (await fetch(`http://127.0.0.1:${fake.port}/__fake/chat-requests`)).json()) as Received[];
  const servers = {
    everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] },
    files: { type: 'stdio', command: process.execPath, args: [FILESYSTEM_BIN, sandbox.workspace] },
  };
  const settings = { ...fakeLlmSettings(fake, 'ollama'), 'arbor.mcp.servers': servers };
  await writeUserSettings(sandbox, settings);
  const browser = await launchBrowser();
  const codeServer = await startCodeServer(sandbox);
  const rows: Row[] = [];
  try {
    const workbench = await Workbench.open(browser, codeServer.url);
    const chat = new ChatPage(workbench);
    await workbench.openArborView();
    // Starts the MCP servers: their tools are offered from the next request on.
    await workbench.runCommand('Arbor: New Conversation');
    await chat.waitReady();
    await chat.send('hello');
    await chat.waitIdle();
    const title = async () => (await chat.byTestId('context-meter').getAttribute('title')) ?? '';
    const until = async (what: string, ok: (text: string) => boolean) => {
      for (const deadline = Date.now() + 90_000; !ok(await title()); ) {
        if (Date.now() > deadline) throw new Error(`the meter never showed ${what}: ${await title()}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    await until('the MCP servers\' tools', (t) => Number(/\((?:\d+ of )?(\d+) tools/.exec(t)?.[1] ?? 0) >= 35);
    const setContext = (context: unknown) =>
      fetch(`http://127.0.0.1:${fake.port}/__fake/model-context`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'arbor-test-model', context }) });
    const workspaceSettings = (settings: Record<string, unknown>) => writeFile(path.join(sandbox.workspace, '.vscode', 'settings.json'), `${JSON.stringify(settings)}\n`);
    const modes = [
      // Every tool whole: a 128k window (the model trained for it) and 90 % of it for tools, so nothing is fitted.
      { mode: 'baseline: every tool whole', context: { contextLength: 131_072 }, settings: { 'arbor.contextLength': { 'arbor-test-model': 131_072 }, 'arbor.tools.windowPercent': 90 }, window: '131,072' },
      { mode: `fitted to Ollama's default ${WINDOW.toLocaleString('en-US')}-token window`, context: null, settings: {}, window: '4,096' },
    ];
    for (const { mode, context, settings: extra, window } of modes) {
      await setContext(context);
      await workspaceSettings(extra);
      for (const question of QUESTIONS) {
        await workbench.runCommand('Arbor: New Conversation');
        await chat.waitReady();
        await until(`a ${window}-token window`, (t) => t.includes(`of ${window} tokens`));
        const before = (await received()).length;
        await chat.send(question.text);
        await chat.waitIdle();
        const request = (await received())[before];
        const tools = ((JSON.parse(request.rawBody) as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
        rows.push({ mode, question: question.text, needs: question.needs, promptTokens: request.promptTokens, bodyChars: request.rawBody.length, tools: tools.length, offered: tools.includes(question.needs) });
        console.log(JSON.stringify(rows[rows.length - 1]));
      }
    }
  } finally {
    await browser.close();
    await codeServer.stop();
    await fake.stop();
  }
  const lines = [
    `With the 11 built-in tools and the 27 of server-everything and server-filesystem (npm), each question in a new chat; tokens are the fake server's count of the request it received (o200k_base BPE, messages framed, tool definitions as sent). Target: every fitted request within ${WINDOW.toLocaleString('en-US')} tokens, with the tool the question needs offered. Run: \`npx tsx bench/toolWindow.ts\`.`,
    '',
    '| request | question | prompt tokens (server) | within 4,096 | body | tools sent | needed tool sent |',
    '| --- | --- | ---: | --- | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.mode} | \`${r.question}\` | ${r.promptTokens.toLocaleString('en-US')} | ${r.promptTokens <= WINDOW ? 'yes' : 'no'} | ${r.bodyChars.toLocaleString('en-US')} chars | ${r.tools} | ${r.offered ? `yes (\`${r.needs}\`)` : `no (\`${r.needs}\`)`} |`),
  ];
  await writeBenchmarkSection('Tools in a small window', lines.join('\n'));
  console.log(lines.join('\n'));
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
