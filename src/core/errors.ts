/** Typed errors of the engine. Each message says what went wrong and what to do about it. */
import type { PromptLimits } from './limits';

/** Base class, so callers can tell engine errors from bugs. */
export class ArborError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ConversationNotFoundError extends ArborError {
  constructor(readonly conversationId: string) {
    super(`Conversation "${conversationId}" was not found in storage. It may have been deleted in another window.`);
  }
}

export class NodeNotFoundError extends ArborError {
  constructor(readonly nodeId: string, conversationId?: string) {
    super(`Node "${nodeId}" does not exist${conversationId ? ` in conversation "${conversationId}"` : ''}. It may have been deleted.`);
  }
}

export class InvalidArgumentError extends ArborError {}

export class InvalidOperationError extends ArborError {}

/** What kind of provider failure happened, for the UI to pick a fix. */
export type ProviderErrorKind =
  | 'auth'
  | 'model_not_found'
  | 'connection'
  | 'rate_limit'
  | 'timeout'
  | 'stream'
  | 'bad_request'
  /** The request is longer than the model's context window (a 400 that says so). */
  | 'context_length'
  | 'server'
  | 'aborted'
  /** Arbor stopped an answer at its size or total-time cap; the text so far is kept. */
  | 'limit'
  | 'unknown';

/** A model server failed; `retryable` says whether trying again may help. */
export class ProviderError extends ArborError {
  readonly kind: ProviderErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  /** Seconds the server asked to wait (429 Retry-After). */
  readonly retryAfterSeconds?: number;
  readonly provider: string;
  constructor(
    message: string,
    init: { kind: ProviderErrorKind; retryable: boolean; provider: string; status?: number; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(message, { cause: init.cause });
    this.kind = init.kind;
    this.retryable = init.retryable;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** A store could not be opened or written; the message says what happened to the file. */
export class StorageError extends ArborError {}

/**
 * Arbor refused to send a request larger than the model's window (nothing was sent or stored): the
 * counts say what takes the room. Not a provider error: the server never saw it.
 */
export class RequestTooLargeError extends ArborError {
  /** Tokens the request would carry: `messageTokens + toolTokens`. */
  readonly tokens: number;
  readonly maxPromptTokens: number;
  readonly messageTokens: number;
  readonly toolTokens: number;
  readonly model?: string;
  constructor(init: { messageTokens: number; toolTokens: number; maxPromptTokens: number; model?: string }) {
    const n = (v: number) => v.toLocaleString('en-US');
    const tokens = init.messageTokens + init.toolTokens;
    const who = init.model ? `${init.model}'s window` : "the model's window";
    const fix =
      init.toolTokens > init.messageTokens
        ? 'Turn some tools off (or choose fewer), compact the conversation, or raise the context window.'
        : 'Compact the conversation, start a new chat, turn some tools off, or raise the context window.';
    super(
      `This request would carry about ${n(tokens)} tokens (messages ${n(init.messageTokens)}, tool definitions ${n(init.toolTokens)}), more than the ${n(init.maxPromptTokens)} ${who} leaves for the prompt, so Arbor did not send it. ${fix}`,
    );
    this.tokens = tokens;
    this.maxPromptTokens = init.maxPromptTokens;
    this.messageTokens = init.messageTokens;
    this.toolTokens = init.toolTokens;
    if (init.model !== undefined) this.model = init.model;
  }
}

/** A required prompt parameter was missing under `validation: error`. */
export class PromptValidationError extends ArborError {
  constructor(message: string, readonly missing: string[], readonly promptName?: string) {
    super(message);
  }
}

/** One way a model's structured answer failed its JSON Schema: where (`$.items[0].name`, `$` for the whole answer) and what. */
export interface OutputProblem {
  path: string;
  message: string;
}

/**
 * A model's answer still did not match the requested JSON Schema (`CompleteOptions.outputSchema`) after
 * every retry. The message lists what was wrong; `rawAnswer` is the last answer's text as the model wrote
 * it and `nodeId` its node, which stays stored (as do all the earlier attempts).
 */
export class OutputValidationError extends ArborError {
  constructor(
    message: string,
    readonly problems: OutputProblem[],
    readonly rawAnswer: string,
    readonly nodeId: string,
    /** How many answers were asked for in all (1 + retries). */
    readonly attempts: number,
  ) {
    super(message);
  }
}

/** A prompt template could not be parsed or found. */
export class PromptError extends ArborError {
  constructor(message: string, readonly file?: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** Which limit of `PromptLimits` a template passed. */
export type PromptLimitName = keyof PromptLimits;

/**
 * A prompt template passed one of the library's safety limits (size, expressions, nesting, includes, output,
 * render time), so it was refused instead of hanging or exhausting memory. `limit` and `value` name the limit.
 */
export class PromptLimitError extends PromptError {
  constructor(
    message: string,
    readonly limit: PromptLimitName,
    readonly value: number,
    file?: string,
    line?: number,
    column?: number,
  ) {
    super(message, file, line, column);
  }
}

/** A path given to retrieval leaves the workspace folders (`..`, an absolute path elsewhere, a symbolic link) or names a secret file. */
export class WorkspaceAccessError extends ArborError {
  constructor(message: string, readonly path: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A path in the workspace is a symbolic link that leads back to itself (directly or through other
 * links), so it names no file: retrieval skips it (with a warning) or refuses it by name.
 */
export class SymlinkLoopError extends WorkspaceAccessError {
  constructor(path: string, options?: { cause?: unknown }) {
    super(`"${path}" is a symbolic link loop (it leads back to itself), so it names no file; fix or remove the link.`, path, options);
  }
}

/** Whether `err` is Node's "too many levels of symbolic links". */
export function isSymlinkLoop(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ELOOP';
}
