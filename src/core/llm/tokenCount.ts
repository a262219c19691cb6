/**
 * Token counts of what is sent to a model. OpenAI models are counted exactly with `gpt-tokenizer` (pure
 * JS, the encoding loaded on first use so activation does not pay for its 1–2 MB rank tables); every other
 * model gets an estimate: an o200k_base count (or chars/4 when it cannot load), scaled by what the server
 * reported for earlier requests.
 */
import type { LLMMessage, ToolDefinition } from '../types';
import { lookupName } from './contextLength';
import { modelKey } from './modelNames';
import { estimateMessageTokens, estimateTokens, IMAGE_TOKENS } from './tokens';
import { toolsJson } from './wireTools';

/** Counts tokens of texts, messages and tool definitions for one model. */
export interface TokenCounter {
  /** True when the counts are the model's own tokenizer's, not an estimate. */
  readonly exact: boolean;
  /** How it counts: the encoding (`o200k_base`, `cl100k_base`) or `estimate`. */
  readonly method: string;
  /** Changes whenever the same input would now count differently (a calibration); caches compare it. */
  readonly revision: number;
  /** Tokens of a bare text (no message framing). */
  countText(text: string): number;
  /** Tokens of one message in the chat format: role, content, name, tool calls, images and framing. */
  countMessage(message: LLMMessage): number;
  /** Tokens of a whole request's messages, with the few tokens that prime the reply. */
  countMessages(messages: readonly LLMMessage[]): number;
  /** Tokens of the tool definitions sent with a request: the JSON of the `tools` array both wire formats carry (`toolsJson`); 0 for none. */
  countTools(tools: readonly ToolDefinition[] | undefined): number;
  /**
   * Tells the counter what the server reported (`usage.promptTokens`, Ollama `prompt_eval_count`) for a
   * request this counter counted as `estimatedPromptTokens`. An estimating counter scales its later
   * counts by the ratio; an exact one keeps its counts (they are the tokenizer's).
   */
  calibrate(estimatedPromptTokens: number, reportedPromptTokens: number): void;
}

/** Tokens OpenAI's chat format adds per message (`<|start|>role…<|message|>…<|end|>`), per the OpenAI cookbook "How to count tokens with tiktoken". */
export const CHAT_TOKENS_PER_MESSAGE = 3;
/** Tokens the cookbook adds for a message's `name`, beyond the name's own tokens. */
export const CHAT_TOKENS_PER_NAME = 1;
/** Tokens that prime the reply (`<|start|>assistant<|message|>`), once per request. */
export const CHAT_REPLY_PRIMING_TOKENS = 3;

/** The BPE encodings Arbor can count exactly. */
export type EncodingName = 'o200k_base' | 'cl100k_base';

/**
 * The encoding of an OpenAI model, by name (gpt-tokenizer's own model table and OpenAI's tiktoken
 * `model.py` agree): `o200k_base` for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, the o-series, codex and gpt-oss;
 * `cl100k_base` for gpt-4 and gpt-3.5. `undefined` for any other model (it is estimated).
 */
export function encodingForModel(model: string): EncodingName | undefined {
  const name = lookupName(model);
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|codex-mini|gpt-oss)([-.:]|$)/.test(name)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|gpt-35)(-|$)/.test(name)) return 'cl100k_base';
  return undefined;
}

interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

// Text such as "<|endoftext|>" in a message is plain text to the API, not a special token.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Exact counts with a gpt-tokenizer encoding, framed as OpenAI's chat format frames messages. */
export class ExactTokenCounter implements TokenCounter {
  readonly exact = true;
  readonly revision = 0;

  constructor(readonly method: EncodingName, private readonly encoding: Encoding) {}

  countText(text: string): number {
    return text ? this.encoding.countTokens(text, PLAIN_TEXT) : 0;
  }

  countMessage(message: LLMMessage): number {
    let tokens = CHAT_TOKENS_PER_MESSAGE + this.countText(message.role) + this.countText(message.content);
    if (message.name) tokens += this.countText(message.name) + CHAT_TOKENS_PER_NAME;
    if (message.toolCallId) tokens += this.countText(message.toolCallId);
    for (const call of message.toolCalls ?? []) {
      tokens += CHAT_TOKENS_PER_MESSAGE + this.countText(call.function.name) + this.countText(call.function.arguments);
    }
    return tokens + (message.images?.length ?? 0) * IMAGE_TOKENS;
  }

  countMessages(messages: readonly LLMMessage[]): number {
    return messages.reduce((sum, m) => sum + this.countMessage(m), CHAT_REPLY_PRIMING_TOKENS);
  }

  countTools(tools: readonly ToolDefinition[] | undefined): number {
    return tools?.length ? this.countText(toolsJson(tools)) : 0;
  }

  /** Kept as they are: the count is the tokenizer's, and a gap to the report is the server's framing. */
  calibrate(_estimatedPromptTokens: number, _reportedPromptTokens: number): void {}
}

/** Bounds of the calibration ratio: one odd report cannot halve or double the estimates beyond these. */
export const CALIBRATION_MIN = 0.5;
export const CALIBRATION_MAX = 2;
// Reports further off than this are not about the tokenizer: a prompt cut by num_ctx, or Ollama counting
// only the tokens its cache did not hold. They are ignored.
const PLAUSIBLE_MIN = 0.25;
const PLAUSIBLE_MAX = 4;
// Below this, per-message framing dominates and the ratio says little about the text.
const MIN_CALIBRATION_TOKENS = 64;

/** Counts the tokens of a bare text: the base an estimating counter scales. */
export type TextTokenCount = (text: string) => number;

