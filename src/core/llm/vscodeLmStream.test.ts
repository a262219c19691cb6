import { describe, expect, it } from 'vitest';
import { ProviderError } from '../errors';
import type { LLMStreamChunk } from '../types';
import { lmProviderError, readLmStream } from './vscodeLmStream';

// Shapes of VS Code's response parts and of its LanguageModelError (name and code as VS Code sets them).
class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(readonly callId: string, readonly name: string, readonly input: object) {}
}
class DataPart {
  constructor(readonly mimeType: string, readonly data: Uint8Array) {}
}
class LanguageModelError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'LanguageModelError';
  }
}

/** A recorded response stream: its parts, then optionally a failure. */
async function* recorded(parts: unknown[], fail?: unknown): AsyncGenerator<unknown> {
  for (const p of parts) {
    await Promise.resolve();
    yield p;
  }
  if (fail) throw fail;
}

async function collect(stream: AsyncIterable<LLMStreamChunk>): Promise<{ chunks: LLMStreamChunk[]; error?: unknown }> {
  const chunks: LLMStreamChunk[] = [];
  try {
    for await (const c of stream) chunks.push(c);
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

const ctx = { model: 'vscode:copilot/gpt-4o', label: 'GPT-4o' };

describe('readLmStream', () => {
  it('yields the text parts as they come and ends with stop', async () => {
    const { chunks, error } = await collect(readLmStream(recorded([new TextPart('Leaves '), new TextPart(''), new DataPart('image/png', new Uint8Array()), new TextPart('fall.')]), ctx));
    expect(error).toBeUndefined();
    expect(chunks.map((c) => c.delta).join('')).toBe('Leaves fall.');
    expect(chunks.at(-1)).toMatchObject({ done: true, finishReason: 'stop', model: ctx.model });
    expect(chunks.at(-1)?.toolCalls).toBeUndefined();
  });

  it('collects tool call parts into the last chunk with finish reason tool_calls', async () => {
    const { chunks } = await collect(readLmStream(recorded([new TextPart('Counting.'), new ToolCallPart('call-1', 'leaf_counter', { tree: 'oak' }), new ToolCallPart('call-2', 'read_file', { path: 'a.ts' })]), ctx));
    const last = chunks.at(-1);
    expect(last?.finishReason).toBe('tool_calls');
    expect(last?.toolCalls).toEqual([
      { id: 'call-1', type: 'function', function: { name: 'leaf_counter', arguments: '{"tree":"oak"}' } },
      { id: 'call-2', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
    ]);
  });

  it('ends with an aborted error when the signal aborts mid-stream, after the text so far', async () => {
    const controller = new AbortController();
    async function* parts(): AsyncGenerator<unknown> {
      yield new TextPart('One ');
      controller.abort();
      yield new TextPart('two');
    }
    const { chunks, error } = await collect(readLmStream(parts(), { ...ctx, signal: controller.signal }));
    expect(chunks.map((c) => c.delta)).toEqual(['One ']);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('aborted');
  });

  it('turns an error mid-stream into a ProviderError after the text that arrived', async () => {
    const { chunks, error } = await collect(readLmStream(recorded([new TextPart('Half')], new Error('socket hang up')), ctx));
    expect(chunks.map((c) => c.delta)).toEqual(['Half']);
    expect(error).toMatchObject({ kind: 'unknown', retryable: true, provider: 'vscode' });
    expect((error as Error).message).toContain('socket hang up');
    expect((error as Error).message).toContain("'GPT-4o' (vscode:copilot/gpt-4o)");
  });

  it('maps a LanguageModelError thrown by the stream by its code', async () => {
    const { error } = await collect(readLmStream(recorded([], new LanguageModelError('Model gone', 'NotFound')), ctx));
    expect(error).toMatchObject({ kind: 'model_not_found', provider: 'vscode' });
  });
});

describe('lmProviderError', () => {
  it('NoPermissions asks the user to allow Arbor, and may be retried', () => {
    const e = lmProviderError(new LanguageModelError("Language model 'x' cannot be used by 'arbor'.", 'NoPermissions'), ctx);
    expect(e).toMatchObject({ kind: 'auth', retryable: true, provider: 'vscode' });
    expect(e.message).toMatch(/Allow/);
    expect(e.message).toContain('cannot be used by');
  });

  it('Blocked says the model extension refuses, and is not retried as is', () => {
    const e = lmProviderError(new LanguageModelError('Blocked by policy', 'Blocked'), ctx);
    expect(e).toMatchObject({ kind: 'auth', retryable: false });
    expect(e.message).toContain('blocked');
  });

  it('NotFound says to pick another model', () => {
    const e = lmProviderError(new LanguageModelError("Language model 'x' is unknown.", 'NotFound'), ctx);
    expect(e.kind).toBe('model_not_found');
    expect(e.message).toContain('Pick another model');
  });

  it('quota and rate-limit messages become rate_limit, whatever the code', () => {
    expect(lmProviderError(new LanguageModelError("You've exceeded your premium request quota", 'Blocked'), ctx).kind).toBe('rate_limit');
    expect(lmProviderError(new Error('Sorry, you have been rate-limited. Please wait.'), ctx).kind).toBe('rate_limit');
    expect(lmProviderError(new Error('Server error: 429 Too Many Requests'), ctx).message).toMatch(/quota or rate limit/);
  });

  it('a too-long request is a context-length error, so Arbor compacts and retries', () => {
    expect(lmProviderError(new Error('Message exceeds token limit'), ctx).kind).toBe('context_length');
  });

  it('a cancellation error is an abort, and a ProviderError passes through', () => {
    const cancel = new Error('Canceled');
    cancel.name = 'Canceled';
    expect(lmProviderError(cancel, ctx).kind).toBe('aborted');
    const p = new ProviderError('x', { kind: 'timeout', retryable: true, provider: 'vscode' });
    expect(lmProviderError(p, ctx)).toBe(p);
  });
});

describe('readLmStream caps', () => {
  it('cuts an answer at maxAnswerChars, keeps the text up to the cap and cancels the request', async () => {
    let cancelled = 0;
    const { chunks, error } = await collect(readLmStream(recorded([new TextPart('abcdef'), new TextPart('ghij'), new TextPart('never')]), { ...ctx, maxAnswerChars: 8, onLimit: () => cancelled++ }));
    expect(chunks.map((c) => c.delta).join('')).toBe('abcdefgh');
    expect(error).toMatchObject({ kind: 'limit', provider: 'vscode' });
    expect(cancelled).toBe(1);
  });
});
