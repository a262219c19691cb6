import { describe, expect, it } from 'vitest';
import { parseMcpJson, type McpServerConfig } from './mcpConfig';
import { MCP_TRUST_KEY, mcpConfigHash, McpServerTrust, mcpTrustPrompt, McpTrustStore, type McpTrustMemento, type McpTrustPrompt } from './mcpTrust';

/** Global state as VS Code keeps it: values go through JSON on the way in and out. */
class JsonMemento implements McpTrustMemento {
  readonly values = new Map<string, string>();
  get(key: string): unknown {
    const text = this.values.get(key);
    return text === undefined ? undefined : JSON.parse(text);
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.stringify(value));
  }
}

const MCP_JSON = '/ws/.vscode/mcp.json';
/** The servers of an mcp.json text, as the workspace configures them. */
const fromFile = (servers: Record<string, unknown>): McpServerConfig[] => parseMcpJson(JSON.stringify({ servers }), MCP_JSON, 'workspace').servers;
const server = (value: Record<string, unknown>, name = 'tools'): McpServerConfig => fromFile({ [name]: value })[0];
const base = { command: 'node', args: ['server.js', '--port', '3000'], env: { API_KEY: 'secret-value' } };

describe('mcpConfigHash', () => {
  it('is the same for the same configuration, whatever the key order, the name or the file it came from', () => {
    const a = server(base);
    const b = { ...server({ env: { API_KEY: 'secret-value' }, args: ['server.js', '--port', '3000'], command: 'node' }, 'renamed'), origin: '/other/.vscode/mcp.json' };
    expect(mcpConfigHash(b)).toBe(mcpConfigHash(a));
    expect(mcpConfigHash(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes with each thing that decides what runs or where it connects', () => {
    const hashes = [
      server(base),
      server({ ...base, command: 'sh' }),
      server({ ...base, args: ['server.js', '--port', '3001'] }),
      server({ ...base, args: ['server.js', '--port'] }),
      server({ ...base, env: { API_KEY: 'another' } }),
      server({ ...base, env: { API_KEY: 'secret-value', NODE_OPTIONS: '--require ./evil.js' } }),
      server({ ...base, env: { API_KEY: null } }),
      server({ ...base, envFile: '.env.tools' }),
      server({ ...base, cwd: 'elsewhere' }),
      server({ url: 'http://127.0.0.1:3001/mcp' }),
      server({ url: 'http://127.0.0.1:3002/mcp' }),
      server({ type: 'sse', url: 'http://127.0.0.1:3001/mcp' }),
      server({ url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer a' } }),
      server({ url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer b' } }),
    ].map(mcpConfigHash);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

describe('McpTrustStore', () => {
  it('keeps a trust per workspace, name and configuration, across windows (a new store on the same state)', async () => {
    const memento = new JsonMemento();
    await new McpTrustStore(memento).trust('file:///ws', server(base));
    const store = new McpTrustStore(memento);
    expect(store.isTrusted('file:///ws', server(base))).toBe(true);
    expect(store.isTrusted('file:///other', server(base))).toBe(false);
    expect(store.isTrusted('file:///ws', server(base, 'renamed'))).toBe(false);
    // MCPoison: the same name with other arguments is not the server the person trusted.
    expect(store.isTrusted('file:///ws', server({ ...base, args: ['server.js', '--port', '3000', '--eval', 'evil'] }))).toBe(false);
  });

  it('replaces the earlier trust of a name, so a configuration changed and changed back is asked again', async () => {
    const store = new McpTrustStore(new JsonMemento());
    await store.trust('file:///ws', server(base));
    await store.trust('file:///ws', server({ ...base, command: 'deno' }));
    expect(store.entries()).toHaveLength(1);
    expect(store.isTrusted('file:///ws', server({ ...base, command: 'deno' }))).toBe(true);
    expect(store.isTrusted('file:///ws', server(base))).toBe(false);
  });

  it('counts a stored value it did not write (absent, damaged, edited by hand) as no trust, and still adds to it', async () => {
    for (const stored of [undefined, 'yes', 42, null, [], { entries: 'all' }, { entries: [null, 'x', { workspace: 'file:///ws', server: 'tools' }, { workspace: 1, server: 'tools', hash: 'h' }] }]) {
      const memento = new JsonMemento();
      if (stored !== undefined) await memento.update(MCP_TRUST_KEY, stored);
      const store = new McpTrustStore(memento);
      expect(store.isTrusted('file:///ws', server(base))).toBe(false);
      await store.trust('file:///ws', server(base));
      expect(store.isTrusted('file:///ws', server(base))).toBe(true);
    }
  });

  it('takes any server name, including those an object would misread', async () => {
    const store = new McpTrustStore(new JsonMemento());
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const config = { ...server(base), name };
      expect(store.isTrusted('file:///ws', config)).toBe(false);
      await store.trust('file:///ws', config);
      expect(store.isTrusted('file:///ws', config)).toBe(true);
    }
    expect(store.entries().map((e) => e.server)).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty']);
  });

  it('forgets every trust', async () => {
    const memento = new JsonMemento();
    const store = new McpTrustStore(memento);
    await store.trust('file:///a', server(base));
    await store.trust('file:///b', server(base));
    expect(await store.forgetAll()).toBe(2);
    expect(store.isTrusted('file:///a', server(base))).toBe(false);
    expect(memento.values.has(MCP_TRUST_KEY)).toBe(false);
  });
});

describe('McpServerTrust', () => {
  const setup = (answers: Array<boolean | Error>) => {
    const asked: Array<{ prompt: McpTrustPrompt; name: string }> = [];
    const memento = new JsonMemento();
    let workspace = 'file:///ws';
    const trust = new McpServerTrust({
      memento,
      workspace: () => workspace,
      ask: async (prompt, config) => {
        asked.push({ prompt, name: config.name });
        const answer = answers.shift();
        if (answer instanceof Error) throw answer;
        return answer ?? false;
      },
    });
    return { trust, asked, memento, moveTo: (uri: string) => (workspace = uri) };
  };

  it('never asks about a server the person configured in their own settings', async () => {
    const { trust, asked } = setup([]);
    const mine: McpServerConfig = { ...server(base), source: 'user', origin: 'user setting arbor.mcp.servers' };
    expect(trust.state(mine)).toBe('trusted');
    expect(await trust.confirm(mine)).toBe(true);
    expect(asked).toEqual([]);
  });

  it('asks about a workspace server before it may start, keeps the OK, and asks again once its configuration changes', async () => {
    const { trust, asked, memento } = setup([true, true]);
    const added = server(base);
    expect(trust.state(added)).toBe('waiting');
    expect(await trust.confirm(added)).toBe(true);
    expect(asked.map((a) => a.name)).toEqual(['tools']);
    expect(asked[0].prompt.detail).toContain('Runs: node server.js --port 3000');
    expect(trust.state(added)).toBe('trusted');
    expect(await trust.confirm(added)).toBe(true);
    expect(asked).toHaveLength(1);
    // Another window (same global state) trusts it too.
    expect(new McpServerTrust({ memento, workspace: () => 'file:///ws', ask: async () => false }).state(added)).toBe('trusted');

    const changed = server({ ...base, args: ['server.js', '--port', '3000', '--allow-all'] });
    expect(trust.state(changed)).toBe('waiting');
    expect(await trust.confirm(changed)).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[1].prompt.detail).toContain('--allow-all');
  });

  it('does not ask again in this session about a server the person declined, until they ask for it or it changes', async () => {
    const { trust, asked } = setup([false, true, false]);
    const added = server(base);
    expect(await trust.confirm(added)).toBe(false);
    expect(trust.state(added)).toBe('declined');
    expect(await trust.confirm(added)).toBe(false);
    expect(asked).toHaveLength(1);
    // The Trust… action asks again.
    expect(await trust.confirm(added, { again: true })).toBe(true);
    expect(trust.state(added)).toBe('trusted');
    expect(asked).toHaveLength(2);
    // Declined, then changed: a new server, asked about.
    const changed = server({ ...base, command: 'deno' });
    expect(await trust.confirm(changed)).toBe(false);
    expect(asked).toHaveLength(3);
  });

  it('asks once when several chats want the same server at the same time', async () => {
    const { trust, asked } = setup([true]);
    const results = await Promise.all([trust.confirm(server(base)), trust.confirm(server(base)), trust.confirm(server(base))]);
    expect(results).toEqual([true, true, true]);
    expect(asked).toHaveLength(1);
  });

  it('counts a prompt that fails as a "Don\'t Start"', async () => {
    const { trust } = setup([new Error('no window')]);
    expect(await trust.confirm(server(base))).toBe(false);
    expect(trust.state(server(base))).toBe('declined');
  });

  it('keeps trust per workspace: the same server in another workspace is asked about', async () => {
    const { trust, asked, moveTo } = setup([true, false]);
    expect(await trust.confirm(server(base))).toBe(true);
    moveTo('file:///another-clone');
    expect(trust.state(server(base))).toBe('waiting');
    expect(await trust.confirm(server(base))).toBe(false);
    expect(asked).toHaveLength(2);
  });

  it('forgets every trust and decline', async () => {
    const { trust } = setup([true, false]);
    await trust.confirm(server(base));
    await trust.confirm(server(base, 'other'));
    expect(await trust.forgetAll()).toBe(1);
    expect(trust.state(server(base))).toBe('waiting');
    expect(trust.state(server(base, 'other'))).toBe('waiting');
  });
});

describe('mcpTrustPrompt', () => {
  it('names the server, its command line, its variables (values hidden unless they load code) and the file it came from', () => {
    const prompt = mcpTrustPrompt(
      server({ command: 'npx', args: ['-y', '@acme/mcp server', "it's"], env: { API_KEY: 'secret-value', NODE_OPTIONS: '--require ./x.js', HOME: null }, cwd: 'tools', envFile: '.env.mcp' }, 'acme'),
    );
    expect(prompt.message).toBe('Start the MCP server "acme" that this workspace configures?');
    const lines = prompt.detail.split('\n');
    expect(lines[0]).toBe(`Runs: npx -y '@acme/mcp server' 'it'\\''s'`);
    expect(lines).toContain('In the folder: tools');
    expect(lines).toContain(`Environment: API_KEY (value set), NODE_OPTIONS='--require ./x.js', HOME (removed)`);
    expect(lines).toContain('Environment file: .env.mcp (its variables are read when it starts)');
    expect(lines).toContain(`Configured in: ${MCP_JSON}`);
    expect(prompt.detail).not.toContain('secret-value');
    expect(prompt.detail).toContain('Arbor asks again if this configuration changes.');
  });

  it('shows an HTTP server\'s URL and its header names, not their values', () => {
    const prompt = mcpTrustPrompt(server({ type: 'sse', url: 'https://mcp.example.com/sse', headers: { Authorization: 'Bearer t0ken' } }, 'remote'));
    expect(prompt.detail.split('\n').slice(0, 3)).toEqual(['Connects to: https://mcp.example.com/sse (SSE)', 'Headers: Authorization (value set)', `Configured in: ${MCP_JSON}`]);
    expect(prompt.detail).not.toContain('t0ken');
  });

  it('escapes line breaks and bidirectional characters, so a name or argument cannot add lines or reorder the text', () => {
    const prompt = mcpTrustPrompt(server({ command: 'node', args: ['ok.js\n\nConfigured in: your User settings', 'a\u202Eb'] }, 'x\nConfigured in: user'));
    expect(prompt.message.split('\n')).toHaveLength(1);
    expect(prompt.message).toContain('x\\nConfigured in: user');
    const lines = prompt.detail.split('\n');
    expect(lines[0]).toBe(`Runs: node 'ok.js\\n\\nConfigured in: your User settings' 'a\\u202eb'`);
    expect(lines.filter((line) => line.startsWith('Configured in:'))).toEqual([`Configured in: ${MCP_JSON}`]);
  });

  it('cuts a very long command line and says so', () => {
    const prompt = mcpTrustPrompt(server({ command: 'node', args: ['x'.repeat(5000)] }));
    expect(prompt.detail.split('\n')[0]).toMatch(/… \(\d+ more characters: see the file\)$/);
    expect(prompt.detail.length).toBeLessThan(3000);
  });
});
