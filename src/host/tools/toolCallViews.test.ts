import { describe, expect, it } from 'vitest';
import type { ConversationNode } from '../../core/index';
import { CARD_OUTPUT_CHARS, toolCallViews, type ToolCallLookup } from './toolCallViews';

const at = '2026-11-26T10:00:00.000Z';
function node(nodeId: string, message: ConversationNode['message'], metadata: Record<string, unknown> = {}): ConversationNode {
  return { nodeId, parentId: null, message, timestamp: at, metadata } as ConversationNode;
}

const answer = node('a', {
  role: 'assistant',
  content: 'Looking.',
  toolCalls: [
    { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
    { id: 'c2', type: 'function', function: { name: 'everything__echo', arguments: '{"message":"hi"}' } },
    { id: 'c3', type: 'function', function: { name: 'gone_tool', arguments: 'not json' } },
  ],
});

const lookup = (live: Record<string, ReturnType<ToolCallLookup['live']>> = {}): ToolCallLookup => ({
  describe: (name) => (name === 'read_file' ? { displayName: 'read_file', source: 'builtin' } : name === 'everything__echo' ? { displayName: 'everything › echo', source: 'mcp' } : undefined),
  live: (id) => live[id],
});

describe('toolCallViews', () => {
  it('gives each call its result: state, duration, output, and the arguments the user edited', () => {
    const r1 = node('r1', { role: 'tool', content: 'x'.repeat(CARD_OUTPUT_CHARS + 5), toolCallId: 'c1', name: 'read_file' }, { toolResult: { status: 'done', startedAt: at, endedAt: '2026-11-26T10:00:00.250Z' } });
    const r2 = node('r2', { role: 'tool', content: 'The user denied this call.', toolCallId: 'c2', name: 'everything__echo' }, { toolResult: { status: 'denied', endedAt: at }, editedInput: { message: 'bye' } });
    const views = toolCallViews(answer, [r1, r2], lookup());
    expect(views?.[0]).toMatchObject({ callId: 'c1', displayName: 'read_file', source: 'builtin', state: 'done', durationMs: 250, outputCut: true, arguments: '{\n  "path": "a.ts"\n}' });
    expect(views?.[0].output).toHaveLength(CARD_OUTPUT_CHARS);
    expect(views?.[1]).toMatchObject({ displayName: 'everything › echo', state: 'denied', editedArguments: '{\n  "message": "bye"\n}' });
    expect(views?.[1].durationMs).toBeUndefined();
    // No result and no run: interrupted; a tool no longer offered keeps its wire name and raw arguments.
    expect(views?.[2]).toMatchObject({ displayName: 'gone_tool', state: 'interrupted', arguments: 'not json' });
    expect(views?.[2].source).toBeUndefined();
  });

  it('shows the live state of a run going now, with why it asks', () => {
    const views = toolCallViews(answer, [], lookup({ c1: { state: 'running' }, c2: { state: 'pendingApproval', approval: { reason: 'a tool of the MCP server "everything"' } } }));
    expect(views?.map((v) => v.state)).toEqual(['running', 'pendingApproval', 'interrupted']);
    expect(views?.[1].approval).toEqual({ reason: 'a tool of the MCP server "everything"' });
  });

  it('stops at the first node that is not a tool result, and has nothing for an answer without calls', () => {
    const user = node('u', { role: 'user', content: 'next' });
    const late = node('r', { role: 'tool', content: 'late', toolCallId: 'c1' }, { toolResult: { status: 'done', endedAt: at } });
    expect(toolCallViews(answer, [user, late], lookup())?.[0].state).toBe('interrupted');
    expect(toolCallViews(node('b', { role: 'assistant', content: 'Hi' }), [], lookup())).toBeUndefined();
  });
});
