import { describe, expect, it } from 'vitest';
import { requestOverrides } from './chatRequestOptions';
import { parseChatRequestOptions } from '../requestOptions';

describe('chat request options', () => {
  it('keeps the fields that have a valid value and drops the rest', () => {
    expect(parseChatRequestOptions({ temperature: 0.7, maxTokens: 512, think: 'high' })).toEqual({ temperature: 0.7, maxTokens: 512, think: 'high' });
    expect(parseChatRequestOptions({ temperature: 0, maxTokens: 1, think: false })).toEqual({ temperature: 0, maxTokens: 1, think: false });
    expect(parseChatRequestOptions({ temperature: 2.5, maxTokens: 0.5, think: 'max', other: 1 })).toEqual({});
    expect(parseChatRequestOptions({ temperature: '0.3', maxTokens: -4, think: 'true' })).toEqual({});
    expect(parseChatRequestOptions([1])).toBeUndefined();
    expect(parseChatRequestOptions('x')).toBeUndefined();
  });

  it('becomes one call overrides: the model, the set options, think only where the model can, and a copy of the extras', () => {
    const extra = { top_k: 40, options: { num_ctx: 2048 } };
    const out = requestOverrides('m', { temperature: 0.2, maxTokens: 64, think: true }, 'supported', extra);
    expect(out).toEqual({ model: 'm', temperature: 0.2, maxTokens: 64, think: true, extra });
    expect(out.extra).not.toBe(extra);
    expect(requestOverrides('m', { think: 'low' }, 'unknown')).toEqual({ model: 'm', think: 'low' });
    expect(requestOverrides('m', { think: true, temperature: 1 }, 'unsupported')).toEqual({ model: 'm', temperature: 1 });
    expect(requestOverrides('m', {}, 'supported', {})).toEqual({ model: 'm' });
  });
});
