import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  contextLengthOverride,
  OLLAMA_DEFAULT_NUM_CTX,
  ollamaContextLength,
  OllamaShowCache,
  OPENAI_CONTEXT_LENGTHS,
  openAIContextLength,
  parseOllamaShow,
} from './contextLength';

describe('OpenAI context lengths', () => {
  it('knows the common models and their dated snapshots, and nothing it was not told', () => {
    expect(openAIContextLength('gpt-4o')).toEqual({ tokens: 128_000, source: 'table' });
    expect(openAIContextLength('gpt-4o-2024-08-06')?.tokens).toBe(128_000);
    expect(openAIContextLength('gpt-4o-mini-2024-07-18')?.tokens).toBe(128_000);
    expect(openAIContextLength('gpt-4.1-nano-2025-04-14')?.tokens).toBe(1_047_576);
    expect(openAIContextLength('gpt-4-0613')?.tokens).toBe(8_192);
    expect(openAIContextLength('gpt-4-turbo-2024-04-09')?.tokens).toBe(128_000);
    expect(openAIContextLength('o1-mini')?.tokens).toBe(128_000);
    expect(openAIContextLength('o3-mini-2025-01-31')?.tokens).toBe(200_000);
    expect(openAIContextLength('gpt-5-mini')).toEqual({ tokens: 400_000, maxInputTokens: 272_000, source: 'table' });
    expect(openAIContextLength('gpt-5-chat-latest')?.tokens).toBe(128_000);
    expect(openAIContextLength('gpt-3.5-turbo-0125')?.tokens).toBe(16_385);
    expect(openAIContextLength('OpenAI/GPT-4o')?.tokens).toBe(128_000);
    // A newer family is unknown, not its older sibling's number; local models are unknown.
    expect(openAIContextLength('gpt-5.9')).toBeUndefined();
    expect(openAIContextLength('gpt-4oo')).toBeUndefined();
    expect(openAIContextLength('qwen2.5-coder-7b-instruct')).toBeUndefined();
  });

  it('lets arbor.contextLength override the table and name unknown models', () => {
    expect(openAIContextLength('gpt-4o', { 'gpt-4o': 64_000 })).toEqual({ tokens: 64_000, source: 'setting' });
    expect(openAIContextLength('qwen2.5-coder-7b-instruct', { 'Qwen2.5-Coder-7B-Instruct': 32_768 })).toEqual({ tokens: 32_768, source: 'setting' });
    expect(openAIContextLength('gpt-4o', { 'gpt-4o': 0 })?.source).toBe('table');
    expect(contextLengthOverride('llama3.2:latest', { 'llama3.2': 8_000 })).toBe(8_000);
    expect(contextLengthOverride('llama3.2', { 'llama3.2:1b': 8_000 })).toBeUndefined();
    expect(contextLengthOverride('m', { m: -5 })).toBeUndefined();
  });

  it('agrees with the model catalogue shipped in gpt-tokenizer for every model in the table', () => {
    const catalogue = createRequire(import.meta.url)('gpt-tokenizer/cjs/models.gen') as Record<string, { context_window?: number; max_input_tokens?: number }>;
    const checked: string[] = [];
    for (const [model, entry] of Object.entries(OPENAI_CONTEXT_LENGTHS)) {
      const spec = catalogue[model];
      if (!spec?.context_window) continue;
      checked.push(model);
      expect({ model, tokens: entry.tokens }).toEqual({ model, tokens: spec.context_window });
      if (spec.max_input_tokens && spec.max_input_tokens < spec.context_window) expect({ model, max: entry.maxInputTokens }).toEqual({ model, max: spec.max_input_tokens });
    }
    expect(checked.length).toBeGreaterThan(30);
  });
});

describe('Ollama context lengths', () => {
  it('reads the trained length under the architecture\'s key, any *.context_length, and num_ctx from parameters', () => {
    expect(parseOllamaShow({
      model_info: { 'general.architecture': 'llama', 'llama.context_length': 131_072, 'llama.vision.context_length': 999 },
      parameters: 'stop                           "<|start_header_id|>"\nnum_ctx                        8192\ntemperature 0.6',
    })).toEqual({ trainedTokens: 131_072, numCtx: 8_192 });
    expect(parseOllamaShow({ model_info: new Map<string, unknown>([['gemma3.context_length', 32_768]]), parameters: '' })).toEqual({ trainedTokens: 32_768 });
    expect(parseOllamaShow({ model_info: { 'qwen3.context_length': '40960' } })).toEqual({ trainedTokens: 40_960 });
    expect(parseOllamaShow({ model_info: null, parameters: 'num_ctx_extra 5\nnum_ctx abc' })).toEqual({});
  });

  it('chooses num_ctx: the setting, else the model\'s own, else Ollama\'s default; never above the trained length', () => {
    expect(ollamaContextLength({ trainedTokens: 131_072, numCtx: 8_192 }, 32_000)).toEqual({ tokens: 32_000, source: 'setting', trainedTokens: 131_072 });
    expect(ollamaContextLength({ trainedTokens: 131_072, numCtx: 8_192 }, 0)).toEqual({ tokens: 8_192, source: 'model', trainedTokens: 131_072 });
    expect(ollamaContextLength({ trainedTokens: 131_072 }, undefined)).toEqual({ tokens: OLLAMA_DEFAULT_NUM_CTX, source: 'default', trainedTokens: 131_072 });
    expect(ollamaContextLength({ trainedTokens: 2_048 }, undefined)).toEqual({ tokens: 2_048, source: 'default', trainedTokens: 2_048, capped: true });
    expect(ollamaContextLength(undefined, 50_000)).toEqual({ tokens: 50_000, source: 'setting' });
    expect(ollamaContextLength(undefined, undefined)).toEqual({ tokens: OLLAMA_DEFAULT_NUM_CTX, source: 'default' });
  });

  it('caches /api/show per model, shares one request between concurrent asks, and forgets failures', async () => {
    const cache = new OllamaShowCache();
    let asks = 0;
    const ask = () => {
      asks++;
      return Promise.resolve({ model_info: { 'llama.context_length': 4_096 } });
    };
    const [a, b] = await Promise.all([cache.get('m', ask), cache.get('m:latest', ask)]);
    expect(a).toEqual({ trainedTokens: 4_096 });
    expect(b).toBe(a);
    expect(asks).toBe(1);
    await expect(cache.get('other', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.peek('other')).toBeUndefined();
    expect(await cache.get('other', ask)).toEqual({ trainedTokens: 4_096 });
    expect(asks).toBe(2);
  });
});
