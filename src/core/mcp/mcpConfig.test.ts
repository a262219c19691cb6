import { describe, expect, it } from 'vitest';
import { parseMcpJson, type McpInputDefinition, type McpServerConfig } from './mcpConfig';
import { McpConfigError, McpInputCancelledError } from './mcpErrors';
import { collectMcpServers } from './mcpServers';
import { mcpSecretKey, McpVariableResolver, parseEnvFile, type SecretStore } from './mcpVariables';
import { MemorySecrets } from './mcpTestServers';

const FILE = '/ws/.vscode/mcp.json';


const MCP_JSON = `{
  // VS Code's format, comments and trailing commas allowed
  "inputs": [
    { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
    { "type": "pickString", "id": "region", "description": "Region", "options": ["eu", "us"], },
  ],
  "servers": {
    "fs": { "type": "stdio", "command": "npx", "args": ["-y", "server", "\${workspaceFolder}"], "env": { "KEY": "\${input:api-key}", "DROP": null } },
    "remote": { "type": "http", "url": "https://example.com/\${input:region}/mcp", "headers": { "Authorization": "Bearer \${input:api-key}" } },
    "inferred": { "command": "node" },
    "legacy": { "type": "sse", "url": "http://localhost:3001/sse" },
  },
}`;

function expectConfigError(run: () => unknown, path: string | undefined, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).path).toBe(path);
    expect((error as McpConfigError).message).toMatch(message);
    return;
  }
  throw new Error('expected an McpConfigError');
}

describe('parseMcpJson', () => {
  it('reads servers and inputs in VS Code format, with comments and trailing commas', () => {
    const config = parseMcpJson(MCP_JSON, FILE, 'workspace');
    expect(config.inputs.map((input) => [input.id, input.type, input.password])).toEqual([
      ['api-key', 'promptString', true],
      ['region', 'pickString', false],
    ]);
    expect(config.inputs[1].options).toEqual(['eu', 'us']);
    const byName = Object.fromEntries(config.servers.map((server) => [server.name, server]));
    expect(byName.fs).toMatchObject({ type: 'stdio', command: 'npx', args: ['-y', 'server', '${workspaceFolder}'], env: { KEY: '${input:api-key}', DROP: null }, source: 'workspace', origin: FILE });
    expect(byName.remote).toMatchObject({ type: 'http', headers: { Authorization: 'Bearer ${input:api-key}' } });
    expect(byName.inferred).toMatchObject({ type: 'stdio', command: 'node', args: [] });
    expect(byName.legacy).toMatchObject({ type: 'sse', url: 'http://localhost:3001/sse' });
  });

  it('says where a syntax error is', () => {
    expectConfigError(() => parseMcpJson('{\n  "servers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}', FILE, 'workspace'), undefined, /CommaExpected at line 4, column 5/);
  });

  it('names the path and the fix of a bad value', () => {
    expectConfigError(() => parseMcpJson('{"servers": {"a": {"type": "stdio"}}}', FILE, 'workspace'), 'servers.a.command', /needs "command"/);
    expectConfigError(() => parseMcpJson('{"servers": {"a": {"type": "websocket", "url": "ws://x"}}}', FILE, 'workspace'), 'servers.a.type', /use "stdio", "http" or "sse"/);
    expectConfigError(() => parseMcpJson('{"servers": {"a": {"command": "x", "args": "--flag"}}}', FILE, 'workspace'), 'servers.a.args', /array of strings/);
    expectConfigError(() => parseMcpJson('{"servers": {"a": {"url": "localhost:3000"}}}', FILE, 'workspace'), 'servers.a.url', /not an http/);
    expectConfigError(() => parseMcpJson('{"servers": {"a": {"command": "x", "env": {"K": ["v"]}}}}', FILE, 'workspace'), 'servers.a.env.K', /string or null/);
    expectConfigError(() => parseMcpJson('{"inputs": [{"id": "r", "type": "pickString"}], "servers": {}}', FILE, 'workspace'), 'inputs[0].options', /non-empty array/);
    expectConfigError(() => parseMcpJson('{"inputs": [{"id": "c", "type": "command"}], "servers": {}}', FILE, 'workspace'), 'inputs[0].type', /not supported/);
    expectConfigError(() => parseMcpJson('[]', FILE, 'workspace'), undefined, /must hold an object/);
  });
});

