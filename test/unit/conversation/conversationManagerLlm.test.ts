import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager } from '../../../src/core/conversation/conversationManager';
import type { ConversationMiddleware, MiddlewareState } from '../../../src/core/conversation/middleware/middleware';
import { LoggingMiddleware } from '../../../src/core/conversation/middleware/loggingMiddleware';
import { RedactionMiddleware } from '../../../src/core/conversation/middleware/redactionMiddleware';
import type { LLMStreamChunk } from '../../../src/core/types';
import { InvalidOperationError, ProviderError } from '../../../src/core/errors';
import type { Logger } from '../../../src/core/files';
import { OllamaProvider } from '../../../src/core/llm/ollama';
import { OpenAIProvider } from '../../../src/core/llm/openai';
import type { LLMProvider } from '../../../src/core/llm/provider';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { FakeLlmServer } from '../../fixtures/fakeLlmServer';

const server = new FakeLlmServer({ defaultTokenDelayMs: 0 });
let dir: string;
let dbPath: string;
let storage: SqlJsConversationStorage;
let openai: OpenAIProvider;
let ollama: OllamaProvider;

// 1000 and 2000 USD per million tokens: 10 prompt + 5 completion tokens cost 0.01 + 0.01.
const pricing = { 'arbor-test-model': { inputPerMillion: 1000, outputPerMillion: 2000 }, 'arbor-test-model-2': { inputPerMillion: 0, outputPerMillion: 0 } };
const usage = { promptTokens: 10, completionTokens: 5 };

beforeAll(async () => {
  await server.start();
  openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'test', model: 'arbor-test-model', maxRetries: 0, pricing });
  ollama = new OllamaProvider({ host: server.url, model: 'arbor-test-model' });
});
afterAll(() => server.stop());

beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(path.join(os.tmpdir(), 'arbor-manager-llm-'));
  dbPath = path.join(dir, 'store.db');
  storage = await SqlJsConversationStorage.open(dbPath);
});
afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

async function reopenAndResume(id: string, llm: LLMProvider): Promise<ConversationManager> {
  await storage.close();
  storage = await SqlJsConversationStorage.open(dbPath);
  return ConversationManager.resume(id, { llm, storage });
}

const sentMessages = () => server.chatRequests().at(-1)?.body.messages as Array<{ role: string; content: string; tool_call_id?: string }>;

