import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolSet } from '../../../test/fixtures/toolCatalog';
import type { LLMMessage } from '../types';
import { EstimatingTokenCounter, estimatingTokenCounter, exactTokenCounter, tokenCounterFor } from './tokenCount';
import { estimateTokens } from './tokens';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('the BPE estimate (o200k_base, calibrated)', () => {
  const samples = {
    prose: read('README.md').slice(0, 20_000),
    code: read('src/core/conversation/conversationManager.ts').slice(0, 20_000),
    json: JSON.stringify(toolSet(53)),
  };

  it('is the model counter for models without a known tokenizer, and counts within a few % of o200k on prose, code and JSON', async () => {
    const o200k = await exactTokenCounter('o200k_base');
    const counter = await tokenCounterFor('ollama', 'bpe-estimate-test-model');
    expect(counter).toMatchObject({ exact: false, method: 'estimate:o200k_base' });
    expect(counter).toBeInstanceOf(EstimatingTokenCounter);
    for (const [kind, text] of Object.entries(samples)) {
      const exact = o200k.countText(text);
      const estimate = counter.countText(text);
      expect({ kind, off: Math.abs(estimate - exact) / exact < 0.03 }).toEqual({ kind, off: true });
    }
    const messages: LLMMessage[] = [{ role: 'system', content: samples.prose }, { role: 'user', content: samples.code, name: 'dev' }];
    expect(Math.abs(counter.countMessages(messages) - o200k.countMessages(messages)) / o200k.countMessages(messages)).toBeLessThan(0.03);
    expect(counter.countTools(toolSet(53))).toBe(o200k.countTools(toolSet(53)));
  });

  it('still learns from the server\'s reports, and keeps its calibration per provider and model', async () => {
    const o200k = await exactTokenCounter('o200k_base');
    const counter = estimatingTokenCounter('ollama', 'bpe-calibration-test-model', o200k);
    expect(estimatingTokenCounter('ollama', 'bpe-calibration-test-model', o200k)).toBe(counter);
    expect(estimatingTokenCounter('ollama', 'bpe-calibration-test-model')).not.toBe(counter);
    const messages: LLMMessage[] = [{ role: 'user', content: samples.code }];
    const before = counter.countMessages(messages);
    counter.calibrate(before, Math.round(before * 1.2));
    expect(counter.ratio).toBeCloseTo(1.2, 2);
    expect(counter.revision).toBe(1);
    const text = o200k.countText(samples.json);
    expect(Math.abs(counter.countText(samples.json) - text * 1.2)).toBeLessThanOrEqual(2);
    expect(await tokenCounterFor('ollama', 'bpe-calibration-test-model')).toBe(counter);
  });

  it('follows the kind of text where chars/4 cannot', async () => {
    const o200k = await exactTokenCounter('o200k_base');
    const bpe = new EstimatingTokenCounter((text) => o200k.countText(text), 'o200k_base');
    // One text where chars/4 is far off: a JSON schema of short keys and punctuation.
    const json = samples.json;
    const exact = o200k.countText(json);
    expect(bpe.countText(json)).toBe(exact);
    expect(Math.abs(estimateTokens(json) - exact) / exact).toBeGreaterThan(0.1);
  });
});
