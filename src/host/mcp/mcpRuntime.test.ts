/**
 * The MCP runtime against the real reference servers (server-everything, server-filesystem): lazy
 * starts, tools as offered tools, inputs kept in secret storage, a stdio server's folder, and that every
 * process ends.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseMcpJson, type McpServerConfig } from '../../core/index';
import { mcpSecretKey, type McpInputDefinition, type SecretStore } from '../../core/mcp/index';
import { EVERYTHING_BIN, everythingChildren, everythingStdio, FILESYSTEM_BIN, lateServerChildren, lateStdio, MemorySecrets, RecordingLogger, stdioServer } from '../../core/mcp/mcpTestServers';
import type { PlannedMcpServer } from './mcpPlan';
import { McpRuntime } from './mcpRuntime';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});


function runtime(options: { secrets?: SecretStore; answers?: Array<string | undefined> } = {}) {
  const asked: string[] = [];
  const answers = [...(options.answers ?? [])];
  const logger = new RecordingLogger();
  const mcp = new McpRuntime({
    logger,
    secrets: options.secrets ?? new MemorySecrets(),
    prompt: async (input, server) => {
      asked.push(`${server}:${input.id}`);
      return answers.shift();
    },
  });
  cleanups.push(() => mcp.dispose());
  return { mcp, asked, logger };
}

const planned = (config: McpServerConfig, extra: Partial<PlannedMcpServer> = {}): PlannedMcpServer => ({ config, inputs: [], blocked: false, ...extra });
const textOf = (output: unknown) => (typeof output === 'string' ? output : (output as { content: string }).content);
const signal = () => new AbortController().signal;
/** A grace no start here outlasts (no server in those tests is silent): `tools()` waits until every start settled. */
const settled = { graceMs: 120_000 };

