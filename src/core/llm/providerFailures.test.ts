import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { collectStream, providerFailure } from '../../../test/fixtures/providerTestTools';
import { OllamaProvider } from './ollama';
import { OpenAIProvider } from './openai';
import type { LLMProvider } from './provider';

/** Failures both providers must word the same way: odd error bodies, refused URLs, echoed secrets. */
const server = new FakeLlmServer();
// Answers every request with a redirect to the same URL, as a misconfigured proxy does.
const loop: Server = createServer((req, res) => {
  res.writeHead(307, { location: req.url ?? '/' });
  res.end();
});
let loopUrl = '';
beforeAll(async () => {
  await server.start();
  await new Promise<void>((resolve) => loop.listen(0, '127.0.0.1', resolve));
  loopUrl = `http://127.0.0.1:${(loop.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.stop();
  loop.closeAllConnections();
  await new Promise((resolve) => loop.close(resolve));
});
afterEach(() => server.reset());

const ask = [{ role: 'user' as const, content: 'hi' }];

describe('Ollama error bodies whose "error" is an object', () => {
  const ollama = () => new OllamaProvider({ host: server.url, model: 'arbor-test-model' });

  it('a 429 says the server message and the Retry-After wait', async () => {
    server.enqueueError(429, { errorBody: { error: { message: 'too many requests for arbor-test-model' } }, retryAfter: 7 });
    const err = await providerFailure(ollama().complete(ask));
    expect(err).toMatchObject({ kind: 'rate_limit', status: 429, retryable: true, retryAfterSeconds: 7 });
    expect(err.message).toContain('too many requests for arbor-test-model');
    expect(err.message).toContain('Try again in 7 s.');
  });

  it('a 500 on a stream says the server message', async () => {
    server.enqueueError(500, { errorBody: { error: { message: 'llama runner crashed', type: 'server_error' } } });
    const { chunks, error } = await collectStream(ollama().stream(ask));
    expect(chunks).toEqual([]);
    expect(error).toMatchObject({ kind: 'server', status: 500, retryable: true });
    expect((error as Error).message).toContain('llama runner crashed');
  });

  it('an object without a message is quoted as JSON rather than "[object Object]"', async () => {
    server.enqueueError(503, { errorBody: { error: { code: 'overloaded' } } });
    const err = await providerFailure(ollama().complete(ask));
    expect(err).toMatchObject({ kind: 'server', status: 503 });
    expect(err.message).toContain('{"code":"overloaded"}');
    expect(err.message).not.toContain('[object Object]');
  });
});

// Port 6000 (X11) is on the fetch standard's list of bad ports: fetch refuses it before connecting.
const providers: Array<[string, (root: string) => LLMProvider, string]> = [
  ['openai', (root) => new OpenAIProvider({ baseURL: `${root}/v1`, model: 'gpt-4o', maxRetries: 0 }), 'arbor.openai.baseUrl'],
  ['ollama', (root) => new OllamaProvider({ host: root, model: 'arbor-test-model' }), 'arbor.ollama.host'],
];

describe.each(providers)('%s: URLs that fetch itself refuses', (_name, make, setting) => {
  it('a bad port names the port and says to use another one', async () => {
    const err = await providerFailure(make('http://127.0.0.1:6000').complete(ask));
    expect(err).toMatchObject({ kind: 'connection', retryable: false });
    expect(err.message).toMatch(/port 6000/);
    expect(err.message).toMatch(/bad port/);
    expect(err.message).toContain(`another port and change ${setting}`);
    expect(err.message).not.toMatch(/fetch failed|connection error/i);
    const { error } = await collectStream(make('http://127.0.0.1:6000').stream(ask));
    expect((error as Error).message).toBe(err.message);
  });

  it('a redirect loop says so and asks to check the URL', async () => {
    const err = await providerFailure(make(loopUrl).complete(ask));
    expect(err).toMatchObject({ kind: 'connection', retryable: false });
    expect(err.message).toMatch(/redirect/);
    expect(err.message).toContain(`Check ${setting}`);
    expect(err.message).not.toMatch(/fetch failed|connection error/i);
    expect(await providerFailure(make(loopUrl).listModels())).toMatchObject({ message: err.message });
  });
});

// Tokens a user put in `headers` (an authenticating proxy's) and the API key, echoed back by the server.
const proxyToken = 'zq9XproxyTokenValue4471';
const bearer = 'Bearer zq8WbearerTokenValue9902';
const apiKey = 'zq7VapiKeyValue3318';
const echoed = ['x-proxy-token', 'authorization'];
const secretsOf = [proxyToken, bearer.split(' ')[1], apiKey];

const withHeaders: Array<[string, () => LLMProvider]> = [
  ['openai', () => new OpenAIProvider({ baseURL: server.openaiBaseUrl, model: 'arbor-test-model', maxRetries: 0, apiKey, headers: { 'X-Proxy-Token': proxyToken } })],
  ['ollama', () => new OllamaProvider({ host: server.url, model: 'arbor-test-model', headers: { 'X-Proxy-Token': proxyToken, Authorization: bearer } })],
];

function expectMasked(message: string): void {
  expect(message).toContain('[redacted]');
  // Not even a prefix: a quote cut short must not leave part of a token behind.
  for (const secret of secretsOf) expect(message).not.toContain(secret.slice(0, 4));
}

describe.each(withHeaders)('%s: configured header values never reach an error message', (_name, make) => {
  it('a 500 whose body quotes the request headers', async () => {
    server.enqueueError(500, { echoHeaders: echoed });
    const err = await providerFailure(make().complete(ask));
    expect(err).toMatchObject({ kind: 'server', status: 500 });
    expect(err.message).toContain('request headers: x-proxy-token: [redacted]');
    expectMasked(err.message);
    expectMasked(String((err.cause as Error | undefined)?.message ?? ''));
  });

  it('an error in the middle of a stream that quotes them', async () => {
    server.enqueue({ content: 'one two three', streamErrorAfterTokens: 1, echoHeaders: echoed });
    const { chunks, error } = await collectStream(make().stream(ask));
    expect(chunks.map((c) => c.delta)).toEqual(['one']);
    expect(error).toMatchObject({ kind: 'server' });
    expectMasked((error as Error).message);
  });
});