/**
 * Estimates for a model whose tokenizer Arbor does not have: a base count of each text (a BPE count
 * with o200k_base when given, else chars/4 from tokens.ts) multiplied by a ratio learnt from the prompt
 * sizes the server reported: each plausible report moves the ratio halfway towards
 * `reported / raw estimate`, within 0.5–2. A BPE base follows the kind of text (prose, code, JSON
 * schemas) where one chars-per-token ratio cannot; the calibration takes up the rest of the difference.
 */
export class EstimatingTokenCounter implements TokenCounter {
  readonly exact = false;
  /** `estimate` (chars/4) or `estimate:o200k_base` (a BPE base). */
  readonly method: string;
  private _ratio = 1;
  private _revision = 0;
  private samples = 0;

  /** `base` counts a bare text before calibration (default chars/4); `baseName` names it in `method`. */
  constructor(
    private readonly base?: TextTokenCount,
    baseName?: string,
  ) {
    this.method = base ? `estimate:${baseName ?? 'bpe'}` : 'estimate';
  }

  /** The factor applied to the base count (1 until calibrated). */
  get ratio(): number {
    return this._ratio;
  }

  get revision(): number {
    return this._revision;
  }

  countText(text: string): number {
    return Math.ceil(this.raw(text) * this._ratio);
  }

  countMessage(message: LLMMessage): number {
    return Math.ceil(this.rawMessage(message) * this._ratio);
  }

  countMessages(messages: readonly LLMMessage[]): number {
    return messages.reduce((sum, m) => sum + this.countMessage(m), CHAT_REPLY_PRIMING_TOKENS);
  }

  countTools(tools: readonly ToolDefinition[] | undefined): number {
    return tools?.length ? this.countText(toolsJson(tools)) : 0;
  }

  calibrate(estimatedPromptTokens: number, reportedPromptTokens: number): void {
    if (!(estimatedPromptTokens >= MIN_CALIBRATION_TOKENS && reportedPromptTokens > 0)) return;
    const sample = reportedPromptTokens / (estimatedPromptTokens / this._ratio);
    if (!(sample >= PLAUSIBLE_MIN && sample <= PLAUSIBLE_MAX)) return;
    const next = Math.min(CALIBRATION_MAX, Math.max(CALIBRATION_MIN, this.samples++ === 0 ? sample : (this._ratio + sample) / 2));
    if (next !== this._ratio) {
      this._ratio = next;
      this._revision++;
    }
  }

  private raw(text: string): number {
    if (!text) return 0;
    return this.base ? this.base(text) : estimateTokens(text);
  }

  /** A message's base count, framed as OpenAI's chat format frames it (chars/4 keeps tokens.ts's own framing). */
  private rawMessage(message: LLMMessage): number {
    if (!this.base) return estimateMessageTokens(message);
    let tokens = CHAT_TOKENS_PER_MESSAGE + this.raw(message.role) + this.raw(message.content);
    if (message.name) tokens += this.raw(message.name) + CHAT_TOKENS_PER_NAME;
    if (message.toolCallId) tokens += this.raw(message.toolCallId);
    for (const call of message.toolCalls ?? []) tokens += CHAT_TOKENS_PER_MESSAGE + this.raw(call.function.name) + this.raw(call.function.arguments);
    return tokens + (message.images?.length ?? 0) * IMAGE_TOKENS;
  }
}

const encodings = new Map<EncodingName, Promise<ExactTokenCounter>>();
const estimators = new Map<string, EstimatingTokenCounter>();

/** Loads an encoding once (about half a second the first time; later calls share it). */
export function exactTokenCounter(encoding: EncodingName): Promise<ExactTokenCounter> {
  let loaded = encodings.get(encoding);
  if (!loaded) {
    const module = encoding === 'o200k_base' ? import('gpt-tokenizer/encoding/o200k_base') : import('gpt-tokenizer/encoding/cl100k_base');
    loaded = module.then((m) => new ExactTokenCounter(encoding, m));
    loaded.catch(() => encodings.delete(encoding));
    encodings.set(encoding, loaded);
  }
  return loaded;
}

/**
 * The estimating counter of a model, one per provider and model for the session, so its calibration
 * carries from one request to the next: on chars/4, or on `base` (an exact counter whose text counts it
 * scales; one more counter per provider and model, with a calibration of its own).
 */
export function estimatingTokenCounter(provider: string, model: string, base?: ExactTokenCounter): EstimatingTokenCounter {
  const key = `${provider}\n${modelKey(model)}${base ? `\n${base.method}` : ''}`;
  let counter = estimators.get(key);
  if (!counter) estimators.set(key, (counter = base ? new EstimatingTokenCounter((text) => base.countText(text), base.method) : new EstimatingTokenCounter()));
  return counter;
}

/**
 * The counter for a model: exact (gpt-tokenizer) for OpenAI models whose encoding is known, else the
 * model's calibrated estimate on an o200k_base count (Ollama models' own tokenizers are not in JS here),
 * or on chars/4 when that encoding cannot load.
 */
export async function tokenCounterFor(provider: 'openai' | 'ollama', model: string): Promise<TokenCounter> {
  const encoding = provider === 'openai' ? encodingForModel(model) : undefined;
  if (encoding) return exactTokenCounter(encoding);
  let base: ExactTokenCounter | undefined;
  try {
    base = await exactTokenCounter('o200k_base');
  } catch {
    // The rank tables did not load: chars/4 still gives a calibrated estimate.
  }
  return estimatingTokenCounter(provider, model, base);
}
