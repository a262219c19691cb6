/**
 * The request options a chat keeps for its answers (temperature, maximum output tokens, thinking), as
 * stored in the conversation's metadata, and their reader. At the core's root beside `metadataKeys.ts`,
 * which reads them; how they become one call's overrides is `conversation/chatRequestOptions.ts`. Pure.
 */

/** How much a reasoning model should think: off, on, or a level (`reasoning_effort` on OpenAI-compatible servers). */
export type ThinkSetting = boolean | 'low' | 'medium' | 'high';

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
