/**
 * Reads a VS Code `LanguageModelChatResponse.stream` into Arbor's stream chunks, and turns the API's
 * failures (`LanguageModelError` and its codes, quota and rate-limit messages, cancellation) into
 * `ProviderError`s that say what to do. Parts are recognised by their shape, so the reader is pure and is
 * tested on recorded streams of plain objects.
 */
import { ProviderError } from '../errors';
import type { LLMStreamChunk, ToolCall } from '../types';
import { AnswerBudget } from './answerLimits';
import { VSCODE_PROVIDER_NAME } from './vscodeLmIds';

/** A `LanguageModelTextPart`. */
export interface LmTextPartShape {
  value: string;
}

/** A `LanguageModelToolCallPart`. */
export interface LmToolCallPartShape {
  callId: string;
  name: string;
  input: object;
}

function isTextPart(part: unknown): part is LmTextPartShape {
  return !!part && typeof part === 'object' && typeof (part as LmTextPartShape).value === 'string';
}

function isToolCallPart(part: unknown): part is LmToolCallPartShape {
  const p = part as LmToolCallPartShape;
  return !!p && typeof p === 'object' && typeof p.callId === 'string' && typeof p.name === 'string';
}

/** What a failure is about: the model as the user chose it, and its vendor for the wording. */
export interface LmErrorContext {
  /** Arbor's id of the model (`vscode:copilot/gpt-4o`). */
  model: string;
  /** The model's name as VS Code shows it, when known. */
  label?: string;
}

const QUOTA_TEXT = /quota|rate.?limit|too many requests|exceeded|usage limit|\b429\b/i;
const CONTEXT_TEXT = /context (length|window)|too (long|large)|maximum.*tokens|token limit/i;

function make(kind: ProviderError['kind'], retryable: boolean, message: string, cause: unknown): ProviderError {
  return new ProviderError(message, { kind, retryable, provider: VSCODE_PROVIDER_NAME, cause });
}

/** The error of a request cancelled by Stop (or by Arbor's own caps through the signal). */
export function lmAborted(): ProviderError {
  return make('aborted', true, 'The request was cancelled before the answer was complete.', undefined);
}

/**
 * Any failure of `selectChatModels`, `sendRequest` or the response stream as a `ProviderError`. A
 * `LanguageModelError` carries a `code`: `NoPermissions` (the user has not allowed Arbor to use the model,
 * or refused), `Blocked` (the extension may not use models now, quota included), `NotFound` (the model is
 * gone: its extension was disabled or the user signed out). Copilot reports quota and rate limits with
 * messages and no code of their own.
 */
export function lmProviderError(err: unknown, ctx: LmErrorContext): ProviderError {
  if (err instanceof ProviderError) return err;
  const name = ctx.label ? `'${ctx.label}' (${ctx.model})` : `'${ctx.model}'`;
  const raw = err instanceof Error ? err.message : String(err);
  const said = raw.trim() ? ` VS Code said: "${raw.trim()}"` : '';
  const code = err && typeof err === 'object' && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : '';
  const isLmError = (err instanceof Error && err.name === 'LanguageModelError') || code !== '';
  if (err instanceof Error && (err.name === 'Canceled' || err.name === 'CancellationError')) return make('aborted', true, lmAborted().message, err);
  if (isLmError && code === 'NoPermissions') {
    return make(
      'auth',
      true,
      `VS Code has not allowed Arbor to use the model ${name}.${said} Retry and choose Allow when VS Code asks; if you refused before, allow Arbor again from the Accounts menu (Manage Language Model Access), or pick another model.`,
      err,
    );
  }
  if (QUOTA_TEXT.test(raw)) {
    return make(
      'rate_limit',
      true,
      `The model ${name} is over its quota or rate limit.${said} Wait and retry, check your plan's usage (for Copilot: the Copilot status menu in the status bar), or pick another model.`,
      err,
    );
  }
  if (isLmError && code === 'Blocked') {
    return make('auth', false, `VS Code blocked Arbor's request to the model ${name}.${said} The model's extension may not be used by other extensions now (a quota, a policy or a sign-in); check that extension, or pick another model.`, err);
  }
  if (isLmError && code === 'NotFound') {
    return make('model_not_found', false, `The model ${name} is not offered by VS Code any more (its extension was disabled, or you signed out).${said} Pick another model.`, err);
  }
  if (CONTEXT_TEXT.test(raw)) {
    return make('context_length', false, `The conversation is longer than the model ${name} can read.${said} Compact it (/compact) or switch to a model with a larger context window.`, err);
  }
  return make('unknown', true, `The model ${name} failed.${said || ' It gave no reason.'} Retry, or pick another model.`, err);
}

/** Options of one read. */
export interface ReadLmStreamOptions extends LmErrorContext {
  signal?: AbortSignal;
  /** Most characters of the answer (text and tool-call input together); 0 or absent: none. */
  maxAnswerChars?: number;
  /** Called when the cap cuts the answer, to cancel the request. */
  onLimit?: () => void;
}

/** The error of an answer cut at `arbor.maxAnswerChars` / `maxAnswerSeconds`; the text so far is kept. */
export function lmLimit(what: string): ProviderError {
  return make('limit', false, `The answer was stopped at Arbor's cap on ${what}; the text so far is kept. Raise the cap in the settings if the model needs more.`, undefined);
}

/**
 * Yields the text of a response as it arrives and, on the last chunk, the tool calls it asked for
 * (finish reason `tool_calls`), else `stop`. Unknown parts (data, future kinds) are skipped. Stop ends the
 * read with an `aborted` error; a failure mid-stream becomes a `ProviderError` (the text so far was yielded).
 */
export async function* readLmStream(stream: AsyncIterable<unknown>, options: ReadLmStreamOptions): AsyncGenerator<LLMStreamChunk> {
  const calls: ToolCall[] = [];
  const { signal } = options;
  const budget = new AnswerBudget(options.maxAnswerChars ?? 0);
  const cut = () => {
    options.onLimit?.();
    return lmLimit('answer length');
  };
  try {
    for await (const part of stream) {
      if (signal?.aborted) throw lmAborted();
      if (isToolCallPart(part)) {
        const args = JSON.stringify(part.input ?? {});
        budget.spend(args.length);
        if (budget.exhausted) throw cut();
        calls.push({ id: part.callId, type: 'function', function: { name: part.name, arguments: args } });
      } else if (isTextPart(part)) {
        const text = budget.take(part.value);
        if (text) yield { delta: text, done: false };
        if (budget.exhausted) throw cut();
      }
    }
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'limit') throw err;
    if (signal?.aborted) throw lmAborted();
    throw lmProviderError(err, options);
  }
  if (signal?.aborted) throw lmAborted();
  yield {
    delta: '',
    done: true,
    finishReason: calls.length ? 'tool_calls' : 'stop',
    model: options.model,
    ...(calls.length ? { toolCalls: calls } : {}),
  };
}
