/**
 * The chat models VS Code offers extensions (`vscode.lm.selectChatModels`, stable since 1.90: Copilot's
 * for users who have it, and any other extension's) as an `LLMProvider`. Arbor names them
 * `vscode:<vendor>/<id>`; the `RoutingProvider` sends those ids here. Feature-detected: where `vscode.lm`
 * or its models are absent, nothing is listed and nothing fails until such a model is asked for. The
 * translation (messages, tools, the response stream, errors) is the pure `vscodeLm*` code of the core.
 */
import * as vscode from 'vscode';
import {
  estimatingTokenCounter,
  LazyTokenCounter,
  lmAborted,
  lmLimit,
  lmProviderError,
  parseVscodeModelId,
  ProviderError,
  readLmStream,
  toLmMessages,
  toLmTools,
  VSCODE_PROVIDER_NAME,
  vscodeModelId,
  withSchemaInstruction,
} from '../../core/index';
import type { CompletionOptions, ContextLength, LLMMessage, LLMProvider, LLMResponse, LLMStreamChunk, LmPartFactory, ModelInfo, TokenCounter, ToolCall, Usage } from '../../core/index';
import { Disposable } from '../base/lifecycle';
import type { OutputChannelLogger } from '../base/logger';

/** A VS Code model as the pickers show it. */
export interface VscodeModelEntry {
  /** Arbor's id: `vscode:<vendor>/<id>`. */
  id: string;
  /** VS Code's human-readable name ("GPT-4o"). */
  name: string;
  vendor: string;
  family: string;
  maxInputTokens: number;
}

/** What the consent dialog tells the user Arbor wants the model for. */
const JUSTIFICATION = 'Arbor sends the conversation you are in to this model to answer your message.';

type LmApi = typeof vscode.lm;
type LmPart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart;

/** `vscode.lm` when this VS Code has it (1.90+; some forks and web hosts leave it out). */
function lmApi(): LmApi | undefined {
  const lm = (vscode as { lm?: LmApi }).lm;
  return lm && typeof lm.selectChatModels === 'function' ? lm : undefined;
}

/** VS Code's own part classes, for the pure mapping. */
const PARTS: LmPartFactory<LmPart, vscode.LanguageModelChatMessage> = {
  text: (value) => new vscode.LanguageModelTextPart(value),
  toolCall: (callId, name, input) => new vscode.LanguageModelToolCallPart(callId, name, input),
  toolResult: (callId, content) => new vscode.LanguageModelToolResultPart(callId, content as vscode.LanguageModelTextPart[]),
  user: (parts) => vscode.LanguageModelChatMessage.User(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart)[]),
  assistant: (parts) => vscode.LanguageModelChatMessage.Assistant(parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[]),
};

/** VS Code's language models behind Arbor's provider interface. */
export class VscodeLmProvider extends Disposable implements LLMProvider {
  readonly name = VSCODE_PROVIDER_NAME;
  /** No default: every call names its `vscode:` model. */
  readonly model = '';
  private modelsPromise?: Promise<Map<string, vscode.LanguageModelChat>>;
  private readonly counters = new Map<string, LazyTokenCounter>();

  private readonly _onDidChangeModels = this._register(new vscode.EventEmitter<void>());
  /** Fires when VS Code's set of models changed (an extension or a sign-in added or removed some). */
  readonly onDidChangeModels = this._onDidChangeModels.event;
  private readonly _onDidCountTokens = this._register(new vscode.EventEmitter<void>());
  /** Fires when `countTokens` answered for texts the meter had estimated: redraw the meter. */
  readonly onDidCountTokens = this._onDidCountTokens.event;

  constructor(
    private readonly logger: OutputChannelLogger,
    /** Arbor's caps on one answer (`arbor.maxAnswerChars`, `arbor.maxAnswerSeconds` in ms); 0: none. */
    private readonly limits: () => { maxAnswerChars: number; maxAnswerMs: number } = () => ({ maxAnswerChars: 0, maxAnswerMs: 0 }),
  ) {
    super();
    const lm = lmApi();
    if (lm && typeof lm.onDidChangeChatModels === 'function') {
      this._register(
        lm.onDidChangeChatModels(() => {
          this.modelsPromise = undefined;
          this.counters.clear();
          this._onDidChangeModels.fire();
        }),
      );
    }
  }

  /** Whether this VS Code offers the language model API at all. */
  get available(): boolean {
    return lmApi() !== undefined;
  }

  /** The models by Arbor id, asked of VS Code once until they change; none when the API is absent or fails. */
  private models(): Promise<Map<string, vscode.LanguageModelChat>> {
    this.modelsPromise ??= (async () => {
      const lm = lmApi();
      const out = new Map<string, vscode.LanguageModelChat>();
      if (!lm) return out;
      try {
        for (const chat of await lm.selectChatModels()) out.set(vscodeModelId(chat.vendor, chat.id), chat);
      } catch (err) {
        this.logger.warn("Could not list VS Code's language models", err);
        this.modelsPromise = undefined;
      }
      return out;
    })();
    return this.modelsPromise;
  }

  /** The models for the pickers' "VS Code" group, sorted by vendor and name. */
  async entries(): Promise<VscodeModelEntry[]> {
    const entries = [...(await this.models())].map(([id, chat]) => ({ id, name: chat.name || chat.id, vendor: chat.vendor, family: chat.family, maxInputTokens: chat.maxInputTokens }));
    return entries.sort((a, b) => a.vendor.localeCompare(b.vendor) || a.name.localeCompare(b.name));
  }

  async listModels(): Promise<ModelInfo[]> {
    return (await this.entries()).map((e) => ({
      id: e.id,
      ...(e.maxInputTokens > 0 ? { contextLength: e.maxInputTokens } : {}),
      details: { name: e.name, vendor: e.vendor, family: e.family },
    }));
  }

