import { ProviderError, type ProviderErrorKind } from '../errors';
import type { CallGuard } from './callGuard';
import { causeChain, fetchFailureReason, fetchRefusal, isCertificateCode, isFetchFailure, portOf } from './fetchFailures';

/**
 * The building blocks that turn any failure of a model call into a `ProviderError` whose message says what
 * happened and what to do. The OpenAI and Ollama mappings (`openaiErrors.ts`, `ollamaErrors.ts`) classify
 * their library's errors and then call these, so both providers word the same failure the same way.
 */

/** Where a failure happened and how to word it. */
export interface ErrorContext {
  /** Provider name, copied to `ProviderError.provider`. */
  provider: string;
  /** How to name the server in a sentence: "the server at http://…/v1", "Ollama at http://…". */
  where: string;
  /** The URL to name, for messages that need it alone. */
  endpoint: string;
  /** What to do when the server cannot be reached at all. */
  connectionHint: string;
  /** The setting that holds the server's address ("arbor.ollama.host"), named in fixes. */
  addressSetting: string;
  /** What to do when the server rejects the credentials. */
  authHint: string;
  /** What the credentials are called ("the API key"); `undefined` when none were configured. */
  credential?: string;
  model: string;
  /** `request` until the answer starts arriving, then `stream`. */
  phase: 'request' | 'stream';
  guard?: CallGuard;
  /** Strings that must never appear in a message or a kept cause: the API key and configured header values (`configuredSecrets`). */
  secrets?: string[];
}

/** Thrown inside a stream reader when a line is not the JSON it should be. */
export class MalformedStreamDataError extends Error {
  constructor(readonly sample: string) {
    super(`Malformed stream data: ${sample}`);
    this.name = 'MalformedStreamDataError';
  }
}

/** Thrown inside a stream reader when the server sends an error object in the middle of an answer. */
export class StreamedServerError extends Error {
  constructor(readonly serverMessage: string) {
    super(serverMessage);
    this.name = 'StreamedServerError';
  }
}

/**
 * Replaces every secret (and anything shaped like an `sk-…` key) in a text with a placeholder. A secret is
 * also found as it appears inside JSON text (quotes and backslashes escaped), since servers quote requests as JSON.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  let out = text;
  // Longest first, so a header value that contains the API key is masked whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) out = out.split(form).join('[redacted]');
  return out.replace(/\bsk-[A-Za-z0-9_*-]{6,}/g, 'sk-[redacted]');
}

/**
 * What a provider must never show in a message: the API key and the value of every header the user
 * configured (a proxy's token, an `Authorization`), and for a `Scheme token` value the token alone too,
 * since a server may quote only that.
 */
export function configuredSecrets(apiKey: string | undefined, headers: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  if (apiKey) out.push(apiKey);
  for (const raw of Object.values(headers ?? {})) {
    const value = String(raw ?? '').trim();
    if (!value) continue;
    out.push(value);
    const token = /^[A-Za-z][\w.+-]*\s+(\S+)$/.exec(value)?.[1];
    if (token) out.push(token);
  }
  return out;
}

/**
 * The text of an error a server sent, whatever its shape: a string as is, an object's `message` (Ollama
 * proxies and OpenAI-style bodies send `{"error": {"message": …}}`), any other value as JSON.
 */
export function serverText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string' && message.trim()) return message;
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** The first `code` (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET…) found along an error's cause chain. */
export function errorCode(err: unknown): string | undefined {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
  }
  return undefined;
}

/** True for the errors `fetch` and the libraries throw when a request is aborted. */
export function isAbortLike(err: unknown): boolean {
  return typeof err === 'object' && err !== null && ((err as Error).name === 'AbortError' || (err as Error).name === 'APIUserAbortError');
}

/** Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); `undefined` when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

/** True when the cause chain shows a network-level failure (refused, DNS, reset, TLS). */
export function isConnectionFailure(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && (CONNECTION_CODES.has(code) || isCertificateCode(code));
}

function make(ctx: ErrorContext, kind: ProviderErrorKind, retryable: boolean, message: string, extra: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {}): ProviderError {
  return new ProviderError(redactSecrets(message, ctx.secrets), { kind, retryable, provider: ctx.provider, ...extra, cause: safeCause(extra.cause, ctx.secrets) });
}

/**
 * The library error kept as `cause`, unless its text holds a secret (OpenAI's 401 body quotes the key it
 * rejected): then a plain copy with the secret masked, so logging `error.cause` cannot leak the key.
 */
function safeCause(cause: unknown, secrets: readonly string[] = []): unknown {
  if (!(cause instanceof Error)) return cause;
  const body = (cause as { error?: unknown }).error;
  const text = `${cause.message} ${body === undefined ? '' : JSON.stringify(body)}`;
  if (redactSecrets(text, secrets) === text) return cause;
  const copy = new Error(redactSecrets(cause.message, secrets));
  copy.name = cause.name;
  return copy;
}

// Masks before shortening: a cut made first could leave part of a secret that no longer matches.
function quoteServer(serverMessage: string | undefined, ctx: ErrorContext): string {
  const text = redactSecrets(serverMessage ?? '', ctx.secrets).replace(/\s+/g, ' ').trim();
  if (!text) return '';
  return `: "${text.length > 300 ? `${text.slice(0, 300)}…` : text}"`;
}

