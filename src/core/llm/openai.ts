import { APIError, OpenAI } from 'openai';
import type { LLMMessage, LLMResponse, LLMStreamChunk, Usage } from '../types';
import { AnswerBudget, DEFAULT_MAX_ANSWER_CHARS, DEFAULT_MAX_ANSWER_MS } from './answerLimits';
import { CallGuard } from './callGuard';
import { openAIContextLength, type ContextLength, type ContextLengthOverrides } from './contextLength';
import { openaiConnectionHint, toOpenAIProviderError } from './openaiErrors';
import { sameModel } from './modelNames';
import { PricingTable, type PriceEntry } from './pricing';
import type { CompletionOptions, LLMProvider, ModelInfo } from './provider';
import { openAIResponseFormat, refusesJsonSchema, withSchemaInstruction } from './responseFormat';
import { answerLimitError, brokenStreamError, configuredSecrets, unknownError, type ErrorContext } from './providerErrors';
import { fromOpenAIToolCalls, openAIFinishReason, reasoningOf, toOpenAIMessages, ToolCallAccumulator } from './wireMessages';
import { toolsOnWire } from './wireTools';

/** Settings of an `OpenAIProvider`. */
export interface OpenAIProviderOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://localhost:1234/v1` (LM Studio). */
  baseURL?: string;
  /** Sent as a bearer token. Local servers that need none may leave it out. */
  apiKey?: string;
  /** The model used when a call does not name one. */
  model: string;
  /** Prices (USD per million tokens, `{inputPerMillion, outputPerMillion}` or `{input, output}`) merged over the shipped table, or a whole table. */
  pricing?: Record<string, PriceEntry> | PricingTable;
  /** Longest silence from the server before the call fails with a timeout, in ms (default 300 000). */
  timeoutMs?: number;
  /** Most characters of one streamed answer (text, reasoning, tool-call arguments); then it is stopped and kept (default 1 000 000; 0: none). */
  maxAnswerChars?: number;
  /** Most time for one answer, in ms, however busily it streams; then it is stopped and kept (default 600 000; 0: none). */
  maxAnswerMs?: number;
  /** Retries done by the `openai` package on connection errors, 408/409/429/5xx (default 2). */
  maxRetries?: number;
  /** Model for `embed` (default: `model`). */
  embeddingModel?: string;
  /** Send earlier answers' `thinking` back as `reasoning_content` (default false). */
  sendThinking?: boolean;
  /** Which request field carries `maxTokens`; by default `max_completion_tokens` for o-series and gpt-5, else `max_tokens`. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`); their values are masked in every error message. */
  headers?: Record<string, string>;
  /** Per-model context lengths (`arbor.contextLength`), over the shipped table of OpenAI models. */
  contextLengths?: ContextLengthOverrides;
  /**
   * Which models take tools, as the server cannot say: `true` (default) every model, `false` none (a
   * llama.cpp server started without `--jinja`, a vLLM without tool parsing), or the list of those that do.
   */
  supportsTools?: boolean | readonly string[];
  /** Which models take images, as the server cannot say: `true` (default) every model, `false` none, or the list of those that do. */
  supportsVision?: boolean | readonly string[];
  /**
   * Which models take a JSON Schema in `response_format` (`json_schema`), for `CompletionOptions.responseFormat`:
   * `true` (default) every model, `false` none, or the list of those that do. The others get `json_object` with
   * the schema in the system text; so does a model whose server refuses `json_schema` with a 400 naming
   * `response_format` (the request is sent again that way, and the model remembered).
   */
  jsonSchema?: boolean | readonly string[];
}

