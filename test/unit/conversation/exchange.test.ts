import { describe, expect, it } from 'vitest';
import { fromDataknobsDict, toDataknobsDict } from '../../../src/core/conversation/exchange';
import { conversationToMarkdown } from '../../../src/core/conversation/markdownExport';
import type { ConversationState } from '../../../src/core/types';
import { InvalidArgumentError } from '../../../src/core/errors';

function sampleState(): ConversationState {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();
  return {
    conversationId: 'conv-1',
    nodes: [
      { nodeId: '', parentId: null, message: { role: 'system', content: 'Be brief.' }, timestamp: t(0), metadata: {} },
      { nodeId: '0', parentId: '', message: { role: 'user', content: 'Find the bug' }, timestamp: t(1), promptName: 'debug', metadata: { prompt: { name: 'debug' } } },
      {
        nodeId: '0.0',
        parentId: '0',
        message: {
          role: 'assistant',
          content: '',
          thinking: 'look at files',
          toolCalls: [
            { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
            { id: 'call_2', type: 'function', function: { name: 'raw', arguments: 'not json' } },
          ],
        },
        timestamp: t(2),
        metadata: { model: 'gpt-4o', costUsd: 0.002 },
      },
      { nodeId: '0.0.0', parentId: '0.0', message: { role: 'tool', content: 'file text', toolCallId: 'call_1', name: 'read' }, timestamp: t(3), metadata: {} },
      { nodeId: '0.2', parentId: '0', message: { role: 'assistant', content: 'Line 3 ```js\nx\n```' }, timestamp: t(4), branchName: 'short', metadata: { costUsd: 0.001 } },
    ],
    currentNodeId: '0.2',
    metadata: { title: 'Bug hunt', tags: ['a'] },
    tombstones: ['0.1'],
    createdAt: t(0),
    updatedAt: t(4),
  };
}

describe('dataknobs JSON exchange', () => {
  it('writes the to_dict shape: snake_case fields, "" root, [parent, child] edges, tool calls with parameters', () => {
    const dict = toDataknobsDict(sampleState());
    expect(Object.keys(dict).sort()).toEqual(
      ['arbor', 'conversation_id', 'created_at', 'current_node_id', 'edges', 'metadata', 'nodes', 'schema_version', 'updated_at'].sort(),
    );
    expect(dict.schema_version).toBe('1.1.0');
    expect(dict.nodes.map((n) => n.node_id)).toEqual(['', '0', '0.0', '0.2', '0.0.0']);
    expect(dict.edges).toEqual([['', '0'], ['0', '0.0'], ['0', '0.2'], ['0.0', '0.0.0']]);
    expect(dict.nodes[0]).toEqual({
      node_id: '',
      message: { role: 'system', content: 'Be brief.' },
      timestamp: '2026-01-01T12:00:00.000',
      prompt_name: null,
      branch_name: null,
      metadata: {},
    });
    expect(dict.nodes[1].prompt_name).toBe('debug');
    expect(dict.nodes[2].message.tool_calls).toEqual([
      { name: 'read', parameters: { path: 'a.ts' }, id: 'call_1' },
      { name: 'raw', parameters: {}, id: 'call_2', arguments: 'not json' },
    ]);
    expect(dict.nodes[4].message).toEqual({ role: 'tool', content: 'file text', name: 'read', tool_call_id: 'call_1' });
    expect(dict.arbor).toEqual({ tombstones: ['0.1'] });
  });

  it('round-trips through JSON text without losing anything', () => {
    const state = sampleState();
    const back = fromDataknobsDict(JSON.parse(JSON.stringify(toDataknobsDict(state))));
    const sortById = (s: ConversationState) => [...s.nodes].sort((a, b) => a.nodeId.localeCompare(b.nodeId));
    expect(sortById(back)).toEqual(sortById(state));
    expect({ ...back, nodes: [] }).toEqual({ ...state, nodes: [] });
  });

  it('reads a file dataknobs wrote: naive times, no tombstones, cost_usd, tool calls without ids', () => {
    const written = {
      schema_version: '1.1.0',
      conversation_id: 'dk-7',
      nodes: [
        { node_id: '', message: { role: 'system', content: 'You are helpful' }, timestamp: '2024-01-01T00:00:00', prompt_name: null, branch_name: null, metadata: {} },
        { node_id: '0', message: { role: 'user', content: 'Hello' }, timestamp: '2024-01-01T00:00:01.123456', prompt_name: 'greet', branch_name: null, metadata: {} },
        {
          node_id: '0.0',
          message: { role: 'assistant', content: 'Hi!', tool_calls: [{ name: 'search', parameters: { q: 'x' } }] },
          timestamp: '2024-01-01T00:00:02',
          prompt_name: null,
          branch_name: null,
          metadata: { cost_usd: 0.0001, usage: { total_tokens: 5 } },
        },
        { node_id: '0.1', message: { role: 'assistant', content: 'Greetings!' }, timestamp: '2024-01-01T00:00:03', prompt_name: null, branch_name: 'polite-variant', metadata: {} },
      ],
      edges: [['', '0'], ['0', '0.0'], ['0', '0.1']],
      current_node_id: '0.1',
      metadata: { user_id: 'alice' },
      created_at: '2024-01-01T00:00:00',
      updated_at: '2024-01-01T00:05:00',
    };
    const state = fromDataknobsDict(written);
    expect(state.conversationId).toBe('dk-7');
    expect(state.currentNodeId).toBe('0.1');
    expect(state.tombstones).toEqual([]);
    expect(state.createdAt).toBe('2024-01-01T00:00:00.000Z');
    const byId = new Map(state.nodes.map((n) => [n.nodeId, n]));
    expect(byId.get('0')?.timestamp).toBe('2024-01-01T00:00:01.123Z');
    expect(byId.get('0')?.promptName).toBe('greet');
    expect(byId.get('0.0')?.metadata.costUsd).toBe(0.0001);
    expect(byId.get('0.0')?.message.toolCalls).toEqual([{ id: 'call_0.0_0', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]);
    expect(byId.get('0.1')?.branchName).toBe('polite-variant');
    expect(byId.get('0.1')?.parentId).toBe('0');
  });

  it('gives ids again from the edges when the file ids are not dot paths', () => {
    const state = fromDataknobsDict({
      conversation_id: 'c',
      nodes: [
        { node_id: 'root', message: { role: 'system', content: 's' }, timestamp: '2024-01-01T00:00:00Z' },
        { node_id: 'a', message: { role: 'user', content: 'u' }, timestamp: '2024-01-01T00:00:01Z' },
        { node_id: 'b', message: { role: 'assistant', content: 'x' }, timestamp: '2024-01-01T00:00:02Z' },
        { node_id: 'c', message: { role: 'assistant', content: 'y' }, timestamp: '2024-01-01T00:00:03Z' },
      ],
      edges: [['root', 'a'], ['a', 'b'], ['a', 'c']],
      current_node_id: 'c',
      metadata: {},
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    });
    expect(state.nodes.map((n) => [n.nodeId, n.message.content])).toEqual([['', 's'], ['0', 'u'], ['0.0', 'x'], ['0.1', 'y']]);
    expect(state.currentNodeId).toBe('0.1');
  });

  it('refuses input it cannot read, with the reason', () => {
    expect(() => fromDataknobsDict(null)).toThrow(InvalidArgumentError);
    expect(() => fromDataknobsDict({ conversation_id: 'x', nodes: [] })).toThrow(/no "nodes"/);
    expect(() => fromDataknobsDict({ schema_version: '2.0.0', conversation_id: 'x', nodes: [{}] })).toThrow(/newer/);
    const base = { conversation_id: 'x', edges: [], current_node_id: '', metadata: {}, created_at: '2024-01-01T00:00:00' };
    expect(() => fromDataknobsDict({ ...base, nodes: [{ node_id: '', message: { role: 'wizard', content: '' }, timestamp: '2024-01-01T00:00:00' }] })).toThrow(/role "wizard"/);
    expect(() => fromDataknobsDict({ ...base, nodes: [{ node_id: '', message: { role: 'system', content: '' }, timestamp: 'yesterday' }] })).toThrow(/not a valid ISO/);
  });
});

describe('Markdown export', () => {
  it('writes the current path', () => {
    const md = conversationToMarkdown(sampleState());
    expect(md).toContain('# Bug hunt');
    expect(md).toContain('### System');
    expect(md).toContain('Be brief.');
    expect(md).toContain('Find the bug');
    expect(md).toContain('Line 3 ```js');
    expect(md).not.toContain('file text');
    expect(md.indexOf('Find the bug')).toBeLessThan(md.indexOf('Line 3'));
  });

  it('writes every branch as a section, with tool calls fenced', () => {
    const md = conversationToMarkdown(sampleState(), { allBranches: true });
    const sections = md.split('\n## ').slice(1);
    expect(sections).toHaveLength(2);
    expect(sections[0]).toContain('file text');
    expect(sections[0]).toContain('Tool call `read`');
    expect(sections[0]).toContain('```json\n{"path":"a.ts"}\n```');
    expect(sections[1]).toMatch(/^Branch 2: short \(current\)/);
    expect(sections[0]).not.toContain('(current)');
  });

  it('leaves out an empty root', () => {
    const state = sampleState();
    state.nodes[0].message.content = '';
    expect(conversationToMarkdown(state)).not.toContain('### System');
  });
});
