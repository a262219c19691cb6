import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestOverrides } from '../../../src/core/conversation/chatRequestOptions';
import { parseChatRequestOptions } from '../../../src/core/requestOptions';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { nodeMetadata, readConversationMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { conversationSystemPrompt, systemPromptMetadata } from '../../../src/host/conversations/conversationSystemPrompt';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

/**
 * A store written by the release before per-chat system prompts and request options (bca0a68, see
 * test/fixtures/storeBeforeSystemPrompt/generate.ts) opens and works: its chats follow the default
 * system prompt (or keep their own root system message), have no request options, and take new
 * answers that record their system prompt, while the old nodes stay as they were.
 */
const FIXTURE = path.resolve(__dirname, '../../fixtures/storeBeforeSystemPrompt');
const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let file: string;

beforeAll(async () => {
  await server.start();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-before-system-prompt-'));
  file = path.join(dir, 'arbor.sqlite');
  await copyFile(path.join(FIXTURE, 'arbor.sqlite'), file);
  await copyFile(path.join(FIXTURE, 'arbor.sqlite.arbor-journal'), `${file}.arbor-journal`);
});
afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

const ref = { name: 'terse', path: 'system/terse.md', sha256: 'c'.repeat(64), gitBlobId: 'd'.repeat(40) };

describe('a store written before system prompts per chat', () => {
  it('opens, follows the defaults, and records the system prompt of new answers only', async () => {
    const llm = new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
    let storage = await SqlJsConversationStorage.open(file);
    const plain = await ConversationManager.resume('chat-plain', { llm, storage });
    const own = await ConversationManager.resume('chat-own-system', { llm, storage });
    const plainMeta = plain.getMetadata() as Record<string, unknown>;
    expect(conversationSystemPrompt(plainMeta, { systemPrompt: 'default' })).toEqual({ name: 'default', stored: false });
    expect(conversationSystemPrompt(own.getMetadata() as Record<string, unknown>, { systemPrompt: 'default' }, own.getNode('').message.content !== '')).toEqual({ name: '', stored: false });
    expect(readConversationMetadata(plainMeta, 'requestOptions')).toBeUndefined();
    const oldNodes = plain.getPathIds().map((id) => structuredClone(plain.getNode(id)));
    expect(oldNodes.map((n) => nodeMetadata(n.metadata).systemPrompt)).toEqual([undefined, undefined]);

    // A new turn in the old chat: the picked prompt and options go out and are recorded.
    await plain.setMetadata({ ...systemPromptMetadata('terse'), requestOptions: parseChatRequestOptions({ temperature: 0.5 }) });
    await plain.addMessage({ role: 'user', content: 'Second question', raw: true });
    for await (const _chunk of plain.streamComplete({
      systemPromptOverride: 'Be terse.',
      configOverrides: requestOverrides('arbor-test-model', { temperature: 0.5 }, 'supported'),
      metadata: { systemPrompt: ref },
    })) {
      // read to the end
    }
    const body = server.chatRequests()[0].body;
    expect(body.messages.map((m: { content: string }) => m.content)).toEqual(['Be terse.', 'First question', '[arbor-test-model] Echo: First question', 'Second question']);
    expect(body.options).toEqual({ temperature: 0.5, num_ctx: 4096 });

    // The chat with its own root system message sends it as stored when no prompt is picked.
    await own.addMessage({ role: 'user', content: 'And flowers?', raw: true });
    for await (const _chunk of own.streamComplete({ configOverrides: { model: 'arbor-test-model' } })) {
      // read to the end
    }
    expect(server.chatRequests()[1].body.messages[0]).toEqual({ role: 'system', content: 'You answer in haiku.' });
    await storage.close();

    // Read back from disk: the old nodes are as they were, the new answer names its system prompt.
    storage = await SqlJsConversationStorage.open(file);
    const again = await ConversationManager.resume('chat-plain', { llm, storage });
    const nodes = again.getPathIds().map((id) => again.getNode(id));
    expect(nodes.slice(0, oldNodes.length)).toEqual(oldNodes);
    expect(nodeMetadata(nodes[nodes.length - 1].metadata).systemPrompt).toEqual(ref);
    expect(readConversationMetadata(again.getMetadata() as Record<string, unknown>, 'systemPrompt')).toBe('terse');
    expect(readConversationMetadata(again.getMetadata() as Record<string, unknown>, 'requestOptions')).toEqual({ temperature: 0.5 });
    await storage.close();
  });
});
