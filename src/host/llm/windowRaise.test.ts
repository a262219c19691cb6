import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OllamaProvider, OpenAIProvider } from '../../core/index';
import { FakeLlmServer } from '../../../test/fixtures/fakeLlmServer';
import { RoutingProvider } from './routingProvider';
import { extraMemoryText, suggestedSize, UNKNOWN_MEMORY_WARNING, windowChoices, windowPickTitle, windowRaiseOffer, windowSizes, withContextLength } from './windowRaise';

// llama3.2 3B's shape: 28 layers × 8 KV heads × 128 (keys and values) × 2 bytes = 112 KB per token.
const llama32 = { blockCount: 28, headCount: 24, headCountKv: 8, embeddingLength: 3072, keyLength: 128, valueLength: 128 };
const llamaFacts = { trainedTokens: 131_072, kv: { layers: 28, heads: 24, kvHeads: 8, embeddingLength: 3072, keyLength: 128, valueLength: 128 }, parameterSize: '3.2B', quantization: 'Q4_K_M' };

const server = new FakeLlmServer({
  models: ['llama3.2', 'shapeless', 'small', 'set-long'],
  modelContext: {
    'llama3.2': { contextLength: 131_072, kv: llama32, details: { parameterSize: '3.2B' } },
    shapeless: { contextLength: 32_768 },
    small: { contextLength: 4096 },
    'set-long': { contextLength: 32_768, numCtx: 32_768, kv: llama32 },
  },
});
beforeAll(() => server.start());
afterAll(() => server.stop());

describe('the sizes a window can be raised to', () => {
  it('doubles from above the current size to the trained length, which is always offered', () => {
    expect(windowSizes(4096, 32_768)).toEqual([8192, 16_384, 32_768]);
    expect(windowSizes(6000, 40_960)).toEqual([8192, 16_384, 32_768, 40_960]);
    expect(windowSizes(2048, 3000)).toEqual([3000]);
    expect(windowSizes(32_768, 32_768)).toEqual([]);
    expect(windowSizes(40_000, 32_768)).toEqual([]);
  });

  it('suggests the smallest size that holds the request, else the largest', () => {
    expect(suggestedSize(4096, 131_072, 7500)).toBe(8192);
    expect(suggestedSize(4096, 131_072, 8193)).toBe(16_384);
    expect(suggestedSize(4096, 40_960, 200_000)).toBe(40_960);
    expect(suggestedSize(4096, 4096, 5000)).toBeUndefined();
  });

  it('labels each size with its extra memory, or the plain warning when Ollama does not report the facts', () => {
    const choices = windowChoices(llamaFacts, 4096, 16_384);
    expect(choices.map((c) => c.label)).toEqual(['8,192 tokens', '16,384 tokens', '32,768 tokens', '65,536 tokens', '131,072 tokens']);
    expect(choices[0]).toEqual({ tokens: 8192, label: '8,192 tokens', detail: 'about 448 MB more memory for the KV cache (896 MB in all)' });
    expect(choices[1].description).toBe('suggested');
    expect(choices[4]).toMatchObject({ description: 'trained maximum', detail: 'about 13.6 GB more memory for the KV cache (14 GB in all)' });
    expect(windowChoices({ trainedTokens: 8192 }, 4096, 8192)).toEqual([{ tokens: 8192, label: '8,192 tokens', description: 'suggested, trained maximum', detail: UNKNOWN_MEMORY_WARNING }]);
    expect(windowChoices({}, 4096)).toEqual([]);
    // Sliding-window layers keep fewer tokens: the sum over every layer is the most it can take.
    expect(extraMemoryText({ ...llamaFacts, kv: { ...llamaFacts.kv, slidingWindow: 1024 } }, 4096, 8192)).toMatch(/^at most 448 MB more/);
  });

  it('titles the picker with the model, its size and its windows', () => {
    expect(windowPickTitle('llama3.2:latest', llamaFacts, 4096)).toBe('llama3.2 (3.2B, Q4_K_M) runs with a window of 4,096 tokens; it was trained for 131,072');
    expect(windowPickTitle('x', {}, 4096)).toBe('x runs with a window of 4,096 tokens');
  });

  it('remembers the choice as one arbor.contextLength entry for the model, keeping the others', () => {
    expect(withContextLength(undefined, 'llama3.2:latest', 8192)).toEqual({ 'llama3.2': 8192 });
    expect(withContextLength({ 'llama3.2:latest': 16_384, 'qwen2.5': 32_768 }, 'llama3.2', 8192)).toEqual({ 'qwen2.5': 32_768, 'llama3.2': 8192 });
  });
});

describe('windowRaiseOffer', () => {
  const ollama = () => new OllamaProvider({ host: server.url, model: 'llama3.2' });

  it('offers the size that fits, from /api/show, through the routing provider', async () => {
    const router = new RoutingProvider(ollama(), new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'x' }));
    expect(await windowRaiseOffer(router, 'llama3.2', 7000)).toEqual({ current: 4096, max: 131_072, suggested: 8192, memory: 'about 448 MB more memory for the KV cache (896 MB in all)' });
    expect(await windowRaiseOffer(ollama(), 'llama3.2:latest', 20_000)).toMatchObject({ current: 4096, suggested: 32_768 });
    // The window the settings give is the one raised from.
    const set = new OllamaProvider({ host: server.url, model: 'llama3.2', contextLengths: { 'llama3.2': 16_384 } });
    expect(await windowRaiseOffer(set, 'llama3.2', 20_000)).toMatchObject({ current: 16_384, suggested: 32_768, memory: 'about 1.8 GB more memory for the KV cache (3.5 GB in all)' });
    expect(await windowRaiseOffer(ollama(), 'shapeless', 5000)).toEqual({ current: 4096, max: 32_768, suggested: 8192 });
  });

  it('offers nothing when the request fits, the model is at its trained length, /api/show fails, or the model is not Ollama\'s', async () => {
    expect(await windowRaiseOffer(ollama(), 'llama3.2', 4000)).toBeUndefined();
    expect(await windowRaiseOffer(ollama(), 'small', 9000)).toBeUndefined();
    expect(await windowRaiseOffer(ollama(), 'set-long', 90_000)).toBeUndefined();
    expect(await windowRaiseOffer(ollama(), 'not-pulled', 9000)).toBeUndefined();
    const openai = new OpenAIProvider({ baseURL: server.openaiBaseUrl, apiKey: 'k', model: 'llama3.2' });
    expect(await windowRaiseOffer(openai, 'llama3.2', 9000)).toBeUndefined();
    expect(await windowRaiseOffer(new RoutingProvider(ollama(), openai), 'vscode:copilot/gpt-4o', 9000)).toBeUndefined();
  });
});
