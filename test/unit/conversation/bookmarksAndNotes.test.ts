import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import type { ConversationChangeEvent } from '../../../src/core/conversation/managerTypes';
import { NodeNotFoundError } from '../../../src/core/errors';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { BOOKMARKED, nodeMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let dbPath: string;
let storage: SqlJsConversationStorage;
let providers: Record<'openai' | 'ollama', LLMProvider>;

beforeAll(async () => {
  await server.start();
  providers = {
    openai: new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0 }),
    ollama: new OllamaProvider({ host: server.url, model: 'arbor-test-model' }),
  };
});
afterAll(() => server.stop());

beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-notes-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bookmarks and notes on messages', () => {
  it('are stored in the node metadata, survive a restart, and are removed with undefined', async () => {
    const m = await ConversationManager.create({ llm: providers.ollama, storage, conversationId: 'c' });
    const question = await m.addMessage({ role: 'user', content: 'What is a larch?' });
    const events: ConversationChangeEvent[] = [];
    m.onDidChange((e) => events.push(e));

    await m.setNodeMetadata(question.nodeId, { ...BOOKMARKED, note: 'Ask about needles later' });
    expect(events.map((e) => [e.kind, e.nodeIds])).toEqual([['nodeUpdated', [question.nodeId]]]);
    expect(m.getNode(question.nodeId).message).toEqual({ role: 'user', content: 'What is a larch?' });

    await storage.close();
    storage = await SqlJsConversationStorage.open(dbPath);
    const resumed = await ConversationManager.resume('c', { llm: providers.ollama, storage });
    expect(nodeMetadata(resumed.getNode(question.nodeId).metadata)).toMatchObject({ bookmarked: true, note: 'Ask about needles later' });

    await resumed.setNodeMetadata(question.nodeId, 'note', undefined);
    await resumed.setNodeMetadata(question.nodeId, 'bookmarked', undefined);
    expect((await storage.loadConversation('c'))?.nodes.find((n) => n.nodeId === question.nodeId)?.metadata).toEqual({});
  });

  it('a change that changes nothing writes nothing, and an unknown node is refused', async () => {
    const m = await ConversationManager.create({ llm: providers.ollama, storage, conversationId: 'c' });
    const question = await m.addMessage({ role: 'user', content: 'hi' });
    await m.setNodeMetadata(question.nodeId, BOOKMARKED);
    const before = (await storage.loadConversation('c'))?.updatedAt;
    const events: ConversationChangeEvent[] = [];
    m.onDidChange((e) => events.push(e));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await m.setNodeMetadata(question.nodeId, BOOKMARKED);
    expect(events).toEqual([]);
    expect((await storage.loadConversation('c'))?.updatedAt).toBe(before);
    await expect(m.setNodeMetadata('n99', BOOKMARKED)).rejects.toBeInstanceOf(NodeNotFoundError);
  });

  it('are exported in Markdown: the note as a quote under its message, the bookmark among its facts', async () => {
    const m = await ConversationManager.create({ llm: providers.ollama, storage });
    const question = await m.addMessage({ role: 'user', content: 'Name a conifer' });
    await m.setNodeMetadata(question.nodeId, { ...BOOKMARKED, note: 'Keep this one\nfor the talk' });
    const markdown = m.exportMarkdown();
    expect(markdown).toContain('### User\n\n_node `0` · bookmarked_\n\nName a conifer\n\n> **Note:** Keep this one\n> for the talk');
  });
});

describe.each(['openai', 'ollama'] as const)('a note is never sent to the model (%s wire format)', (kind) => {
  const NOTE_ON_QUESTION = 'NOTE-ON-QUESTION-must-stay-local';
  const NOTE_ON_ANSWER = 'NOTE-ON-ANSWER-must-stay-local';

  it('in complete and in streamComplete, on a question and on an answer, while the messages themselves are sent', async () => {
    const m = await ConversationManager.create({ llm: providers[kind], storage, systemPrompt: 'Be brief.' });
    const question = await m.addMessage({ role: 'user', content: 'first question' });
    await m.setNodeMetadata(question.nodeId, { note: NOTE_ON_QUESTION, ...BOOKMARKED });
    await m.complete();
    await m.setNodeMetadata(m.currentNodeId, { note: NOTE_ON_ANSWER });
    await m.addMessage({ role: 'user', content: 'second question' });
    for await (const _chunk of m.streamComplete()) {
      // drained
    }

    const bodies = server.chatRequests().map((r) => r.rawBody);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain('first question');
    expect(bodies[1]).toContain('Echo: first question');
    expect(bodies[1]).toContain('second question');
    for (const body of bodies) {
      expect(body).not.toContain(NOTE_ON_QUESTION);
      expect(body).not.toContain(NOTE_ON_ANSWER);
      expect(body).not.toContain('bookmarked');
    }
    // The notes are still there to show.
    expect(nodeMetadata(m.getNode(question.nodeId).metadata).note).toBe(NOTE_ON_QUESTION);
  });
});