/** The caller cancelled the request. */
export function abortedError(ctx: ErrorContext, cause?: unknown): ProviderError {
  return make(ctx, 'aborted', false, `The request to ${ctx.where} was cancelled.`, { cause });
}

/** The server said nothing for `timeoutMs`. */
export function timeoutError(ctx: ErrorContext, cause?: unknown): ProviderError {
  const seconds = ctx.guard ? Math.round(ctx.guard.timeoutMs / 100) / 10 : undefined;
  const waited = seconds !== undefined ? ` within ${seconds} s` : '';
  const during = ctx.phase === 'stream' ? ' stopped sending the answer and sent nothing more' : ' did not answer';
  return make(ctx, 'timeout', true, `${capitalize(ctx.where)}${during}${waited}. It may be busy or still loading the model '${ctx.model}'; try again, or raise the timeout.`, { cause });
}

/**
 * Arbor stopped the answer at one of its caps (`answerLimits.ts`): it names the cap and its setting, and says
 * the text so far is kept.
 */
export function answerLimitError(ctx: ErrorContext, cap: { chars: number } | { ms: number }): ProviderError {
  if ('chars' in cap) {
    return make(ctx, 'limit', false, `Stopped the answer from ${ctx.where} at ${cap.chars.toLocaleString('en-US')} characters, the most arbor.limits.maxAnswerChars allows; the text so far is kept. If answers this long are expected, raise that setting; if the model was repeating itself, lower the max tokens or reword the prompt.`);
  }
  const seconds = Math.round(cap.ms / 100) / 10;
  return make(ctx, 'limit', false, `Stopped the answer from ${ctx.where} after ${seconds} s, the longest arbor.limits.maxAnswerSeconds allows; the text so far is kept. For a slow model raise that setting, or ask for a shorter answer.`);
}

/**
 * The server could not be reached at all. Says why, from the cause chain: refused, host not found, a TLS
 * certificate, or a request fetch itself refused (a "bad port", a redirect loop), each with its fix.
 */
export function connectionError(ctx: ErrorContext, cause: unknown): ProviderError {
  const refusal = fetchRefusal(cause);
  if (refusal === 'bad_port') {
    return make(ctx, 'connection', false, `Cannot reach ${ctx.where}: fetch refuses to connect to port ${portOf(ctx.endpoint)}, a "bad port" that browsers and Node block because another protocol owns it. Serve it on another port and change ${ctx.addressSetting}.`, { cause });
  }
  if (refusal === 'redirect_loop') {
    return make(ctx, 'connection', false, `Cannot reach ${ctx.where}: it redirected the request more than 20 times (a redirect loop). Check ${ctx.addressSetting}: it must be the API's own address, not one that forwards elsewhere, and a proxy in front of the server must not redirect to itself.`, { cause });
  }
  const code = errorCode(cause);
  if (isCertificateCode(code)) {
    return make(ctx, 'connection', false, `Cannot reach ${ctx.where}: its TLS certificate was not accepted (${code}). Check ${ctx.addressSetting} (a local server usually speaks http://, not https://), or have the system trust the certificate's authority.`, { cause });
  }
  const why = code === 'ECONNREFUSED' ? 'connection refused'
    : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? 'host name not found'
      : code ?? fetchFailureReason(cause) ?? 'network error';
  return make(ctx, 'connection', true, `Cannot reach ${ctx.where} (${why}). ${ctx.connectionHint}`, { cause });
}

/** The answer stopped arriving part-way (connection reset, cut, or ended without finishing). */
export function brokenStreamError(ctx: ErrorContext, detail: string, cause?: unknown): ProviderError {
  return make(ctx, 'stream', true, `The answer from ${ctx.where} broke off before it was finished (${detail}). Retry to get a complete answer.`, { cause });
}

/** The server sent data that is not what its wire format promises. */
export function malformedStreamError(ctx: ErrorContext, sample: string, cause?: unknown): ProviderError {
  const masked = redactSecrets(sample, ctx.secrets);
  const shown = masked.length > 80 ? `${masked.slice(0, 80)}…` : masked;
  return make(ctx, 'stream', true, `${capitalize(ctx.where)} sent malformed data in the middle of the answer (${JSON.stringify(shown)}). Retry; if it keeps happening, check that the server speaks the expected API.`, { cause });
}

/** The server reported an error inside an answer that had already started. */
export function streamedServerError(ctx: ErrorContext, serverMessage: string, cause?: unknown): ProviderError {
  return make(ctx, 'server', true, `${capitalize(ctx.where)} reported an error in the middle of the answer${quoteServer(serverMessage, ctx)}. Retry; if it keeps happening, check the server's log.`, { cause });
}

