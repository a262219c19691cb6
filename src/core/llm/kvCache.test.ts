import { describe, expect, it } from 'vitest';
import { parseOllamaShow } from './contextLength';
import { formatMemory, kvCacheBytes, kvCacheBytesPerToken, parseKvCacheFacts } from './kvCache';

// `/api/show` answers shaped as Ollama sends them (the GGUF's keys under `model_info`, `details` from the
// manifest), cut to the keys that matter here plus a few that must be ignored.
const llama32 = {
  parameters: 'stop                           "<|start_header_id|>"\nstop                           "<|eot_id|>"',
  details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
  model_info: {
    'general.architecture': 'llama',
    'general.parameter_count': 3_212_749_888,
    'llama.attention.head_count': 24,
    'llama.attention.head_count_kv': 8,
    'llama.attention.key_length': 128,
    'llama.attention.value_length': 128,
    'llama.attention.layer_norm_rms_epsilon': 0.00001,
    'llama.block_count': 28,
    'llama.context_length': 131_072,
    'llama.embedding_length': 3072,
    'llama.feed_forward_length': 8192,
    'llama.rope.dimension_count': 128,
    'llama.vocab_size': 128_256,
  },
  capabilities: ['completion', 'tools'],
};

// No key_length: the head size is embedding_length / head_count (3584 / 28 = 128).
const qwen25 = {
  parameters: 'stop                           "<|im_start|>"\nstop                           "<|im_end|>"',
  details: { parent_model: '', format: 'gguf', family: 'qwen2', families: ['qwen2'], parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
  model_info: {
    'general.architecture': 'qwen2',
    'qwen2.attention.head_count': 28,
    'qwen2.attention.head_count_kv': 4,
    'qwen2.attention.layer_norm_rms_epsilon': 0.000001,
    'qwen2.block_count': 28,
    'qwen2.context_length': 32_768,
    'qwen2.embedding_length': 3584,
    'qwen2.feed_forward_length': 18_944,
    'qwen2.rope.freq_base': 1_000_000,
  },
};

// key_length (256) is not embedding_length / head_count (2560 / 8 = 320); sliding-window layers.
const gemma3 = {
  parameters: 'stop                           "<end_of_turn>"\ntemperature                    1\ntop_k                          64',
  details: { parent_model: '', format: 'gguf', family: 'gemma3', families: ['gemma3'], parameter_size: '4.3B', quantization_level: 'Q4_K_M' },
  model_info: {
    'general.architecture': 'gemma3',
    'gemma3.attention.head_count': 8,
    'gemma3.attention.head_count_kv': 4,
    'gemma3.attention.key_length': 256,
    'gemma3.attention.value_length': 256,
    'gemma3.attention.sliding_window': 1024,
    'gemma3.block_count': 34,
    'gemma3.context_length': 131_072,
    'gemma3.embedding_length': 2560,
    'gemma3.vision.block_count': 27,
    'gemma3.vision.attention.head_count': 16,
  },
};

describe('the KV cache of an Ollama model', () => {
  it('reads the attention shape, size and quantisation from /api/show', () => {
    expect(parseOllamaShow(llama32)).toEqual({
      trainedTokens: 131_072,
      capabilities: ['completion', 'tools'],
      kv: { layers: 28, heads: 24, kvHeads: 8, embeddingLength: 3072, keyLength: 128, valueLength: 128 },
      parameterSize: '3.2B',
      quantization: 'Q4_K_M',
    });
    expect(parseOllamaShow(qwen25).kv).toEqual({ layers: 28, heads: 28, kvHeads: 4, embeddingLength: 3584 });
    // The vision tower's keys (`gemma3.vision.*`) are not the text model's.
    expect(parseOllamaShow(gemma3).kv).toEqual({ layers: 34, heads: 8, kvHeads: 4, embeddingLength: 2560, keyLength: 256, valueLength: 256, slidingWindow: 1024 });
  });

  it('finds the architecture from the context length key when general.architecture is missing', () => {
    const info = { 'qwen2.context_length': 32_768, 'qwen2.block_count': 28, 'qwen2.attention.head_count': 28, 'qwen2.attention.head_count_kv': 4, 'qwen2.embedding_length': 3584 };
    expect(kvCacheBytesPerToken(parseOllamaShow({ model_info: info }).kv)).toBe(57_344);
  });

  it('is 2 × layers × KV heads × head size × 2 bytes per token', () => {
    // 2 × 28 × 8 × 128 × 2 = 114,688 bytes: 4,096 tokens take 448 MB.
    expect(kvCacheBytes(parseOllamaShow(llama32), 1)).toBe(114_688);
    expect(kvCacheBytes(parseOllamaShow(llama32), 4096)).toBe(448 * 1024 ** 2);
    expect(kvCacheBytes(parseOllamaShow(qwen25), 32_768)).toBe(2 * 28 * 4 * 128 * 2 * 32_768);
    expect(kvCacheBytes(parseOllamaShow(gemma3), 8192)).toBe(2 * 34 * 4 * 256 * 2 * 8192);
  });

  it('is undefined when a fact is missing, and treats a missing head_count_kv as llama.cpp does', () => {
    const without = (key: string) => parseOllamaShow({ model_info: Object.fromEntries(Object.entries(qwen25.model_info).filter(([k]) => k !== key)) });
    expect(kvCacheBytes(without('qwen2.block_count'), 4096)).toBeUndefined();
    expect(kvCacheBytes(without('qwen2.embedding_length'), 4096)).toBeUndefined();
    expect(kvCacheBytes(without('qwen2.attention.head_count'), 4096)).toBeUndefined();
    // No head_count_kv: one KV head per head (no grouped-query attention), 7 × as many as qwen2.5's 4.
    expect(kvCacheBytes(without('qwen2.attention.head_count_kv'), 1)).toBe(2 * 28 * 28 * 128 * 2);
    expect(kvCacheBytes(undefined, 4096)).toBeUndefined();
    expect(kvCacheBytes(parseOllamaShow({ model_info: { 'general.architecture': 'llama', 'llama.context_length': 8192 } }), 4096)).toBeUndefined();
    // A head size that does not divide is not a model's shape.
    expect(kvCacheBytesPerToken({ layers: 2, heads: 3, embeddingLength: 100 })).toBeUndefined();
    // A file claiming absurdly many layers is multiplied, not walked.
    expect(kvCacheBytesPerToken({ layers: 1e12, heads: 1, kvHeads: 1, keyLength: 1 })).toBe(4e12);
  });

  it('sums per-layer KV head counts, skipping layers without attention, and refuses a list of the wrong length', () => {
    const info = { 'general.architecture': 'mix', 'mix.context_length': 8192, 'mix.block_count': 3, 'mix.attention.head_count': [8, 8, 8], 'mix.attention.head_count_kv': [2, 0, 4], 'mix.embedding_length': 1024 };
    expect(kvCacheBytesPerToken(parseKvCacheFacts(info, 'mix'))).toBe((2 + 4) * 256 * 2);
    expect(kvCacheBytesPerToken(parseKvCacheFacts({ ...info, 'mix.attention.head_count_kv': [2, 4] }, 'mix'))).toBeUndefined();
    expect(parseKvCacheFacts({ ...info, 'mix.attention.head_count_kv': ['2'] }, 'mix').kvHeads).toBeUndefined();
  });

  it('keeps details short and plain, and ignores other types', () => {
    expect(parseOllamaShow({ details: { parameter_size: 'x'.repeat(200), quantization_level: 'Q4 <b>' } })).toEqual({});
    expect(parseOllamaShow({ details: { parameter_size: 7, quantization_level: null } })).toEqual({});
  });

  it('writes memory as people read it', () => {
    expect(formatMemory(448 * 1024 ** 2)).toBe('448 MB');
    expect(formatMemory(14 * 1024 ** 3)).toBe('14 GB');
    expect(formatMemory(1.75 * 1024 ** 3)).toBe('1.8 GB');
    expect(formatMemory(512 * 1024)).toBe('512 KB');
  });
});
