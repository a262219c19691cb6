/**
 * MCP servers slow to start, against real processes: a stdio server that never answers `initialize`, one
 * that answers late (test/fixtures/mcpLateServer.mjs), and the real server-everything. A start says what
 * it waits for, gives up with a clear message, ends the silent process when stopped, and `startedWithin`
 * waits for starts at most a grace, for the person's inputs as long as they take.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpServerConfig } from './mcpConfig';
import { McpClients } from './mcpClients';
import { McpServerConnection, type McpConnectionOptions, type McpServerState } from './mcpConnection';
import { everythingStdio, lateServerChildren, lateStdio, RecordingLogger, releaseLateServer } from './mcpTestServers';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

function connect(config: McpServerConfig, options: McpConnectionOptions = {}) {
  const connection = new McpServerConnection(config, { logger: new RecordingLogger(), ...options });
  const states: McpServerState[] = [];
  connection.onDidChangeState((state) => states.push(state));
  cleanups.push(() => connection.dispose());
  return { connection, states };
}

function clientsOf(options: McpConnectionOptions = {}): McpClients {
  const clients = new McpClients({ logger: new RecordingLogger(), ...options });
  cleanups.push(() => clients.dispose());
  return clients;
}

/** Waits until the `'signal'` late server `name` holds its answer to initialize (it says so on stderr), then releases it. */
async function release(logger: RecordingLogger, name: string): Promise<void> {
  await vi.waitFor(() => expect(logger.lines).toContain(`debug [MCP ${name}] stderr: holding initialize until SIGUSR2`), { timeout: 20_000 });
  releaseLateServer(name);
}

const kinds = (clients: McpClients) => clients.connections().map((c) => [c.name, c.state.kind]);

describe('McpServerConnection with a server slow to answer initialize', () => {
  it('waits for initialize, then gives up after its timeout and fails saying which request went unanswered', async () => {
    const { connection, states } = connect(lateStdio('silent', 'never'), { initializeTimeoutMs: 1_500 });
    const state = await connection.start();
    expect(state).toEqual({ kind: 'failed', message: 'could not start: no answer to initialize within 2 s (MCP error -32001: Request timed out)', stderr: '' });
    expect(states.map((s) => (s.kind === 'starting' ? `starting ${s.step}` : s.kind))).toEqual(['starting initialize', 'failed']);
    // Its process ends with the failed start.
    await vi.waitFor(() => expect(lateServerChildren()).toEqual([]), { timeout: 10_000 });
  });

  it('goes through initialize and tools/list to running when the answer comes late, with the times of each step', async () => {
    const { connection, states } = connect(lateStdio('late', 300));
    expect(await connection.start()).toMatchObject({ kind: 'running', serverName: 'late-server' });
    expect(states.map((s) => (s.kind === 'starting' ? `starting ${s.step}` : s.kind))).toEqual(['starting initialize', 'starting tools', 'running']);
    const [initialize, tools] = states as Array<Extract<McpServerState, { kind: 'starting' }>>;
    expect(tools.since).toBe(initialize.since);
    expect(tools.stepSince).toBeGreaterThanOrEqual(initialize.stepSince + 300);
    expect(connection.readyTools.map((tool) => tool.name)).toEqual(['late_echo']);
  });

  it('ends a silent server\'s process at once when stopped during initialize', async () => {
    const { connection } = connect(lateStdio('silent', 'never'));
    const starting = connection.start();
    await vi.waitFor(() => expect(lateServerChildren()).toHaveLength(1), { timeout: 10_000 });
    await connection.stop();
    // Long before the 30 s timeout could have ended it.
    expect(lateServerChildren()).toEqual([]);
    await starting;
    expect(connection.state).toEqual({ kind: 'stopped' });
    expect(connection.readyTools).toEqual([]);
  });

  it('says it waits for the person\'s inputs, then for initialize from when they answered', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const { connection, states } = connect(lateStdio('asks', 0), { resolve: async (config) => (await answered, config) });
    const starting = connection.start();
    expect(connection.state).toMatchObject({ kind: 'starting', step: 'inputs' });
    answer();
    expect(await starting).toMatchObject({ kind: 'running' });
    const [inputs, initialize] = states as Array<Extract<McpServerState, { kind: 'starting' }>>;
    expect([inputs.step, initialize.step]).toEqual(['inputs', 'initialize']);
    expect(initialize.since).toBeGreaterThanOrEqual(inputs.since);
    expect(initialize.stepSince).toBe(initialize.since);
  });
});

describe('McpClients.startedWithin', () => {
  it('answers with the healthy server running and the silent one still starting, long before the silent one times out', async () => {
    const clients = clientsOf();
    // server-everything is started first, so the grace below is not a race against its start.
    await clients.setServers([everythingStdio('everything')]);
    await clients.setServers([everythingStdio('everything'), lateStdio('silent', 'never')], { start: false });
    void clients.startStopped();
    await clients.startedWithin(200);
    expect(kinds(clients)).toEqual([
      ['everything', 'running'],
      ['silent', 'starting'],
    ]);
    const ready = clients.readyTools();
    expect(ready.length).toBeGreaterThan(3);
    expect(ready.every((tool) => tool.serverName === 'everything')).toBe(true);
    // A server that has been starting longer than the grace is not waited for again.
    await clients.startedWithin(200);
    expect(kinds(clients)[1]).toEqual(['silent', 'starting']);
  });

  it('waits within the grace for a server that answers in it; one that answers after the grace joins later with a change event', async () => {
    const logger = new RecordingLogger();
    const clients = clientsOf({ logger });
    const changes: string[] = [];
    clients.onDidChange((change) => changes.push(`${change.serverName} ${change.kind === 'state' ? change.state.kind : 'tools'}`));
    await clients.setServers([lateStdio('prompt', 'signal')], { start: false });
    void clients.startStopped();
    const order: string[] = [];
    const waited = clients.startedWithin(120_000).then(() => order.push('settled'));
    await vi.waitFor(() => expect(lateServerChildren()).toHaveLength(1), { timeout: 10_000 });
    order.push('answered');
    await release(logger, 'prompt');
    await waited;
    expect(order).toEqual(['answered', 'settled']);
    expect(kinds(clients)).toEqual([['prompt', 'running']]);

    await clients.setServers([lateStdio('prompt', 'signal'), lateStdio('late', 'signal')], { start: false });
    void clients.startStopped();
    await clients.startedWithin(200);
    expect(kinds(clients)).toEqual([
      ['prompt', 'running'],
      ['late', 'starting'],
    ]);
    expect(clients.readyTools().map((tool) => tool.name)).toEqual(['mcp_prompt_late_echo']);
    await release(logger, 'late');
    await vi.waitFor(() => expect(changes).toContain('late running'), { timeout: 20_000 });
    expect(changes).toContain('late tools');
    expect(clients.readyTools().map((tool) => tool.name)).toEqual(['mcp_prompt_late_echo', 'mcp_late_late_echo']);
  });

  it('waits for a server whose inputs the person is answering, however long, then no longer than the grace', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const clients = clientsOf({ resolve: async (config) => (await answered, config) });
    await clients.setServers([lateStdio('silent', 'never')], { start: false });
    void clients.startStopped();
    const order: string[] = [];
    const settled = clients.startedWithin(0).then(() => order.push('settled'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    order.push('answered');
    answer();
    await settled;
    expect(order).toEqual(['answered', 'settled']);
    expect(kinds(clients)).toEqual([['silent', 'starting']]);
  });
});
