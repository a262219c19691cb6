import type { ThinkSetting } from '../requestOptions';
import type { LLMMessage, LLMResponse, LLMStreamChunk, ToolDefinition } from '../types';
import type { ContextLength } from './contextLength';

/** Settings of one model call; anything left out falls back to the provider's configuration. */
export interface CompletionOptions {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stop?: string[];
  seed?: number;
  tools?: ToolDefinition[];
  /**
   * Ask a reasoning model to think (Ollama's `think`). A level (`low`/`medium`/`high`) is also sent to
   * OpenAI-compatible servers as `reasoning_effort`; `true`/`false` only reaches Ollama.
   */
  think?: ThinkSetting;
  /**
   * Provider-specific fields merged into the request body as given (dataknobs' `**llm_kwargs`), under the
   * fields above: a field set above wins, and `model`, `messages` and `stream` are never replaced. For
   * Ollama, an `options` object here is merged into the request's `options` (`num_ctx`, `top_k`…).
   */
  extra?: Record<string, unknown>;
  /**
   * Ask for a JSON answer matching `schema` (a JSON Schema), each provider in its own way: OpenAI-compatible
   * servers get `response_format` (`json_schema`, or `json_object` with the schema in the system text where
   * the server does not take schemas), Ollama gets `format: schema`, the VS Code language models (no JSON
   * mode) get the schema in the instructions. `name` names the schema for servers that want one. The
   * provider does not validate the answer: `ConversationManager.complete({ outputSchema })` does.
   */
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
}

/** A JSON answer asked of a provider (`CompletionOptions.responseFormat`). */
export interface ResponseFormat {
  schema: object;
  /** Letters, digits, `_` and `-` (OpenAI's rule); default `answer`. */
  name?: string;
}

/** A model listed by a provider. */
export interface ModelInfo {
  id: string;
  /** Context length in tokens, when the server says. */
  contextLength?: number;
  details?: Record<string, unknown>;
}

/**
 * A model server. Implementations turn every failure into a `ProviderError` whose message a person
 * can act on ("is Ollama running at …?", "run `ollama pull …`").
 */
export interface LLMProvider {
  /** A short name for logs and metadata: "openai", "ollama". */
  readonly name: string;
  /** The model used when a call does not name one. */
  readonly model: string;
  complete(messages: LLMMessage[], options?: CompletionOptions): Promise<LLMResponse>;
  /** Yields deltas as they arrive; the last chunk has `done: true`. Aborting the signal ends it with an error. */
  stream(messages: LLMMessage[], options?: CompletionOptions): AsyncIterable<LLMStreamChunk>;
  listModels(): Promise<ModelInfo[]>;
  embed(texts: string[]): Promise<number[][]>;
  /**
   * What the server says a model can do (Ollama's `show` capabilities: `completion`, `tools`, `thinking`…);
   * `undefined` when the server does not say (OpenAI-compatible APIs have no such call).
   */
  modelCapabilities?(model: string): Promise<string[] | undefined>;
  /**
   * Whether `model` (default: the provider's) takes tools, so a tool run offers them only to a model that
   * does: Ollama reads its `/api/show` capabilities, OpenAI-compatible servers follow a setting.
   */
  supportsTools?(model?: string): Promise<boolean>;
  /**
   * Whether `model` (default: the provider's) takes images: Ollama reads `vision` in its `/api/show`
   * capabilities, OpenAI-compatible servers follow a setting. A provider without it is trusted to.
   */
  supportsVision?(model?: string): Promise<boolean>;
  /**
   * How many tokens one request to `model` (default: the provider's) may hold, and where that number came
   * from; `undefined` when it is unknown (never 0). For Ollama it is the `num_ctx` the provider sends.
   */
  contextLength?(model?: string, signal?: AbortSignal): Promise<ContextLength | undefined>;
}
