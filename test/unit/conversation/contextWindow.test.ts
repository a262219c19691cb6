import { describe, expect, it } from 'vitest';
import { applyContextWindow, groupTurns } from '../../../src/core/conversation/contextWindow';
import { estimateMessageTokens } from '../../../src/core/llm/tokens';
import type { LLMMessage } from '../../../src/core/types';
import { InvalidArgumentError } from '../../../src/core/errors';

const sys = (content: string): LLMMessage => ({ role: 'system', content });
const user = (content: string): LLMMessage => ({ role: 'user', content });
const bot = (content: string): LLMMessage => ({ role: 'assistant', content });
const call = (id: string): LLMMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id, type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }],
});
const result = (id: string, content = 'r'): LLMMessage => ({ role: 'tool', content, toolCallId: id });

const contents = (messages: LLMMessage[]) => messages.map((m) => m.content || m.toolCalls?.[0]?.id || m.toolCallId);

describe('groupTurns', () => {
  it('keeps a user message with its answer and a tool call with all its results', () => {
    const messages = [sys('s'), user('u1'), bot('a1'), user('u2'), call('c1'), result('c1'), result('c1'), bot('a2')];
    expect(groupTurns(messages)).toEqual([[1, 2], [3], [4, 5, 6], [7]]);
  });
});

describe('applyContextWindow', () => {
  const history = [sys('rules'), user('u1'), bot('a1'), user('u2'), bot('a2'), user('u3'), bot('a3'), user('u4')];

  it('sends everything when no limit is set', () => {
    const out = applyContextWindow(history);
    expect(out.messages).toEqual(history);
    expect(out.droppedCount).toBe(0);
    expect(out.tokenEstimates).toHaveLength(history.length);
    expect(out.totalTokens).toBe(history.reduce((s, m) => s + estimateMessageTokens(m), 0));
  });

  it('keeps system messages and the newest whole turns under maxHistory', () => {
    const out = applyContextWindow(history, { maxHistory: 4 });
    // u4 (1) + [u3,a3] (2) = 3; [u2,a2] would make 5 > 4, so it and everything older is dropped.
    expect(contents(out.messages)).toEqual(['rules', 'u3', 'a3', 'u4']);
    expect(out.droppedCount).toBe(4);
    expect(out.keptIndexes).toEqual([0, 5, 6, 7]);
  });

  it('never splits a turn: an odd limit drops the whole older turn', () => {
    const out = applyContextWindow([user('u1'), bot('a1'), user('u2'), bot('a2')], { maxHistory: 3 });
    expect(contents(out.messages)).toEqual(['u2', 'a2']);
  });

  it('keeps a tool call together with all its results', () => {
    const messages = [sys('s'), user('u1'), bot('a1'), user('u2'), call('c1'), result('c1'), result('c1'), bot('done')];
    const out = applyContextWindow(messages, { maxHistory: 4 });
    expect(out.messages.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'tool', 'assistant']);
    const tight = applyContextWindow(messages, { maxHistory: 3 });
    // The tool group (3 messages) does not fit beside "done": only the newest unit stays.
    expect(contents(tight.messages)).toEqual(['s', 'done']);
  });

  it('respects maxContextTokens, counting the system messages', () => {
    const estimate = (m: LLMMessage) => m.content.length;
    const messages = [sys('x'.repeat(50)), user('a'.repeat(20)), bot('b'.repeat(20)), user('c'.repeat(20)), bot('d'.repeat(20))];
    const out = applyContextWindow(messages, { maxContextTokens: 100, estimate });
    expect(out.messages.map((m) => m.content[0])).toEqual(['x', 'c', 'd']);
    expect(out.totalTokens).toBe(90);
    expect(out.tokenEstimates).toEqual([50, 20, 20, 20, 20]);
    const roomy = applyContextWindow(messages, { maxContextTokens: 130, estimate });
    expect(roomy.droppedCount).toBe(0);
  });

  it('keeps the newest turn even when it alone is over the limit, and keeps a mid-path system message', () => {
    const messages = [user('old'), sys('mid'), user('x'.repeat(400))];
    const out = applyContextWindow(messages, { maxContextTokens: 10 });
    expect(out.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(out.messages[1].content).toHaveLength(400);
  });

  it('does not change its input and rejects negative limits', () => {
    const copy = structuredClone(history);
    applyContextWindow(history, { maxHistory: 1 });
    expect(history).toEqual(copy);
    expect(() => applyContextWindow(history, { maxHistory: -1 })).toThrow(InvalidArgumentError);
    expect(() => applyContextWindow(history, { maxContextTokens: Number.NaN })).toThrow(/maxContextTokens/);
  });
});