describe('McpRuntime', () => {
  it('starts nothing until tools are asked for, then offers the running servers’ tools; a failed server offers none', async () => {
    const { mcp } = runtime();
    const broken = stdioServer('broken', process.execPath, ['-e', "console.error('missing API_TOKEN'); process.exit(2)"]);
    const held = planned(everythingStdio('held'), { blocked: true });
    await mcp.setServers([planned(everythingStdio('a')), planned(broken), held], { start: false });
    expect(everythingChildren()).toEqual([]);
    expect([...(await mcp.statuses()).entries()].map(([name, s]) => [name, s.state.kind])).toEqual([
      ['a', 'stopped'],
      ['broken', 'stopped'],
    ]);

    const tools = await mcp.tools(settled);
    expect(everythingChildren()).toHaveLength(1); // 'a' only: the blocked server never starts
    expect(tools.length).toBeGreaterThan(3);
    expect(tools.every((t) => t.source === 'mcp' && t.server === 'a')).toBe(true);
    const echo = tools.find((t) => t.displayName === 'a › echo')!;
    expect(echo.tool.name).toBe('mcp_a_echo');
    expect(echo.tool.readOnly).toBe(true);
    const ctx = { signal: signal(), call: { id: 'c1', type: 'function' as const, function: { name: 'mcp_a_echo', arguments: '{}' } }, use: async () => undefined as never };
    expect(textOf(await echo.tool.run({ message: 'hi' }, ctx))).toBe('Echo: hi');

    const statuses = await mcp.statuses();
    expect(statuses.get('a')!.state.kind).toBe('running');
    expect(statuses.get('a')!.tools.find((t) => t.name === 'echo')).toEqual({ name: 'echo', displayName: 'a › echo', description: 'Echoes back the input string' });
    const failed = statuses.get('broken')!;
    expect(failed.state).toMatchObject({ kind: 'failed', stderr: expect.stringContaining('missing API_TOKEN') });
    expect(failed.tools).toEqual([]);

    // Asking again neither restarts the running server nor retries the failed one.
    const kinds: string[] = [];
    mcp.onDidChange((change) => change.kind === 'state' && kinds.push(`${change.serverName} ${change.state.kind}`));
    await mcp.tools(settled);
    expect(kinds).toEqual([]);
  });

  it('restart before any tools starts that server alone; a plan without a server stops it; dispose ends every process', async () => {
    const { mcp } = runtime();
    await mcp.setServers([planned(everythingStdio('one')), planned(everythingStdio('two'))], { start: false });
    expect(await mcp.restart('one')).toMatchObject({ kind: 'running' });
    expect(everythingChildren()).toHaveLength(1);
    expect((await mcp.statuses()).get('two')!.state.kind).toBe('stopped');
    await expect(mcp.restart('three')).rejects.toThrow('No MCP server is configured with the name "three".');

    // Once active (start: true), a server added to the plan starts at once and a removed one stops.
    await mcp.setServers([planned(everythingStdio('two')), planned(everythingStdio('three'))], { start: true });
    expect([...(await mcp.statuses()).entries()].map(([name, s]) => [name, s.state.kind])).toEqual([
      ['two', 'running'],
      ['three', 'running'],
    ]);
    expect(everythingChildren()).toHaveLength(2);

    await mcp.dispose();
    expect(everythingChildren()).toEqual([]);
    expect(await mcp.tools()).toEqual([]);
  });

  it('asks for a password input once, keeps it in secret storage, and runs a stdio server in its folder', async () => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'arbor-mcp-runtime-')));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = parseMcpJson(
      JSON.stringify({
        inputs: [{ id: 'token', type: 'promptString', description: 'API token', password: true }],
        servers: {
          env: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], env: { ARBOR_TOKEN: '${input:token}', ARBOR_FOLDER: '${workspaceFolder}' } },
          files: { command: process.execPath, args: [FILESYSTEM_BIN, '.'] },
        },
      }),
      path.join(dir, '.vscode/mcp.json'),
      'workspace',
    );
    const inputs: McpInputDefinition[] = file.inputs;
    const plan = file.servers.map((config) => planned(config, { folder: dir, inputs }));
    const secrets = new MemorySecrets();

    const first = runtime({ secrets, answers: ['tok-1'] });
    await first.mcp.setServers(plan, { start: false });
    const tools = await first.mcp.tools(settled);
    expect(first.asked).toEqual(['env:token']);
    expect(secrets.values.get(mcpSecretKey('token'))).toBe('tok-1');
    const ctx = { signal: signal(), call: { id: 'c', type: 'function' as const, function: { name: 'x', arguments: '{}' } }, use: async () => undefined as never };
    const env = JSON.parse(textOf(await tools.find((t) => t.displayName === 'env › get-env')!.tool.run({}, ctx))) as Record<string, string>;
    expect(env).toMatchObject({ ARBOR_TOKEN: 'tok-1', ARBOR_FOLDER: dir });
    // server-filesystem was given ".": it runs in the folder, so that is the folder it may read.
    const allowed = textOf(await tools.find((t) => t.displayName === 'files › list_allowed_directories')!.tool.run({}, ctx));
    expect(allowed).toContain(dir);
    await first.mcp.restart('env');
    expect(first.asked).toEqual(['env:token']); // not asked again

    // Another window (a new runtime) reads the password from secret storage without asking.
    const second = runtime({ secrets });
    await second.mcp.setServers(plan, { start: true });
    expect(second.asked).toEqual([]);
    expect((await second.mcp.statuses()).get('env')!.state.kind).toBe('running');
  });

  it('reports a dismissed input as a failed start that names the input, and asks again on restart', async () => {
    const config = { ...everythingStdio('needs'), env: { ARBOR_TOKEN: '${input:token}' } };
    const inputs: McpInputDefinition[] = [{ id: 'token', type: 'promptString', description: 'Token', password: false }];
    const { mcp, asked } = runtime({ answers: [undefined, 'given'] });
    await mcp.setServers([planned(config, { inputs })], { start: false });
    expect(await mcp.tools(settled)).toEqual([]);
    expect((await mcp.statuses()).get('needs')!.state).toMatchObject({ kind: 'failed', message: expect.stringContaining('needs the input "token"') });
    expect(await mcp.restart('needs')).toMatchObject({ kind: 'running' });
    expect(asked).toEqual(['needs:token', 'needs:token']);
  });

  it('sends a request with the tools that are ready: a silent server holds neither it nor a restart, and a late one joins the next request', async () => {
    const { mcp } = runtime();
    const states: string[] = [];
    mcp.onDidChange((change) => change.kind === 'state' && states.push(`${change.serverName} ${change.state.kind}`));
    // server-everything runs before the request, so the short grace below is no race against its start.
    await mcp.setServers([planned(everythingStdio('everything'))], { start: true });
    await mcp.setServers([planned(everythingStdio('everything')), planned(lateStdio('silent', 'never')), planned(lateStdio('late', 2_000))], { start: false });
    expect(mcp.readyTools().every((t) => t.server === 'everything')).toBe(true);

    const first = await mcp.tools({ graceMs: 300 });
    expect(first.some((t) => t.tool.name === 'mcp_everything_echo')).toBe(true);
    expect(first.every((t) => t.server === 'everything')).toBe(true);
    const kinds = async () => [...(await mcp.statuses()).entries()].map(([name, s]) => [name, s.state.kind]);
    expect(await kinds()).toEqual([
      ['everything', 'running'],
      ['silent', 'starting'],
      ['late', 'starting'],
    ]);
    expect(mcp.anyStarting()).toBe(true);
    // Restarting a server, or changing the plan, does not queue behind the silent server's start.
    expect(await mcp.restart('everything')).toMatchObject({ kind: 'running' });
    expect((await kinds())[1]).toEqual(['silent', 'starting']);

    await vi.waitFor(() => expect(states).toContain('late running'), { timeout: 30_000 });
    expect(mcp.readyTools().filter((t) => t.server === 'late').map((t) => t.tool.name)).toEqual(['mcp_late_late_echo']);
    const next = await mcp.tools({ graceMs: 300 });
    expect(next.map((t) => t.server)).toContain('late');
    expect(next.some((t) => t.server === 'silent')).toBe(false);
    expect(states).not.toContain('silent failed');

    await mcp.dispose();
    expect(lateServerChildren()).toEqual([]);
    expect(mcp.readyTools()).toEqual([]);
  });
});
