import { describe, expect, it } from 'vitest';
import { LazyTokenCounter } from './lazyTokenCounter';
import { EstimatingTokenCounter } from './tokenCount';

describe('LazyTokenCounter', () => {
  it('estimates a text at once, then serves the model count and tells the owner once', async () => {
    const asked: string[] = [];
    let redraws = 0;
    const counter = new LazyTokenCounter(
      async (text) => {
        asked.push(text);
        return 7;
      },
      new EstimatingTokenCounter(),
      () => redraws++,
    );
    const before = counter.revision;
    const estimate = counter.countText('a'.repeat(400));
    expect(estimate).toBe(100);
    expect(counter.exact).toBe(false);
    counter.countText('a'.repeat(400));
    await counter.settled();
    expect(asked).toHaveLength(1);
    expect(counter.countText('a'.repeat(400))).toBe(7);
    expect(counter.exact).toBe(true);
    expect(counter.revision).not.toBe(before);
    expect(redraws).toBe(1);
  });

  it('counts messages from their parts with the chat framing', async () => {
    const counter = new LazyTokenCounter(async (text) => text.length, new EstimatingTokenCounter());
    counter.countMessage({ role: 'user', content: 'hello' });
    await counter.settled();
    expect(counter.countMessage({ role: 'user', content: 'hello' })).toBe(3 + 5);
    expect(counter.countMessages([{ role: 'user', content: 'hello' }])).toBe(3 + 3 + 5);
  });

  it('falls back to estimates for good when the model cannot count', async () => {
    let calls = 0;
    const counter = new LazyTokenCounter(async () => {
      calls++;
      throw new Error('no');
    }, new EstimatingTokenCounter());
    counter.countText('abcd');
    await counter.settled();
    expect(counter.countText('efgh')).toBe(1);
    expect(calls).toBe(1);
    expect(counter.exact).toBe(false);
  });
});
