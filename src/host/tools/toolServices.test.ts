import { describe, expect, it } from 'vitest';
import type { OfferedTool } from './offeredTool';
import { ToolServices } from './toolServices';

/**
 * A key-value state kept as VS Code keeps a Memento: every value goes through JSON on its way to
 * storage, and a reload (`reloaded()`) reads the stored text back.
 */
class JsonState {
  private readonly stored = new Map<string, string>();
  keys(): readonly string[] {
    return [...this.stored.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    const text = this.stored.get(key);
    return text === undefined ? fallback : (JSON.parse(text) as T);
  }
  update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.stored.delete(key);
    else this.stored.set(key, JSON.stringify(value));
    return Promise.resolve();
  }
  /** Writes `text` as the stored value of `key`, as a release before left it. */
  seed(key: string, text: string): void {
    this.stored.set(key, text);
  }
}

const HOSTILE_IDS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

function services(workspace = new JsonState(), global = new JsonState()): { tools: ToolServices; workspace: JsonState; global: JsonState } {
  return { tools: new ToolServices(workspace as never, global as never, () => undefined), workspace, global };
}

describe('tool grants under any conversation id', () => {
  it.each(HOSTILE_IDS)('keeps the grants of a conversation whose id is %s, and only its own', async (id) => {
    const { tools, workspace, global } = services();
    expect([...tools.grants(id).conversation]).toEqual([]);
    await tools.grant(id, 'everything__echo', 'conversation');
    expect([...tools.grants(id).conversation]).toEqual(['everything__echo']);
    expect([...tools.grants('another').conversation]).toEqual([]);
    // Across a reload: what was stored reads back the same.
    const reloaded = services(workspace, global).tools;
    expect([...reloaded.grants(id).conversation]).toEqual(['everything__echo']);
    expect([...reloaded.grants('another').conversation]).toEqual([]);
    expect(await reloaded.resetGrants()).toBe(1);
    expect([...reloaded.grants(id).conversation]).toEqual([]);
  });

  it('reads the grants a release before stored, and a stored __proto__ entry gives no other conversation its grants', async () => {
    const { tools, workspace } = services();
    workspace.seed('arbor.toolGrants.conversations', '{"c1":["read_file"],"__proto__":["run_command"],"bad":"not a list"}');
    expect([...tools.grants('c1').conversation]).toEqual(['read_file']);
    expect([...tools.grants('__proto__').conversation]).toEqual(['run_command']);
    expect([...tools.grants('c2').conversation]).toEqual([]);
    expect([...tools.grants('bad').conversation]).toEqual([]);
    await tools.grant('c2', 'grep', 'conversation');
    expect([...services(workspace).tools.grants('c1').conversation]).toEqual(['read_file']);
    expect([...services(workspace).tools.grants('c2').conversation]).toEqual(['grep']);
  });

  it('drops the blanket outside-workspace grants releases before stored, which covered every path outside', async () => {
    const { tools, workspace, global } = services();
    global.seed('arbor.toolGrants.always', '["read_file@outside","grep"]');
    workspace.seed('arbor.toolGrants.workspace', '["read_file@outside"]');
    workspace.seed('arbor.toolGrants.conversations', '{"c1":["read_file@outside","read_file@outside:/tmp/data/"]}');
    expect([...tools.grants('c1').always]).toEqual(['grep']);
    expect([...tools.grants('c1').workspace]).toEqual([]);
    expect([...tools.grants('c1').conversation]).toEqual(['read_file@outside:/tmp/data/']);
    await tools.grant('c1', 'list_files', 'always');
    expect(global.get('arbor.toolGrants.always')).toEqual(['grep', 'list_files']);
    expect(await tools.resetGrants()).toBe(3);
  });
});

describe('the tools ready now', () => {
  const tool = (name: string, source: OfferedTool['source']): OfferedTool => ({
    tool: { name, description: name, inputSchema: { type: 'object', properties: {} }, readOnly: true, run: async () => '' },
    source,
    displayName: name,
  });

  it('reads each provider\'s ready tools without asking a provider that would start something, warms them up, and tells of changes', async () => {
    const { tools } = services();
    const calls: string[] = [];
    let running: OfferedTool[] = [];
    const listeners = new Set<() => void>();
    tools.addProvider('built-in', () => [tool('read_file', 'builtin')]);
    tools.addProvider(
      'MCP',
      async () => {
        calls.push('provide');
        return running;
      },
      {
        ready: () => running,
        warmUp: () => calls.push('warmUp'),
        onDidChange: (listener) => (listeners.add(listener), { dispose: () => listeners.delete(listener) }),
      },
    );
    const removeOther = tools.addProvider('extension', () => [tool('leaf_counter', 'extension'), tool('read_file', 'extension')]);
    const slow = tools.addProvider('slow', () => new Promise<OfferedTool[]>(() => undefined));
    let changes = 0;
    tools.onDidChangeReady(() => changes++);

    expect(tools.ready().map((t) => [t.tool.name, t.source])).toEqual([
      ['read_file', 'builtin'],
      ['leaf_counter', 'extension'],
    ]);
    expect(calls).toEqual([]);
    tools.warmUp();
    expect(calls).toEqual(['warmUp']);

    running = [tool('mcp_everything_echo', 'mcp')];
    for (const listener of listeners) listener();
    expect(changes).toBe(1);
    expect(tools.ready().map((t) => t.tool.name)).toEqual(['read_file', 'mcp_everything_echo', 'leaf_counter']);
    removeOther();
    slow();
    expect(changes).toBe(3);
    expect(listeners.size).toBe(1);
    expect(tools.ready().map((t) => t.tool.name)).toEqual(['read_file', 'mcp_everything_echo']);
    expect(calls).toEqual(['warmUp']);
  });
});
