/**
 * How many tokens a model can take in one request. OpenAI-compatible models: the user's
 * `arbor.contextLength` entry, else a table of OpenAI's models. Ollama models: the `num_ctx` Arbor sends
 * (Ollama cuts the front off a longer prompt without an error), chosen from the settings and the model's
 * `/api/show` answer. Unknown is `undefined`, never 0. Pure: the Ollama provider does the asking.
 */
import { parseKvCacheFacts, type KvCacheFacts } from './kvCache';
import { modelKey } from './modelNames';

/** Where a context length came from, for the meter's tooltip. */
export type ContextLengthSource =
  /** `arbor.contextLength` for this model, or `arbor.ollama.numCtx`. */
  | 'setting'
  /** Arbor's table of OpenAI models. */
  | 'table'
  /** The Ollama model's own `num_ctx` parameter (its Modelfile's `PARAMETER num_ctx`). */
  | 'model'
  /** Neither the settings nor the model name one: Ollama's default (`OLLAMA_DEFAULT_NUM_CTX`). */
  | 'default'
  /** VS Code's `maxInputTokens` of one of its language models. */
  | 'vscode';

/** A model's context length as Arbor uses it: the most tokens of prompt plus answer in one request. */
export interface ContextLength {
  tokens: number;
  /** Most prompt tokens, where the API caps the prompt below `tokens` (gpt-5: 272 000 of 400 000). */
  maxInputTokens?: number;
  source: ContextLengthSource;
  /** Ollama: the longest context the model was trained for (`<arch>.context_length`), when it says. */
  trainedTokens?: number;
  /** Ollama: true when the setting or model asked for more than `trainedTokens` and was cut to it. */
  capped?: boolean;
}

/** Per-model overrides, as in `arbor.contextLength`: model name → tokens. */
export type ContextLengthOverrides = Readonly<Record<string, number>>;

interface TableEntry {
  tokens: number;
  maxInputTokens?: number;
}

/**
 * Context windows of OpenAI's chat models, from OpenAI's model pages (platform.openai.com/docs/models/<id>,
 * "Context window" and "Max input tokens"), as catalogued in gpt-tokenizer 4.0.0's `models.gen.ts`
 * (checked against it by contextLength.test.ts). A name matches its own entry or the longest entry it
 * extends with `-…` (dated snapshots such as `gpt-4o-2024-08-06`), so `gpt-5.9` is unknown, not `gpt-5`.
 */
export const OPENAI_CONTEXT_LENGTHS: Readonly<Record<string, TableEntry>> = {
  'gpt-3.5-turbo': { tokens: 16_385 },
  'gpt-3.5-turbo-instruct': { tokens: 4_096 },
  'gpt-4': { tokens: 8_192 },
  'gpt-4-turbo': { tokens: 128_000 },
  'gpt-4-0125-preview': { tokens: 128_000 },
  'gpt-4-1106-preview': { tokens: 128_000 },
  'gpt-4-1106-vision-preview': { tokens: 128_000 },
  'gpt-4o': { tokens: 128_000 },
  'gpt-4o-mini': { tokens: 128_000 },
  'chatgpt-4o-latest': { tokens: 128_000 },
  'gpt-4.1': { tokens: 1_047_576 },
  'gpt-4.1-mini': { tokens: 1_047_576 },
  'gpt-4.1-nano': { tokens: 1_047_576 },
  'gpt-4.5-preview': { tokens: 128_000 },
  o1: { tokens: 200_000 },
  'o1-mini': { tokens: 128_000 },
  'o1-preview': { tokens: 128_000 },
  'o1-pro': { tokens: 200_000 },
  o3: { tokens: 200_000 },
  'o3-mini': { tokens: 200_000 },
  'o3-pro': { tokens: 200_000 },
  'o4-mini': { tokens: 200_000 },
  'codex-mini-latest': { tokens: 200_000 },
  'gpt-5': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5-mini': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5-nano': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5-codex': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5-pro': { tokens: 400_000 },
  'gpt-5-chat-latest': { tokens: 128_000 },
  'gpt-5.1': { tokens: 400_000 },
  'gpt-5.1-codex': { tokens: 400_000 },
  'gpt-5.1-chat-latest': { tokens: 128_000 },
  'gpt-5.2': { tokens: 400_000 },
  'gpt-5.2-codex': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5.2-chat-latest': { tokens: 128_000 },
  'gpt-5.3-codex': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5.3-chat-latest': { tokens: 128_000 },
  'gpt-5.4': { tokens: 1_050_000 },
  'gpt-5.4-mini': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5.4-nano': { tokens: 400_000, maxInputTokens: 272_000 },
  'gpt-5.5': { tokens: 1_050_000 },
  'gpt-oss-120b': { tokens: 131_072 },
  'gpt-oss-20b': { tokens: 131_072 },
};

