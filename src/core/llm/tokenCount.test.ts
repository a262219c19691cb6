import { encodeChat as encodeChatGpt4 } from 'gpt-tokenizer/model/gpt-4';
import { encodeChat as encodeChatGpt4o } from 'gpt-tokenizer/model/gpt-4o';
import { describe, expect, it } from 'vitest';
import type { LLMMessage, ToolDefinition } from '../types';
import {
  CALIBRATION_MAX,
  CALIBRATION_MIN,
  encodingForModel,
  EstimatingTokenCounter,
  estimatingTokenCounter,
  exactTokenCounter,
  tokenCounterFor,
} from './tokenCount';
import { estimateMessagesTokens, estimateTokens, IMAGE_TOKENS } from './tokens';

const chat: LLMMessage[] = [
  { role: 'system', content: 'You are terse. Answer in one line.' },
  { role: 'user', content: 'hello world' },
  { role: 'assistant', content: 'Hi. What do you need?' },
  { role: 'user', content: 'Explain `const x = await fetch(url);` in TypeScript, with an example.' },
];

describe('choosing the encoding', () => {
  it('uses o200k for gpt-4o, 4.1, 5 and the o-series, cl100k for gpt-4 and 3.5, none for other models', () => {
    for (const m of ['gpt-4o', 'gpt-4o-mini-2024-07-18', 'gpt-4.1-nano', 'gpt-5', 'gpt-5.4-mini', 'o1', 'o3-mini', 'o4-mini-2025-04-16', 'openai/gpt-4o', 'chatgpt-4o-latest']) {
      expect({ m, e: encodingForModel(m) }).toEqual({ m, e: 'o200k_base' });
    }
    for (const m of ['gpt-4', 'gpt-4-0613', 'gpt-4-turbo', 'gpt-3.5-turbo', 'gpt-3.5-turbo-0125']) expect({ m, e: encodingForModel(m) }).toEqual({ m, e: 'cl100k_base' });
    for (const m of ['llama3.2', 'qwen2.5-coder:7b', 'o1x', 'gpt-40', 'mistral-large']) expect(encodingForModel(m)).toBeUndefined();
  });

  it('gives OpenAI models an exact counter and everything else a calibrated estimate, kept per model', async () => {
    const exact = await tokenCounterFor('openai', 'gpt-4o');
    expect(exact).toMatchObject({ exact: true, method: 'o200k_base' });
    expect(await tokenCounterFor('openai', 'gpt-4-turbo')).toMatchObject({ exact: true, method: 'cl100k_base' });
    expect(await tokenCounterFor('openai', 'gpt-4.1')).toBe(exact);
    const local = await tokenCounterFor('openai', 'qwen2.5-coder-7b');
    expect(local).toMatchObject({ exact: false, method: 'estimate:o200k_base' });
    const ollama = await tokenCounterFor('ollama', 'gpt-oss:20b');
    expect(ollama.exact).toBe(false);
    expect(await tokenCounterFor('ollama', 'gpt-oss:20b')).toBe(ollama);
    expect(estimatingTokenCounter('ollama', 'llama3.2:latest')).toBe(estimatingTokenCounter('ollama', 'llama3.2'));
    expect(estimatingTokenCounter('ollama', 'llama3.2')).not.toBe(estimatingTokenCounter('openai', 'llama3.2'));
  });
});

