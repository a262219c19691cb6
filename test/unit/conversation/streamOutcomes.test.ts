import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import { ProviderError } from '../../../src/core/errors';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

/** How a streamed answer that does not end normally is kept in the store: its text, its mark, its error. */
const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let storage: SqlJsConversationStorage;

beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-stream-outcomes-'));
  storage = await SqlJsConversationStorage.open(path.join(dir, 'store.db'));
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

/** Streams an answer to one question; returns the manager and what the stream threw. */
async function streamAnswer(llm: LLMProvider): Promise<{ m: ConversationManager; seen: string; caught: unknown }> {
  const m = await ConversationManager.create({ llm, storage });
  await m.addMessage({ role: 'user', content: 'Go' });
  let seen = '';
  let caught: unknown;
  try {
    for await (const chunk of m.streamComplete()) seen += chunk.delta;
  } catch (error) {
    caught = error;
  }
  return { m, seen, caught };
}

/** Every byte the store wrote to its folder (database, journal, lock files), as text. */
async function storeFilesText(): Promise<string> {
  const names = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = names.filter((d) => d.isFile()).map((d) => path.join(d.parentPath, d.name));
  return (await Promise.all(files.map((f) => readFile(f, 'latin1')))).join('\n');
}

const proxyToken = 'zq9XproxyTokenValue4471';
const apiKey = 'zq7VapiKeyValue3318';
const withSecrets: Array<[string, () => LLMProvider]> = [
  ['openai', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0, apiKey, headers: { 'X-Proxy-Token': proxyToken } })],
  ['ollama', () => new OllamaProvider({ host: server.url, model: 'arbor-test-model', headers: { 'X-Proxy-Token': proxyToken, Authorization: `Bearer ${apiKey}` } })],
];

describe.each(withSecrets)('%s: a stream broken by an error that quotes the request headers', (_name, make) => {
  it('keeps the text, and the stored error, the store files and the export hold the mask, not the tokens', async () => {
    server.enqueue({ content: 'one two three', streamErrorAfterTokens: 2, echoHeaders: ['x-proxy-token', 'authorization'] });
    const { m, seen, caught } = await streamAnswer(make());
    expect(caught).toBeInstanceOf(ProviderError);
    const node = m.getNode(m.currentNodeId);
    expect(node.message.content).toBe('one two');
    expect(seen).toBe('one two');
    expect(node.metadata).toMatchObject({ interrupted: true, stopReason: 'failed', error: (caught as Error).message });
    const stored = (await storage.loadConversation(m.conversationId))?.nodes.find((n) => n.nodeId === node.nodeId);
    expect(String(stored?.metadata.error)).toContain('x-proxy-token: [redacted]');
    const everything = [String(stored?.metadata.error), m.exportMarkdown(), await storeFilesText()].join('\n');
    for (const secret of [proxyToken, apiKey]) expect(everything).not.toContain(secret.slice(0, 4));
  });
});

const capped: Array<[string, (limits: { maxAnswerChars?: number; maxAnswerMs?: number }) => LLMProvider]> = [
  ['openai', (limits) => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0, ...limits })],
  ['ollama', (limits) => new OllamaProvider({ host: server.url, model: 'arbor-test-model', ...limits })],
];

describe.each(capped)('%s: an answer that never ends', (_name, make) => {
  it('is stopped at the character cap: the request closed, the text kept to the cap and marked', async () => {
    server.enqueue({ content: 'Here it comes:', endless: true });
    const { m, seen, caught } = await streamAnswer(make({ maxAnswerChars: 60 }));
    expect(caught).toMatchObject({ kind: 'limit', retryable: false });
    expect((caught as Error).message).toContain('60 characters');
    expect((caught as Error).message).toContain('arbor.limits.maxAnswerChars');
    const node = m.getNode(m.currentNodeId);
    expect(node.message.content).toBe(seen);
    expect(seen).toHaveLength(60);
    expect(seen.startsWith('Here it comes: more more')).toBe(true);
    expect(node.metadata).toMatchObject({ interrupted: true, stopReason: 'limit', finishReason: 'length', error: (caught as Error).message });
    const stored = (await storage.loadConversation(m.conversationId))?.nodes.find((n) => n.nodeId === node.nodeId);
    expect(stored?.metadata).toMatchObject({ interrupted: true, stopReason: 'limit', finishReason: 'length' });
    expect(stored?.message.content).toBe(seen);
    const request = server.chatRequests()[0];
    await server.waitForClose(request);
    expect(request.closedEarly).toBe(true);
  });

  it('is stopped at the total-time cap even while text keeps arriving: kept and marked', async () => {
    server.enqueue({ content: 'Here it comes:', endless: true, tokenDelayMs: 5 });
    // The idle timeout never fires (tokens arrive every 5 ms); only the 300 ms total cap can end this.
    const { m, seen, caught } = await streamAnswer(make({ maxAnswerMs: 300 }));
    expect(caught).toMatchObject({ kind: 'limit', retryable: false });
    expect((caught as Error).message).toContain('0.3 s');
    expect((caught as Error).message).toContain('arbor.limits.maxAnswerSeconds');
    const node = m.getNode(m.currentNodeId);
    expect(seen.startsWith('Here it comes:')).toBe(true);
    expect(node.message.content).toBe(seen);
    expect(node.metadata).toMatchObject({ interrupted: true, stopReason: 'limit', finishReason: 'length', error: (caught as Error).message });
    const request = server.chatRequests()[0];
    await server.waitForClose(request);
    expect(request.closedEarly).toBe(true);
  });

  it('a call that is not streamed is held to the total-time cap too', async () => {
    server.enqueue({ hang: true });
    const err = await make({ maxAnswerMs: 300 }).complete([{ role: 'user', content: 'Go' }]).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'limit', retryable: false });
  });
});
