/**
 * A chat's tools picker choice in `ChatTools.prepare`: a real store and conversation, the choice in its
 * metadata, the default in `ToolServices` over in-memory state. The run's executor carries only the
 * chosen tools: built-in and MCP tools unless unticked, other extensions' tools only once ticked.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, type LLMProvider } from '../../core/index';
import { ChatTools } from './chatTools';
import type { OfferedTool } from '../tools/offeredTool';
import { ToolServices } from '../tools/toolServices';

/** VS Code's `Memento`, kept in a map (values pass through JSON, as VS Code stores them). */
class MapState {
  private readonly values = new Map<string, unknown>();
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T {
    return (this.values.has(key) ? this.values.get(key) : fallback) as T;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

const tool = (name: string, source: OfferedTool['source'], extra: Partial<OfferedTool> = {}): OfferedTool => ({
  tool: { name, description: `${name} does things`, inputSchema: { type: 'object' }, readOnly: true, run: () => `${name} ran` },
  source,
  displayName: name,
  ...extra,
});

describe('the tools a chat run offers', () => {
  let dir: string;
  let storage: SqlJsConversationStorage;
  let manager: ConversationManager;
  let services: ToolServices;
  let chat: ChatTools;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-tool-choice-'));
    storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
    manager = await ConversationManager.create({ llm: { name: 'none' } as unknown as LLMProvider, storage });
    services = new ToolServices(new MapState() as never, new MapState() as never, () => {});
    services.addProvider('built-in', () => [tool('read_file', 'builtin'), tool('list_files', 'builtin')]);
    services.addProvider('mcp', () => [tool('mcp_everything_echo', 'mcp', { server: 'everything', ownName: 'echo', displayName: 'everything › echo' })]);
    services.addProvider('extensions', () => [tool('leaf_counter', 'extension')]);
    chat = new ChatTools({
      tools: services,
      conversationId: manager.conversationId,
      policies: () => ({}),
      enabledByDefault: () => true,
      maxSteps: () => 5,
      changed: () => {},
      warn: () => {},
      recordFiles: async () => {},
    });
  });
  afterEach(async () => {
    await storage.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const offered = async () => (await chat.prepare(manager))?.executor.definitions().map((d) => d.function.name);

  it('offers built-in and MCP tools, not another extension\'s until it is ticked', async () => {
    expect(await offered()).toEqual(['read_file', 'list_files', 'mcp_everything_echo']);
    await manager.setMetadata({ toolChoice: { on: ['extension/leaf_counter'], off: [] } });
    expect(await offered()).toEqual(['read_file', 'list_files', 'mcp_everything_echo', 'leaf_counter']);
  });

  it('leaves out a tool unticked in the chat, and offers it again once ticked back', async () => {
    await manager.setMetadata({ toolChoice: { on: [], off: ['builtin/list_files'] } });
    expect(await offered()).toEqual(['read_file', 'mcp_everything_echo']);
    await manager.setMetadata({ toolChoice: { on: ['builtin/list_files'], off: [] } });
    expect(await offered()).toEqual(['read_file', 'list_files', 'mcp_everything_echo']);
  });

  it('follows the default for new chats where the chat chose nothing, and the chat where it did', async () => {
    await services.setDefaultChoice({ on: ['extension/leaf_counter'], off: ['mcp/everything/echo'] });
    expect(await offered()).toEqual(['read_file', 'list_files', 'leaf_counter']);
    await manager.setMetadata({ toolChoice: { on: ['mcp/everything/echo'], off: [] } });
    expect(await offered()).toEqual(['read_file', 'list_files', 'mcp_everything_echo', 'leaf_counter']);
  });

  it('offers nothing when every tool is unticked, and reads a malformed stored choice as no choice', async () => {
    await manager.setMetadata({ toolChoice: { on: [], off: ['builtin/read_file', 'builtin/list_files', 'mcp/everything/echo'] } });
    expect(await chat.prepare(manager)).toBeUndefined();
    await manager.setMetadata({ toolChoice: 'everything, please' });
    expect(await offered()).toEqual(['read_file', 'list_files', 'mcp_everything_echo']);
  });
});
