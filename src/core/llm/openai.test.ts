import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { collectStream, freePort, providerFailure, streamAbortedAfter } from '../../../test/fixtures/providerTestTools';
import { ProviderError } from '../errors';
import { OpenAIProvider, type OpenAIProviderOptions } from './openai';
import { openaiConnectionHint } from './openaiErrors';

const server = new FakeLlmServer({ apiKey: 'sk-test-secret-key-123456' });
beforeAll(() => server.start());
afterAll(() => server.stop());
afterEach(() => server.reset());

function provider(extra: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'sk-test-secret-key-123456', model: 'gpt-4o', maxRetries: 0, ...extra });
}

describe('OpenAIProvider', () => {
  it('completes, reports usage and prices the call from the table', async () => {
    server.enqueue({ content: 'Hello there', usage: { promptTokens: 1000, completionTokens: 500 }, model: 'gpt-4o-2024-08-06' });
    const res = await provider().complete([{ role: 'user', content: 'hi' }]);
    expect(res.content).toBe('Hello there');
    expect(res.model).toBe('gpt-4o-2024-08-06');
    expect(res.finishReason).toBe('stop');
    expect(res.usage).toEqual({ promptTokens: 1000, completionTokens: 500, totalTokens: 1500 });
    // gpt-4o: $2.50 in, $10 out per million.
    expect(res.costUsd).toBeCloseTo(0.0025 + 0.005, 10);
    expect(res.metadata.provider).toBe('openai');
  });

  it('sends the model, sampling settings, auth header, tools and tool messages in the OpenAI shape', async () => {
    server.enqueue({ content: 'ok' });
    const tools = [{ type: 'function' as const, function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];
    await provider().complete(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }], thinking: 'secret thoughts' },
        { role: 'tool', content: 'export {}', toolCallId: 'call_9' },
      ],
      { model: 'gpt-4o-mini', temperature: 0.3, maxTokens: 77, topP: 0.9, stop: ['END'], seed: 42, tools },
    );
    const req = server.lastRequest!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test-secret-key-123456');
    expect(req.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.3, max_tokens: 77, top_p: 0.9, stop: ['END'], seed: 42, tools });
    expect(req.body.stream).toBe(false);
    expect(req.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Read a.ts' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
      { role: 'tool', tool_call_id: 'call_9', content: 'export {}' },
    ]);
  });

  it('uses max_completion_tokens for o-series models, sends images as data URLs and reasoning effort', async () => {
    server.enqueue({ content: 'ok' });
    await provider().complete([{ role: 'user', content: 'What is this?', images: ['iVBORw0KGgo='] }], { model: 'o4-mini', maxTokens: 10, think: 'high' });
    const body = server.lastRequest!.body;
    expect(body.max_completion_tokens).toBe(10);
    expect(body.max_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBe('high');
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
  });

  it('sends thinking back as reasoning_content only when asked', async () => {
    server.enqueue({ content: 'ok' });
    await provider({ sendThinking: true }).complete([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a', thinking: 'because' }, { role: 'user', content: 'q2' }]);
    expect(server.lastRequest!.body.messages[1]).toEqual({ role: 'assistant', content: 'a', reasoning_content: 'because' });
  });

  it('streams deltas with usage requested, then a done chunk with usage and cost', async () => {
    server.enqueue({ content: 'one two three four', usage: { promptTokens: 10, completionTokens: 4 } });
    const { chunks, error } = await collectStream(provider({ model: 'gpt-4o-mini' }).stream([{ role: 'user', content: 'count' }]));
    expect(error).toBeUndefined();
    expect(server.lastRequest!.body.stream).toBe(true);
    expect(server.lastRequest!.body.stream_options).toEqual({ include_usage: true });
    expect(chunks.filter((c) => !c.done).map((c) => c.delta)).toEqual(['one', ' two', ' three', ' four']);
    const last = chunks[chunks.length - 1];
    expect(last).toMatchObject({ done: true, finishReason: 'stop', usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 }, model: 'gpt-4o-mini' });
    expect(last.costUsd).toBeCloseTo((10 * 0.15 + 4 * 0.6) / 1e6, 12);
  });

  it('assembles tool calls streamed in pieces', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_a', name: 'search', arguments: { query: 'tree nodes', limit: 5 }, pieces: 4 }, { id: 'call_b', name: 'open', arguments: '{"path":"x"}' }] });
    const { chunks } = await collectStream(provider().stream([{ role: 'user', content: 'find' }], { tools: [{ type: 'function', function: { name: 'search' } }] }));
    const last = chunks[chunks.length - 1];
    expect(last.finishReason).toBe('tool_calls');
    expect(last.toolCalls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"query":"tree nodes","limit":5}' } },
      { id: 'call_b', type: 'function', function: { name: 'open', arguments: '{"path":"x"}' } },
    ]);
    expect(chunks.filter((c) => c.toolCalls).length).toBe(1);
  });

  it('returns tool calls of a non-streamed answer', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_z', name: 'run', arguments: { cmd: 'ls' } }] });
    const res = await provider().complete([{ role: 'user', content: 'list' }]);
    expect(res.finishReason).toBe('tool_calls');
    expect(res.toolCalls).toEqual([{ id: 'call_z', type: 'function', function: { name: 'run', arguments: '{"cmd":"ls"}' } }]);
  });

  it('passes reasoning_content and reasoning through as thinking', async () => {
    server.enqueue({ thinking: 'Let me think.', content: 'Answer.' }, { thinking: 'Other field.', content: 'Done.', reasoningField: 'reasoning' });
    const { chunks } = await collectStream(provider().stream([{ role: 'user', content: 'q' }]));
    expect(chunks.map((c) => c.thinkingDelta ?? '').join('')).toBe('Let me think.');
    expect(chunks.map((c) => c.delta).join('')).toBe('Answer.');
    const res = await provider().complete([{ role: 'user', content: 'q' }]);
    expect(res.thinking).toBe('Other field.');
    expect(res.content).toBe('Done.');
  });

  it('lists the models of /v1/models and embeds texts in order', async () => {
    const models = await provider().listModels();
    expect(models.map((m) => m.id)).toEqual(['arbor-test-model', 'arbor-test-model-2']);
    const vectors = await provider({ embeddingModel: 'arbor-test-model' }).embed(['alpha', 'beta', 'alpha']);
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(8);
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    expect(server.lastRequest!.body).toMatchObject({ model: 'arbor-test-model', input: ['alpha', 'beta', 'alpha'], encoding_format: 'float' });
  });

  it('aborts mid-stream: the iterator throws kind aborted and the server sees the connection close', async () => {
    server.enqueue({ content: 'a b c d e f g h i j k l m n o p', tokenDelayMs: 40 });
    const { received, error } = await streamAbortedAfter((signal) => provider().stream([{ role: 'user', content: 'go' }], { signal }), 2);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('aborted');
    expect((error as ProviderError).retryable).toBe(false);
    expect(received).toEqual(['a', ' b']);
    const req = server.chatRequests()[0];
    await server.waitForClose(req);
    expect(req.closedEarly).toBe(true);
  });

  it('closes the connection when the consumer stops reading early', async () => {
    server.enqueue({ content: 'a b c d e f g h', tokenDelayMs: 30 });
    for await (const c of provider().stream([{ role: 'user', content: 'go' }])) {
      if (c.delta) break;
    }
    const req = server.chatRequests()[0];
    await server.waitForClose(req);
    expect(req.closedEarly).toBe(true);
  });

  it('reports a stream cut mid-way as kind stream after yielding the partial deltas', async () => {
    server.enqueue({ content: 'first second third fourth', cutAfterTokens: 2 });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['first', ' second']);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('stream');
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toContain(server.openaiBaseUrl);
  });

  it('reports a malformed SSE line as kind stream after yielding the partial deltas', async () => {
    server.enqueue({ content: 'first second third', malformedAfterTokens: 1 });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['first']);
    expect((error as ProviderError).kind).toBe('stream');
    expect((error as ProviderError).message).toMatch(/malformed/);
  });

  it('reports an error object sent mid-stream as a retryable server error', async () => {
    server.enqueue({ content: 'first second', streamErrorAfterTokens: 1, streamErrorMessage: 'model crashed' });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'go' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['first']);
    expect((error as ProviderError).kind).toBe('server');
    expect((error as ProviderError).message).toContain('model crashed');
  });

  it('maps 401 to kind auth with the fix, and never shows the key', async () => {
    const err = await providerFailure(provider({ apiKey: 'sk-wrong-key-abcdef123456' }).complete([{ role: 'user', content: 'hi' }]));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(`The server at ${server.openaiBaseUrl} rejected the API key`);
    expect(err.message).toContain("Set a valid key with 'Arbor: Set OpenAI API Key'.");
    expect(err.message).not.toContain('sk-wrong-key-abcdef123456');
    expect(err.message).not.toContain('abcdef123456');
    expect(String((err.cause as Error).message)).toContain('Incorrect API key provided');
    expect(JSON.stringify(err.cause)).not.toContain('abcdef123456');
    expect(String((err.cause as Error).message)).not.toContain('abcdef123456');
    const noKey = await providerFailure(new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 }).listModels());
    expect(noKey.kind).toBe('auth');
    expect(noKey.message).toContain('requires credentials and none are set');
  });

  it('maps 404 model not found to kind model_not_found naming the model', async () => {
    server.enqueueError(404);
    const err = await providerFailure(provider({ model: 'gpt-nope' }).complete([{ role: 'user', content: 'hi' }]));
    expect(err.kind).toBe('model_not_found');
    expect(err.message).toContain("Model 'gpt-nope' was not found");
  });

  it('maps a 404 without a model error (wrong base URL) to an address hint', async () => {
    const err = await providerFailure(provider({ baseURL: server.url }).complete([{ role: 'user', content: 'hi' }]));
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/\/v1/);
  });

  it('maps 429 to rate_limit with retryAfterSeconds, and 500 to a retryable server error', async () => {
    server.enqueueError(429, { retryAfter: 7 });
    const rate = await providerFailure(provider().complete([{ role: 'user', content: 'hi' }]));
    expect(rate).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterSeconds: 7 });
    expect(rate.message).toContain('Try again in 7 s');
    server.enqueueError(500);
    const { error } = await collectStream(provider().stream([{ role: 'user', content: 'hi' }]));
    expect(error).toMatchObject({ kind: 'server', retryable: true, status: 500 });
  });

  it('says so when a 200 answer is not a chat completion (a web page at the base URL)', async () => {
    server.enqueue({ status: 200, errorBody: '<html>Welcome</html>' });
    const err = await providerFailure(provider().complete([{ role: 'user', content: 'hi' }]));
    expect(err.message).toMatch(/not a chat completion/);
  });

  it('treats an exhausted quota as a rate limit that retrying does not fix', async () => {
    server.enqueueError(429, { errorBody: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } });
    const err = await providerFailure(provider().complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'rate_limit', retryable: false });
  });

  it("does not advise starting a server at OpenAI's own API", () => {
    expect(openaiConnectionHint('https://api.openai.com/v1')).not.toMatch(/start/i);
    expect(openaiConnectionHint('https://api.openai.com/v1')).toContain('proxy');
    expect(openaiConnectionHint('http://127.0.0.1:8000/v1')).toContain('Start it');
  });

  it('maps connection refused to kind connection naming the base URL and the setting', async () => {
    const port = await freePort();
    const p = new OpenAIProvider({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-x', model: 'm', maxRetries: 0 });
    const err = await providerFailure(p.complete([{ role: 'user', content: 'hi' }]));
    expect(err.kind).toBe('connection');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain(`Cannot reach the server at http://127.0.0.1:${port}/v1 (connection refused)`);
    expect(err.message).toContain('arbor.openai.baseUrl');
    expect(err.message).toContain('Is the server running?');
    const listErr = await providerFailure(p.listModels());
    expect(listErr.kind).toBe('connection');
  });

  it('times out when the server never answers, and when a stream goes silent', async () => {
    server.enqueue({ hang: true });
    const err = await providerFailure(provider({ timeoutMs: 800 }).complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
    server.enqueue({ content: 'a b c d', hangAfterTokens: 2 });
    const { chunks, error } = await collectStream(provider({ timeoutMs: 800 }).stream([{ role: 'user', content: 'hi' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['a', ' b']);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('keeps a stream alive past the idle timeout while chunks keep arriving (each chunk restarts the timer)', async () => {
    server.enqueue({ content: 'a b c d e f g h', tokenDelayMs: 150 });
    const { chunks, error } = await collectStream(provider({ timeoutMs: 500 }).stream([{ role: 'user', content: 'hi' }]));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.delta).join('')).toBe('a b c d e f g h');
    expect(chunks.at(-1)).toMatchObject({ done: true, finishReason: 'stop' });
  });

  it('fails a stream that ends without a finish reason instead of returning a truncated answer', async () => {
    server.enqueue({ tokens: ['partial', ' answer'], endAfterTokens: 1 });
    const { chunks, error } = await collectStream(provider().stream([{ role: 'user', content: 'hi' }]));
    expect(chunks.map((c) => c.delta)).toEqual(['partial']);
    expect((error as ProviderError).kind).toBe('stream');
    expect((error as ProviderError).message).toMatch(/without saying the answer was complete/);
  });
});
