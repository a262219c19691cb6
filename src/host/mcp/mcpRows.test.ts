import { describe, expect, it } from 'vitest';
import { McpConfigError, type McpServerConfig, type McpTrustState } from '../../core/index';
import { McpItemContext } from '../base/constants';
import type { McpPlan } from './mcpPlan';
import { mcpServerRows, stderrTail } from './mcpRows';
import type { McpServerStatus } from './mcpRuntime';

const stdio = (name: string): McpServerConfig => ({ name, source: 'workspace', origin: '/ws/.vscode/mcp.json', type: 'stdio', command: 'npx', args: ['-y', 'some-server'], env: {} });
const plan = (...names: Array<string | [string, 'blocked']>): McpPlan => ({
  servers: names.map((entry) => {
    const [name, blocked] = Array.isArray(entry) ? entry : [entry, undefined];
    return { config: stdio(name), folder: '/ws', inputs: [], blocked: blocked === 'blocked' };
  }),
  errors: [],
});

const trusted = (): McpTrustState => 'trusted';

describe('mcpServerRows', () => {
  it('shows each state of a server in its description, with the actions its context allows', () => {
    const statuses = new Map<string, McpServerStatus>([
      ['starting', { state: { kind: 'starting', step: 'initialize', since: 0, stepSince: 0 }, tools: [] }],
      [
        'running',
        {
          state: { kind: 'running', transport: 'stdio', serverName: 'example-servers/everything', serverVersion: '1.0.0' },
          tools: [
            { name: 'echo', displayName: 'running › echo', description: 'Echoes back the input string' },
            { name: 'add', displayName: 'running › add', description: '' },
          ],
        },
      ],
      ['failed', { state: { kind: 'failed', message: 'could not start: Connection closed', stderr: 'booting\n\nError: GITHUB_TOKEN is not set\n' }, tools: [] }],
    ]);
    const rows = mcpServerRows(plan('fresh', 'starting', 'running', 'failed', ['held', 'blocked']), statuses, trusted, 500);
    expect(rows.map((r) => [r.label, r.description, r.icon, r.contextValue])).toEqual([
      ['fresh', 'not started', 'circle-outline', McpItemContext.server],
      ['starting', 'starting…', 'loading~spin', McpItemContext.server],
      ['running', 'running, 2 tools', 'pass', McpItemContext.server],
      ['failed', 'failed: could not start: Connection closed', 'error', McpItemContext.server],
      ['held', 'not started: workspace not trusted', 'workspace-untrusted', McpItemContext.blockedServer],
    ]);
    const running = rows[2];
    expect(running.tooltip).toContain('Running over stdio (example-servers/everything 1.0.0).');
    expect(running.children.map((c) => [c.id, c.label, c.tooltip, c.server, c.contextValue])).toEqual([
      ['mcp-tool:running:echo', 'running › echo', 'Echoes back the input string', 'running', McpItemContext.tool],
      ['mcp-tool:running:add', 'running › add', undefined, 'running', McpItemContext.tool],
    ]);
    expect(rows[3].tooltip).toContain('Its stderr ended with:\nbooting\nError: GITHUB_TOKEN is not set');
    expect(rows[3].iconColor).toBe('errorForeground');
    expect(rows[0].tooltip).toBe('fresh: npx -y some-server\nConfigured in /ws/.vscode/mcp.json\n\nStarts when a chat first asks for tools, or with Restart.');
    expect(rows[4].tooltip).toContain('Trust the workspace to start it.');
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    // Only the starting row redraws as time goes by.
    expect(rows.map((r) => r.ticking === true)).toEqual([false, true, false, false, false]);
  });

  it('says what a slow server has not answered and for how long, and why a failed start failed', () => {
    const started = 1_000_000;
    const status = (state: McpServerStatus['state']): McpServerStatus => ({ state, tools: [] });
    const statuses = new Map<string, McpServerStatus>([
      ['silent', status({ kind: 'starting', step: 'initialize', since: started, stepSince: started })],
      ['listing', status({ kind: 'starting', step: 'tools', since: started, stepSince: started + 9_000 })],
      ['asking', status({ kind: 'starting', step: 'inputs', since: started, stepSince: started })],
      ['dead', status({ kind: 'failed', message: 'could not start: no answer to initialize within 30 s (MCP error -32001: Request timed out)', stderr: '' })],
    ]);
    const at = (ms: number) => mcpServerRows(plan('silent', 'listing', 'asking', 'dead'), statuses, trusted, started + ms);
    expect(at(12_400).map((r) => r.description)).toEqual([
      'starting… 12 s, no answer to initialize',
      'starting… 3 s, no answer to tools/list',
      'starting… waiting for your input',
      'failed: could not start: no answer to initialize within 30 s (MCP error -32001: Request timed out)',
    ]);
    // The first moments of a start are no news; the time then grows with each redraw.
    expect(at(500).map((r) => r.description).slice(0, 3)).toEqual(['starting…', 'starting…', 'starting…']);
    expect(at(20_000)[0].description).toBe('starting… 20 s, no answer to initialize');
    expect(at(12_400)[0].tooltip).toContain('Started 12 s ago; no answer to initialize yet. Chats go on without its tools, which join the next request once it answers.');
    expect(at(12_400)[0].tooltip).toContain('after 30 s without an answer');
    expect(at(12_400)[2].tooltip).toContain('A chat that asked for tools waits for it.');
  });

  it('shows a server the workspace configures and the person has not trusted as waiting for their OK, with Trust… instead of Restart', () => {
    const trust = (config: McpServerConfig): McpTrustState => (config.name === 'asked' ? 'waiting' : config.name === 'declined' ? 'declined' : 'trusted');
    const rows = mcpServerRows(plan('asked', 'declined', 'ok', ['held', 'blocked']), new Map(), trust);
    expect(rows.map((r) => [r.label, r.description, r.contextValue])).toEqual([
      ['asked', 'waiting for your OK', McpItemContext.untrustedServer],
      ['declined', 'waiting for your OK', McpItemContext.untrustedServer],
      ['ok', 'not started', McpItemContext.server],
      // Workspace trust comes first: Trust… cannot start a server of a workspace in Restricted Mode.
      ['held', 'not started: workspace not trusted', McpItemContext.blockedServer],
    ]);
    expect(rows[0].tooltip).toBe(
      'asked: npx -y some-server\nConfigured in /ws/.vscode/mcp.json\n\nThis workspace configures it, so it starts only once you trust it as configured. A chat that asks for tools asks you first. Trust… shows what it runs and starts it.',
    );
    expect(rows[1].tooltip).toContain("You chose Don't Start in this window, so chats do not ask again.");
  });

  it('says "1 tool" for one, and lists configuration errors after the servers', () => {
    const withError: McpPlan = { ...plan('one'), errors: [new McpConfigError('unknown "type" "websocket"; use "stdio", "http" or "sse".', '/ws/.vscode/mcp.json', 'servers.x.type')] };
    const rows = mcpServerRows(withError, new Map([['one', { state: { kind: 'running', transport: 'streamable-http' }, tools: [{ name: 't', displayName: 'one › t', description: 'd' }] }]]), trusted);
    expect(rows[0].description).toBe('running, 1 tool');
    expect(rows[1]).toMatchObject({
      label: 'Configuration error',
      description: '/ws/.vscode/mcp.json (servers.x.type): unknown "type" "websocket"; use "stdio", "http" or "sse".',
      icon: 'warning',
      contextValue: McpItemContext.configError,
    });
  });

  it('is empty when nothing is configured (the view then shows its welcome text)', () => {
    expect(mcpServerRows({ servers: [], errors: [] }, new Map(), trusted)).toEqual([]);
  });
});

describe('stderrTail', () => {
  it('keeps the last lines, skipping blank ones and cutting long ones', () => {
    const stderr = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + `\n\n${'x'.repeat(400)}\n`;
    const tail = stderrTail(stderr, 3).split('\n');
    expect(tail).toEqual(['line 28', 'line 29', `${'x'.repeat(299)}…`]);
    expect(stderrTail('')).toBe('');
  });
});
