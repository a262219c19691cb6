/**
 * The MCP client against real servers nobody here wrote: @modelcontextprotocol/server-everything over
 * stdio, Streamable HTTP and SSE, and @modelcontextprotocol/server-filesystem over stdio.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMcpJson, type McpServerConfig } from './mcpConfig';
import { McpServerConnection, type McpServerState } from './mcpConnection';
import { McpServerError } from './mcpErrors';
import { EVERYTHING_BIN, everythingChildren, everythingStdio, FILESYSTEM_BIN, RecordingLogger, startHttpEverything, stdioServer, type HttpEverything } from './mcpTestServers';
import { toArborTools } from './mcpTools';
import { mcpSecretKey, McpVariableResolver } from './mcpVariables';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function connect(config: McpServerConfig, logger = new RecordingLogger()): { connection: McpServerConnection; logger: RecordingLogger; states: McpServerState[] } {
  const connection = new McpServerConnection(config, { logger });
  const states: McpServerState[] = [];
  connection.onDidChangeState((state) => states.push(state));
  cleanups.push(() => connection.dispose());
  return { connection, logger, states };
}

async function http(mode: 'streamableHttp' | 'sse'): Promise<HttpEverything> {
  const server = await startHttpEverything(mode);
  cleanups.push(() => server.stop());
  return server;
}

const text = (result: { content?: unknown }) => (result.content as Array<{ type: string; text?: string }>).map((part) => part.text).join('');

describe('McpServerConnection with server-everything over stdio', () => {
  it('starts, lists its tools, calls echo, stops and restarts', async () => {
    const { connection, states } = connect(everythingStdio());
    expect(connection.state).toEqual({ kind: 'stopped' });
    const state = await connection.start();
    expect(state).toMatchObject({ kind: 'running', transport: 'stdio', serverName: 'mcp-servers/everything' });
    expect(states.map((s) => (s.kind === 'starting' ? `starting ${s.step}` : s.kind))).toEqual(['starting initialize', 'starting tools', 'running']);
    const tools = await connection.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(text(await connection.callTool('echo', { message: 'hello tree' }))).toBe('Echo: hello tree');

    await connection.stop();
    expect(connection.state).toEqual({ kind: 'stopped' });
    await expect(connection.callTool('echo', { message: 'x' })).rejects.toThrow(/"everything" is not running\. It is stopped/);
    expect(await connection.restart()).toMatchObject({ kind: 'running' });
    expect(text(await connection.callTool('get-sum', { a: 2, b: 40 }))).toContain('42');
  });

  it('leaves nothing running when stopped while starting', async () => {
    const { connection } = connect(everythingStdio());
    const starting = connection.start();
    await connection.stop();
    await starting;
    expect(connection.state).toEqual({ kind: 'stopped' });
    expect(everythingChildren()).toEqual([]);
  });

  it('lists the tools again when the server says they changed', async () => {
    // server-everything registers more tools right after initialisation and sends tools/list_changed.
    const { connection, logger } = connect(everythingStdio());
    const lists: string[][] = [];
    connection.onDidChangeTools((tools) => lists.push(tools.map((tool) => tool.name)));
    await connection.start();
    await vi.waitFor(() => expect(logger.lines).toContain('debug [MCP everything] tools changed; listing them again'), { timeout: 10_000 });
    await vi.waitFor(() => expect(lists.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(lists.at(-1)).toContain('simulate-research-query');
    expect((await connection.listTools()).map((tool) => tool.name)).toContain('simulate-research-query');
  });

  it('cancels a call: the caller is released at once and the server drops the request', async () => {
    const { connection, logger } = connect(everythingStdio());
    await connection.start();
    const controller = new AbortController();
    const call = connection.callTool('trigger-long-running-operation', { duration: 1, steps: 2 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    // The same operation, not cancelled, started later, ends later: by the time it answers, the
    // cancelled one has ended too. Had the cancellation not reached the server, it would have answered
    // the cancelled request, and the SDK reports an answer to an unknown request as an error (logged).
    const result = await connection.callTool('trigger-long-running-operation', { duration: 1, steps: 2 });
    expect(text(result)).toContain('Long running operation completed');
    expect(logger.lines.filter((line) => line.includes('unknown message ID'))).toEqual([]);
    expect(connection.state.kind).toBe('running');
  });

  it('exposes the tools as Arbor tools named server › tool', async () => {
    const { connection } = connect(everythingStdio('every thing'));
    await connection.start();
    const tools = toArborTools([{ connection, tools: await connection.listTools() }]);
    const echo = tools.find((tool) => tool.toolName === 'echo')!;
    expect(echo).toMatchObject({ name: 'mcp_every_thing_echo', displayName: 'every thing › echo', readOnly: true, description: 'Echoes back the input string' });
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(await echo.run({ message: 'via adapter' }, {})).toMatchObject({ content: 'Echo: via adapter', isError: false, metadata: { mcpServer: 'every thing', mcpTool: 'echo', isError: false } });
    expect(tools.find((tool) => tool.toolName === 'toggle-simulated-logging')?.readOnly).toBe(false);
    expect(tools.every((tool) => /^[a-zA-Z0-9_-]{1,64}$/.test(tool.name))).toBe(true);
    const image = await tools.find((tool) => tool.toolName === 'get-tiny-image')!.run({}, {});
    expect(image.content).toMatch(/\[image image\/png, \d+ bytes\]/);
    // A tool that fails reports isError, with the server's message, rather than throwing.
    const bad = await echo.run({ message: 42 }, {});
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/message/);
  });
});

describe('McpServerConnection environment and inputs', () => {
  it('passes env, envFile and a password input to the server, and fails to start when the input is dismissed', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-mcp-env-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, '.env'), 'ARBOR_FROM_FILE=file\nARBOR_OVERRIDDEN=file\n');
    process.env.ARBOR_INHERITED_BUT_REMOVED = 'parent';
    cleanups.push(async () => delete process.env.ARBOR_INHERITED_BUT_REMOVED);
    const parsed = parseMcpJson(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'token', description: 'Token', password: true }],
        servers: {
          env: {
            command: process.execPath,
            args: [EVERYTHING_BIN, 'stdio'],
            envFile: '${workspaceFolder}/.env',
            env: { ARBOR_TOKEN: '${input:token}', ARBOR_OVERRIDDEN: 'env', ARBOR_INHERITED_BUT_REMOVED: null },
          },
        },
      }),
      path.join(dir, '.vscode/mcp.json'),
      'workspace',
    );
    let answer: string | undefined = undefined; // dismissed until set below
    const secrets = new Map<string, string>();
    const resolver = new McpVariableResolver({
      inputs: parsed.inputs,
      workspaceFolder: dir,
      prompt: async () => answer,
      secrets: { get: async (k) => secrets.get(k), store: async (k, v) => void secrets.set(k, v), delete: async (k) => void secrets.delete(k) },
    });
    const connection = new McpServerConnection(parsed.servers[0], { resolve: (config) => resolver.resolve(config) });
    cleanups.push(() => connection.dispose());

    expect(await connection.start()).toMatchObject({ kind: 'failed', message: expect.stringContaining('needs the input "token"') });
    answer = 'tok-123';
    expect(await connection.restart()).toMatchObject({ kind: 'running' });
    const env = JSON.parse(text(await connection.callTool('get-env', {}))) as Record<string, string>;
    expect(env).toMatchObject({ ARBOR_TOKEN: 'tok-123', ARBOR_FROM_FILE: 'file', ARBOR_OVERRIDDEN: 'env' });
    expect(env.ARBOR_INHERITED_BUT_REMOVED).toBeUndefined();
    expect(env.PATH).toBe(process.env.PATH);
    expect(secrets.get(mcpSecretKey('token'))).toBe('tok-123');
  });
});

describe('McpServerConnection failures', () => {
  it('reports a server that exits at start as failed, with its stderr', async () => {
    const script = "console.error('fatal: GITHUB_TOKEN is not set'); process.exit(3)";
    const { connection, states } = connect(stdioServer('broken', process.execPath, ['-e', script]));
    const state = await connection.start();
    expect(state).toMatchObject({ kind: 'failed', message: expect.stringMatching(/^could not start: /) });
    expect(state.kind === 'failed' && state.stderr).toContain('fatal: GITHUB_TOKEN is not set');
    expect(states.map((s) => s.kind)).toEqual(['starting', 'failed']);
    await expect(connection.listTools()).rejects.toThrow(McpServerError);
  });

  it('reports a command that does not exist as failed, naming it', async () => {
    const { connection, logger } = connect(stdioServer('missing', 'arbor-no-such-mcp-server', []));
    const state = await connection.start();
    expect(state).toMatchObject({ kind: 'failed', message: expect.stringContaining('arbor-no-such-mcp-server') });
    expect(state.kind === 'failed' && state.message).toMatch(/ENOENT/);
    expect(logger.lines.some((line) => line.startsWith('error [MCP missing] could not start'))).toBe(true);
  });

  it('turns a server that dies while running into failed, and a restart brings it back', async () => {
    // A real MCP server that writes to stderr and exits once it is running: server-everything, killed.
    const { connection } = connect(everythingStdio());
    await connection.start();
    const pids = everythingChildren();
    expect(pids).toHaveLength(1);
    process.kill(Number(pids[0]));
    await vi.waitFor(() => expect(connection.state.kind).toBe('failed'), { timeout: 10_000 });
    expect(connection.state).toMatchObject({ message: expect.stringContaining('connection closed') });
    expect(await connection.restart()).toMatchObject({ kind: 'running' });
  });
});

describe('McpServerConnection over HTTP', () => {
  it('talks Streamable HTTP to server-everything started in its streamableHttp mode', async () => {
    const server = await http('streamableHttp');
    const { connection } = connect({ name: 'remote', source: 'user', origin: 'test', type: 'http', url: server.url, headers: { 'X-Test': 'arbor' } });
    expect(await connection.start()).toMatchObject({ kind: 'running', transport: 'streamable-http' });
    expect(text(await connection.callTool('echo', { message: 'over http' }))).toBe('Echo: over http');
  });

  it('falls back to SSE when the server only speaks SSE', async () => {
    const server = await http('sse');
    const { connection, logger } = connect({ name: 'old', source: 'user', origin: 'test', type: 'http', url: server.url, headers: {} });
    expect(await connection.start()).toMatchObject({ kind: 'running', transport: 'sse' });
    expect(logger.lines.some((line) => line.includes('Streamable HTTP failed') && line.includes('trying SSE'))).toBe(true);
    expect(text(await connection.callTool('echo', { message: 'over sse' }))).toBe('Echo: over sse');
  });

  it('reports an HTTP server that is not there as failed', async () => {
    const { connection } = connect({ name: 'gone', source: 'user', origin: 'test', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} });
    expect(await connection.start()).toMatchObject({ kind: 'failed', message: expect.stringMatching(/^could not start: Streamable HTTP: .+; SSE: /) });
  });
});

describe('McpServerConnection with server-filesystem', () => {
  it('lists and reads files of the folder it was given, and refuses others', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-mcp-fs-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, 'notes.md'), '# Notes\nbranches are kept\n');
    const { connection } = connect(stdioServer('files', process.execPath, [FILESYSTEM_BIN, dir]));
    expect(await connection.start()).toMatchObject({ kind: 'running', transport: 'stdio' });
    expect(text(await connection.callTool('list_directory', { path: dir }))).toContain('[FILE] notes.md');
    expect(text(await connection.callTool('read_text_file', { path: path.join(dir, 'notes.md') }))).toBe('# Notes\nbranches are kept\n');
    const outside = await connection.callTool('read_text_file', { path: path.join(os.tmpdir(), 'elsewhere.txt') });
    expect(outside.isError).toBe(true);
    expect(text(outside)).toMatch(/outside allowed directories/i);
  });
});
