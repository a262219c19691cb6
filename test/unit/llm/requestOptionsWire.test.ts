import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requestOverrides } from '../../../src/core/conversation/chatRequestOptions';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { nodeMetadata } from '../../../src/core/metadataKeys';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

/**
 * A chat's system prompt and request options reach the wire: the real `openai` and `ollama` clients
 * against a local HTTP server that records each request body.
 */
const server = new FakeLlmServer({ defaultTokenDelayMs: 0, capabilities: { 'arbor-test-model-2': ['completion'] } });
let dir: string;
beforeAll(async () => {
  await server.start();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-request-options-'));
});
afterAll(async () => {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => server.reset());

const providers: Record<'openai' | 'ollama', () => LLMProvider> = {
  openai: () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0 }),
  ollama: () => new OllamaProvider({ host: server.url, model: 'arbor-test-model' }),
};

const systemRef = { name: 'terse', path: 'system/terse.md', sha256: 'a'.repeat(64), gitBlobId: 'b'.repeat(40) };

async function chat(kind: 'openai' | 'ollama', maxHistory?: number): Promise<ConversationManager> {
  const storage = await SqlJsConversationStorage.open(path.join(dir, `${kind}-${Math.random().toString(36).slice(2)}.db`));
  return ConversationManager.create({ llm: providers[kind](), storage, maxHistory });
}

async function drain(manager: ConversationManager, options: Parameters<ConversationManager['streamComplete']>[0]): Promise<void> {
  for await (const _chunk of manager.streamComplete(options)) {
    // the stream is read to its end
  }
}

describe('request options on the OpenAI wire', () => {
  it('sends the system prompt first, temperature, max_tokens, reasoning_effort and the extras as they are', async () => {
    const manager = await chat('openai');
    await manager.addMessage({ role: 'user', content: 'Hello', raw: true });
    const extra = { top_k: 40, response_format: { type: 'text' }, model: 'not-this-one', messages: [] };
    await drain(manager, {
      systemPromptOverride: 'Answer in one line.',
      configOverrides: requestOverrides('arbor-test-model-2', { temperature: 0.3, maxTokens: 256, think: 'low' }, 'unknown', extra),
      metadata: { systemPrompt: systemRef },
    });
    const body = server.chatRequests()[0].body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'Answer in one line.' },
      { role: 'user', content: 'Hello' },
    ]);
    expect(body).toMatchObject({ model: 'arbor-test-model-2', temperature: 0.3, max_tokens: 256, reasoning_effort: 'low', top_k: 40, response_format: { type: 'text' }, stream: true });
    // What the answer records: the system prompt's version and the options it was made with.
    const answer = nodeMetadata(manager.getNode(manager.currentNodeId).metadata);
    expect(answer.systemPrompt).toEqual(systemRef);
    expect(answer.configOverrides).toMatchObject({ temperature: 0.3, maxTokens: 256, think: 'low', extra: { top_k: 40 } });
  });

  it('leaves out what the chat does not set, and a boolean think (OpenAI takes only a level)', async () => {
    const manager = await chat('openai');
    await manager.addMessage({ role: 'user', content: 'Hi', raw: true });
    await drain(manager, { configOverrides: requestOverrides('arbor-test-model', { think: true }, 'unknown') });
    const body = server.chatRequests()[0].body;
    for (const key of ['temperature', 'max_tokens', 'max_completion_tokens', 'reasoning_effort', 'think']) expect(body).not.toHaveProperty(key);
    expect(body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
  });
});

describe('request options on the Ollama wire', () => {
  it('sends the system prompt first, options.temperature and num_predict, think, and merges the extras', async () => {
    const manager = await chat('ollama');
    await manager.addMessage({ role: 'user', content: 'Hello', raw: true });
    const extra = { options: { num_ctx: 4096, temperature: 1.5 }, format: 'json', stream: false };
    await drain(manager, {
      systemPromptOverride: 'Answer in one line.',
      configOverrides: requestOverrides('arbor-test-model', { temperature: 0.3, maxTokens: 256, think: true }, 'supported', extra),
    });
    const body = server.chatRequests()[0].body;
    expect(body.messages).toEqual([
      { role: 'system', content: 'Answer in one line.' },
      { role: 'user', content: 'Hello' },
    ]);
    // The chat's own temperature wins over the extra one; the extra's num_ctx is kept; stream is Arbor's.
    expect(body.options).toEqual({ num_ctx: 4096, temperature: 0.3, num_predict: 256 });
    expect(body).toMatchObject({ think: true, format: 'json', stream: true });
  });

  it('does not send think for a model Ollama says cannot think', async () => {
    const ollama = providers.ollama();
    expect(await ollama.modelCapabilities?.('arbor-test-model')).toContain('thinking');
    const caps = await ollama.modelCapabilities?.('arbor-test-model-2');
    expect(caps).toEqual(['completion']);
    const manager = await chat('ollama');
    await manager.addMessage({ role: 'user', content: 'Hi', raw: true });
    await drain(manager, { configOverrides: requestOverrides('arbor-test-model-2', { think: true }, caps?.includes('thinking') ? 'supported' : 'unsupported') });
    expect(server.chatRequests()[0].body).not.toHaveProperty('think');
  });

  it('names the model and the fix when Ollama does not know the model it is asked about', async () => {
    await expect(providers.ollama().modelCapabilities?.('no-such-model')).rejects.toThrow(/no-such-model/);
  });
});

describe('the system prompt at request time', () => {
  it('changes from the next request on, keeps the history as it was, and survives the context window', async () => {
    const manager = await chat('ollama', 3);
    await manager.addMessage({ role: 'user', content: 'One', raw: true });
    await drain(manager, { systemPromptOverride: 'First prompt.', metadata: { systemPrompt: { ...systemRef, name: 'first' } } });
    const before = manager.getPathIds().map((id) => structuredClone(manager.getNode(id)));
    await manager.addMessage({ role: 'user', content: 'Two', raw: true });
    await drain(manager, { systemPromptOverride: 'Second prompt.', metadata: { systemPrompt: { ...systemRef, name: 'second' } } });
    await manager.addMessage({ role: 'user', content: 'Three', raw: true });
    await drain(manager, { systemPromptOverride: 'Second prompt.' });
    const [first, second, third] = server.chatRequests().map((r) => r.body.messages as Array<{ role: string; content: string }>);
    expect(first[0]).toEqual({ role: 'system', content: 'First prompt.' });
    expect(second[0]).toEqual({ role: 'system', content: 'Second prompt.' });
    expect(second.map((m) => m.content)).toEqual(['Second prompt.', 'One', '[arbor-test-model] Echo: One', 'Two']);
    // maxHistory 3 drops the oldest turn, never the system prompt.
    expect(third.map((m) => m.content)).toEqual(['Second prompt.', 'Two', '[arbor-test-model] Echo: Two', 'Three']);
    // The earlier nodes are untouched: same ids, text and metadata; no system node was added to the path.
    const after = manager.getPathIds().map((id) => manager.getNode(id));
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((n) => n.message.role === 'system' && n.message.content !== '')).toEqual([]);
    const recorded = after.filter((n) => n.message.role === 'assistant').map((n) => nodeMetadata(n.metadata).systemPrompt?.name);
    expect(recorded).toEqual(['first', 'second', undefined]);
  });
});