async function collect(stream: AsyncIterable<LLMStreamChunk>): Promise<LLMStreamChunk[]> {
  const out: LLMStreamChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe.each([
  ['openai', () => openai, 0.02],
  ['ollama', () => ollama, 0],
])('complete and streamComplete with %s', (name, provider, cost) => {
  it('complete sends the path, appends the answer, persists it and reports costs', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage, systemPrompt: 'Be brief.' });
    const question = await m.addMessage({ role: 'user', content: 'Hello?' });
    server.enqueue({ content: 'Hi there.', usage });
    const response = await m.complete();
    expect(response.content).toBe('Hi there.');
    expect(response.costUsd).toBeCloseTo(cost, 10);
    expect(response.cumulativeCostUsd).toBeCloseTo(cost, 10);
    expect(sentMessages().map((x) => [x.role, x.content])).toEqual([
      ['system', 'Be brief.'],
      ['user', 'Hello?'],
    ]);
    const node = m.getNode(m.currentNodeId);
    expect(node.parentId).toBe(question.nodeId);
    expect(m.getDotPath(node.nodeId)).toBe('0.0');
    expect(node.message).toEqual({ role: 'assistant', content: 'Hi there.' });
    expect(node.metadata).toMatchObject({ model: 'arbor-test-model', provider: name, finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } });
    const resumed = await reopenAndResume(m.conversationId, provider());
    expect(resumed.currentNodeId).toBe(node.nodeId);
    expect(resumed.getAllNodes()).toEqual(m.getAllNodes());
    expect(resumed.getTotalCost()).toBeCloseTo(cost, 10);
  });

  it('streamComplete yields the deltas and then adds the node exactly as complete does', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage });
    const question = await m.addMessage({ role: 'user', content: 'Count' });
    server.enqueue({ content: 'one two three four', usage });
    const chunks = await collect(m.streamComplete({ branchName: 'streamed', metadata: { via: 'stream' } }));
    expect(chunks.map((c) => c.delta).join('')).toBe('one two three four');
    expect(chunks.at(-1)?.done).toBe(true);
    const node = m.getNode(m.currentNodeId);
    expect(node.parentId).toBe(question.nodeId);
    expect(m.getDotPath(node.nodeId)).toBe('0.0');
    expect(node.branchName).toBe('streamed');
    expect(node.message.content).toBe('one two three four');
    expect(node.metadata).toMatchObject({ via: 'stream', model: 'arbor-test-model', finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } });
    expect(node.metadata.interrupted).toBeUndefined();
    expect(m.getTotalCost()).toBeCloseTo(cost, 10);
    const resumed = await reopenAndResume(m.conversationId, provider());
    expect(resumed.getNode(node.nodeId)).toEqual(node);
    expect(resumed.currentNodeId).toBe(node.nodeId);
  });

  it('a consumer break saves the text seen so far as an interrupted node and ends quietly', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage });
    await m.addMessage({ role: 'user', content: 'Long answer please' });
    server.enqueue({ tokens: ['a', ' b', ' c', ' d', ' e', ' f', ' g', ' h'], tokenDelayMs: 30 });
    let seen = '';
    for await (const chunk of m.streamComplete()) {
      seen += chunk.delta;
      if (seen.length >= 3) break;
    }
    const node = m.getNode(m.currentNodeId);
    expect(node.message.content).toBe(seen);
    expect(node.metadata.interrupted).toBe(true);
    expect(node.metadata.error).toBeUndefined();
    const request = server.chatRequests().at(-1);
    if (request) await server.waitForClose(request);
    expect(request?.closedEarly).toBe(true);
    expect((await storage.loadConversation(m.conversationId))?.nodes.find((n) => n.nodeId === node.nodeId)?.metadata.interrupted).toBe(true);
  });

  it('an aborted signal saves the partial text marked as cancelled (no error) and re-throws', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage });
    await m.addMessage({ role: 'user', content: 'Go' });
    server.enqueue({ tokens: ['x', ' y', ' z', ' w', ' v', ' u'], tokenDelayMs: 30 });
    const controller = new AbortController();
    let seen = '';
    const run = async () => {
      for await (const chunk of m.streamComplete({ signal: controller.signal })) {
        seen += chunk.delta;
        if (seen.length >= 3) controller.abort();
      }
    };
    await expect(run()).rejects.toThrow();
    const node = m.getNode(m.currentNodeId);
    expect(node.message.role).toBe('assistant');
    expect(node.message.content).toBe(seen);
    expect(node.metadata.interrupted).toBe(true);
    expect(node.metadata.stopReason).toBe('cancelled');
    expect(node.metadata.error).toBeUndefined();
    expect(node.message.metadata?.finishReason ?? node.metadata.finishReason).toBe('aborted');
  });

  it('refuses to delete a branch an answer is still streaming into, and allows it once the stream ends', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage });
    const question = await m.addMessage({ role: 'user', content: 'Go' });
    server.enqueue({ tokens: ['a', ' b', ' c'], tokenDelayMs: 20 });
    let refused: unknown;
    for await (const chunk of m.streamComplete()) {
      if (chunk.delta === 'a') refused = await m.deleteBranch(question.nodeId).catch((error: unknown) => error);
    }
    expect(refused).toBeInstanceOf(InvalidOperationError);
    expect(m.getChildren(question.nodeId).map((n) => n.message.content)).toEqual(['a b c']);
    await m.deleteBranch(question.nodeId);
    expect(m.getAllNodes().map((n) => n.nodeId)).toEqual(['']);
  });

  it('a server that cuts the stream leaves the partial text saved with the error, and the error re-thrown', async () => {
    const m = await ConversationManager.create({ llm: provider(), storage });
    await m.addMessage({ role: 'user', content: 'Go' });
    server.enqueue({ tokens: ['first', ' second', ' third', ' fourth', ' fifth'], cutAfterTokens: 2 });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of m.streamComplete()) seen.push(chunk.delta);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderError);
    const node = m.getNode(m.currentNodeId);
    expect(node.message.content).toBe('first second');
    expect(seen.join('')).toBe('first second');
    expect(node.metadata).toMatchObject({ interrupted: true, stopReason: 'failed', error: (caught as Error).message, finishReason: 'error' });
    const resumed = await reopenAndResume(m.conversationId, provider());
    expect(resumed.getNode(node.nodeId).metadata.interrupted).toBe(true);
  });
});

