import type { CompletionOptions } from '../llm/provider';
import type { CompleteOptions } from './managerTypes';

/** The provider options of one call: the overrides that are set, the tools, and the signal. */
export function toCompletionOptions(options: CompleteOptions): CompletionOptions {
  const out: CompletionOptions = {};
  const o = options.configOverrides ?? {};
  if (o.model !== undefined) out.model = o.model;
  if (o.temperature !== undefined) out.temperature = o.temperature;
  if (o.maxTokens !== undefined) out.maxTokens = o.maxTokens;
  if (o.topP !== undefined) out.topP = o.topP;
  if (o.stop !== undefined) out.stop = o.stop;
  if (o.seed !== undefined) out.seed = o.seed;
  if (o.think !== undefined) out.think = o.think;
  if (o.extra !== undefined && Object.keys(o.extra).length > 0) out.extra = structuredClone(o.extra);
  if (options.tools?.length) out.tools = options.tools;
  if (options.signal) out.signal = options.signal;
  return out;
}
