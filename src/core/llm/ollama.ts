import { Ollama, type ChatRequest, type ChatResponse, type Message, type Tool } from 'ollama';
import type { LLMMessage, LLMResponse, LLMStreamChunk, ToolCall, Usage } from '../types';
import { AnswerBudget, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_ANSWER_MS } from './answerLimits';
import { CallGuard } from './callGuard';
import { contextLengthOverride, ollamaContextLength, OllamaShowCache, type ContextLength, type ContextLengthOverrides, type OllamaModelContext } from './contextLength';
import { modelKey } from './modelNames';
import { toOllamaProviderError } from './ollamaErrors';
import { ollamaFetch, type OllamaResponseInfo } from './ollamaFetch';
import type { CompletionOptions, LLMProvider, ModelInfo } from './provider';
import { answerLimitError, brokenStreamError, configuredSecrets, type ErrorContext } from './providerErrors';
import { fromOllamaToolCalls, toOllamaMessages } from './wireMessages';
import { toolsOnWire } from './wireTools';

/** Settings of an `OllamaProvider`. */
export interface OllamaProviderOptions {
  /** Where Ollama listens (default `http://127.0.0.1:11434`). */
  host?: string;
  /** The model used when a call does not name one, e.g. `llama3.2`. */
  model: string;
  /** Longest silence from Ollama before the call fails with a timeout, in ms (default 300 000; loading a model takes a while). */
  timeoutMs?: number;
  /** Most characters of one streamed answer (text and thinking); then it is stopped and kept (default 1 000 000; 0: none). */
  maxAnswerChars?: number;
  /** Most time for one answer, in ms, however busily it streams; then it is stopped and kept (default 600 000; 0: none). */
  maxAnswerMs?: number;
  /** Default for `think` when a call does not set it. */
  think?: CompletionOptions['think'];
  /**
   * Context length to ask for (`num_ctx`, as `arbor.ollama.numCtx`); 0 or unset: the model's own `num_ctx`,
   * else `OLLAMA_DEFAULT_NUM_CTX`. Always capped at the model's trained length; see `contextLength()`.
   */
  numCtx?: number;
  /** Per-model context lengths (`arbor.contextLength`), sent as that model's `num_ctx` in place of `numCtx`. */
  contextLengths?: ContextLengthOverrides;
  /** How long Ollama keeps the model loaded after a call (`keep_alive`, e.g. "10m"). */
  keepAlive?: string | number;
  /** Model for `embed` (default: `model`). */
  embeddingModel?: string;
  /** Send earlier answers' `thinking` back in the history (default false). */
  sendThinking?: boolean;
  /** Extra headers on every request (for Ollama behind an authenticating proxy); their values are masked in every error message. */
  headers?: Record<string, string>;
}

const DEFAULT_HOST = 'http://127.0.0.1:11434';
const DEFAULT_TIMEOUT_MS = 300_000;
// `/api/show` reads the model's files and loads nothing; a meter asking for the context length should not wait minutes.
const SHOW_TIMEOUT_MS = 10_000;

/**
 * A model served by Ollama's native API (`/api/chat`, `/api/tags`, `/api/embed`), built on the `ollama`
 * package. Passes `think` through and returns the reasoning as `thinking`, sends and receives tool calls,
 * sends images, and honours an `AbortSignal` on every request. Local models cost 0.
 */
export class OllamaProvider implements LLMProvider {
  readonly name = 'ollama';
  readonly model: string;
  readonly host: string;
  private readonly secrets: string[];
  private readonly shown = new OllamaShowCache();

  constructor(private readonly options: OllamaProviderOptions) {
    this.model = options.model;
    this.host = normalizeHost(options.host);
    this.secrets = configuredSecrets(undefined, options.headers);
  }

