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
