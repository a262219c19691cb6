/**
 * How the request options a chat keeps (`../requestOptions.ts`, stored in the conversation's metadata)
 * become one call's overrides. Pure.
 */
import type { ChatRequestOptions } from '../requestOptions';
import type { ConfigOverrides } from './managerTypes';


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