describe('exact counts (gpt-tokenizer)', () => {
  it('counts known texts in o200k and cl100k', async () => {
    const o200k = await exactTokenCounter('o200k_base');
    const cl100k = await exactTokenCounter('cl100k_base');
    expect(o200k.countText('hello world')).toBe(2);
    expect(cl100k.countText('hello world')).toBe(2);
    // Chinese is where the two encodings (and chars/4) part ways.
    expect(o200k.countText('你好，世界！今天天气很好。')).toBe(9);
    expect(cl100k.countText('你好，世界！今天天气很好。')).toBe(16);
    expect(o200k.countText('')).toBe(0);
    // A special token's text in a message is plain text, not an error.
    expect(o200k.countText('<|endoftext|>')).toBe(7);
  });

  it('frames a chat exactly as gpt-tokenizer\'s own chat encoding does', async () => {
    expect((await exactTokenCounter('o200k_base')).countMessages(chat)).toBe(encodeChatGpt4o(chat.map(({ role, content }) => ({ role, content }))).length);
    expect((await exactTokenCounter('cl100k_base')).countMessages(chat)).toBe(encodeChatGpt4(chat.map(({ role, content }) => ({ role, content }))).length);
  });

  it('adds names, tool calls, tool results, images and tool definitions', async () => {
    const c = await exactTokenCounter('o200k_base');
    const plain = c.countMessage({ role: 'user', content: 'hello world' });
    expect(plain).toBe(3 + 1 + 2);
    expect(c.countMessage({ role: 'user', content: 'hello world', name: 'ann' })).toBe(plain + c.countText('ann') + 1);
    expect(c.countMessage({ role: 'user', content: 'hello world', images: ['a', 'b'] })).toBe(plain + 2 * IMAGE_TOKENS);
    expect(c.countMessage({ role: 'user', content: 'hello world', thinking: 'long hidden reasoning '.repeat(50) })).toBe(plain);
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } };
    expect(c.countMessage({ role: 'assistant', content: '', toolCalls: [call] })).toBe(3 + 1 + 3 + c.countText('read_file') + c.countText('{"path":"src/a.ts"}'));
    expect(c.countMessage({ role: 'tool', content: 'export {}', toolCallId: 'call_1' })).toBe(3 + c.countText('tool') + c.countText('export {}') + c.countText('call_1'));
    const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];
    expect(c.countTools(tools)).toBe(c.countText(JSON.stringify(tools)));
    expect(c.countTools([])).toBe(0);
    expect(c.countTools(undefined)).toBe(0);
  });

  it('is not moved by calibration', async () => {
    const c = await exactTokenCounter('o200k_base');
    const before = c.countMessages(chat);
    c.calibrate(before, before * 2);
    expect(c.countMessages(chat)).toBe(before);
    expect(c.revision).toBe(0);
  });
});

describe('calibrated estimates', () => {
  const long: LLMMessage[] = [{ role: 'user', content: 'x'.repeat(4000) }];

  it('starts at chars/4 and the shared estimate\'s framing', () => {
    const c = new EstimatingTokenCounter();
    expect(c.countText('abcde')).toBe(estimateTokens('abcde'));
    expect(c.countMessages(chat)).toBe(estimateMessagesTokens(chat));
    expect(c.countTools([{ type: 'function', function: { name: 'f' } }])).toBe(estimateTokens(JSON.stringify([{ type: 'function', function: { name: 'f' } }])));
  });

  it('scales later counts by what the server reported, moving halfway each time, within bounds', () => {
    const c = new EstimatingTokenCounter();
    c.calibrate(1000, 1500);
    expect(c.ratio).toBe(1.5);
    expect(c.revision).toBe(1);
    expect(c.countText('x'.repeat(400))).toBe(150);
    // The caller passes what this counter said (already scaled); the ratio is learnt against the raw estimate.
    c.calibrate(1500, 1500);
    expect(c.ratio).toBe(1.5);
    expect(c.revision).toBe(1);
    c.calibrate(1500, 1000);
    expect(c.ratio).toBe(1.25);
    // A first report that matches the estimate still counts as a sample: the next one is averaged with it.
    const steady = new EstimatingTokenCounter();
    steady.calibrate(1000, 1000);
    steady.calibrate(1000, 1500);
    expect(steady.ratio).toBe(1.25);
    for (let i = 0; i < 10; i++) c.calibrate(c.countMessages(long), Math.round(c.countMessages(long) / c.ratio * 3.5));
    expect(c.ratio).toBe(CALIBRATION_MAX);
    const low = new EstimatingTokenCounter();
    for (let i = 0; i < 10; i++) low.calibrate(low.countMessages(long), Math.round(low.countMessages(long) / low.ratio * 0.3));
    expect(low.ratio).toBe(CALIBRATION_MIN);
  });

  it('ignores reports that say nothing about the tokenizer: tiny prompts, zero, and implausible ratios', () => {
    const c = new EstimatingTokenCounter();
    c.calibrate(10, 30);
    c.calibrate(1000, 0);
    c.calibrate(1000, 100);
    c.calibrate(1000, 5000);
    c.calibrate(Number.NaN, 100);
    expect(c.ratio).toBe(1);
    expect(c.revision).toBe(0);
  });
});
