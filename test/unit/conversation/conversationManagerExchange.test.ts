import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { InvalidArgumentError, InvalidOperationError } from '../../../src/core/errors';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import type { ConversationNode } from '../../../src/core/types';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let llm: OpenAIProvider;
let storage: SqlJsConversationStorage;
const savedTz = process.env.TZ;

beforeAll(async () => {
  // dataknobs files hold naive local times: run in a zone where local is not UTC (and has no DST),
  // so reading them as UTC would show.
  process.env.TZ = 'Asia/Kolkata';
  expect(new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset()).toBe(-330);
  await server.start();
  llm = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', maxRetries: 0, pricing: { 'arbor-test-model': { inputPerMillion: 1000, outputPerMillion: 1000 } } });
});
afterAll(async () => {
  await server.stop();
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});
beforeEach(async () => {
  storage = await SqlJsConversationStorage.open();
});
afterEach(() => storage.close());

/** Tree: "" → 0 (user) → 0.0 "4" | 0.1 "Four." (words) → 0.1.0 (user, current); a deleted 0.1.0.0. */
async function sampleConversation(): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm, storage, systemPrompt: 'Be exact.', metadata: { title: 'Sample' } });
  await m.addMessage({ role: 'user', content: 'What is 2+2?' });
  server.enqueue({ content: '4', usage: { promptTokens: 10, completionTokens: 1 } });
  await m.complete();
  await m.branchFrom(m.currentNodeId);
  server.enqueue({ content: 'Four.', thinking: 'Simple sum.', usage: { promptTokens: 10, completionTokens: 2 } });
  await m.complete({ branchName: 'words' });
  await m.addMessage({ role: 'user', content: 'And 3+3?' });
  const temporary = await m.addMessage({ role: 'assistant', content: 'temporary' });
  await m.deleteBranch(temporary.nodeId);
  return m;
}

