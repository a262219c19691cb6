import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from './mcpConfig';
import { McpClients, type McpClientsChange } from './mcpClients';
import { EVERYTHING_BIN, everythingChildren, everythingStdio, RecordingLogger, stdioServer } from './mcpTestServers';
import { mcpWireName, toArborTools } from './mcpTools';
import type { McpServerConnection } from './mcpConnection';

let clients: McpClients | undefined;
afterEach(async () => {
  await clients?.dispose();
  clients = undefined;
});

describe('McpClients', () => {
  it('starts what is configured, restarts what changed, stops what was removed, and ends every process', async () => {
    clients = new McpClients({ logger: new RecordingLogger() });
    const changes: McpClientsChange[] = [];
    clients.onDidChange((change) => changes.push(change));
    const broken = stdioServer('broken', process.execPath, ['-e', "console.error('no config'); process.exit(1)"]);
    await clients.setServers([everythingStdio('a'), everythingStdio('b'), broken]);
    expect(clients.connections().map((c) => [c.name, c.state.kind])).toEqual([
      ['a', 'running'],
      ['b', 'running'],
      ['broken', 'failed'],
    ]);
    expect(everythingChildren()).toHaveLength(2);

    const tools = await clients.tools();
    expect(tools.filter((tool) => tool.toolName === 'echo').map((tool) => [tool.name, tool.displayName])).toEqual([
      ['mcp_a_echo', 'a › echo'],
      ['mcp_b_echo', 'b › echo'],
    ]);

    const a = clients.get('a');
    const changedB: McpServerConfig = stdioServer('b', process.execPath, [EVERYTHING_BIN, 'stdio'], { ARBOR_CHANGED: '1' });
    changes.length = 0;
    await clients.setServers([everythingStdio('a'), changedB]);
    expect(clients.get('a')).toBe(a); // unchanged: left running, not restarted
    expect(clients.get('broken')).toBeUndefined();
    expect(changes.filter((c) => c.kind === 'state' && c.serverName === 'b').map((c) => c.kind === 'state' && c.state.kind)).toEqual(['stopped', 'starting', 'starting', 'running']);
    // (a tools change of 'a' may still arrive: server-everything adds tools just after it starts)
    expect(changes.some((c) => c.serverName === 'a' && c.kind === 'state')).toBe(false);
    expect(everythingChildren()).toHaveLength(2);

    expect(await clients.restart('a')).toMatchObject({ kind: 'running' });
    await expect(clients.restart('nope')).rejects.toThrow('No MCP server is configured with the name "nope".');

    await clients.dispose();
    expect(a!.state.kind).toBe('stopped');
    expect(everythingChildren()).toEqual([]);
  });

  it('with start: false only configures servers; startStopped starts them and leaves a failed one failed', async () => {
    clients = new McpClients({ logger: new RecordingLogger() });
    const broken = stdioServer('broken', process.execPath, ['-e', 'process.exit(1)']);
    await clients.setServers([everythingStdio('lazy'), broken], { start: false });
    expect(clients.connections().map((c) => [c.name, c.state.kind])).toEqual([
      ['lazy', 'stopped'],
      ['broken', 'stopped'],
    ]);
    expect(everythingChildren()).toEqual([]);
    expect(await clients.tools()).toEqual([]);

    await clients.startStopped();
    expect(clients.connections().map((c) => [c.name, c.state.kind])).toEqual([
      ['lazy', 'running'],
      ['broken', 'failed'],
    ]);
    expect(everythingChildren()).toHaveLength(1);

    const states: string[] = [];
    clients.onDidChange((change) => change.kind === 'state' && states.push(`${change.serverName} ${change.state.kind}`));
    await clients.startStopped();
    expect(states).toEqual([]); // neither the running nor the failed server was started again

    // A server added while the others run, with start: false, waits for the next startStopped.
    await clients.setServers([everythingStdio('lazy'), broken, everythingStdio('later')], { start: false });
    expect(clients.get('later')!.state.kind).toBe('stopped');
    await clients.startStopped();
    expect(clients.get('later')!.state.kind).toBe('running');
    expect(clients.get('broken')!.state.kind).toBe('failed');
  });
});

describe('mcpWireName', () => {
  it('makes a name model APIs accept, keeping long names apart', () => {
    expect(mcpWireName('my server', 'read.file')).toBe('mcp_my_server_read_file');
    const long1 = mcpWireName('s'.repeat(40), `${'t'.repeat(40)}1`);
    const long2 = mcpWireName('s'.repeat(40), `${'t'.repeat(40)}2`);
    expect(long1).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(long1).not.toBe(long2);
  });

  it('numbers names that clash after sanitising', () => {
    const fake = (name: string) => ({ name }) as McpServerConnection;
    const schema = { type: 'object' as const };
    const tools = toArborTools([
      { connection: fake('x.y'), tools: [{ name: 'z', inputSchema: schema }] },
      { connection: fake('x_y'), tools: [{ name: 'z', inputSchema: schema }] },
    ]);
    expect(tools.map((tool) => [tool.name, tool.displayName])).toEqual([
      ['mcp_x_y_z', 'x.y › z'],
      ['mcp_x_y_z_2', 'x_y › z'],
    ]);
  });
});
