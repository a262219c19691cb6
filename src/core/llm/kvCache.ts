/**
 * What a larger Ollama context costs in memory. Every token of `num_ctx` gets room in the KV cache of
 * every attention layer, allocated when the model loads, so raising `num_ctx` grows the memory the model
 * takes whether or not a request uses it. The facts come from `/api/show`'s `model_info` (the GGUF's own
 * keys, prefixed by the architecture); a model that does not report them gets `undefined`, never a guess.
 * Pure.
 */

/**
 * Bytes of one cached K or V element. Ollama keeps the KV cache in f16 unless `OLLAMA_KV_CACHE_TYPE` says
 * `q8_0` or `q4_0` (Ollama's FAQ, "How can I set the quantization type for the K/V cache?": "f16 - high
 * precision and memory usage (default)"); a server set to those uses a half or a quarter of what is shown.
 */
export const KV_CACHE_BYTES_PER_ELEMENT = 2;

/** The attention shape of an Ollama model, as `/api/show` reports it; what the KV cache's size follows. */
export interface KvCacheFacts {
  /** `<arch>.block_count`: the layers. */
  layers?: number;
  /** `<arch>.attention.head_count`: query heads (per layer when the model lists one per layer). */
  heads?: number | number[];
  /** `<arch>.attention.head_count_kv`: key/value heads, fewer than `heads` with grouped-query attention. */
  kvHeads?: number | number[];
  /** `<arch>.embedding_length`: the hidden size; over `heads` it is the head size when no key length is given. */
  embeddingLength?: number;
  /** `<arch>.attention.key_length`: the size of one key head, where it is not embedding / heads (gemma3: 256). */
  keyLength?: number;
  /** `<arch>.attention.value_length`: the size of one value head. */
  valueLength?: number;
  /** `<arch>.attention.sliding_window`: layers that attend to this many tokens only (gemma3), so they need less. */
  slidingWindow?: number;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

/** A count given once for the model or once per layer (a per-layer list may hold 0: a layer with no attention). */
function perLayer(value: unknown): number | number[] | undefined {
  if (Array.isArray(value)) {
    const counts = value.map((v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : NaN));
    return counts.length > 0 && counts.every((c) => !Number.isNaN(c)) && counts.some((c) => c > 0) ? counts : undefined;
  }
  return positive(value);
}

/** Reads the attention facts of architecture `arch` from a `model_info` object; only the keys present are set. */
export function parseKvCacheFacts(info: Readonly<Record<string, unknown>>, arch: string): KvCacheFacts {
  const facts: KvCacheFacts = {
    layers: positive(info[`${arch}.block_count`]),
    heads: perLayer(info[`${arch}.attention.head_count`]),
    kvHeads: perLayer(info[`${arch}.attention.head_count_kv`]),
    embeddingLength: positive(info[`${arch}.embedding_length`]),
    keyLength: positive(info[`${arch}.attention.key_length`]),
    valueLength: positive(info[`${arch}.attention.value_length`]),
    slidingWindow: positive(info[`${arch}.attention.sliding_window`]),
  };
  return Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== undefined)) as KvCacheFacts;
}

/** The value of a count for layer `i`. */
function at(count: number | number[], i: number): number {
  return Array.isArray(count) ? (count[i] ?? 0) : count;
}

/**
 * Bytes of K and V cache per token of context: over the layers, K and V heads × their sizes × 2 bytes
 * (f16). As llama.cpp reads a GGUF, a model without `head_count_kv` has as many KV heads as heads, and a
 * head's size is `embedding_length / head_count` unless `key_length` / `value_length` say. `undefined`
 * when the layers, the heads, or the head size are not reported.
 */
export function kvCacheBytesPerToken(facts: KvCacheFacts | undefined): number | undefined {
  const layers = facts?.layers;
  const kvHeads = facts?.kvHeads ?? facts?.heads;
  if (!facts || layers === undefined || kvHeads === undefined) return undefined;
  const lists = [kvHeads, facts.heads].filter((c): c is number[] => Array.isArray(c));
  if (lists.some((list) => list.length !== layers)) return undefined;
  const layerBytes = (i: number): number | undefined => {
    const kv = at(kvHeads, i);
    if (kv === 0) return 0;
    const heads = facts.heads === undefined ? undefined : at(facts.heads, i);
    const headSize = facts.embeddingLength !== undefined && heads ? facts.embeddingLength / heads : undefined;
    const keySize = facts.keyLength ?? headSize;
    const valueSize = facts.valueLength ?? keySize;
    if (keySize === undefined || valueSize === undefined || !Number.isInteger(keySize) || !Number.isInteger(valueSize)) return undefined;
    return kv * (keySize + valueSize) * KV_CACHE_BYTES_PER_ELEMENT;
  };
  // Every layer alike: one multiplication, whatever `block_count` a model's file claims.
  if (lists.length === 0) {
    const one = layerBytes(0);
    return one === undefined ? undefined : one * layers;
  }
  // Per-layer lists: as many layers as the lists are long (already in memory).
  let total = 0;
  for (let i = 0; i < layers; i++) {
    const bytes = layerBytes(i);
    if (bytes === undefined) return undefined;
    total += bytes;
  }
  return total > 0 ? total : undefined;
}

/**
 * Bytes of KV cache a model takes at `tokens` of context (`num_ctx`): 2 (K and V) × layers × KV heads ×
 * head size × 2 bytes (f16, Ollama's default) × tokens. `undefined` when `/api/show` did not report the
 * facts. Counted over every layer, so for a sliding-window model (`slidingWindow` set) it is an upper bound;
 * a server running several requests at once (`OLLAMA_NUM_PARALLEL`) keeps one such context for each.
 */
export function kvCacheBytes(model: { kv?: KvCacheFacts } | undefined, tokens: number): number | undefined {
  const perToken = kvCacheBytesPerToken(model?.kv);
  return perToken === undefined || !(tokens >= 0) ? undefined : perToken * Math.floor(tokens);
}

/** A memory size as people read one: "448 MB", "1.8 GB" (of 1024² and 1024³ bytes, as memory is sold). */
export function formatMemory(bytes: number): string {
  const mb = bytes / 1024 ** 2;
  if (mb >= 1024) return `${(mb / 1024).toFixed(1).replace(/\.0$/, '')} GB`;
  if (mb >= 1) return `${Math.round(mb)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