describe('collectMcpServers', () => {
  const settings = [
    { value: { mine: { command: 'my-server' } }, source: 'user' as const },
    { value: { teams: { url: 'https://teams.example/mcp' } }, source: 'workspace' as const },
  ];

  it('does not start servers from the workspace files or workspace settings in an untrusted workspace', () => {
    const found = collectMcpServers({ workspaceFile: { path: FILE, text: MCP_JSON }, settings }, { workspaceTrusted: false });
    expect(found.servers.map((server) => server.name)).toEqual(['mine']);
    expect(found.blocked.map((server) => server.name).sort()).toEqual(['fs', 'inferred', 'legacy', 'remote', 'teams']);
    expect(found.errors).toEqual([]);
  });

  it('starts every server in a trusted workspace, the workspace file replacing a setting of the same name', () => {
    const shadowing = [...settings, { value: { fs: { command: 'other' } }, source: 'user' as const }];
    const found = collectMcpServers({ workspaceFile: { path: FILE, text: MCP_JSON }, settings: shadowing }, { workspaceTrusted: true });
    expect(found.servers.map((server) => server.name).sort()).toEqual(['fs', 'inferred', 'legacy', 'mine', 'remote', 'teams']);
    expect(found.servers.find((server) => server.name === 'fs')).toMatchObject({ command: 'npx', source: 'workspace' });
    expect(found.blocked).toEqual([]);
    expect(found.inputs.map((input) => input.id)).toEqual(['api-key', 'region']);
  });

  it('reports a malformed source and still reads the others', () => {
    const found = collectMcpServers({ workspaceFile: { path: FILE, text: '{"servers": {"x": {}}}' }, settings }, { workspaceTrusted: true });
    expect(found.servers.map((server) => server.name)).toEqual(['mine', 'teams']);
    expect(found.errors.map((error) => error.message)).toEqual([`${FILE} (servers.x): a server needs "command" (stdio) or "url" (http).`]);
  });
});

describe('McpVariableResolver', () => {
  const config = parseMcpJson(MCP_JSON, FILE, 'workspace');
  const server = (name: string): McpServerConfig => config.servers.find((s) => s.name === name)!;

  function resolver(secrets: SecretStore, answers: Record<string, string | undefined>, asked: string[], inputs: McpInputDefinition[] = config.inputs) {
    return new McpVariableResolver({
      inputs,
      secrets,
      workspaceFolder: '/ws',
      env: { HOME_REGION: 'eu' },
      prompt: async (input) => {
        asked.push(input.id);
        return answers[input.id];
      },
    });
  }

  it('asks for an input once, keeps a password in secret storage, and substitutes everywhere', async () => {
    const secrets = new MemorySecrets();
    const asked: string[] = [];
    const first = resolver(secrets, { 'api-key': 's3cret', region: 'eu' }, asked);
    const fs = await first.resolve(server('fs'));
    expect(fs).toMatchObject({ args: ['-y', 'server', '/ws'], env: { KEY: 's3cret', DROP: null } });
    const remote = await first.resolve(server('remote'));
    expect(remote).toMatchObject({ url: 'https://example.com/eu/mcp', headers: { Authorization: 'Bearer s3cret' } });
    expect(asked).toEqual(['api-key', 'region']);
    expect(secrets.values.get(mcpSecretKey('api-key'))).toBe('s3cret');
    expect(secrets.values.has(mcpSecretKey('region'))).toBe(false);

    // A new window: the password comes from secret storage, the plain input is asked again.
    const later: string[] = [];
    const again = await resolver(secrets, { region: 'us' }, later).resolve(server('remote'));
    expect(again).toMatchObject({ url: 'https://example.com/us/mcp', headers: { Authorization: 'Bearer s3cret' } });
    expect(later).toEqual(['region']);
  });

  it('refuses when the person dismisses the prompt, and asks again after forget()', async () => {
    const secrets = new MemorySecrets();
    const asked: string[] = [];
    const answers: Record<string, string | undefined> = {};
    const r = resolver(secrets, answers, asked);
    await expect(r.resolve(server('fs'))).rejects.toBeInstanceOf(McpInputCancelledError);
    answers['api-key'] = 'k1';
    await r.resolve(server('fs'));
    await r.forget('api-key');
    expect(secrets.values.size).toBe(0);
    answers['api-key'] = 'k2';
    expect(await r.resolve(server('fs'))).toMatchObject({ env: { KEY: 'k2' } });
    expect(asked).toEqual(['api-key', 'api-key', 'api-key']);
  });

  it('names an undefined input or an unknown variable', async () => {
    const bad = parseMcpJson('{"servers": {"a": {"command": "x", "args": ["${input:nope}"]}, "b": {"command": "${config:x}"}}}', FILE, 'workspace');
    const r = resolver(new MemorySecrets(), {}, [], bad.inputs);
    await expect(r.resolve(bad.servers[0])).rejects.toThrow(/"inputs" has no entry with id "nope"/);
    await expect(r.resolve(bad.servers[1])).rejects.toThrow(/unknown variable \$\{config:x\}/);
  });

  it('reads env variables from the given environment', async () => {
    const s = parseMcpJson('{"servers": {"a": {"url": "https://x/${env:HOME_REGION}/${env:MISSING}"}}}', FILE, 'user').servers[0];
    expect(await resolver(new MemorySecrets(), {}, []).resolve(s)).toMatchObject({ url: 'https://x/eu/' });
  });
});

describe('parseEnvFile', () => {
  it('reads KEY=value lines, skipping comments and removing quotes', () => {
    expect(parseEnvFile('# comment\nA=1\nexport B="two words"\n\nC=\'x=y\'\nnot a line\n')).toEqual({ A: '1', B: 'two words', C: 'x=y' });
  });
});