/**
 * Ollama's context length when neither the request nor the model sets one, on a machine with under
 * 24 GiB of VRAM (Ollama's docs/context-length.mdx: "< 24 GiB VRAM: 4k context"; older releases used 2048).
 * Arbor sends it when nothing else is known, so what Arbor assumes is what Ollama runs.
 */
export const OLLAMA_DEFAULT_NUM_CTX = 4096;

/** The name a table or override is looked up by: lower case, without a `provider/` prefix or Ollama's `:latest`. */
export function lookupName(model: string): string {
  const key = modelKey(model).toLowerCase();
  const slash = key.lastIndexOf('/');
  return slash >= 0 ? key.slice(slash + 1) : key;
}

/** The entry `name` matches exactly, else the longest key it extends with `-` (a dated or variant name). */
function longestMatch<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  if (Object.hasOwn(table, name)) return table[name];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (name.startsWith(`${key}-`) && (!best || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * The user's override for `model` from `arbor.contextLength`: an exact name first (`llama3.2` and
 * `llama3.2:latest` are one), then case-insensitively, ignoring a `provider/` prefix. Undefined when none
 * is set or the value is not a positive number.
 */
export function contextLengthOverride(model: string, overrides: ContextLengthOverrides | undefined): number | undefined {
  if (!overrides) return undefined;
  const valid = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);
  for (const [key, value] of Object.entries(overrides)) if (modelKey(key) === modelKey(model)) return valid(value);
  const name = lookupName(model);
  for (const [key, value] of Object.entries(overrides)) if (lookupName(key) === name) return valid(value);
  return undefined;
}

/**
 * The context length of a model behind an OpenAI-compatible API: the override from `arbor.contextLength`,
 * else `OPENAI_CONTEXT_LENGTHS` (dated variants included), else `undefined` (a local model Arbor cannot know).
 */
export function openAIContextLength(model: string, overrides?: ContextLengthOverrides): ContextLength | undefined {
  const override = contextLengthOverride(model, overrides);
  if (override !== undefined) return { tokens: override, source: 'setting' };
  const entry = longestMatch(OPENAI_CONTEXT_LENGTHS, lookupName(model));
  return entry ? { ...entry, source: 'table' } : undefined;
}

/** What an Ollama model says about its context in `/api/show`. */
export interface OllamaModelContext {
  /** `model_info["<arch>.context_length"]`: the longest context the model was trained for. */
  trainedTokens?: number;
  /** `num_ctx` in `parameters`: what its Modelfile asks Ollama to run it with. */
  numCtx?: number;
  /** `capabilities`: what the model can do (`completion`, `tools`, `thinking`, `vision`…); absent from older Ollama. */
  capabilities?: string[];
  /** The attention shape from `model_info`, for the memory a larger `num_ctx` takes (see `kvCacheBytes`); only the keys reported. */
  kv?: KvCacheFacts;
  /** `details.parameter_size`, e.g. "3.2B". */
  parameterSize?: string;
  /** `details.quantization_level`, e.g. "Q4_K_M". */
  quantization?: string;
}

/** The parts of an `/api/show` answer read here (`model_info` is a plain object on the wire, a `Map` in the package's types). */
export interface OllamaShowLike {
  model_info?: Map<string, unknown> | Record<string, unknown> | null;
  parameters?: string | null;
  capabilities?: unknown;
  details?: { parameter_size?: unknown; quantization_level?: unknown } | null;
}

function positiveInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/** A short label from the model's own details, or `undefined` (a model's files can say anything: kept short and plain). */
function detail(value: unknown): string | undefined {
  return typeof value === 'string' && /^[\w.+-]{1,24}$/.test(value.trim()) ? value.trim() : undefined;
}

