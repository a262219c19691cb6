import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { InvalidArgumentError, InvalidOperationError } from '../../../src/core/errors';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let llm: OpenAIProvider;
let storage: SqlJsConversationStorage;

beforeAll(async () => {
  await server.start();
  llm = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'arbor-test-model', maxRetries: 0, pricing: { 'arbor-test-model': { inputPerMillion: 1000, outputPerMillion: 1000 } } });
});
afterAll(() => server.stop());
beforeEach(async () => {
  storage = await SqlJsConversationStorage.open();
});
afterEach(() => storage.close());

async function sampleConversation(): Promise<ConversationManager> {
  const m = await ConversationManager.create({ llm, storage, systemPrompt: 'Be exact.', metadata: { title: 'Sample' } });
  await m.addMessage({ role: 'user', content: 'What is 2+2?' });
  server.enqueue({ content: '4', usage: { promptTokens: 10, completionTokens: 1 } });
  await m.complete();
  await m.branchFrom('0.0');
  server.enqueue({ content: 'Four.', thinking: 'Simple sum.', usage: { promptTokens: 10, completionTokens: 2 } });
  await m.complete({ branchName: 'words' });
  await m.addMessage({ role: 'user', content: 'And 3+3?' });
  await m.addMessage({ role: 'assistant', content: 'temporary' });
  await m.deleteBranch('0.1.0.0');
  return m;
}

describe('JSON export and import through the manager', () => {
  it('round-trips a conversation with branches, costs, thinking and tombstones', async () => {
    const m = await sampleConversation();
    const exported = JSON.parse(JSON.stringify(m.exportJson()));
    expect(exported.conversation_id).toBe(m.conversationId);
    expect(exported.current_node_id).toBe('0.1.0');
    expect(exported.edges).toContainEqual(['0', '0.1']);
    const copy = await ConversationManager.importJson(exported, { llm, storage, conversationId: 'imported' });
    expect(copy.conversationId).toBe('imported');
    expect(copy.getAllNodes()).toEqual(m.getAllNodes());
    expect(copy.currentNodeId).toBe(m.currentNodeId);
    expect(copy.getMetadata()).toEqual({ title: 'Sample' });
    expect(copy.getTotalCost()).toBeCloseTo(m.getTotalCost(), 12);
    expect(copy.getNode('0.1').message.thinking).toBe('Simple sum.');
    // The deleted id stays taken in the copy.
    expect((await copy.addMessage({ role: 'assistant', content: 'x' })).nodeId).toBe('0.1.0.1');
    const stored = await storage.loadConversation('imported');
    expect(stored?.nodes).toHaveLength(m.getAllNodes().length + 1);
    // Export of the copy (without the new node) is the same document, apart from its id and times.
    await copy.deleteBranch('0.1.0.1');
    const again = copy.exportJson();
    expect(again.nodes).toEqual(exported.nodes);
    expect(again.edges).toEqual(exported.edges);
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
    expect(m.currentNodeId).toBe('0.1');
    expect(m.getBranches('0').map((b) => [b.nodeId, b.branchName ?? null])).toEqual([
      ['0.0', null],
      ['0.1', 'polite-variant'],
    ]);
    expect(m.getTotalCost()).toBeCloseTo(0.0001, 12);
    expect(m.getNode('0.0').message.toolCalls?.[0]).toEqual({ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"hi"}' } });
    await m.addMessage({ role: 'user', content: 'Thanks' });
    await m.complete();
    expect(server.chatRequests().at(-1)?.body.messages.map((x: { content: string }) => x.content)).toEqual(['You are helpful', 'Hello', 'Greetings!', 'Thanks']);
    const resumed = await ConversationManager.resume('conv-123', { llm, storage });
    expect(resumed.currentNodeId).toBe('0.1.0.0');
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
