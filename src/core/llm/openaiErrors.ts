import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ProviderError } from '../errors';
import {
  connectionError,
  httpStatusError,
  mapCommonFailure,
  parseRetryAfter,
  streamedServerError,
  timeoutError,
  unknownError,
  type ErrorContext,
} from './providerErrors';

/**
 * What to do when the OpenAI-compatible server cannot be reached: a local server may not be running, but
 * OpenAI's own API is not something to start, so there the network (or a proxy) is what to check.
 */
export function openaiConnectionHint(baseURL: string): string {
  let host = '';
  try {
    host = new URL(baseURL).hostname.toLowerCase();
  } catch {
    // not a URL: the local-server advice below still names the setting
  }
  return host === 'api.openai.com'
    ? "Check this machine's network connection and any proxy (VS Code's http.proxy setting), or change arbor.openai.baseUrl."
    : 'Is the server running? Start it, or change arbor.openai.baseUrl.';
}

/** Turns anything the `openai` package throws into a `ProviderError` with an actionable message. */
export function toOpenAIProviderError(err: unknown, ctx: ErrorContext): ProviderError {
  const common = mapCommonFailure(err, ctx);
  if (common) return common;
  if (err instanceof APIConnectionTimeoutError) return timeoutError(ctx, err);
  if (err instanceof APIConnectionError) return connectionError(ctx, err);
  if (err instanceof APIError) {
    const serverMessage = describeApiError(err);
    if (err.status === undefined) return streamedServerError(ctx, serverMessage, err);
    const retryAfterSeconds = parseRetryAfter(err.headers?.get('retry-after'));
    return httpStatusError(ctx, err.status, serverMessage, {
      retryAfterSeconds,
      code: typeof err.code === 'string' ? err.code : undefined,
      modelNotFound: err.status === 404 && looksLikeMissingModel(err, serverMessage)
        ? `Model '${ctx.model}' was not found at ${ctx.endpoint}${serverMessage ? ` ("${serverMessage}")` : ''}. Pick one of the models the server lists, or fix the model name in the settings.`
        : undefined,
      cause: err,
    });
  }
  return unknownError(ctx, err);
}

function describeApiError(err: APIError): string {
  const body = err.error as { message?: unknown } | string | undefined;
  if (typeof body === 'string') return body;
  if (body && typeof body.message === 'string') return body.message;
  return err.message.replace(/^\d{3}\s*/, '').replace(/status code \(no body\)/, '').trim();
}

function looksLikeMissingModel(err: APIError, serverMessage: string): boolean {
  return err.code === 'model_not_found' || /model/i.test(serverMessage);
}
