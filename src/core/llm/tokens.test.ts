import { describe, expect, it } from 'vitest';
import { estimateMessagesTokens, estimateMessageTokens, estimateTokens, IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS } from './tokens';

describe('token estimates', () => {
  it('counts about four characters per token, rounding up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens(undefined)).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  it('adds per-message overhead, tool calls and images, but not thinking', () => {
    const plain = estimateMessageTokens({ role: 'user', content: 'x'.repeat(40) });
    expect(plain).toBe(10 + MESSAGE_OVERHEAD_TOKENS);
    expect(estimateMessageTokens({ role: 'assistant', content: 'x'.repeat(40), thinking: 'y'.repeat(4000) })).toBe(plain);
    expect(estimateMessageTokens({ role: 'user', content: 'x'.repeat(40), images: ['a', 'b'] })).toBe(plain + 2 * IMAGE_TOKENS);
    const withCall = estimateMessageTokens({ role: 'assistant', content: '', toolCalls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] });
    expect(withCall).toBeGreaterThan(MESSAGE_OVERHEAD_TOKENS * 2);
  });

  it('sums a request with a small reply priming', () => {
    const messages = [{ role: 'system' as const, content: 'abcd' }, { role: 'user' as const, content: 'abcd' }];
    expect(estimateMessagesTokens(messages)).toBe(3 + 2 * (1 + MESSAGE_OVERHEAD_TOKENS));
  });
});
