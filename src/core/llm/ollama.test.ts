import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { collectStream, freePort, providerFailure, streamAbortedAfter } from '../../../test/fixtures/providerTestTools';
import { ProviderError } from '../errors';
import { OllamaProvider, type OllamaProviderOptions } from './ollama';

const server = new FakeLlmServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
afterEach(() => server.reset());

function provider(extra: Partial<OllamaProviderOptions> = {}): OllamaProvider {
  return new OllamaProvider({ host: server.url, model: 'arbor-test-model', ...extra });
}

describe('OllamaProvider', () => {
  it('completes with usage from prompt_eval_count/eval_count and costs 0', async () => {
    server.enqueue({ content: 'Local answer', usage: { promptTokens: 12, completionTokens: 3 } });
    const res = await provider().complete([{ role: 'user', content: 'hi' }]);
    expect(res).toMatchObject({ content: 'Local answer', model: 'arbor-test-model', finishReason: 'stop', costUsd: 0 });
    expect(res.usage).toEqual({ promptTokens: 12, completionTokens: 3, totalTokens: 15 });
    expect(server.lastRequest!.body.stream).toBe(false);
  });

  it('sends model, options, think, tools, tool results and images in the Ollama shape', async () => {
    server.enqueue({ content: 'ok' });
    const tools = [{ type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];
    await provider({ numCtx: 8192, keepAlive: '5m' }).complete(
      [
        { role: 'user', content: 'Look', images: ['data:image/png;base64,iVBORw0KGgo='] },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }], thinking: 'hidden' },
        { role: 'tool', content: 'export {}', toolCallId: 'call_1' },
      ],
      { model: 'arbor-test-model-2', temperature: 0.2, maxTokens: 64, topP: 0.8, stop: ['</s>'], seed: 7, tools, think: true },
    );
    const body = server.lastRequest!.body;
    expect(server.lastRequest!.path).toBe('/api/chat');
    expect(body).toMatchObject({ model: 'arbor-test-model-2', think: true, tools, keep_alive: '5m' });
    expect(body.options).toEqual({ temperature: 0.2, num_predict: 64, top_p: 0.8, stop: ['</s>'], seed: 7, num_ctx: 8192 });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Look', images: ['iVBORw0KGgo='] },
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file', arguments: { path: 'a.ts' } } }] },
      { role: 'tool', content: 'export {}', tool_name: 'read_file' },
    ]);
  });

  it('streams NDJSON deltas then a done chunk with usage', async () => {
    server.enqueue({ content: 'alpha beta gamma', usage: { promptTokens: 5, completionTokens: 3 } });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(error).toBeUndefined();
    expect(chunks.filter((c) => !c.done).map((c) => c.delta)).toEqual(['alpha', ' beta', ' gamma']);
    expect(chunks[chunks.length - 1]).toMatchObject({ done: true, finishReason: 'stop', usage: { promptTokens: 5, completionTokens: 3, totalTokens: 8 }, costUsd: 0 });
    expect(server.lastRequest!.body.stream).toBe(true);
  });

  it('passes thinking through in streams and complete answers, and sends it back only when asked', async () => {
    server.enqueue({ thinking: 'Hmm, let me see.', content: 'Yes.' }, { thinking: 'Plain.', content: 'No.' });
    const { chunks } = await collectStream(provider().stream([{ role: 'user', content: 'q' }], { think: true }));
    expect(chunks.map((c) => c.thinkingDelta ?? '').join('')).toBe('Hmm, let me see.');
    expect(chunks.map((c) => c.delta).join('')).toBe('Yes.');
    const res = await provider().complete([{ role: 'user', content: 'q' }]);
    expect(res.thinking).toBe('Plain.');
    server.enqueue({ content: 'ok' });
    await provider({ sendThinking: true }).complete([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', thinking: 'why' }]);
    expect(server.lastRequest!.body.messages[1]).toEqual({ role: 'assistant', content: 'a', thinking: 'why' });
  });

  it('returns tool calls with JSON-text arguments and a tool_calls finish reason', async () => {
    server.enqueue({ toolCalls: [{ name: 'search', arguments: { query: 'x' } }] }, { toolCalls: [{ name: 'open', arguments: { path: 'b' } }] });
    const { chunks } = await collectStream(provider().stream([{ role: 'user', content: 'q' }]));
    const last = chunks[chunks.length - 1];
    expect(last.finishReason).toBe('tool_calls');
    expect(last.toolCalls).toHaveLength(1);
    expect(last.toolCalls![0].function).toEqual({ name: 'search', arguments: '{"query":"x"}' });
    expect(last.toolCalls![0].id).toMatch(/^call_/);
    const res = await provider().complete([{ role: 'user', content: 'q' }]);
    expect(res.toolCalls![0].function).toEqual({ name: 'open', arguments: '{"path":"b"}' });
  });

  it('keeps the ids Ollama gives its calls, in call order, and sends results back by tool name', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_x1', name: 'search', arguments: { query: 'x' } }, { id: 'call_x2', name: 'open', arguments: { path: 'b' } }] });
    const { chunks } = await collectStream(provider().stream([{ role: 'user', content: 'q' }]));
    const calls = chunks.at(-1)!.toolCalls!;
    expect(calls.map((c) => [c.id, c.function.name])).toEqual([['call_x1', 'search'], ['call_x2', 'open']]);
    server.enqueue({ content: 'ok' });
    await provider().complete([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: calls },
      { role: 'tool', content: 'found', toolCallId: 'call_x1' },
      { role: 'tool', content: 'opened', toolCallId: 'call_x2' },
    ]);
    expect(server.lastRequest!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ function: { name: 'search', arguments: { query: 'x' } } }, { function: { name: 'open', arguments: { path: 'b' } } }] },
      { role: 'tool', content: 'found', tool_name: 'search' },
      { role: 'tool', content: 'opened', tool_name: 'open' },
    ]);
  });

  it('says a model takes tools when its /api/show capabilities list them, asking once per model', async () => {
    const shown = new FakeLlmServer({ capabilities: { 'arbor-test-model-2': ['completion', 'vision'] } });
    await shown.start();
    try {
      const llm = new OllamaProvider({ host: shown.url, model: 'arbor-test-model' });
      expect(await llm.supportsTools()).toBe(true);
      expect(await llm.supportsTools('arbor-test-model-2')).toBe(false);
      expect(await llm.supportsTools('arbor-test-model-2:latest')).toBe(false);
      await llm.contextLength('arbor-test-model-2');
      expect(shown.requests.filter((r) => r.path === '/api/show').map((r) => r.body.model)).toEqual(['arbor-test-model', 'arbor-test-model-2']);
      await expect(llm.supportsTools('not-pulled')).rejects.toBeInstanceOf(ProviderError);
    } finally {
      await shown.stop();
    }
  });

  it('lists installed models from /api/tags and embeds through /api/embed', async () => {
    const models = await provider().listModels();
    expect(models.map((m) => m.id)).toEqual(['arbor-test-model', 'arbor-test-model-2']);
    expect(models[0].details).toMatchObject({ family: 'llama', size: 1_000_000 });
    const vectors = await provider().embed(['a', 'b']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(8);
    expect(server.lastRequest!.path).toBe('/api/embed');
    expect(server.lastRequest!.body).toMatchObject({ model: 'arbor-test-model', input: ['a', 'b'] });
  });

  it('lists a model Ollama reports as name and as name:latest once, keeping other tags', async () => {
    const both = new FakeLlmServer({ models: ['mistral', 'mistral:latest', 'qwen:7b'] });
    await both.start();
    try {
      const models = await new OllamaProvider({ host: both.url, model: 'mistral' }).listModels();
      expect(both.lastRequest!.path).toBe('/api/tags');
      expect(models.map((m) => m.id)).toEqual(['mistral', 'qwen:7b']);
    } finally {
      await both.stop();
    }
  });

  it('aborts mid-stream: kind aborted, and the server sees the connection close', async () => {
    server.enqueue({ content: 'a b c d e f g h i j k', tokenDelayMs: 40 });
    const { received, error } = await streamAbortedAfter((signal) => provider().stream([{ role: 'user', content: 'go' }], { signal }), 2);
    expect(error).toMatchObject({ kind: 'aborted', retryable: false });
    expect(received).toEqual(['a', ' b']);
    const req = server.chatRequests()[0];
    await server.waitForClose(req);
    expect(req.closedEarly).toBe(true);
  });

  it('aborts a non-streamed call too (the ollama package alone would not)', async () => {
    server.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = provider().complete([{ role: 'user', content: 'go' }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const err = await providerFailure(pending);
    expect(err.kind).toBe('aborted');
    const req = server.chatRequests()[0];
    await server.waitForClose(req);
    expect(req.closedEarly).toBe(true);
  });

  it('reports a stream cut mid-way as kind stream after the partial deltas', async () => {
    server.enqueue({ content: 'one two three four', cutAfterTokens: 2 });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['one', ' two']);
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
  });

  it('reports a malformed NDJSON line as kind stream instead of skipping it', async () => {
    server.enqueue({ content: 'one two three', malformedAfterTokens: 2 });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['one', ' two']);
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
    expect((error as ProviderError).message).toMatch(/malformed/);
  });

  it('reports a stream that ends without its done line, and an error line mid-stream', async () => {
    server.enqueue({ content: 'one two three', endAfterTokens: 1 }, { content: 'one two', streamErrorAfterTokens: 1, streamErrorMessage: 'out of memory' });
    const cut = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(cut.chunks.map((c) => c.delta)).toEqual(['one']);
    expect(cut.error).toMatchObject({ kind: 'stream' });
    const errored = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(errored.chunks.map((c) => c.delta)).toEqual(['one']);
    expect(errored.error).toMatchObject({ kind: 'server', retryable: true });
    expect((errored.error as ProviderError).message).toContain('out of memory');
  });

  it('maps 404 to the ollama pull hint', async () => {
    const err = await providerFailure(provider({ model: 'llama9' }).complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'model_not_found', status: 404, retryable: false });
    expect(err.message).toBe(`Model 'llama9' is not installed in Ollama at ${server.url}. Run \`ollama pull llama9\`.`);
    const { error } = await collectStream(provider({ model: 'llama9' }).stream([{ role: 'user', content: 'hi' }]));
    expect(error).toMatchObject({ kind: 'model_not_found' });
  });

  it('maps 401, 429 with Retry-After and 500', async () => {
    server.enqueueError(401);
    expect(await providerFailure(provider().complete([{ role: 'user', content: 'hi' }]))).toMatchObject({ kind: 'auth', status: 401 });
    server.enqueueError(429, { retryAfter: 3 });
    const { error } = await collectStream(provider().stream([{ role: 'user', content: 'hi' }]));
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterSeconds: 3 });
    server.enqueueError(500, { errorMessage: 'llama runner process has terminated' });
    const err = await providerFailure(provider().complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'server', retryable: true, status: 500 });
    expect(err.message).toContain('llama runner process has terminated');
  });

  it('maps connection refused to the "is Ollama running" message', async () => {
    const port = await freePort();
    const p = new OllamaProvider({ host: `127.0.0.1:${port}`, model: 'm' });
    const err = await providerFailure(p.complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
    expect(err.message).toBe(`Cannot reach Ollama at http://127.0.0.1:${port} (connection refused). Is Ollama running? Start it with \`ollama serve\` or change arbor.ollama.host.`);
    const { error } = await collectStream(p.stream([{ role: 'user', content: 'hi' }]));
    expect(error).toMatchObject({ kind: 'connection' });
    expect(await providerFailure(p.listModels())).toMatchObject({ kind: 'connection' });
  });

  it('times out when Ollama never answers and when a stream goes silent', async () => {
    server.enqueue({ hang: true }, { content: 'a b c', hangAfterTokens: 1 });
    expect(await providerFailure(provider({ timeoutMs: 800 }).complete([{ role: 'user', content: 'hi' }]))).toMatchObject({ kind: 'timeout', retryable: true });
    const { chunks, error } = await collectStream(provider({ timeoutMs: 800 }).stream([{ role: 'user', content: 'hi' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['a']);
    expect(error).toMatchObject({ kind: 'timeout' });
  });
});
