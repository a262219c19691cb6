import { describe, expect, it } from 'vitest';
import { costUsd, DEFAULT_PRICING, PricingTable } from './pricing';

const usage = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, totalTokens: promptTokens + completionTokens });

describe('PricingTable', () => {
  it('prices known models per million input and output tokens', () => {
    expect(costUsd('gpt-4o', usage(1_000_000, 1_000_000))).toBeCloseTo(12.5, 10);
    expect(costUsd('gpt-4o-mini', usage(2_000_000, 0))).toBeCloseTo(0.3, 10);
    expect(costUsd('o1', usage(0, 1000))).toBeCloseTo(0.06, 10);
  });

  it('matches dated snapshots by the longest family prefix, exact entries first', () => {
    const t = new PricingTable();
    expect(t.priceOf('gpt-4o-2024-08-06')).toBe(DEFAULT_PRICING['gpt-4o']);
    expect(t.priceOf('gpt-4o-mini-2024-07-18')).toBe(DEFAULT_PRICING['gpt-4o-mini']);
    expect(t.priceOf('gpt-4o-2024-05-13')).toBe(DEFAULT_PRICING['gpt-4o-2024-05-13']);
    expect(t.priceOf('gpt-4.1-nano-2025-04-14')).toBe(DEFAULT_PRICING['gpt-4.1-nano']);
    expect(t.priceOf('GPT-4O')).toBe(DEFAULT_PRICING['gpt-4o']);
    expect(t.priceOf('openai/gpt-4o-mini')).toBe(DEFAULT_PRICING['gpt-4o-mini']);
  });

  it('does not guess across families: gpt-4.5 is not gpt-4, unknown models cost 0', () => {
    const t = new PricingTable();
    expect(t.priceOf('gpt-4.5-preview')).toBeUndefined();
    expect(t.costUsd('llama3.2:latest', usage(1000, 1000))).toBe(0);
    expect(t.costUsd('gpt-4o', undefined)).toBe(0);
  });

  it('merges overrides over the defaults and ignores invalid entries', () => {
    const t = new PricingTable({ 'gpt-4o': { inputPerMillion: 1, outputPerMillion: 2 }, 'my-model': { inputPerMillion: 3, outputPerMillion: 4 }, bad: { inputPerMillion: -1, outputPerMillion: 1 } });
    expect(t.costUsd('gpt-4o-2024-11-20', usage(1_000_000, 1_000_000))).toBeCloseTo(3, 10);
    expect(t.costUsd('my-model', usage(1_000_000, 0))).toBeCloseTo(3, 10);
    expect(t.priceOf('gpt-4o-mini')).toBe(DEFAULT_PRICING['gpt-4o-mini']);
    expect(t.priceOf('bad')).toBeUndefined();
  });

  it('accepts the settings spelling {input, output}', () => {
    const t = new PricingTable({ 'local-model': { input: 0.5, output: 1.5 } });
    expect(t.priceOf('local-model')).toEqual({ inputPerMillion: 0.5, outputPerMillion: 1.5 });
    expect(t.costUsd('local-model', usage(2_000_000, 1_000_000))).toBeCloseTo(2.5, 10);
  });
});
