import type { ProviderError } from '../errors';
import type { OllamaResponseInfo } from './ollamaFetch';
import { brokenStreamError, httpStatusError, mapCommonFailure, parseRetryAfter, serverText, unknownError, type ErrorContext } from './providerErrors';

/** Turns anything the `ollama` package throws into a `ProviderError` with an actionable message. */
export function toOllamaProviderError(err: unknown, ctx: ErrorContext, info: OllamaResponseInfo = {}): ProviderError {
  const common = mapCommonFailure(err, ctx);
  if (common) return common;
  const status = statusOf(err) ?? info.status;
  if (status !== undefined && status >= 400) {
    // The package keeps the body's `error` as it came, which may be an object; its message is then "[object Object]".
    const serverMessage = err instanceof Error ? serverText((err as { error?: unknown }).error ?? err.message) : serverText(err);
    return httpStatusError(ctx, status, serverMessage, {
      retryAfterSeconds: parseRetryAfter(info.retryAfter),
      modelNotFound: status === 404 && /model|not found/i.test(serverMessage)
        ? `Model '${ctx.model}' is not installed in Ollama at ${ctx.endpoint}. Run \`ollama pull ${ctx.model}\`.`
        : undefined,
      cause: err,
    });
  }
  if (ctx.phase === 'stream' && err instanceof Error && /did not receive done/i.test(err.message)) {
    return brokenStreamError(ctx, 'Ollama closed the stream without its final "done" message', err);
  }
  return unknownError(ctx, err);
}

// The package's `ResponseError` is not exported; it is recognised by its name and `status_code`.
function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { name?: string; status_code?: unknown };
  return e.name === 'ResponseError' && typeof e.status_code === 'number' ? e.status_code : undefined;
}