/** Every node by its dot path, without the store's ids and positions: what an export must keep. */
function shape(m: ConversationManager): Array<Omit<ConversationNode, 'nodeId' | 'parentId' | 'position'> & { path: string; parent: string | null }> {
  return m
    .getAllNodes()
    .map(({ nodeId, parentId, position: _position, ...rest }) => ({ path: m.getDotPath(nodeId), parent: parentId === null ? null : m.getDotPath(parentId), ...rest }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

const NAIVE_LOCAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$/;

describe('JSON export and import through the manager', () => {
  it('round-trips a conversation with branches, costs, thinking and a deleted branch', async () => {
    const m = await sampleConversation();
    const exported = JSON.parse(JSON.stringify(m.exportJson()));
    expect(exported.conversation_id).toBe(m.conversationId);
    expect(exported).not.toHaveProperty('arbor');
    // Dot paths computed from the tree: contiguous sibling indexes, whatever the ids and positions.
    expect(exported.nodes.map((n: { node_id: string }) => n.node_id)).toEqual(['', '0', '0.0', '0.1', '0.1.0']);
    expect(exported.edges).toEqual([['', '0'], ['0', '0.0'], ['0', '0.1'], ['0.1', '0.1.0']]);
    expect(exported.current_node_id).toBe('0.1.0');
    expect(exported.current_node_id).toBe(m.getDotPath(m.currentNodeId));
    // Naive local times, as Python's datetime.now().isoformat() writes them.
    for (const time of [exported.created_at, exported.updated_at, ...exported.nodes.map((n: { timestamp: string }) => n.timestamp)]) expect(time).toMatch(NAIVE_LOCAL);
    const rootTime = new Date(m.getNode('').timestamp);
    expect(exported.nodes[0].timestamp.slice(0, 19)).toBe(
      `${rootTime.getFullYear()}-${String(rootTime.getMonth() + 1).padStart(2, '0')}-${String(rootTime.getDate()).padStart(2, '0')}T${String(rootTime.getHours()).padStart(2, '0')}:${String(rootTime.getMinutes()).padStart(2, '0')}:${String(rootTime.getSeconds()).padStart(2, '0')}`,
    );
    // The keys dataknobs reads sit beside Arbor's.
    const answer = m.getNodeByDotPath('0.0') as ConversationNode;
    expect(exported.nodes[2].metadata).toMatchObject({
      costUsd: answer.metadata.costUsd,
      cost_usd: answer.metadata.costUsd,
      finishReason: 'stop',
      finish_reason: 'stop',
      usage: { promptTokens: 10, completionTokens: 1, totalTokens: 11, prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    });

    const copy = await ConversationManager.importJson(exported, { llm, storage, conversationId: 'imported' });
    expect(copy.conversationId).toBe('imported');
    expect(shape(copy)).toEqual(shape(m));
    expect(copy.getNodeByDotPath('0.0')?.metadata).not.toHaveProperty('cost_usd');
    expect(copy.getDotPath(copy.currentNodeId)).toBe(m.getDotPath(m.currentNodeId));
    expect(copy.getMetadata()).toEqual({ title: 'Sample' });
    expect(copy.getTotalCost()).toBeCloseTo(m.getTotalCost(), 12);
    expect(copy.getNodeByDotPath('0.1')?.message.thinking).toBe('Simple sum.');
    // A node added to the copy gets an id no node of the copy has.
    const before = copy.getAllNodes().map((n) => n.nodeId);
    const added = await copy.addMessage({ role: 'assistant', content: 'x' });
    expect(before).not.toContain(added.nodeId);
    expect(copy.getDotPath(added.nodeId)).toBe('0.1.0.0');
    const stored = await storage.loadConversation('imported');
    expect(stored?.nodes).toHaveLength(m.getAllNodes().length + 1);
    // Export of the copy (without the new node) is the same document, apart from its id and times.
    await copy.deleteBranch(added.nodeId);
    const again = copy.exportJson();
    expect(again.nodes).toEqual(exported.nodes);
    expect(again.edges).toEqual(exported.edges);
    expect(again.current_node_id).toBe(exported.current_node_id);
  });

  it('refuses to import over a stored conversation, and bad documents', async () => {
    const m = await sampleConversation();
    await expect(ConversationManager.importJson(m.exportJson(), { llm, storage })).rejects.toThrow(InvalidOperationError);
    await expect(ConversationManager.importJson({ nodes: 'x' }, { llm, storage })).rejects.toThrow(InvalidArgumentError);
    expect(await storage.countConversations()).toBe(1);
  });

  it('imports a hand-written dataknobs file and continues the conversation', async () => {
    const dataknobs = {
      schema_version: '1.1.0',
      conversation_id: 'conv-123',
      current_node_id: '0.1',
      metadata: { user_id: 'alice' },
      created_at: '2024-01-01T00:00:00',
      updated_at: '2024-01-01T00:05:00',
      nodes: [
        { node_id: '', message: { role: 'system', content: 'You are helpful' }, timestamp: '2024-01-01T00:00:00', prompt_name: null, branch_name: null, metadata: {} },
        { node_id: '0', message: { role: 'user', content: 'Hello' }, timestamp: '2024-01-01T00:00:01', prompt_name: null, branch_name: null, metadata: {} },
        {
          node_id: '0.0',
          message: { role: 'assistant', content: 'Hi!', tool_calls: [{ name: 'search', parameters: { q: 'hi' }, id: 'call_1' }] },
          timestamp: '2024-01-01T00:00:02',
          prompt_name: null,
          branch_name: null,
          metadata: { usage: { total_tokens: 9 }, cost_usd: 0.0001 },
        },
        { node_id: '0.1', message: { role: 'assistant', content: 'Greetings!' }, timestamp: '2024-01-01T00:00:03', prompt_name: null, branch_name: 'polite-variant', metadata: {} },
      ],
      edges: [
        ['', '0'],
        ['0', '0.0'],
        ['0', '0.1'],
      ],
    };
    const m = await ConversationManager.importJson(dataknobs, { llm, storage });
    expect(m.conversationId).toBe('conv-123');
    expect(m.getDotPath(m.currentNodeId)).toBe('0.1');
    expect(m.getNode(m.currentNodeId).message.content).toBe('Greetings!');
    const hello = m.getNodeByDotPath('0') as ConversationNode;
    expect(m.getBranches(hello.nodeId).map((b) => [m.getDotPath(b.nodeId), b.preview, b.branchName ?? null])).toEqual([
      ['0.0', 'Hi!', null],
      ['0.1', 'Greetings!', 'polite-variant'],
    ]);
    // Naive file times are this machine's local time.
    expect(hello.timestamp).toBe(new Date(2024, 0, 1, 0, 0, 1).toISOString());
    expect(hello.timestamp).not.toBe('2024-01-01T00:00:01.000Z');
    expect(m.getTotalCost()).toBeCloseTo(0.0001, 12);
    const hi = m.getNodeByDotPath('0.0') as ConversationNode;
    expect(hi.message.toolCalls?.[0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"hi"}' } });
    expect(hi.metadata).toEqual({ usage: { totalTokens: 9 }, costUsd: 0.0001 });
    await m.addMessage({ role: 'user', content: 'Thanks' });
    await m.complete();
    expect(server.chatRequests().at(-1)?.body.messages.map((x: { content: string }) => x.content)).toEqual(['You are helpful', 'Hello', 'Greetings!', 'Thanks']);
    const resumed = await ConversationManager.resume('conv-123', { llm, storage });
    expect(resumed.getDotPath(resumed.currentNodeId)).toBe('0.1.0.0');
    expect(resumed.getNode(resumed.currentNodeId).message.role).toBe('assistant');
  });
});

describe('Meton session import through the manager', () => {
  const session = () => ({
    session_id: 'meton-7',
    start_time: '2025-03-01T10:00:00',
    end_time: '2025-03-01T10:01:00',
    messages: [
      { role: 'system', content: 'You are Meton.', timestamp: '2025-03-01T10:00:00', metadata: {} },
      { role: 'user', content: 'List files', timestamp: '2025-03-01T10:00:01', metadata: {} },
      { role: 'tool', content: 'a.ts', timestamp: '2025-03-01T10:00:02', metadata: { tool_name: 'ls' } },
      { role: 'assistant', content: 'One file: a.ts', timestamp: '2025-03-01T10:00:03', metadata: {} },
    ],
  });

  it('imports a session as one branch, stores it and continues it', async () => {
    const m = await ConversationManager.importJson(session(), { llm, storage });
    expect(m.conversationId).toBe('meton-7');
    expect(m.getHistory()).toEqual([
      { role: 'system', content: 'You are Meton.' },
      { role: 'user', content: 'List files' },
      { role: 'tool', content: 'a.ts', name: 'ls' },
      { role: 'assistant', content: 'One file: a.ts' },
    ]);
    expect(m.getDotPath(m.currentNodeId)).toBe('0.0.0');
    expect(m.getNode(m.getCurrentNodes()[1].nodeId).timestamp).toBe(new Date(2025, 2, 1, 10, 0, 1).toISOString());
    expect(m.getMetadata('importedFrom')).toBe('meton');
    const stored = await storage.loadConversation('meton-7');
    expect(stored?.nodes).toHaveLength(4);
    expect(stored?.createdAt).toBe('2025-03-01T04:30:00.000Z');
    const next = await m.addMessage({ role: 'user', content: 'Thanks' });
    expect(m.getDotPath(next.nodeId)).toBe('0.0.0.0');
    expect(m.getPath(next.nodeId)).toHaveLength(5);
    expect(new Set(m.getAllNodes().map((n) => n.nodeId)).size).toBe(5);
    // The same session again needs a new id, and then imports as a copy.
    await expect(ConversationManager.importJson(session(), { llm, storage })).rejects.toThrow(InvalidOperationError);
    const copy = await ConversationManager.importJson(session(), { llm, storage, conversationId: 'meton-7-copy' });
    expect(copy.getHistory()).toHaveLength(4);
  });

  it('refuses a session with a bad role and stores nothing', async () => {
    const bad = session();
    bad.messages[3].role = 'robot';
    await expect(ConversationManager.importJson(bad, { llm, storage })).rejects.toThrow(InvalidArgumentError);
    await expect(ConversationManager.importJson(bad, { llm, storage })).rejects.toThrow(/Message 3 of Meton session "meton-7" has role "robot"/);
    expect(await storage.countConversations()).toBe(0);
  });
});

describe('Markdown export through the manager', () => {
  it('writes the current path by default and every branch on request', async () => {
    const m = await sampleConversation();
    const current = m.exportMarkdown();
    expect(current).toContain('# Sample');
    expect(current).toContain('Four.');
    expect(current).toContain('And 3+3?');
    expect(current).not.toMatch(/^4$/m);
    const all = m.exportMarkdown({ allBranches: true });
    const sections = all.split('\n## ').slice(1);
    expect(sections).toHaveLength(2);
    expect(sections[0]).toMatch(/^4$/m);
    expect(sections[1]).toContain('words');
    expect(sections[1]).toContain('(current)');
    expect(sections[1]).toContain('Simple sum.');
  });
});
