/**
 * The pure rules of tool results: the node a result becomes, which calls a path leaves open, the repair
 * that closes them, and the same guarantee on a request's messages.
 */
import { describe, expect, it } from 'vitest';
import { readNodeMetadata, type ConversationNode, type LLMMessage, type ToolCall } from '../../../src/core/index';
import { repairToolPath, toolResultNode, TOOL_RESULT_TEXTS, unansweredToolCalls, withToolResults } from '../../../src/core/tools/toolResults';

const call = (id: string, name = 'read_file'): ToolCall => ({ id, type: 'function', function: { name, arguments: '{}' } });
let seq = 0;
const node = (message: LLMMessage): ConversationNode => ({ nodeId: `n${++seq}`, parentId: null, position: 0, message, timestamp: '2026-11-26T08:00:00.000Z', metadata: {} });
const user = (content: string) => node({ role: 'user', content });
const asks = (...calls: ToolCall[]) => node({ role: 'assistant', content: '', toolCalls: calls });
const result = (id: string) => node({ role: 'tool', content: `${id} ok`, toolCallId: id });

describe('tool results', () => {
  it('a result node answers its call by id, names its tool and records how it ended', () => {
    const n = toolResultNode('n7', { call: call('c1', 'grep'), status: 'done', content: 'a.ts:1', step: 2, startedAt: '2026-11-26T08:00:00.000Z', endedAt: '2026-11-26T08:00:01.000Z', modifiedFiles: ['a.ts'], metadata: { matches: 1 } });
    expect(n).toEqual({
      parentId: 'n7',
      message: { role: 'tool', content: 'a.ts:1', toolCallId: 'c1', name: 'grep' },
      timestamp: '2026-11-26T08:00:01.000Z',
      metadata: { matches: 1, modifiedFiles: ['a.ts'], toolResult: { status: 'done', step: 2, startedAt: '2026-11-26T08:00:00.000Z', endedAt: '2026-11-26T08:00:01.000Z' } },
    });
    expect(readNodeMetadata(n.metadata, 'toolResult')).toEqual({ status: 'done', step: 2, startedAt: '2026-11-26T08:00:00.000Z', endedAt: '2026-11-26T08:00:01.000Z' });
    expect(readNodeMetadata({ toolResult: { status: 'exploded', endedAt: 'x' } }, 'toolResult')).toBeUndefined();
  });

  it('finds the calls a path leaves open only at its end, after the results it has', () => {
    expect(unansweredToolCalls([user('q'), asks(call('a'), call('b'), call('c')), result('a')])?.calls.map((c) => c.id)).toEqual(['b', 'c']);
    expect(unansweredToolCalls([user('q'), asks(call('a'))])?.calls.map((c) => c.id)).toEqual(['a']);
    expect(unansweredToolCalls([user('q'), asks(call('a')), result('a')])).toBeUndefined();
    expect(unansweredToolCalls([user('q'), asks(call('a')), user('later')])).toBeUndefined();
    expect(unansweredToolCalls([user('q')])).toBeUndefined();
  });

  it('repairs an open path with an interrupted result per open call, in call order', () => {
    const now = new Date('2026-11-26T09:00:00.000Z');
    const repair = repairToolPath([user('q'), asks(call('a'), call('b', 'write_file'), call('c')), result('a')], now);
    expect(repair).toEqual([
      { call: call('b', 'write_file'), status: 'interrupted', content: TOOL_RESULT_TEXTS.interrupted, endedAt: now.toISOString() },
      { call: call('c'), status: 'interrupted', content: TOOL_RESULT_TEXTS.interrupted, endedAt: now.toISOString() },
    ]);
    expect(repairToolPath([user('q'), asks(call('a')), result('a'), node({ role: 'assistant', content: 'done' })])).toEqual([]);
  });

  it('puts a result in a request for every call an older path left open, and leaves a valid request as it is', () => {
    const valid: LLMMessage[] = [{ role: 'user', content: 'q' }, { role: 'assistant', content: '', toolCalls: [call('a')] }, { role: 'tool', content: 'ok', toolCallId: 'a' }];
    expect(withToolResults(valid)).toBe(valid);
    const broken: LLMMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b', 'grep')] },
      { role: 'tool', content: 'ok', toolCallId: 'a' },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
    ];
    expect(withToolResults(broken)).toEqual([
      broken[0],
      broken[1],
      broken[2],
      { role: 'tool', content: TOOL_RESULT_TEXTS.interrupted, toolCallId: 'b', name: 'grep' },
      broken[3],
      broken[4],
      { role: 'tool', content: TOOL_RESULT_TEXTS.interrupted, toolCallId: 'c', name: 'read_file' },
    ]);
    expect(broken).toHaveLength(5);
  });
});
