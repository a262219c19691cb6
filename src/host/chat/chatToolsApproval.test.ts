/**
 * The approval of a chat's tool calls, end to end below the webview: a real store and conversation, the
 * real `edit_file` over a temp workspace, the window's grants in `ToolServices` over in-memory state. A
 * write to a protected file is put to the user every time, whatever was granted before, and an Allow of
 * it, whatever scope the message names, is kept for that call only.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, type ApprovalDecision, type LLMProvider } from '../../core/index';
import { makeToolWorkspace, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { ChatTools, type PreparedToolRun } from './chatTools';
import { editFileTool } from '../tools/editFileTool';
import { nodeFileWriter } from '../tools/fileChanges';
import type { OfferedTool } from '../tools/offeredTool';
import { ToolServices } from '../tools/toolServices';

/** VS Code's `Memento` (the extension's workspace and global state), kept in a map. */
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

describe('approving tool calls in a chat', () => {
  let w: ToolWorkspace;
  let dir: string;
  let storage: SqlJsConversationStorage;
  let manager: ConversationManager;
  let services: ToolServices;
  let chat: ChatTools;
  let run: PreparedToolRun;
  let edit: OfferedTool;
  let changed: () => void = () => {};

  beforeEach(async () => {
    w = await makeToolWorkspace();
    await fs.mkdir(path.join(w.ws, '.vscode'));
    await fs.writeFile(path.join(w.ws, '.vscode', 'settings.json'), '{ "editor.tabSize": 2 }\n');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-approval-'));
    storage = await SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
    manager = await ConversationManager.create({ llm: { name: 'none' } as unknown as LLMProvider, storage });
    services = new ToolServices(new MapState() as never, new MapState() as never, () => {});
    edit = editFileTool({ ...w.env, writer: nodeFileWriter });
    services.addProvider('built-in', () => [edit]);
    chat = new ChatTools({
      tools: services,
      conversationId: 'c1',
      policies: () => ({}),
      enabledByDefault: () => true,
      maxSteps: () => 5,
      changed: () => changed(),
      warn: () => {},
      recordFiles: async () => {},
    });
    run = (await chat.prepare(manager))!;
  });
  afterEach(async () => {
    await storage.close();
    await fs.rm(dir, { recursive: true, force: true });
    await w.dispose();
  });

  /** Asks for an `edit_file` call; resolves with its card once it waits for the user, or with the decision when it never asks. */
  async function call(id: string, file: string): Promise<{ decision: Promise<ApprovalDecision>; card?: ReturnType<ChatTools['live']> }> {
    const input = { path: file, edits: [{ search: '2', replace: '8' }] };
    const asked = new Promise<void>((resolve) => (changed = resolve));
    const decision = Promise.resolve(
      run.approve({
        call: { id, type: 'function', function: { name: 'edit_file', arguments: JSON.stringify(input) } },
        tool: edit.tool,
        input,
        readOnly: false,
        step: 1,
        answerNodeId: 'a1',
        signal: new AbortController().signal,
      }),
    );
    const first = await Promise.race([asked.then(() => 'asked' as const), decision.then(() => 'decided' as const)]);
    return first === 'asked' ? { decision, card: chat.live(id) } : { decision };
  }

  it('asks for a protected file although edit_file is allowed in this workspace, and keeps no grant from its Allow', async () => {
    // An ordinary file first: Allow in this workspace, after which edit_file runs without asking.
    const ordinary = await call('1', 'src/a.ts');
    expect(ordinary.card?.state).toBe('pendingApproval');
    expect(chat.decide({ type: 'toolDecision', callId: '1', scope: 'workspace' })).toBe(true);
    expect(await ordinary.decision).toBe('allow');
    expect(services.grants('c1').workspace.has('edit_file')).toBe(true);
    expect((await call('2', 'src/sub/b.ts')).card).toBeUndefined();

    // The protected file asks all the same, naming it and why, as a card that offers Allow once only.
    const settings = await call('3', '.vscode/settings.json');
    expect(settings.card).toMatchObject({
      state: 'pendingApproval',
      approval: { reason: 'writes ".vscode/settings.json", which is protected: VS Code settings and tasks decide what runs', once: true },
    });
    // A message that claims a wider scope (an old webview, a forged message) is taken as Allow once.
    chat.decide({ type: 'toolDecision', callId: '3', scope: 'always' });
    expect(await settings.decision).toBe('allow');
    expect(services.grants('c1').always.size).toBe(0);
    const again = await call('4', '.vscode/settings.json');
    expect(again.card?.approval?.once).toBe(true);
    chat.decide({ type: 'toolDecision', callId: '4', deny: 'not that file' });
    expect(await again.decision).toEqual({ deny: 'not that file' });
    // Denied: asked again next time, never remembered as an allow.
    expect((await call('5', '.vscode/settings.json')).card?.state).toBe('pendingApproval');
  });
});
