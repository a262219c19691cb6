import { ProviderError } from '../errors';
import type { CompletionOptions, LLMProvider } from '../llm/provider';
import { StreamAccumulator } from './streamAccumulator';
import type { LLMMessage, LLMResponse, LLMStreamChunk } from '../types';

/** How a stream that did not end normally is reported to `onInterrupted`. */
export interface InterruptedStream {
  /** What arrived before the stream stopped, as a response. */
  partial: LLMResponse;
  /** Set when the stream failed or hit a cap; absent when the consumer stopped reading or the caller cancelled. */
  error?: unknown;
  /**
   * How it stopped: the consumer stopped reading, the caller's signal aborted, the provider stopped it at a
   * size or time cap (a `ProviderError` of kind `limit`), or the stream failed.
   */
  reason: 'consumer' | 'cancelled' | 'limit' | 'failed';
}

/**
 * Streams a provider's answer to the consumer and collects it. On a normal end it returns the
 * assembled response. When the consumer stops early, the signal aborts or the provider fails,
 * it cancels the request, hands what arrived to `onInterrupted` (only if anything did), and then
 * re-throws the failure (a consumer that stopped just ends).
 */
export async function* streamWithPartial(
  llm: LLMProvider,
  messages: LLMMessage[],
  callOptions: CompletionOptions,
  onInterrupted: (stream: InterruptedStream) => Promise<unknown>,
): AsyncGenerator<LLMStreamChunk, LLMResponse> {
  const outer = callOptions.signal;
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  outer?.addEventListener('abort', onAbort, { once: true });
  const acc = new StreamAccumulator();
  const model = callOptions.model ?? llm.model;
  let ended = false;
  let failed = false;
  let failure: unknown;
  try {
    for await (const chunk of llm.stream(messages, { ...callOptions, signal: controller.signal })) {
      acc.add(chunk);
      yield chunk;
    }
    if (outer?.aborted) {
      throw new ProviderError('The request was cancelled before the answer was complete.', { kind: 'aborted', retryable: true, provider: llm.name });
    }
    ended = true;
  } catch (error) {
    failed = true;
    failure = error;
  } finally {
    outer?.removeEventListener('abort', onAbort);
    if (!ended) {
      controller.abort();
      // A cancel by the caller's own signal is a stop, not a failure: it is still re-thrown, but the
      // saved node is marked interrupted without an error.
      const reason = outer?.aborted ? 'cancelled' : !failed ? 'consumer' : isLimit(failure) ? 'limit' : 'failed';
      if (acc.hasOutput) {
        await onInterrupted({
          partial: acc.toResponse(model, reason === 'limit' ? 'length' : reason === 'failed' ? 'error' : 'aborted'),
          reason,
          ...(reason === 'failed' || reason === 'limit' ? { error: failure } : {}),
        });
      }
    }
  }
  if (failed) throw failure;
  return acc.toResponse(model);
}

function isLimit(error: unknown): boolean {
  return error instanceof ProviderError && error.kind === 'limit';
}