describe('streaming and concurrency', () => {
  it('returns the final response, with the cumulative cost, as the generator result', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'q' });
    server.enqueue({ content: 'one', usage });
    const gen = m.streamComplete();
    let step = await gen.next();
    while (!step.done) step = await gen.next();
    expect(step.value.content).toBe('one');
    expect(step.value.cumulativeCostUsd).toBeCloseTo(0.02, 10);
  });

  it('an answer streamed while another message is added still goes under the node it answers', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    const question = await m.addMessage({ role: 'user', content: 'q' });
    server.enqueue({ tokens: ['a', ' b', ' c'], tokenDelayMs: 20 });
    let added: string | undefined;
    for await (const chunk of m.streamComplete()) {
      if (!added && chunk.delta) added = (await m.addMessage({ role: 'user', content: 'typed meanwhile' })).nodeId;
    }
    expect(m.getDotPath(added as string)).toBe('0.0');
    expect(m.getChildren(question.nodeId).map((n) => n.message.content)).toEqual(['typed meanwhile', 'a b c']);
    const answer = m.getNodeByDotPath('0.1');
    expect(answer?.message.content).toBe('a b c');
    expect(answer?.parentId).toBe(question.nodeId);
    expect(m.currentNodeId).toBe(answer?.nodeId);
  });

  it('complete and addMessage called together run in call order', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'q' });
    server.enqueue({ content: 'answer' });
    const [response, next] = await Promise.all([m.complete(), m.addMessage({ role: 'user', content: 'follow-up' })]);
    expect(response.content).toBe('answer');
    expect(m.getDotPath(next.nodeId)).toBe('0.0.0');
    expect(m.getNode(next.nodeId).parentId).toBe(m.getNodeByDotPath('0.0')?.nodeId);
    expect(m.getHistory().map((x) => x.content)).toEqual(['q', 'answer', 'follow-up']);
  });
});

