import { describe, expect, it } from 'vitest';
import { CallGuard } from './callGuard';
import { validatedNdjson } from './ollamaFetch';
import { configuredSecrets, connectionError, MalformedStreamDataError, parseRetryAfter, redactSecrets, type ErrorContext } from './providerErrors';

function streamOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const p of pieces) controller.enqueue(encoder.encode(p));
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ text: string; error?: unknown }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

describe('provider error helpers', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter('1.2')).toBe(2);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('masks configured secrets and anything shaped like an sk- key', () => {
    expect(redactSecrets('key my-private-token-1 was wrong', ['my-private-token-1'])).toBe('key [redacted] was wrong');
    expect(redactSecrets('Incorrect API key provided: sk-proj-abc123XYZ789.')).toBe('Incorrect API key provided: sk-[redacted].');
    expect(redactSecrets('nothing here')).toBe('nothing here');
  });

  it('treats every configured header value as a secret, the token of a "Scheme token" value too, even JSON-escaped', () => {
    const secrets = configuredSecrets('key-1234', { Authorization: 'Bearer tok-5678', 'X-Team': 'a"b\\c-team' });
    expect(secrets).toEqual(['key-1234', 'Bearer tok-5678', 'tok-5678', 'a"b\\c-team']);
    expect(redactSecrets('auth tok-5678 and {"x-team":"a\\"b\\\\c-team"}', secrets)).toBe('auth [redacted] and {"x-team":"[redacted]"}');
  });
});

describe('connectionError', () => {
  const ctx: ErrorContext = {
    provider: 'openai', where: 'the server at https://llm.example/v1', endpoint: 'https://llm.example/v1', connectionHint: 'Is the server running?',
    addressSetting: 'arbor.openai.baseUrl', authHint: '', model: 'm', phase: 'request',
  };
  // What undici throws: a bare "fetch failed" with the reason in `cause`.
  const fetchFailed = (cause: Error) => new TypeError('fetch failed', { cause });

  it('names a certificate problem and its fix, without calling it retryable', () => {
    const err = connectionError(ctx, fetchFailed(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })));
    expect(err).toMatchObject({ kind: 'connection', retryable: false });
    expect(err.message).toContain('TLS certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)');
    expect(err.message).toContain('Check arbor.openai.baseUrl');
  });

  it('says what fetch said when its reason carries no code', () => {
    const err = connectionError(ctx, fetchFailed(new Error('other side closed')));
    expect(err.message).toBe('Cannot reach the server at https://llm.example/v1 (other side closed). Is the server running?');
  });
});

describe('validatedNdjson', () => {
  it('re-joins lines split across network chunks', async () => {
    const { text, error } = await readAll(validatedNdjson(streamOf(['{"a":', '1}\n{"b"', ':2}\n', '{"c":3}']), () => undefined));
    expect(error).toBeUndefined();
    expect(text).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
  });

  it('delivers the good lines before a malformed one, then fails', async () => {
    const { text, error } = await readAll(validatedNdjson(streamOf(['{"a":1}\n{"b":2}\nnot json\n{"c":3}\n']), () => undefined));
    expect(text).toBe('{"a":1}\n{"b":2}\n');
    expect(error).toBeInstanceOf(MalformedStreamDataError);
    expect((error as MalformedStreamDataError).sample).toBe('not json');
  });

  it('fails on an error object in the stream with the server\'s message', async () => {
    const { text, error } = await readAll(validatedNdjson(streamOf(['{"a":1}\n{"error":"model crashed"}\n']), () => undefined));
    expect(text).toBe('{"a":1}\n');
    expect((error as Error).message).toBe('model crashed');
  });
});

describe('CallGuard', () => {
  it('tells a caller abort from an idle timeout, and restarts the timer on touch', async () => {
    const caller = new AbortController();
    const cancelled = new CallGuard(caller.signal, 10_000);
    caller.abort();
    expect(cancelled.signal.aborted).toBe(true);
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.timedOut).toBe(false);
    cancelled.dispose();

    const idle = new CallGuard(undefined, 50);
    await new Promise((r) => setTimeout(r, 120));
    expect(idle.timedOut).toBe(true);
    expect(idle.signal.aborted).toBe(true);
    idle.dispose();

    const alreadyAborted = new CallGuard(AbortSignal.abort(), 10_000);
    expect(alreadyAborted.cancelled).toBe(true);
    alreadyAborted.dispose();
  });
});