  async complete(messages: LLMMessage[], options: CompletionOptions = {}): Promise<LLMResponse> {
    const model = options.model ?? this.model;
    const guard = new CallGuard(options.signal, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, this.options.maxAnswerMs ?? DEFAULT_MAX_ANSWER_MS);
    const info: OllamaResponseInfo = {};
    const ctx = this.context(model, guard);
    try {
      const numCtx = await this.numCtx(model, guard);
      const res = await this.client(guard, info).chat({ ...this.request(messages, options, model, numCtx), stream: false });
      const toolCalls = fromOllamaToolCalls(res.message?.tool_calls);
      const usage = toUsage(res);
      return {
        content: res.message?.content ?? '',
        model: res.model || model,
        finishReason: finishReason(res, toolCalls),
        usage,
        ...(toolCalls.length ? { toolCalls } : {}),
        ...(res.message?.thinking ? { thinking: res.message.thinking } : {}),
        costUsd: 0,
        metadata: { provider: this.name, ...durations(res) },
      };
    } catch (err) {
      throw toOllamaProviderError(err, ctx, info);
    } finally {
      guard.dispose();
    }
  }

  /**
   * Streams the answer from `/api/chat` NDJSON. Text and thinking arrive as `delta`/`thinkingDelta`; the last
   * chunk has `done: true`, the finish reason, usage (`prompt_eval_count`/`eval_count`), cost 0 and, when the
   * model called tools, the whole calls.
   */
  async *stream(messages: LLMMessage[], options: CompletionOptions = {}): AsyncGenerator<LLMStreamChunk> {
    const model = options.model ?? this.model;
    const guard = new CallGuard(options.signal, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, this.options.maxAnswerMs ?? DEFAULT_MAX_ANSWER_MS);
    const info: OllamaResponseInfo = {};
    const ctx = this.context(model, guard);
    let iterator: (AsyncIterable<ChatResponse> & { abort(): void }) | undefined;
    try {
      try {
        const numCtx = await this.numCtx(model, guard);
        iterator = await this.client(guard, info).chat({ ...this.request(messages, options, model, numCtx), stream: true });
      } catch (err) {
        throw toOllamaProviderError(err, ctx, info);
      }
      ctx.phase = 'stream';
      const toolCalls: ToolCall[] = [];
      let last: ChatResponse | undefined;
      const budget = new AnswerBudget(this.options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS);
      try {
        for await (const part of iterator) {
          if (guard.stopped) break;
          const thinking = budget.take(part.message?.thinking ?? '');
          const text = budget.take(part.message?.content ?? '');
          toolCalls.push(...fromOllamaToolCalls(part.message?.tool_calls));
          if (text || thinking) yield { delta: text, ...(thinking ? { thinkingDelta: thinking } : {}), done: false, model: part.model || model };
          // Leaving the loop closes the request (the finally below aborts it).
          if (budget.exhausted) throw answerLimitError(ctx, { chars: budget.maxChars });
          if (part.done) last = part;
        }
      } catch (err) {
        throw toOllamaProviderError(err, ctx, info);
      }
      if (guard.stopped) throw toOllamaProviderError(new Error('aborted'), ctx, info);
      if (!last) throw brokenStreamError(ctx, 'Ollama closed the stream without its final "done" message');
      const usage = toUsage(last);
      yield {
        delta: '',
        done: true,
        finishReason: finishReason(last, toolCalls),
        ...(usage ? { usage } : {}),
        ...(toolCalls.length ? { toolCalls } : {}),
        costUsd: 0,
        model: last.model || model,
      };
    } finally {
      iterator?.abort();
      guard.dispose();
    }
  }

