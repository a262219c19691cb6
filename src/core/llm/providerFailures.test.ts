import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { collectStream, providerFailure } from '../../../test/fixtures/providerTestTools';
import { OllamaProvider } from './ollama';

/** Failures both providers must word the same way: odd error bodies, refused URLs, echoed secrets. */
const server = new FakeLlmServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
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
