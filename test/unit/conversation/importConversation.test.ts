import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, OpenAIProvider, OpenConversations, SqlJsConversationStorage, parseConversationJson } from '../../../src/core/index';

// Nothing here calls the model; the provider only fills the required option.
const llm = new OpenAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'unused', maxRetries: 0 });

const meton = {
  session_id: 'meton-1',
  messages: [
    { role: 'user', content: 'What does the indexer skip?', timestamp: '2025-01-02T10:00:00' },
    { role: 'assistant', content: 'Binary files and anything gitignored.', timestamp: '2025-01-02T10:00:05' },
  ],
};

let dir: string;
let storage: SqlJsConversationStorage;
let open: OpenConversations;
let events: string[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-import-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
  open = new OpenConversations({ storage, managerOptions: () => ({ llm }) });
  events = [];
  open.onDidChange((id) => events.push(id));
});

afterEach(async () => {
  open.dispose();
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

describe('importing a conversation file', () => {
  it('stores a Meton session under its id, keeps it open and announces it', async () => {
    const { manager, copyOf } = await open.import(parseConversationJson(JSON.stringify(meton)));
    expect(manager.conversationId).toBe('meton-1');
    expect(copyOf).toBeUndefined();
    expect(await open.get('meton-1')).toBe(manager);
    expect(events).toContain('meton-1');
    const stored = await storage.loadConversation('meton-1');
    expect(stored?.nodes.map((n) => n.message.content)).toEqual(['', 'What does the indexer skip?', 'Binary files and anything gitignored.']);
  });

  it('imports an Arbor export of a stored conversation as a copy under a new id', async () => {
    const first = await open.import(meton);
    const exported = JSON.parse(JSON.stringify(first.manager.exportJson()));
    const second = await open.import(exported);
    expect(second.copyOf).toBe('meton-1');
    expect(second.manager.conversationId).not.toBe('meton-1');
    expect((await storage.listConversations()).map((s) => s.conversationId).sort()).toEqual([second.manager.conversationId, 'meton-1'].sort());
    expect(second.manager.getAllNodes().map((n) => n.message.content)).toEqual(first.manager.getAllNodes().map((n) => n.message.content));
  });

  it('says plainly when the text is not JSON, and when the JSON is not a conversation', async () => {
    expect(() => parseConversationJson('{"session_id": ')).toThrow(/not JSON/);
    expect(parseConversationJson('\uFEFF{"a":1}')).toEqual({ a: 1 });
    await expect(open.import({ hello: 'world' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(open.import([1, 2])).rejects.toThrow(/conversation_id/);
    expect(await storage.listConversations()).toEqual([]);
  });
});

describe('conversation ids that every JavaScript object already has', () => {
  const HOSTILE = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

  it.each(HOSTILE)('imports a Meton session whose id is %s under a fresh id, saying why', async (id) => {
    const imported = await open.import(parseConversationJson(JSON.stringify({ ...meton, session_id: id })));
    expect(imported.manager.conversationId).not.toBe(id);
    expect(imported.copyOf).toBe(id);
    expect(imported.newIdReason).toBe('reserved');
    expect((await storage.listConversations()).map((s) => s.conversationId)).toEqual([imported.manager.conversationId]);
    expect((await open.get(imported.manager.conversationId)).getAllNodes()).toHaveLength(3);
  });

  it('imports an Arbor export whose conversation_id is __proto__ under a fresh id (JSON.parse makes it an own property)', async () => {
    const exported = JSON.parse(JSON.stringify((await open.import(meton)).manager.exportJson())) as Record<string, unknown>;
    const text = JSON.stringify({ ...exported, conversation_id: 'placeholder' }).replace('"placeholder"', '"__proto__"');
    const imported = await open.import(parseConversationJson(text));
    expect(imported.manager.conversationId).not.toBe('__proto__');
    expect(imported.newIdReason).toBe('reserved');
  });

  it('refuses such an id when a conversation is made or imported under it directly, with what to do instead', async () => {
    const { ConversationManager } = await import('../../../src/core/conversation/conversationManager');
    for (const id of HOSTILE) {
      await expect(ConversationManager.create({ llm, storage, conversationId: id })).rejects.toThrow(InvalidArgumentError);
      await expect(ConversationManager.importJson({ ...meton, session_id: id }, { llm, storage })).rejects.toThrow(/member every JavaScript object has/);
    }
    expect(await storage.listConversations()).toEqual([]);
  });

  it('a taken id still reads as taken', async () => {
    await open.import(meton);
    expect((await open.import(meton)).newIdReason).toBe('taken');
  });
});