  /** The installed models, from `/api/tags`, each once: `name:latest` is listed as `name` (Ollama takes both). */
  async listModels(): Promise<ModelInfo[]> {
    const guard = new CallGuard(undefined, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const info: OllamaResponseInfo = {};
    try {
      const res = await this.client(guard, info).list();
      const byId = new Map<string, ModelInfo>();
      for (const m of res.models ?? []) {
        const id = modelKey(m.name || m.model);
        if (!byId.has(id)) byId.set(id, { id, details: { ...(m.details ?? {}), size: m.size, digest: m.digest, modifiedAt: m.modified_at } });
      }
      return [...byId.values()];
    } catch (err) {
      throw toOllamaProviderError(err, this.context(this.model, guard), info);
    } finally {
      guard.dispose();
    }
  }

  /** Embeddings of each text, in order, from `/api/embed`. */
  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const model = this.options.embeddingModel ?? this.model;
    const guard = new CallGuard(undefined, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const info: OllamaResponseInfo = {};
    try {
      const res = await this.client(guard, info).embed({ model, input: texts, ...(this.options.keepAlive !== undefined ? { keep_alive: this.options.keepAlive } : {}) });
      return res.embeddings;
    } catch (err) {
      throw toOllamaProviderError(err, this.context(model, guard), info);
    } finally {
      guard.dispose();
    }
  }

  /** The model's capabilities from `/api/show` (`completion`, `tools`, `thinking`, `vision`…); `undefined` when Ollama lists none. */
  async modelCapabilities(model: string): Promise<string[] | undefined> {
    const guard = new CallGuard(undefined, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const info: OllamaResponseInfo = {};
    try {
      const res = await this.client(guard, info).show({ model });
      return Array.isArray(res.capabilities) ? res.capabilities.filter((c): c is string => typeof c === 'string') : undefined;
    } catch (err) {
      throw toOllamaProviderError(err, this.context(model, guard), info);
    } finally {
      guard.dispose();
    }
  }

  /**
   * Whether `model` takes tools: its `/api/show` capabilities list `tools` (read once per model, with the
   * context length). An Ollama too old to list capabilities is trusted to; a show that fails rejects.
   */
  /**
   * Whether `model` takes images: its `/api/show` capabilities list `vision` (read once per model). An
   * Ollama too old to list capabilities is trusted to; a show that fails rejects.
   */
  async supportsVision(model: string = this.model): Promise<boolean> {
    const guard = new CallGuard(undefined, Math.min(SHOW_TIMEOUT_MS, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    try {
      const shown = await this.shown.get(model, () => this.client(guard, {}).show({ model }));
      return shown.capabilities === undefined || shown.capabilities.includes('vision');
    } catch (err) {
      throw toOllamaProviderError(err, this.context(model, guard), {});
    } finally {
      guard.dispose();
    }
  }

  async supportsTools(model: string = this.model): Promise<boolean> {
    const guard = new CallGuard(undefined, Math.min(SHOW_TIMEOUT_MS, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    try {
      const shown = await this.shown.get(model, () => this.client(guard, {}).show({ model }));
      return shown.capabilities === undefined || shown.capabilities.includes('tools');
    } catch (err) {
      throw toOllamaProviderError(err, this.context(model, guard), {});
    } finally {
      guard.dispose();
    }
  }

  /**
   * The context length Arbor uses for `model` (default: this provider's), which is exactly the `num_ctx`
   * every chat request for it carries: see `ollamaContextLength` for the rule. Reads the model's
   * `/api/show` once and caches it; when that fails or takes over 10 s (Ollama down, model not pulled) the
   * answer is built without it and the next call asks again. Rejects only when `signal` aborts it.
   */
  async contextLength(model: string = this.model, signal?: AbortSignal): Promise<ContextLength> {
    const guard = new CallGuard(signal, Math.min(SHOW_TIMEOUT_MS, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    try {
      return await this.resolveContext(model, guard);
    } catch (err) {
      if (signal?.aborted) throw toOllamaProviderError(err, this.context(model, guard), {});
      return ollamaContextLength(undefined, this.requestedNumCtx(model));
    } finally {
      guard.dispose();
    }
  }

  /**
   * What `model`'s `/api/show` says of its context: trained length, Modelfile `num_ctx`, attention shape,
   * size and quantisation (read once per model and cached, as for the context length). Rejects when
   * Ollama cannot show it (down, model not pulled, over 10 s) or `signal` aborts.
   */
  async modelContext(model: string = this.model, signal?: AbortSignal): Promise<OllamaModelContext> {
    const guard = new CallGuard(signal, Math.min(SHOW_TIMEOUT_MS, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
    try {
      return await this.shown.get(model, () => this.client(guard, {}).show({ model }));
    } catch (err) {
      throw toOllamaProviderError(err, this.context(model, guard), {});
    } finally {
      guard.dispose();
    }
  }

  private async numCtx(model: string, guard: CallGuard): Promise<number> {
    return (await this.resolveContext(model, guard)).tokens;
  }

  private requestedNumCtx(model: string): number | undefined {
    return contextLengthOverride(model, this.options.contextLengths) ?? this.options.numCtx;
  }

  private async resolveContext(model: string, guard: CallGuard): Promise<ContextLength> {
    const requested = this.requestedNumCtx(model);
    try {
      // Its own response info: a 404 here must not colour the error of the chat request that follows.
      const shown = await this.shown.get(model, () => this.client(guard, {}).show({ model }));
      return ollamaContextLength(shown, requested);
    } catch (err) {
      if (guard.stopped) throw err;
      return ollamaContextLength(undefined, requested);
    }
  }

  // A client per call is cheap (no connection of its own) and lets each call carry its own signal.
  private client(guard: CallGuard, info: OllamaResponseInfo): Ollama {
    return new Ollama({ host: this.host, fetch: ollamaFetch(guard, info), headers: this.options.headers });
  }

  private request(messages: LLMMessage[], options: CompletionOptions, model: string, numCtx: number): Omit<ChatRequest, 'stream'> {
    const { model: _model, messages: _messages, stream: _stream, options: extraOptions, ...extra } = options.extra ?? {};
    // Extra model options sit under the ones Arbor sets (temperature, num_predict…), as extra fields sit under the body's.
    const modelOptions: Record<string, unknown> = extraOptions && typeof extraOptions === 'object' && !Array.isArray(extraOptions) ? { ...extraOptions } : {};
    if (options.temperature !== undefined) modelOptions.temperature = options.temperature;
    if (options.maxTokens !== undefined) modelOptions.num_predict = options.maxTokens;
    if (options.topP !== undefined) modelOptions.top_p = options.topP;
    if (options.stop?.length) modelOptions.stop = options.stop;
    if (options.seed !== undefined) modelOptions.seed = options.seed;
    // Always: without it Ollama runs its own default and silently drops the front of a longer prompt.
    modelOptions.num_ctx = numCtx;
    const think = options.think ?? this.options.think;
    return {
      ...extra,
      model,
      messages: toOllamaMessages(messages, this.options.sendThinking) as Message[],
      ...(options.tools?.length ? { tools: toolsOnWire(options.tools) as unknown as Tool[] } : {}),
      ...(think !== undefined ? { think } : {}),
      // Ollama constrains the answer to the schema itself (structured outputs).
      ...(options.responseFormat ? { format: options.responseFormat.schema as ChatRequest['format'] } : {}),
      options: modelOptions,
      ...(this.options.keepAlive !== undefined ? { keep_alive: this.options.keepAlive } : {}),
    };
  }

  private context(model: string, guard: CallGuard): ErrorContext {
    return {
      provider: this.name,
      where: `Ollama at ${this.host}`,
      endpoint: this.host,
      connectionHint: 'Is Ollama running? Start it with `ollama serve` or change arbor.ollama.host.',
      addressSetting: 'arbor.ollama.host',
      authHint: 'Check the credentials of the proxy in front of Ollama (or OLLAMA_API_KEY for ollama.com).',
      credential: 'the credentials',
      model,
      phase: 'request',
      guard,
      secrets: this.secrets,
    };
  }
}

/** `localhost:11434` or `:11434` to a full URL, as the `ollama` package reads them; no trailing slash. */
function normalizeHost(host: string | undefined): string {
  let h = (host ?? '').trim();
  if (!h) return DEFAULT_HOST;
  if (h.startsWith(':')) h = `http://127.0.0.1${h}`;
  if (!/^[a-z]+:\/\//i.test(h)) h = `http://${h}`;
  return h.replace(/\/+$/, '');
}

function toUsage(res: Partial<ChatResponse>): Usage | undefined {
  if (res.prompt_eval_count === undefined && res.eval_count === undefined) return undefined;
  const promptTokens = res.prompt_eval_count ?? 0;
  const completionTokens = res.eval_count ?? 0;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

function finishReason(res: Partial<ChatResponse>, toolCalls: ToolCall[]): string {
  if (toolCalls.length) return 'tool_calls';
  return res.done_reason || 'stop';
}

function durations(res: Partial<ChatResponse>): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof res.total_duration === 'number') out.totalDurationNs = res.total_duration;
  if (typeof res.load_duration === 'number') out.loadDurationNs = res.load_duration;
  if (typeof res.eval_duration === 'number') out.evalDurationNs = res.eval_duration;
  return out;
}