const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * A model behind any OpenAI-compatible chat-completions API (OpenAI, LM Studio, vLLM, llama.cpp server,
 * Ollama's /v1), built on the `openai` package. Streams with usage, assembles streamed tool calls, passes
 * reasoning text (`reasoning_content`/`reasoning`) through as `thinking`, prices calls from a table.
 */
export class OpenAIProvider implements LLMProvider {
  readonly name = 'openai';
  readonly model: string;
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly pricing: PricingTable;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxAnswerChars: number;
  private readonly maxAnswerMs: number;
  private readonly secrets: string[];
  /** Models whose server refused `json_schema`: they get `json_object` from then on. */
  private readonly refusedJsonSchema = new Set<string>();

  constructor(private readonly options: OpenAIProviderOptions) {
    this.model = options.model;
    this.baseURL = (options.baseURL || 'https://api.openai.com/v1').replace(/\/+$/, '');
    this.pricing = options.pricing instanceof PricingTable ? options.pricing : new PricingTable(options.pricing);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxAnswerChars = options.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
    this.maxAnswerMs = options.maxAnswerMs ?? DEFAULT_MAX_ANSWER_MS;
    this.secrets = configuredSecrets(options.apiKey, options.headers);
    this.client = new OpenAI({
      baseURL: this.baseURL,
      // The package refuses to start without a key; local servers ignore this placeholder.
      apiKey: options.apiKey || 'no-key',
      organization: null,
      project: null,
      maxRetries: this.maxRetries,
      timeout: 2_147_483_647,
      logLevel: 'off',
      defaultHeaders: options.headers,
    });
  }

  /** The price table this provider bills from. */
  get pricingTable(): PricingTable {
    return this.pricing;
  }

  async complete(messages: LLMMessage[], options: CompletionOptions = {}): Promise<LLMResponse> {
    const model = options.model ?? this.model;
    const guard = new CallGuard(options.signal, this.timeoutMs, this.maxAnswerMs);
    const ctx = this.context(model, guard);
    try {
      const res = await this.withJsonFallback(options, model, () =>
        this.client.chat.completions.create(
          { ...this.requestBody(messages, options, model), stream: false } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming,
          { signal: guard.signal },
        ),
      );
      const choice = res.choices?.[0];
      if (!choice) throw unknownError(ctx, new Error('its answer is not a chat completion (no "choices"); check that the base URL points at an OpenAI-compatible API'));
      const usage = toUsage(res.usage);
      const answeredBy = res.model || model;
      const thinking = reasoningOf(choice.message);
      const toolCalls = fromOpenAIToolCalls(choice.message.tool_calls);
      return {
        content: choice.message.content ?? '',
        model: answeredBy,
        finishReason: openAIFinishReason(choice.finish_reason) ?? 'stop',
        usage,
        ...(toolCalls ? { toolCalls } : {}),
        ...(thinking ? { thinking } : {}),
        costUsd: this.cost(answeredBy, model, usage),
        metadata: { provider: this.name, ...(res.id ? { responseId: res.id } : {}) },
      };
    } catch (err) {
      throw toOpenAIProviderError(err, ctx);
    } finally {
      guard.dispose();
    }
  }

  /**
   * Streams the answer. Text and reasoning arrive as `delta`/`thinkingDelta`; the last chunk has
   * `done: true`, the finish reason, usage, cost and, when the model called tools, the whole calls.
   */
  async *stream(messages: LLMMessage[], options: CompletionOptions = {}): AsyncGenerator<LLMStreamChunk> {
    const model = options.model ?? this.model;
    const guard = new CallGuard(options.signal, this.timeoutMs, this.maxAnswerMs);
    const ctx = this.context(model, guard);
    try {
      let stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>;
      try {
        stream = await this.withJsonFallback(options, model, () =>
          this.client.chat.completions.create(
            { ...this.requestBody(messages, options, model), stream: true, stream_options: { include_usage: true } } as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
            { signal: guard.signal },
          ),
        );
      } catch (err) {
        throw toOpenAIProviderError(err, ctx);
      }
      ctx.phase = 'stream';
      guard.touch();
      const tools = new ToolCallAccumulator();
      let finishReason: string | undefined;
      let usage: Usage | undefined;
      let answeredBy = model;
      const budget = new AnswerBudget(this.maxAnswerChars);
      try {
        for await (const chunk of stream) {
          // Chunks already buffered when the signal fired are not delivered: cancelled means no more text.
          if (guard.stopped) break;
          guard.touch();
          if (chunk.model) answeredBy = chunk.model;
          if (chunk.usage) usage = toUsage(chunk.usage);
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta ?? {};
          tools.add(delta.tool_calls);
          budget.spend(toolCallChars(delta.tool_calls));
          const thinking = budget.take(reasoningOf(delta) ?? '');
          const text = budget.take(typeof delta.content === 'string' ? delta.content : '');
          if (choice.finish_reason) finishReason = choice.finish_reason;
          if (text || thinking) yield { delta: text, ...(thinking ? { thinkingDelta: thinking } : {}), done: false, model: answeredBy };
          // Leaving the loop closes the request (the finally below aborts it).
          if (budget.exhausted) throw answerLimitError(ctx, { chars: budget.maxChars });
        }
      } catch (err) {
        throw toOpenAIProviderError(err, ctx);
      }
      // The package ends a stream quietly when its request is aborted; say why instead.
      if (guard.stopped) throw toOpenAIProviderError(new Error('aborted'), ctx);
      if (!finishReason) throw brokenStreamError(ctx, 'the server closed the stream without saying the answer was complete');
      const toolCalls = tools.result();
      yield {
        delta: '',
        done: true,
        finishReason: openAIFinishReason(finishReason),
        ...(usage ? { usage } : {}),
        ...(toolCalls ? { toolCalls } : {}),
        costUsd: this.cost(answeredBy, model, usage),
        model: answeredBy,
      };
    } finally {
      guard.dispose();
    }
  }

  /** Whether `model` takes tools, from the `supportsTools` option (names compared as `sameModel` does). */
  supportsTools(model: string = this.model): Promise<boolean> {
    const setting = this.options.supportsTools ?? true;
    return Promise.resolve(typeof setting === 'boolean' ? setting : setting.some((m) => sameModel(m, model)));
  }

  /** Whether `model` takes images, from the `supportsVision` option (names compared as `sameModel` does). */
  supportsVision(model: string = this.model): Promise<boolean> {
    const setting = this.options.supportsVision ?? true;
    return Promise.resolve(typeof setting === 'boolean' ? setting : setting.some((m) => sameModel(m, model)));
  }

  /** The model's context length from `contextLengths`, else the table of OpenAI models; `undefined` for a model in neither. */
  contextLength(model: string = this.model): Promise<ContextLength | undefined> {
    return Promise.resolve(openAIContextLength(model, this.options.contextLengths));
  }

  /** The models of `GET /models`, with the context length when the server reports one (vLLM, OpenRouter). */
  async listModels(): Promise<ModelInfo[]> {
    const guard = new CallGuard(undefined, this.timeoutMs);
    const ctx = this.context(this.model, guard);
    try {
      const out: ModelInfo[] = [];
      for await (const m of this.client.models.list({ signal: guard.signal })) {
        const raw = m as unknown as Record<string, unknown>;
        const contextLength = [raw.context_length, raw.max_model_len, raw.context_window].find((v) => typeof v === 'number') as number | undefined;
        out.push({
          id: m.id,
          ...(contextLength ? { contextLength } : {}),
          details: { ownedBy: m.owned_by, created: m.created },
        });
      }
      return out;
    } catch (err) {
      throw toOpenAIProviderError(err, ctx);
    } finally {
      guard.dispose();
    }
  }

  /** Embeddings of each text, in order, from `POST /embeddings` (floats, which every compatible server supports). */
  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const model = this.options.embeddingModel ?? this.model;
    const guard = new CallGuard(undefined, this.timeoutMs);
    const ctx = this.context(model, guard);
    try {
      const res = await this.client.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal: guard.signal });
      return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    } catch (err) {
      throw toOpenAIProviderError(err, ctx);
    } finally {
      guard.dispose();
    }
  }

  /** Whether `model` is sent `json_schema` (the `jsonSchema` option, and no refusal seen). */
  takesJsonSchema(model: string = this.model): boolean {
    if (this.refusedJsonSchema.has(model)) return false;
    const setting = this.options.jsonSchema ?? true;
    return typeof setting === 'boolean' ? setting : setting.some((m) => sameModel(m, model));
  }

  /**
   * Runs `send`; when it asked for `json_schema` and the server refused that field with a 400, remembers the
   * model and runs it once more, which now asks for `json_object`.
   */
  private async withJsonFallback<T>(options: CompletionOptions, model: string, send: () => Promise<T>): Promise<T> {
    const usedSchema = options.responseFormat !== undefined && this.takesJsonSchema(model);
    try {
      return await send();
    } catch (err) {
      if (!usedSchema || !(err instanceof APIError) || !refusesJsonSchema(err.status, `${err.message} ${JSON.stringify(err.error ?? '')}`)) throw err;
      this.refusedJsonSchema.add(model);
      return send();
    }
  }

  private requestBody(messages: LLMMessage[], options: CompletionOptions, model: string): Record<string, unknown> {
    const format = options.responseFormat;
    const jsonObject = format !== undefined && !this.takesJsonSchema(model);
    // `json_object` takes no schema (and OpenAI wants the word JSON in the messages): the system text carries it.
    const sent = format && jsonObject ? withSchemaInstruction(messages, format) : messages;
    const body: Record<string, unknown> = { ...passThrough(options.extra), model, messages: toOpenAIMessages(sent, this.options.sendThinking) };
    if (format) body.response_format = openAIResponseFormat(format, jsonObject);
    if (options.temperature !== undefined) body.temperature = options.temperature;
    if (options.maxTokens !== undefined) body[this.maxTokensField(model)] = options.maxTokens;
    if (options.topP !== undefined) body.top_p = options.topP;
    if (options.stop?.length) body.stop = options.stop;
    if (options.seed !== undefined) body.seed = options.seed;
    if (options.tools?.length) body.tools = toolsOnWire(options.tools);
    if (typeof options.think === 'string') body.reasoning_effort = options.think;
    return body;
  }

  private maxTokensField(model: string): string {
    if (this.options.maxTokensField) return this.options.maxTokensField;
    return /^(o\d|gpt-5)/i.test(model.slice(model.lastIndexOf('/') + 1)) ? 'max_completion_tokens' : 'max_tokens';
  }

  private cost(answeredBy: string, requested: string, usage: Usage | undefined): number {
    const model = this.pricing.priceOf(answeredBy) ? answeredBy : requested;
    return this.pricing.costUsd(model, usage);
  }

  private context(model: string, guard: CallGuard): ErrorContext {
    return {
      provider: this.name,
      where: `the server at ${this.baseURL}`,
      endpoint: this.baseURL,
      connectionHint: openaiConnectionHint(this.baseURL),
      addressSetting: 'arbor.openai.baseUrl',
      authHint: "Set a valid key with 'Arbor: Set OpenAI API Key'.",
      credential: this.options.apiKey ? 'the API key' : undefined,
      model,
      phase: 'request',
      guard,
      secrets: this.secrets,
    };
  }
}

/** The extra request fields of a call, without the ones Arbor sets itself (`stream` is set per call). */
function passThrough(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extra) return {};
  const { model: _model, messages: _messages, stream: _stream, stream_options: _streamOptions, ...rest } = extra;
  return rest;
}

function toolCallChars(deltas: OpenAI.Chat.ChatCompletionChunk.Choice.Delta['tool_calls']): number {
  let n = 0;
  for (const d of deltas ?? []) n += (d.function?.name?.length ?? 0) + (d.function?.arguments?.length ?? 0);
  return n;
}

function toUsage(u: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null | undefined): Usage | undefined {
  if (!u) return undefined;
  const promptTokens = u.prompt_tokens ?? 0;
  const completionTokens = u.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u.total_tokens ?? promptTokens + completionTokens };
}
