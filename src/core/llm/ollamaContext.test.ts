import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { collectStream, freePort, providerFailure } from '../../../test/fixtures/providerTestTools';
import { OLLAMA_DEFAULT_NUM_CTX } from './contextLength';
import { OllamaProvider, type OllamaProviderOptions } from './ollama';

// One server whose models say different things in /api/show: a Modelfile num_ctx, none, and one above the trained length.
const server = new FakeLlmServer({
  models: ['with-param', 'plain', 'greedy', 'qwen-model'],
  modelContext: {
    'with-param': { contextLength: 131_072, numCtx: 16_384 },
    plain: { contextLength: 32_768 },
    greedy: { contextLength: 2_048, numCtx: 8_192 },
    'qwen-model': { contextLength: 40_960, architecture: 'qwen3' },
  },
});
beforeAll(() => server.start());
afterAll(() => server.stop());

function provider(model: string, extra: Partial<OllamaProviderOptions> = {}): OllamaProvider {
  return new OllamaProvider({ host: server.url, model, ...extra });
}

function sentNumCtx(): unknown {
  const chat = server.chatRequests().at(-1);
  return chat?.body.options?.num_ctx;
}

describe('Ollama num_ctx and context length', () => {
  it('sends the model\'s own num_ctx on streamed and non-streamed chats, and reports it as the context length', async () => {
    server.reset();
    const p = provider('with-param');
    server.enqueue({ content: 'a' }, { content: 'b' });
    await p.complete([{ role: 'user', content: 'hi' }]);
    expect(sentNumCtx()).toBe(16_384);
    const { error } = await collectStream(p.stream([{ role: 'user', content: 'hi' }]));
    expect(error).toBeUndefined();
    expect(server.chatRequests().at(-1)!.body.stream).toBe(true);
    expect(sentNumCtx()).toBe(16_384);
    expect(await p.contextLength()).toEqual({ tokens: 16_384, source: 'model', trainedTokens: 131_072 });
    // /api/show was asked once for all three: the answer is cached per model.
    expect(server.requests.filter((r) => r.path === '/api/show')).toHaveLength(1);
    expect(server.requests.find((r) => r.path === '/api/show')!.body).toMatchObject({ model: 'with-param' });
  });

  it('falls back to Ollama\'s default when the model sets no num_ctx, and reads any <arch>.context_length', async () => {
    server.reset();
    server.enqueue({ content: 'a' });
    await provider('plain').complete([{ role: 'user', content: 'hi' }]);
    expect(sentNumCtx()).toBe(OLLAMA_DEFAULT_NUM_CTX);
    expect(await provider('qwen-model').contextLength()).toEqual({ tokens: OLLAMA_DEFAULT_NUM_CTX, source: 'default', trainedTokens: 40_960 });
  });

  it('uses arbor.ollama.numCtx, and a per-model arbor.contextLength over it, capped at the trained length', async () => {
    server.reset();
    server.enqueue({ content: 'a' }, { content: 'b' }, { content: 'c' });
    await provider('plain', { numCtx: 24_000 }).complete([{ role: 'user', content: 'hi' }]);
    expect(sentNumCtx()).toBe(24_000);
    await provider('plain', { numCtx: 24_000, contextLengths: { 'plain:latest': 12_000 } }).complete([{ role: 'user', content: 'hi' }]);
    expect(sentNumCtx()).toBe(12_000);
    const greedy = provider('greedy', { numCtx: 100_000 });
    await collectStream(greedy.stream([{ role: 'user', content: 'hi' }]));
    expect(sentNumCtx()).toBe(2_048);
    expect(await greedy.contextLength()).toEqual({ tokens: 2_048, source: 'setting', trainedTokens: 2_048, capped: true });
    // numCtx 0 is "automatic": the model's own parameter, capped too.
    expect(await provider('greedy', { numCtx: 0 }).contextLength()).toEqual({ tokens: 2_048, source: 'model', trainedTokens: 2_048, capped: true });
  });

  it('still sends num_ctx when /api/show fails, and asks again on the next call instead of caching the failure', async () => {
    server.reset();
    const p = provider('plain', { numCtx: 6_000 });
    server.enqueue({ endpoint: 'show', status: 500, errorMessage: 'busy' }, { content: 'a' }, { content: 'b' });
    await p.complete([{ role: 'user', content: 'hi' }]);
    expect(sentNumCtx()).toBe(6_000);
    expect(await p.contextLength()).toEqual({ tokens: 6_000, source: 'setting', trainedTokens: 32_768 });
    expect(server.requests.filter((r) => r.path === '/api/show')).toHaveLength(2);
    server.enqueue({ endpoint: 'show', status: 500 });
    expect(await provider('plain').contextLength()).toEqual({ tokens: OLLAMA_DEFAULT_NUM_CTX, source: 'default' });
  });

  it('keeps the chat\'s own error when the model is missing (the failed /api/show does not colour it)', async () => {
    server.reset();
    const err = await providerFailure(provider('not-pulled').complete([{ role: 'user', content: 'hi' }]));
    expect(err).toMatchObject({ kind: 'model_not_found', status: 404 });
    expect(sentNumCtx()).toBe(OLLAMA_DEFAULT_NUM_CTX);
  });

  it('reports a connection failure of the chat, not of /api/show, when Ollama is down', async () => {
    const port = await freePort();
    const p = new OllamaProvider({ host: `127.0.0.1:${port}`, model: 'm', numCtx: 9_000 });
    expect(await p.contextLength()).toEqual({ tokens: 9_000, source: 'setting' });
    expect(await providerFailure(p.complete([{ role: 'user', content: 'hi' }]))).toMatchObject({ kind: 'connection' });
  });

  it('answers contextLength without /api/show when it does not answer in time, and rejects only on the caller\'s abort', async () => {
    server.reset();
    server.enqueue({ endpoint: 'show', hang: true }, { endpoint: 'show', hang: true });
    expect(await provider('plain', { numCtx: 7_000, timeoutMs: 300 }).contextLength()).toEqual({ tokens: 7_000, source: 'setting' });
    const controller = new AbortController();
    const pending = provider('plain').contextLength('plain', controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await providerFailure(pending)).toMatchObject({ kind: 'aborted' });
  });

  it('fails as aborted when the call is aborted while /api/show is pending', async () => {
    server.reset();
    server.enqueue({ endpoint: 'show', hang: true });
    const controller = new AbortController();
    const pending = provider('plain').complete([{ role: 'user', content: 'hi' }], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await providerFailure(pending)).toMatchObject({ kind: 'aborted' });
    expect(server.chatRequests()).toHaveLength(0);
  });
});
