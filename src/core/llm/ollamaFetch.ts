import type { CallGuard } from './callGuard';
import { MalformedStreamDataError, StreamedServerError, serverText } from './providerErrors';

/** What the fetch wrapper saw of the last HTTP error, which the `ollama` package's error does not keep. */
export interface OllamaResponseInfo {
  status?: number;
  retryAfter?: string | null;
}

/**
 * A `fetch` for one call of the `ollama` package that closes three gaps of that package: every request
 * (not only streams) gets the call's abort/timeout signal; each piece of a streamed body restarts the idle
 * timer; and a stream line that is not JSON, or that carries `{"error": …}`, fails the stream (the package
 * would log and skip it, silently losing part of the answer) after every good line before it was delivered.
 */
export function ollamaFetch(guard: CallGuard, info: OllamaResponseInfo, baseFetch: typeof fetch = fetch): typeof fetch {
  return async (input, init = {}) => {
    const signal = init.signal ? AbortSignal.any([init.signal, guard.signal]) : guard.signal;
    const res = await baseFetch(input, { ...init, signal });
    guard.touch();
    if (!res.ok) {
      info.status = res.status;
      info.retryAfter = res.headers.get('retry-after');
      return res;
    }
    if (!res.body || !isStreamRequest(init.body)) return res;
    return new Response(validatedNdjson(res.body, () => guard.touch()), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

// The package sends `JSON.stringify(request)`, where quotes inside strings are escaped, so this text can
// only be a key of the request itself.
function isStreamRequest(body: unknown): boolean {
  return typeof body === 'string' && body.includes('"stream":true');
}

/**
 * Re-emits the good NDJSON lines of a body and ends with `MalformedStreamDataError` or
 * `StreamedServerError` at the first bad one. Lazy (high-water mark 0): it reads only when asked, so lines
 * already delivered are never discarded by a later failure.
 */
export function validatedNdjson(source: ReadableStream<Uint8Array>, onData: () => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  let failure: Error | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (failure) {
            controller.error(failure);
            return;
          }
          const { done, value } = await reader.read();
          if (done) buffer += decoder.decode();
          else {
            onData();
            buffer += decoder.decode(value, { stream: true });
          }
          const lines = buffer.split('\n');
          buffer = done ? '' : (lines.pop() ?? '');
          const good: string[] = [];
          for (const line of lines) {
            const text = line.trim();
            if (!text) continue;
            const problem = checkLine(text);
            if (problem) {
              failure = problem;
              break;
            }
            good.push(text);
          }
          if (good.length > 0) {
            controller.enqueue(encoder.encode(`${good.join('\n')}\n`));
            if (done && !failure) controller.close();
            return;
          }
          if (done && !failure) {
            controller.close();
            return;
          }
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function checkLine(text: string): Error | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new MalformedStreamDataError(text);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return new MalformedStreamDataError(text);
  const error = (parsed as { error?: unknown }).error;
  if (error !== undefined && error !== null) return new StreamedServerError(serverText(error));
  return undefined;
}
