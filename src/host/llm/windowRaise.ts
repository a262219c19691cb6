/**
 * Raising an Ollama model's window (`num_ctx`) up to the length it was trained for: the sizes to offer,
 * what each costs in memory, the `arbor.contextLength` entry that remembers the choice for the model, and
 * whether a request that does not fit should be offered a larger window at all. No VS Code here: the
 * command (src/host/commands/windowCommands.ts) shows these in a QuickPick.
 */
import { formatMemory, kvCacheBytes, modelKey, OllamaProvider, type LLMProvider, type OllamaModelContext } from '../../core/index';
import { RoutingProvider } from './routingProvider';

/** What a model whose attention shape Ollama does not report is told about memory. */
export const UNKNOWN_MEMORY_WARNING = 'Ollama does not report what this model keeps per token: a larger window takes more memory, possibly more than this machine has.';

/** One size the picker offers. */
export interface WindowChoice {
  /** The `num_ctx` it sets. */
  tokens: number;
  /** "16,384 tokens". */
  label: string;
  /** "suggested", "trained maximum", or both. */
  description?: string;
  /** The memory it costs: "about 448 MB more memory for the KV cache (896 MB in all)", or the plain warning. */
  detail: string;
}

/** What the chat may offer when a request does not fit: the model's window now, the most it takes, and the size that fits. */
export interface WindowRaiseOffer {
  current: number;
  max: number;
  suggested: number;
  /** The extra memory of `suggested` ("about 448 MB more memory for the KV cache"); absent when Ollama does not report the facts. */
  memory?: string;
}

const number = (n: number) => n.toLocaleString('en-US');

/**
 * Sizes above `current` up to `max`: the powers of two between them (8,192, 16,384, 32,768…), then `max`
 * itself. Empty when the model cannot take more.
 */
export function windowSizes(current: number, max: number): number[] {
  const sizes: number[] = [];
  let size = 1024;
  while (size <= current) size *= 2;
  for (; size < max; size *= 2) sizes.push(size);
  if (max > current) sizes.push(max);
  return sizes;
}

/**
 * The extra memory of running the model at `tokens` in place of `current`, or `undefined` when Ollama does
 * not report the facts. "at most" for a model with sliding-window layers, which keep fewer tokens.
 */
export function extraMemoryText(model: OllamaModelContext, current: number, tokens: number): string | undefined {
  const now = kvCacheBytes(model, current);
  const then = kvCacheBytes(model, tokens);
  if (now === undefined || then === undefined) return undefined;
  return `${model.kv?.slidingWindow ? 'at most' : 'about'} ${formatMemory(then - now)} more memory for the KV cache (${formatMemory(then)} in all)`;
}

/** The picker's items for a model running at `current` tokens: each size of `windowSizes` with its memory. */
export function windowChoices(model: OllamaModelContext, current: number, suggested?: number): WindowChoice[] {
  const max = model.trainedTokens;
  if (max === undefined) return [];
  return windowSizes(current, max).map((tokens) => {
    const notes = [...(tokens === suggested ? ['suggested'] : []), ...(tokens === max ? ['trained maximum'] : [])];
    return {
      tokens,
      label: `${number(tokens)} tokens`,
      ...(notes.length > 0 ? { description: notes.join(', ') } : {}),
      detail: extraMemoryText(model, current, tokens) ?? UNKNOWN_MEMORY_WARNING,
    };
  });
}

/** The picker's title: the model, its size and quantisation where Ollama says, its window now and its trained length. */
export function windowPickTitle(model: string, facts: OllamaModelContext, current: number): string {
  const size = [facts.parameterSize, facts.quantization].filter(Boolean).join(', ');
  const trained = facts.trainedTokens !== undefined ? `; it was trained for ${number(facts.trainedTokens)}` : '';
  return `${modelKey(model)}${size ? ` (${size})` : ''} runs with a window of ${number(current)} tokens${trained}`;
}

/** The smallest size of `windowSizes` that holds `needed` tokens, else the largest. */
export function suggestedSize(current: number, max: number, needed: number): number | undefined {
  const sizes = windowSizes(current, max);
  return sizes.find((s) => s >= needed) ?? sizes.at(-1);
}

/**
 * `arbor.contextLength` with `model` set to `tokens`: other spellings of the same model (`llama3.2:latest`
 * for `llama3.2`) are replaced, so one entry remembers the choice; every other model's entry is kept.
 */
export function withContextLength(entries: Readonly<Record<string, unknown>> | undefined, model: string, tokens: number): Record<string, unknown> {
  const key = modelKey(model);
  const kept = Object.entries(entries ?? {}).filter(([name]) => modelKey(name) !== key);
  return Object.fromEntries([...kept, [key, tokens]]);
}

/** The Ollama provider that answers `model`, through the routing provider; `undefined` for any other. */
export function ollamaProviderFor(provider: LLMProvider, model: string): OllamaProvider | undefined {
  const p = provider instanceof RoutingProvider ? provider.providerFor(model) : provider;
  return p instanceof OllamaProvider ? p : undefined;
}

/**
 * Whether to offer a larger window to a request of `neededTokens` for `model`: the window now, the model's
 * trained length, the size that fits (else the largest) and its extra memory. `undefined` when the
 * provider is not Ollama, `/api/show` fails or does not say the trained length, the model already runs at
 * it, or the request fits the window it has.
 */
export async function windowRaiseOffer(provider: LLMProvider, model: string, neededTokens: number): Promise<WindowRaiseOffer | undefined> {
  const ollama = ollamaProviderFor(provider, model);
  if (!ollama) return undefined;
  const facts = await ollama.modelContext(model).catch(() => undefined);
  const max = facts?.trainedTokens;
  if (!facts || max === undefined) return undefined;
  const current = (await ollama.contextLength(model)).tokens;
  if (current >= max || neededTokens <= current) return undefined;
  const suggested = suggestedSize(current, max, neededTokens);
  if (suggested === undefined) return undefined;
  const memory = extraMemoryText(facts, current, suggested);
  return { current, max, suggested, ...(memory ? { memory } : {}) };
}