/**
 * Reads an `/api/show` answer: the trained length from any `model_info` key ending in `.context_length`
 * (the architecture's prefix varies: `llama.`, `qwen2.`, `gemma3.`…; `general.architecture` names it and
 * is preferred), `num_ctx` from the `parameters` text (lines of `name value`), the `capabilities` list, the
 * attention shape under the same prefix (`kv`), and `details.parameter_size` / `quantization_level`.
 */
export function parseOllamaShow(show: OllamaShowLike): OllamaModelContext {
  const info = show.model_info instanceof Map ? Object.fromEntries(show.model_info) : (show.model_info ?? {});
  let arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
  let trainedTokens = arch ? positiveInt(info[`${arch}.context_length`]) : undefined;
  if (trainedTokens === undefined) {
    for (const [key, value] of Object.entries(info)) {
      if (key.endsWith('.context_length') && (trainedTokens = positiveInt(value)) !== undefined) {
        arch = key.slice(0, -'.context_length'.length);
        break;
      }
    }
  }
  const match = /^\s*num_ctx\s+(\S+)\s*$/m.exec(show.parameters ?? '');
  const numCtx = match ? positiveInt(match[1]) : undefined;
  const capabilities = Array.isArray(show.capabilities) ? show.capabilities.filter((c): c is string => typeof c === 'string') : undefined;
  const kv = arch ? parseKvCacheFacts(info, arch) : {};
  const parameterSize = detail(show.details?.parameter_size);
  const quantization = detail(show.details?.quantization_level);
  return {
    ...(trainedTokens !== undefined ? { trainedTokens } : {}),
    ...(numCtx !== undefined ? { numCtx } : {}),
    ...(capabilities ? { capabilities } : {}),
    ...(Object.keys(kv).length > 0 ? { kv } : {}),
    ...(parameterSize ? { parameterSize } : {}),
    ...(quantization ? { quantization } : {}),
  };
}

/**
 * The `num_ctx` Arbor sends Ollama for a model, which is also the context length the rest of Arbor uses:
 * 1. the user's number (`arbor.contextLength` for this model, else `arbor.ollama.numCtx` when above 0);
 * 2. else the model's own `num_ctx` parameter;
 * 3. else `OLLAMA_DEFAULT_NUM_CTX`;
 * never above the model's trained length (past it the model's answers degrade; Ollama would allocate
 * memory for context the model cannot use). `model` is `undefined` when `/api/show` could not be read.
 */
export function ollamaContextLength(model: OllamaModelContext | undefined, requested: number | undefined): ContextLength {
  const asked = requested !== undefined && requested > 0 ? Math.floor(requested) : undefined;
  const [wanted, source]: [number, ContextLengthSource] =
    asked !== undefined ? [asked, 'setting'] : model?.numCtx !== undefined ? [model.numCtx, 'model'] : [OLLAMA_DEFAULT_NUM_CTX, 'default'];
  const trained = model?.trainedTokens;
  const capped = trained !== undefined && wanted > trained;
  return {
    tokens: capped ? trained : wanted,
    source,
    ...(trained !== undefined ? { trainedTokens: trained } : {}),
    ...(capped ? { capped } : {}),
  };
}

/**
 * Answers of `/api/show`, read once per model: concurrent asks share one request, and a failed ask is
 * forgotten so the next one tries again (a model pulled later, Ollama started later).
 */
export class OllamaShowCache {
  private readonly known = new Map<string, OllamaModelContext>();
  private readonly pending = new Map<string, Promise<OllamaModelContext>>();

  /** The model's context facts; `ask` runs only when they are not cached or being fetched. */
  get(model: string, ask: () => Promise<OllamaShowLike>): Promise<OllamaModelContext> {
    const key = modelKey(model);
    const known = this.known.get(key);
    if (known) return Promise.resolve(known);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = ask().then(
        (show) => {
          const parsed = parseOllamaShow(show);
          this.known.set(key, parsed);
          return parsed;
        },
      ).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** The cached facts of a model, without asking. */
  peek(model: string): OllamaModelContext | undefined {
    return this.known.get(modelKey(model));
  }

  /** Forgets every model (e.g. after `ollama create` changed one). */
  clear(): void {
    this.known.clear();
  }
}