  /** The model `id` names; a model not (or no longer) offered is a `model_not_found` error that says why. */
  private async chat(id: string): Promise<vscode.LanguageModelChat> {
    if (!lmApi()) {
      throw new ProviderError(`'${id}' is one of VS Code's language models, but this VS Code has no language model API (vscode.lm, VS Code 1.90 or later). Pick an Ollama or OpenAI model.`, {
        kind: 'model_not_found',
        retryable: false,
        provider: VSCODE_PROVIDER_NAME,
      });
    }
    let found = (await this.models()).get(id);
    if (!found) {
      // The list may predate a sign-in or an extension that just started: ask VS Code again once.
      this.modelsPromise = undefined;
      found = (await this.models()).get(id);
    }
    if (!found) {
      const parsed = parseVscodeModelId(id);
      const whose = parsed ? ` (vendor "${parsed.vendor}")` : '';
      throw new ProviderError(`VS Code offers no model '${id}'${whose} now: the extension that provides it may be disabled, signed out or not installed. Pick another model.`, {
        kind: 'model_not_found',
        retryable: false,
        provider: VSCODE_PROVIDER_NAME,
      });
    }
    return found;
  }

  async *stream(messages: LLMMessage[], options: CompletionOptions = {}): AsyncIterable<LLMStreamChunk> {
    const id = options.model?.trim() ?? '';
    const chat = await this.chat(id);
    const ctx = { model: id, label: chat.name || chat.id };
    const { signal } = options;
    if (signal?.aborted) throw lmAborted();
    // No JSON mode here: a structured answer's schema goes into the instructions (the manager still validates and retries).
    const request = toLmMessages(options.responseFormat ? withSchemaInstruction(messages, options.responseFormat) : messages, PARTS, id);
    const tools = toLmTools(options.tools);
    // Stop and Arbor's total-time cap reach VS Code through one cancellation.
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const { maxAnswerChars, maxAnswerMs } = this.limits();
    const deadline = new AbortController();
    const timer = maxAnswerMs > 0 && Number.isFinite(maxAnswerMs) ? setTimeout(() => (deadline.abort(), cancel.cancel()), maxAnswerMs) : undefined;
    const stopped = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
    try {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await chat.sendRequest(
          request,
          { justification: JUSTIFICATION, ...(tools.length ? { tools, toolMode: vscode.LanguageModelChatToolMode.Auto } : {}) },
          cancel.token,
        );
      } catch (err) {
        if (signal?.aborted) throw lmAborted();
        throw lmProviderError(err, ctx);
      }
      try {
        yield* readLmStream(response.stream, { ...ctx, signal: stopped, maxAnswerChars, onLimit: () => cancel.cancel() });
      } catch (err) {
        if (deadline.signal.aborted && !signal?.aborted) throw lmLimit('answer time');
        throw err;
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // A reader that stopped early ends the request too.
      cancel.cancel();
      cancel.dispose();
    }
  }

  async complete(messages: LLMMessage[], options: CompletionOptions = {}): Promise<LLMResponse> {
    let content = '';
    let toolCalls: ToolCall[] | undefined;
    let finishReason: LLMResponse['finishReason'] = 'stop';
    let usage: Usage | undefined;
    for await (const chunk of this.stream(messages, options)) {
      content += chunk.delta;
      if (chunk.toolCalls?.length) toolCalls = chunk.toolCalls;
      if (chunk.finishReason) finishReason = chunk.finishReason;
      if (chunk.usage) usage = chunk.usage;
    }
    return { content, model: options.model?.trim() ?? '', finishReason, metadata: {}, ...(toolCalls ? { toolCalls } : {}), ...(usage ? { usage } : {}) };
  }

  async embed(): Promise<number[][]> {
    throw new ProviderError("VS Code's language models do not make embeddings: the workspace index uses the configured provider (arbor.provider) for them.", {
      kind: 'bad_request',
      retryable: false,
      provider: VSCODE_PROVIDER_NAME,
    });
  }

  /** VS Code's models stream text and take tools; thinking is not offered through the API. */
  async modelCapabilities(): Promise<string[]> {
    return ['completion', 'tools'];
  }

  async supportsTools(): Promise<boolean> {
    return true;
  }

  /** VS Code 1.100's stable request API has text and tool parts only: images go as the text placeholder. */
  async supportsVision(): Promise<boolean> {
    return false;
  }

  /** The model's `maxInputTokens`, as VS Code reports it. */
  async contextLength(model?: string): Promise<ContextLength | undefined> {
    const chat = model ? (await this.models()).get(model.trim()) : undefined;
    return chat && chat.maxInputTokens > 0 ? { tokens: chat.maxInputTokens, maxInputTokens: chat.maxInputTokens, source: 'vscode' } : undefined;
  }

  /**
   * The meter's counter for `model`: the model's own `countTokens`, estimated until it answers (the meter
   * redraws on `onDidCountTokens`); the estimate alone for a model VS Code does not offer now.
   */
  async tokenCounter(model: string): Promise<TokenCounter> {
    const id = model.trim();
    const fallback = estimatingTokenCounter(VSCODE_PROVIDER_NAME, id);
    const chat = (await this.models()).get(id);
    if (!chat) return fallback;
    let counter = this.counters.get(id);
    if (!counter) {
      counter = new LazyTokenCounter((text) => Promise.resolve(chat.countTokens(text)), fallback, () => this._onDidCountTokens.fire(), `countTokens (${chat.name || chat.id})`);
      this.counters.set(id, counter);
    }
    return counter;
  }
}