describe('complete: options, tools and errors', () => {
  it('refuses to complete with no messages, without calling the model', async () => {
    const m = await ConversationManager.create({ llm: openai, storage, systemPrompt: 's' });
    await expect(m.complete()).rejects.toThrow(InvalidOperationError);
    await expect(collect(m.streamComplete())).rejects.toThrow(InvalidOperationError);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('passes config overrides and records them, the branch name and extra metadata', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'q' });
    server.enqueue({ content: 'a' });
    await m.complete({
      branchName: 'second model',
      metadata: { tag: 1 },
      configOverrides: { model: 'arbor-test-model-2', temperature: 0.3, maxTokens: 50, topP: 0.9, stop: ['END'], seed: 7 },
    });
    const body = server.chatRequests().at(-1)?.body;
    expect(body).toMatchObject({ model: 'arbor-test-model-2', temperature: 0.3, top_p: 0.9, stop: ['END'], seed: 7 });
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(50);
    const node = m.getNode(m.currentNodeId);
    expect(node.message).toEqual({ role: 'assistant', content: 'a' });
    expect(node.branchName).toBe('second model');
    expect(node.metadata).toMatchObject({ tag: 1, model: 'arbor-test-model-2', configOverrides: { seed: 7 } });
  });

  it('a systemPromptOverride is sent for that call only', async () => {
    const m = await ConversationManager.create({ llm: openai, storage, systemPrompt: 'stored' });
    await m.addMessage({ role: 'user', content: 'q' });
    await m.complete({ systemPromptOverride: 'override' });
    expect(sentMessages()[0]).toMatchObject({ role: 'system', content: 'override' });
    expect(m.getNode('').message.content).toBe('stored');
    const bare = await ConversationManager.create({ llm: openai, storage });
    await bare.addMessage({ role: 'user', content: 'q' });
    await bare.complete({ systemPromptOverride: 'added' });
    expect(sentMessages().map((x) => x.role)).toEqual(['system', 'user']);
  });

  it('keeps tool calls and thinking on the node and sends tool results back', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    await m.addMessage({ role: 'user', content: 'search it' });
    const tools = [{ type: 'function' as const, function: { name: 'search', parameters: { type: 'object' } } }];
    server.enqueue({ content: '', thinking: 'I should search.', toolCalls: [{ id: 'call_9', name: 'search', arguments: { q: 'x' } }] });
    const response = await m.complete({ tools });
    expect(server.chatRequests().at(-1)?.body.tools[0].function.name).toBe('search');
    expect(response.finishReason).toBe('tool_calls');
    const node = m.getNode(m.currentNodeId);
    expect(m.getDotPath(node.nodeId)).toBe('0.0');
    expect(node.message.toolCalls).toEqual([{ id: 'call_9', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]);
    expect(node.message.thinking).toBe('I should search.');
    await m.addMessage({ role: 'tool', content: 'found', toolCallId: 'call_9', name: 'search' });
    server.enqueue({ content: 'done' });
    await m.complete({ tools });
    expect(sentMessages().at(-1)).toMatchObject({ role: 'tool', content: 'found', tool_call_id: 'call_9' });
    expect(m.getNode(m.currentNodeId).message.content).toBe('done');
  });

  it('a failed call adds nothing, and a stream that fails before any text adds nothing', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    const question = await m.addMessage({ role: 'user', content: 'q' });
    server.enqueueError(500);
    await expect(m.complete()).rejects.toBeInstanceOf(ProviderError);
    server.enqueueError(500);
    await expect(collect(m.streamComplete())).rejects.toBeInstanceOf(ProviderError);
    expect(m.getAllNodes()).toHaveLength(2);
    expect(m.currentNodeId).toBe(question.nodeId);
    expect((await storage.loadConversation(m.conversationId))?.nodes).toHaveLength(2);
  });

  it('totals costs over every branch and per branch', async () => {
    const m = await ConversationManager.create({ llm: openai, storage });
    const question = await m.addMessage({ role: 'user', content: 'q' });
    server.enqueue({ content: 'a1', usage });
    await m.complete();
    const firstAnswer = m.currentNodeId;
    await m.addMessage({ role: 'user', content: 'q2' });
    server.enqueue({ content: 'a2', usage: { promptTokens: 20, completionTokens: 0 } });
    const second = await m.complete();
    const secondAnswer = m.currentNodeId;
    expect(second.costUsd).toBeCloseTo(0.02, 10);
    expect(second.cumulativeCostUsd).toBeCloseTo(0.04, 10);
    await m.branchFrom(firstAnswer);
    server.enqueue({ content: 'retry', usage: { promptTokens: 0, completionTokens: 50 } });
    const retry = await m.complete();
    expect(m.getDotPath(m.currentNodeId)).toBe('0.1');
    expect(m.getNode(m.currentNodeId).parentId).toBe(question.nodeId);
    expect(retry.cumulativeCostUsd).toBeCloseTo(0.1, 10);
    expect(m.getTotalCost()).toBeCloseTo(0.14, 10);
    expect(m.getDotPath(secondAnswer)).toBe('0.0.0.0');
    expect(m.getCostByBranch(secondAnswer)).toBeCloseTo(0.04, 10);
    expect(m.getCostByBranch()).toBeCloseTo(0.1, 10);
    expect(m.getCostByBranch(question.nodeId)).toBe(0);
  });
});

