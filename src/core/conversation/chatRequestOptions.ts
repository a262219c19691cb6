/**
 * The request options a chat keeps for its answers (temperature, maximum output tokens, thinking), as
 * stored in the conversation's metadata, and how they become one call's overrides. Pure.
 */
import type { CompletionOptions } from '../llm/provider';
import type { ConfigOverrides } from './managerTypes';

/** How much a reasoning model should think: off, on, or a level (`reasoning_effort` on OpenAI-compatible servers). */
export type ThinkSetting = NonNullable<CompletionOptions['think']>;

/** The options a chat sends with each request; a field left out is not sent (the server's default applies). */
export interface ChatRequestOptions {
  /** Sampling temperature, 0–2. */
  temperature?: number;
  /** Most tokens of one answer (`max_tokens`/`max_completion_tokens`, Ollama's `num_predict`). */
  maxTokens?: number;
  /** Ollama's `think`; a level is also OpenAI's `reasoning_effort`. */
  think?: ThinkSetting;
}

/** Highest temperature accepted (OpenAI's range is 0–2; Ollama takes the same). */
export const MAX_TEMPERATURE = 2;

const THINK_LEVELS: readonly ThinkSetting[] = [true, false, 'low', 'medium', 'high'];

/** Whether `value` is a think setting Arbor sends. */
export function isThinkSetting(value: unknown): value is ThinkSetting {
  return THINK_LEVELS.includes(value as ThinkSetting);
}

/**
 * Reads request options from stored or posted JSON, keeping only the fields that have a valid value
 * (a temperature in 0–2, a whole number of tokens ≥ 1, a known think setting); `undefined` when it is not an object.
 */
export function parseChatRequestOptions(value: unknown): ChatRequestOptions | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const out: ChatRequestOptions = {};
  if (typeof v.temperature === 'number' && Number.isFinite(v.temperature) && v.temperature >= 0 && v.temperature <= MAX_TEMPERATURE) out.temperature = v.temperature;
  if (typeof v.maxTokens === 'number' && Number.isInteger(v.maxTokens) && v.maxTokens >= 1) out.maxTokens = v.maxTokens;
  if (isThinkSetting(v.think)) out.think = v.think;
  return out;
}

/** What the provider reports about thinking for the chat's model. */
export type ThinkingSupport =
  /** Ollama says the model thinks (`show` lists the `thinking` capability): `think` is sent. */
  | 'supported'
  /** Ollama says the model does not: `think` is left out (Ollama refuses it for such models). */
  | 'unsupported'
  /** The server does not say (OpenAI-compatible APIs): a level is sent as `reasoning_effort`; the server may refuse it. */
  | 'unknown';

/**
 * One call's overrides from the chat's options: the model, its temperature and token cap, the think
 * setting when the model can take it, and the provider-specific extras (`arbor.requestOptions`).
 */
export function requestOverrides(
  model: string,
  options: ChatRequestOptions,
  thinking: ThinkingSupport,
  extra: Readonly<Record<string, unknown>> = {},
): ConfigOverrides {
  const out: ConfigOverrides = { model };
  if (options.temperature !== undefined) out.temperature = options.temperature;
  if (options.maxTokens !== undefined) out.maxTokens = options.maxTokens;
  if (options.think !== undefined && thinking !== 'unsupported') out.think = options.think;
  if (Object.keys(extra).length > 0) out.extra = structuredClone({ ...extra });
  return out;
}