/** How servers word a request over the model's context length (OpenAI, vLLM, llama.cpp, LM Studio). */
const CONTEXT_LENGTH_TEXT = /context[_ ]length|maximum context|context window|too many tokens|prompt is too long|exceeds? the (?:model's )?(?:context|max)/i;

/** An HTTP error status, worded by what it usually means. */
export function httpStatusError(
  ctx: ErrorContext,
  status: number,
  serverMessage: string | undefined,
  opts: { retryAfterSeconds?: number; modelNotFound?: string; cause?: unknown; code?: string } = {},
): ProviderError {
  const quoted = quoteServer(serverMessage, ctx);
  const { cause } = opts;
  if (status === 401 || status === 403) {
    const what = !ctx.credential
      ? 'requires credentials and none are set'
      : status === 401 ? `rejected ${ctx.credential}` : `refused access with ${ctx.credential}`;
    return make(ctx, 'auth', false, `${capitalize(ctx.where)} ${what} (HTTP ${status}${quoted}). ${ctx.authHint}`, { status, cause });
  }
  if (status === 404) {
    if (opts.modelNotFound) return make(ctx, 'model_not_found', false, opts.modelNotFound, { status, cause });
    return make(ctx, 'bad_request', false, `${capitalize(ctx.where)} has no such endpoint (HTTP 404${quoted}). Check the server address: OpenAI-compatible servers usually end in /v1.`, { status, cause });
  }
  if (status === 429) {
    if (opts.code === 'insufficient_quota') {
      return make(ctx, 'rate_limit', false, `${capitalize(ctx.where)} says the account has no quota left (HTTP 429${quoted}). Check the plan and billing of this API key.`, { status, cause });
    }
    const wait = opts.retryAfterSeconds !== undefined ? `Try again in ${opts.retryAfterSeconds} s.` : 'Wait a moment and try again.';
    return make(ctx, 'rate_limit', true, `${capitalize(ctx.where)} is rate-limiting requests (HTTP 429${quoted}). ${wait}`, { status, retryAfterSeconds: opts.retryAfterSeconds, cause });
  }
  if (status === 408 || status === 504) {
    return make(ctx, 'timeout', true, `${capitalize(ctx.where)} timed out (HTTP ${status}${quoted}). Try again.`, { status, cause });
  }
  if (status >= 500) {
    return make(ctx, 'server', true, `${capitalize(ctx.where)} failed with HTTP ${status}${quoted}. Try again; if it keeps failing, check the server's log.`, { status, retryAfterSeconds: opts.retryAfterSeconds, cause });
  }
  if (status >= 400 && (opts.code === 'context_length_exceeded' || CONTEXT_LENGTH_TEXT.test(serverMessage ?? ''))) {
    return make(ctx, 'context_length', false, `The conversation is longer than model '${ctx.model}' can read (HTTP ${status}${quoted}). Compact it (/compact) or switch to a model with a larger context window.`, { status, cause });
  }
  if (status >= 400) {
    return make(ctx, 'bad_request', false, `${capitalize(ctx.where)} refused the request for model '${ctx.model}' (HTTP ${status}${quoted}). Check the model's settings (temperature, max tokens, tools) and the message.`, { status, cause });
  }
  return make(ctx, 'unknown', false, `${capitalize(ctx.where)} answered with unexpected HTTP ${status}${quoted}.`, { status, cause });
}

/**
 * What every mapping does first: a `ProviderError` passes through, a fired guard wins over the error it
 * caused (so a timeout is not reported as an abort), then malformed data, mid-stream server errors and
 * network failures. Returns `undefined` when the error needs the library-specific mapping.
 */
export function mapCommonFailure(err: unknown, ctx: ErrorContext): ProviderError | undefined {
  if (err instanceof ProviderError) return err;
  if (ctx.guard?.overTime) return answerLimitError(ctx, { ms: ctx.guard.maxTotalMs });
  if (ctx.guard?.timedOut) return timeoutError(ctx, err);
  if (ctx.guard?.cancelled) return abortedError(ctx, err);
  if (err instanceof MalformedStreamDataError) return malformedStreamError(ctx, err.sample, err);
  if (err instanceof SyntaxError && ctx.phase === 'stream') return malformedStreamError(ctx, err.message, err);
  if (err instanceof StreamedServerError) return streamedServerError(ctx, err.serverMessage, err);
  if (isAbortLike(err)) return abortedError(ctx, err);
  if (fetchRefusal(err) || (ctx.phase === 'request' && isFetchFailure(err))) return connectionError(ctx, err);
  if (ctx.phase === 'stream' && (err instanceof TypeError || isConnectionFailure(err))) {
    return brokenStreamError(ctx, describeNetwork(err), err);
  }
  if (isConnectionFailure(err)) return connectionError(ctx, err);
  return undefined;
}

/** The last resort: an error nothing recognised, reported with its own text. */
export function unknownError(ctx: ErrorContext, err: unknown): ProviderError {
  const text = err instanceof Error ? err.message : String(err);
  if (ctx.phase === 'stream') return brokenStreamError(ctx, text, err);
  return make(ctx, 'unknown', false, `The call to ${ctx.where} failed: ${text}`, { cause: err });
}

function describeNetwork(err: unknown): string {
  const code = errorCode(err);
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return 'the connection was closed';
  const text = err instanceof Error ? err.message : String(err);
  return code ? `${text}, ${code}` : text;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