describe('middleware and the context window', () => {
  it('runs processRequest in list order and processResponse in reverse (onion), with the state', async () => {
    const calls: string[] = [];
    const states: MiddlewareState[] = [];
    const layer = (tag: string): ConversationMiddleware => ({
      processRequest(messages, state) {
        calls.push(`${tag}:request`);
        states.push(state);
        return messages.map((x) => (x.role === 'user' ? { ...x, content: `${x.content} [${tag}]` } : x));
      },
      processResponse(response) {
        calls.push(`${tag}:response`);
        return { ...response, content: `${response.content} <${tag}>` };
      },
    });
    const m = await ConversationManager.create({ llm: openai, storage, middleware: [layer('a'), layer('b')], metadata: { who: 'me' } });
    const hi = await m.addMessage({ role: 'user', content: 'hi' });
    server.enqueue({ content: 'ok' });
    await m.complete();
    expect(calls).toEqual(['a:request', 'b:request', 'b:response', 'a:response']);
    expect(sentMessages().at(-1)?.content).toBe('hi [a] [b]');
    expect(m.getNode(m.currentNodeId).message.content).toBe('ok <b> <a>');
    expect(m.getNode(m.currentNodeId).parentId).toBe(hi.nodeId);
    expect(m.getNode(hi.nodeId).message.content).toBe('hi');
    expect(states[0]).toMatchObject({ conversationId: m.conversationId, currentNode: { nodeId: hi.nodeId }, metadata: { who: 'me' } });
    calls.length = 0;
    await m.addMessage({ role: 'user', content: 'again' });
    server.enqueue({ content: 'streamed' });
    await collect(m.streamComplete());
    expect(calls).toEqual(['a:request', 'b:request', 'b:response', 'a:response']);
    expect(m.getNode(m.currentNodeId).message.content).toBe('streamed <b> <a>');
  });

  it('redaction masks what the server receives while the stored node keeps what was typed', async () => {
    const m = await ConversationManager.create({ llm: openai, storage, middleware: [new RedactionMiddleware()] });
    const typed = 'my key is sk-proj-abcdefghijklmnopqrstuvwxyz and AKIAIOSFODNN7EXAMPLE';
    const question = await m.addMessage({ role: 'user', content: typed });
    await m.complete();
    const raw = server.chatRequests().at(-1)?.rawBody ?? '';
    expect(raw).not.toContain('sk-proj-abc');
    expect(raw).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(sentMessages().at(-1)?.content).toBe('my key is [REDACTED:api-key] and [REDACTED:aws-access-key]');
    expect(m.getNode(question.nodeId).message.content).toBe(typed);
    expect((await storage.loadConversation(m.conversationId))?.nodes.find((n) => n.nodeId === question.nodeId)?.message.content).toBe(typed);
  });

  it('LoggingMiddleware logs sizes and tokens but not the text', async () => {
    const lines: string[] = [];
    const logger: Logger = { debug: (s) => lines.push(s), info: (s) => lines.push(s), warn: (s) => lines.push(s), error: (s) => lines.push(s) };
    const m = await ConversationManager.create({ llm: openai, storage, middleware: [new LoggingMiddleware(logger)] });
    await m.addMessage({ role: 'user', content: 'secret plans' });
    server.enqueue({ content: 'classified answer', usage });
    await m.complete();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('messages=1');
    expect(lines[1]).toContain('promptTokens=10');
    expect(lines[1]).toContain('model=arbor-test-model');
    expect(lines.join('\n')).not.toMatch(/secret plans|classified/);
    const verbose: unknown[][] = [];
    const debugLogger: Logger = { ...logger, debug: (...args) => verbose.push(args) };
    const v = await ConversationManager.create({ llm: openai, storage, middleware: [new LoggingMiddleware(debugLogger, { logContents: true })] });
    await v.addMessage({ role: 'user', content: 'open plans' });
    server.enqueue({ content: 'open answer' });
    await v.complete();
    expect(JSON.stringify(verbose)).toContain('open plans');
    expect(JSON.stringify(verbose)).toContain('open answer');
  });

  it('sends only the newest whole turns under maxHistory, keeping the system prompt and the tree', async () => {
    const m = await ConversationManager.create({ llm: openai, storage, systemPrompt: 'sys', maxHistory: 3 });
    for (let i = 1; i <= 3; i++) {
      await m.addMessage({ role: 'user', content: `u${i}` });
      server.enqueue({ content: `a${i}` });
      await m.complete();
    }
    await m.addMessage({ role: 'user', content: 'u4' });
    server.enqueue({ content: 'a4' });
    await m.complete();
    expect(sentMessages().map((x) => x.content)).toEqual(['sys', 'u3', 'a3', 'u4']);
    expect(m.getHistory()).toHaveLength(9);
    expect(m.getNode(m.currentNodeId).metadata.contextDroppedMessages).toBe(4);
    const window = m.getContextWindow();
    expect(window.messages.map((x) => x.content)).toEqual(['sys', 'u4', 'a4']);
    expect(window.tokenEstimates).toHaveLength(9);
    expect(m.estimateTokens().perMessage).toEqual(window.tokenEstimates);
  });

  it('maxContextTokens drops the oldest turns by estimate', async () => {
    const m = await ConversationManager.create({ llm: ollama, storage, maxContextTokens: 40 });
    await m.addMessage({ role: 'user', content: 'x'.repeat(80) });
    server.enqueue({ content: 'y'.repeat(40) });
    await m.complete();
    await m.addMessage({ role: 'user', content: 'short' });
    await m.complete();
    expect(sentMessages().map((x) => x.content)).toEqual(['short']);
  });
});
