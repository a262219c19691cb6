import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationTree } from '../../../src/core/conversation/conversationTree';
import { fromDataknobsDict, toDataknobsDict } from '../../../src/core/conversation/exchange';
import { conversationToMarkdown } from '../../../src/core/conversation/markdownExport';
import { fromMetonSession, isMetonSession } from '../../../src/core/conversation/metonImport';
import type { ConversationNode, ConversationState } from '../../../src/core/types';
import { InvalidArgumentError } from '../../../src/core/errors';

const savedTz = process.env.TZ;
beforeAll(() => {
  // Files of dataknobs and Meton hold naive local times: run in a zone where local is not UTC (and
  // has no daylight saving), so a naive time read or written as UTC would show.
  process.env.TZ = 'Asia/Kolkata';
  expect(new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset()).toBe(-330);
});
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const RAG = { placeholder: 'NOTES', adapter: 'notes', query: 'bug', queryHash: 'abc123', k: 1, results: [], formattedContent: 'ctx', timestamp: '2026-01-01T06:30:00.000Z' };

/**
 * As the store keeps it: ids from the counter, positions with gaps (n3, the old second child of n1,
 * was deleted; n1 is the root's child at position 1 because an earlier first child was deleted).
 *   "" → n1 "Find the bug" → n2 (tool calls) → n4 (tool)
 *                          → n5 "Line 3" (short, current)
 */
function sampleState(): ConversationState {
  // Local times: 12:00 in the test's zone.
  const t = (s: number, ms = 0) => new Date(2026, 0, 1, 12, 0, s, ms).toISOString();
  return {
    conversationId: 'conv-1',
    nodes: [
      { nodeId: '', parentId: null, position: 0, message: { role: 'system', content: 'Be brief.' }, timestamp: t(0), metadata: {} },
      {
        nodeId: 'n1',
        parentId: '',
        position: 1,
        message: { role: 'user', content: 'Find the bug' },
        timestamp: t(1),
        promptName: 'debug',
        metadata: { prompt: { name: 'debug' }, ragMetadata: { NOTES: RAG } },
      },
      {
        nodeId: 'n2',
        parentId: 'n1',
        position: 2,
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
        metadata: { model: 'gpt-4o', costUsd: 0.002, finishReason: 'tool_calls', usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } },
      },
      { nodeId: 'n4', parentId: 'n2', position: 4, message: { role: 'tool', content: 'file text', toolCallId: 'call_1', name: 'read' }, timestamp: t(3, 250), metadata: {} },
      { nodeId: 'n5', parentId: 'n1', position: 5, message: { role: 'assistant', content: 'Line 3 ```js\nx\n```' }, timestamp: t(4), branchName: 'short', metadata: { costUsd: 0.001 } },
    ],
    currentNodeId: 'n5',
    metadata: { title: 'Bug hunt', tags: ['a'] },
    nextNodeSeq: 6,
    createdAt: t(0),
    updatedAt: t(4),
  };
}

/** The nodes by dot path, without ids and positions: what must survive an export and import. */
function byDotPath(state: ConversationState): Array<Omit<ConversationNode, 'nodeId' | 'parentId' | 'position'> & { path: string }> {
  const tree = new ConversationTree(state.nodes);
  return state.nodes
    .map(({ nodeId, parentId: _parent, position: _position, ...rest }) => ({ path: tree.dotPath(nodeId), ...rest }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('dataknobs JSON exchange', () => {
  it('writes the to_dict shape: snake_case fields, "" root, dot-path ids from the tree, [parent, child] edges, tool calls with parameters', () => {
    const dict = toDataknobsDict(sampleState());
    expect(Object.keys(dict).sort()).toEqual(['conversation_id', 'created_at', 'current_node_id', 'edges', 'metadata', 'nodes', 'schema_version', 'updated_at'].sort());
    expect(dict.schema_version).toBe('1.1.0');
    // Sibling indexes, contiguous, whatever the stored positions; breadth first.
    expect(dict.nodes.map((n) => n.node_id)).toEqual(['', '0', '0.0', '0.1', '0.0.0']);
    expect(dict.nodes.map((n) => n.message.content)).toEqual(['Be brief.', 'Find the bug', '', 'Line 3 ```js\nx\n```', 'file text']);
    expect(dict.edges).toEqual([['', '0'], ['0', '0.0'], ['0', '0.1'], ['0.0', '0.0.0']]);
    expect(dict.current_node_id).toBe('0.1');
    expect(dict.nodes[0]).toEqual({
      node_id: '',
      message: { role: 'system', content: 'Be brief.' },
      timestamp: '2026-01-01T12:00:00',
      prompt_name: null,
      branch_name: null,
      metadata: {},
    });
    expect(dict.nodes[1].prompt_name).toBe('debug');
    expect(dict.nodes[2].message.tool_calls).toEqual([
      { name: 'read', parameters: { path: 'a.ts' }, id: 'call_1' },
      { name: 'raw', parameters: {}, id: 'call_2', arguments: 'not json' },
    ]);
    expect(dict.nodes[3].branch_name).toBe('short');
    expect(dict.nodes[4].message).toEqual({ role: 'tool', content: 'file text', name: 'read', tool_call_id: 'call_1' });
    expect(JSON.stringify(dict)).not.toMatch(/"n[1-5]"/);
  });

  it('writes times as naive local ISO, with microseconds only when there are some', () => {
    const dict = toDataknobsDict(sampleState());
    expect(dict.created_at).toBe('2026-01-01T12:00:00');
    expect(dict.updated_at).toBe('2026-01-01T12:00:04');
    expect(dict.nodes.map((n) => n.timestamp)).toEqual([
      '2026-01-01T12:00:00',
      '2026-01-01T12:00:01',
      '2026-01-01T12:00:02',
      '2026-01-01T12:00:04',
      '2026-01-01T12:00:03.250000',
    ]);
  });

  it('writes the metadata keys dataknobs reads beside Arbor\'s own', () => {
    const state = sampleState();
    const dict = toDataknobsDict(state);
    expect(dict.nodes[2].metadata).toEqual({
      model: 'gpt-4o',
      costUsd: 0.002,
      cost_usd: 0.002,
      finishReason: 'tool_calls',
      finish_reason: 'tool_calls',
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7, prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(dict.nodes[3].metadata).toEqual({ costUsd: 0.001, cost_usd: 0.001 });
    expect(dict.nodes[1].metadata).toEqual({
      prompt: { name: 'debug' },
      ragMetadata: { NOTES: RAG },
      rag_metadata: { NOTES: { ...RAG, query_hash: 'abc123', formatted_content: 'ctx' } },
    });
    // The state itself is not changed by the export.
    expect(state).toEqual(sampleState());
  });

  it('round-trips through JSON text: the same tree and fields, new ids breadth first, positions as sibling indexes', () => {
    const state = sampleState();
    const dict = toDataknobsDict(state);
    const back = fromDataknobsDict(JSON.parse(JSON.stringify(dict)));
    expect(byDotPath(back)).toEqual(byDotPath(state));
    expect(back.nodes.map((n) => [n.nodeId, n.parentId, n.position, n.message.content])).toEqual([
      ['', null, 0, 'Be brief.'],
      ['n1', '', 0, 'Find the bug'],
      ['n2', 'n1', 0, ''],
      ['n3', 'n1', 1, 'Line 3 ```js\nx\n```'],
      ['n4', 'n2', 0, 'file text'],
    ]);
    expect(back.nextNodeSeq).toBe(5);
    expect(back.currentNodeId).toBe('n3');
    expect(back).not.toHaveProperty('legacyIdLimit');
    expect({ ...back, nodes: [], currentNodeId: '', nextNodeSeq: 0 }).toEqual({ ...state, nodes: [], currentNodeId: '', nextNodeSeq: 0 });
    // The snake_case keys are folded back, not kept twice.
    expect(back.nodes[2].metadata).toEqual(state.nodes[2].metadata);
    expect(back.nodes[1].metadata).toEqual(state.nodes[1].metadata);
    // Export → import → export writes the same document.
    expect(toDataknobsDict(back)).toEqual(dict);
  });

  it('reads a file dataknobs wrote: naive local times, cost_usd and usage in snake case, tool calls without ids', () => {
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
          metadata: { cost_usd: 0.0001, usage: { total_tokens: 5 }, finish_reason: 'stop', rag_metadata: { R: { query_hash: 'h', formatted_content: 'f', k: 2 } } },
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
    expect(state.nodes.map((n) => [n.nodeId, n.parentId, n.position])).toEqual([
      ['', null, 0],
      ['n1', '', 0],
      ['n2', 'n1', 0],
      ['n3', 'n1', 1],
    ]);
    expect(state.currentNodeId).toBe('n3');
    expect(state).not.toHaveProperty('tombstones');
    expect(state.metadata).toEqual({ user_id: 'alice' });
    // Midnight in Kolkata (UTC+05:30) is 18:30 UTC the day before.
    expect(state.createdAt).toBe('2023-12-31T18:30:00.000Z');
    expect(state.updatedAt).toBe('2023-12-31T18:35:00.000Z');
    const byId = new Map(state.nodes.map((n) => [n.nodeId, n]));
    expect(byId.get('n1')?.timestamp).toBe('2023-12-31T18:30:01.123Z');
    expect(byId.get('n1')?.promptName).toBe('greet');
    expect(byId.get('n2')?.metadata).toEqual({
      costUsd: 0.0001,
      usage: { totalTokens: 5 },
      finishReason: 'stop',
      ragMetadata: { R: { queryHash: 'h', formattedContent: 'f', k: 2 } },
    });
    expect(byId.get('n2')?.message.toolCalls).toEqual([{ id: 'call_0.0_0', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]);
    expect(byId.get('n3')?.branchName).toBe('polite-variant');
    expect(byId.get('n3')?.message.content).toBe('Greetings!');
  });

  it('reads times with a zone as that instant', () => {
    const state = fromDataknobsDict({
      conversation_id: 'z',
      nodes: [{ node_id: '', message: { role: 'system', content: '' }, timestamp: '2024-06-01T10:00:00+02:00' }],
      created_at: '2024-06-01T10:00:00Z',
      updated_at: '2024-06-01T10:00:00.5Z',
    });
    expect(state.nodes[0].timestamp).toBe('2024-06-01T08:00:00.000Z');
    expect(state.createdAt).toBe('2024-06-01T10:00:00.000Z');
    expect(state.updatedAt).toBe('2024-06-01T10:00:00.500Z');
  });

  it('gives new ids breadth first from the edges when the file ids are not dot paths', () => {
    const state = fromDataknobsDict({
      conversation_id: 'c',
      nodes: [
        { node_id: 'c', message: { role: 'assistant', content: 'y' }, timestamp: '2024-01-01T00:00:03Z' },
        { node_id: 'root', message: { role: 'system', content: 's' }, timestamp: '2024-01-01T00:00:00Z' },
        { node_id: 'd', message: { role: 'user', content: 'z' }, timestamp: '2024-01-01T00:00:04Z' },
        { node_id: 'a', message: { role: 'user', content: 'u' }, timestamp: '2024-01-01T00:00:01Z' },
        { node_id: 'b', message: { role: 'assistant', content: 'x' }, timestamp: '2024-01-01T00:00:02Z' },
      ],
      edges: [['root', 'a'], ['a', 'b'], ['b', 'd'], ['a', 'c']],
      current_node_id: 'c',
      metadata: {},
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-01T00:00:00Z',
    });
    expect(state.nodes.map((n) => [n.nodeId, n.parentId, n.position, n.message.content])).toEqual([
      ['', null, 0, 's'],
      ['n1', '', 0, 'u'],
      ['n2', 'n1', 0, 'x'],
      ['n3', 'n1', 1, 'y'],
      ['n4', 'n2', 0, 'z'],
    ]);
    expect(state.currentNodeId).toBe('n3');
    expect(state.nextNodeSeq).toBe(5);
  });

  it('orders siblings of a file without edges by their dot paths, numerically', () => {
    const node = (node_id: string, content: string) => ({ node_id, message: { role: node_id === '' ? 'system' : 'user', content }, timestamp: '2024-01-01T00:00:00Z' });
    const state = fromDataknobsDict({
      conversation_id: 'no-edges',
      nodes: [node('0.10', 'ten'), node('', 'root'), node('0.2', 'two'), node('0', 'zero'), node('0.0', 'first')],
      current_node_id: '0.2',
    });
    const tree = new ConversationTree(state.nodes);
    expect(tree.children(tree.children('')[0].nodeId).map((n) => n.message.content)).toEqual(['first', 'two', 'ten']);
    expect(tree.get(state.currentNodeId).message.content).toBe('two');
    expect(tree.dotPath(state.currentNodeId)).toBe('0.1');
  });

  it('puts an empty system root above a first message that is not a system message', () => {
    const state = fromDataknobsDict({
      conversation_id: 'userroot',
      nodes: [
        { node_id: '', message: { role: 'user', content: 'Hi' }, timestamp: '2024-01-01T00:00:00' },
        { node_id: '0', message: { role: 'assistant', content: 'Hello' }, timestamp: '2024-01-01T00:00:01' },
      ],
      edges: [['', '0']],
      current_node_id: '0',
    });
    expect(state.nodes.map((n) => [n.nodeId, n.parentId, n.message.role, n.message.content])).toEqual([
      ['', null, 'system', ''],
      ['n1', '', 'user', 'Hi'],
      ['n2', 'n1', 'assistant', 'Hello'],
    ]);
    expect(state.currentNodeId).toBe('n2');
    expect(toDataknobsDict(state).nodes.map((n) => [n.node_id, n.message.content])).toEqual([['', ''], ['0', 'Hi'], ['0.0', 'Hello']]);
  });

  it('refuses input it cannot read, with the reason', () => {
    expect(() => fromDataknobsDict(null)).toThrow(InvalidArgumentError);
    expect(() => fromDataknobsDict({ conversation_id: 'x', nodes: [] })).toThrow(/no "nodes"/);
    expect(() => fromDataknobsDict({ schema_version: '2.0.0', conversation_id: 'x', nodes: [{}] })).toThrow(/newer/);
    const base = { conversation_id: 'x', edges: [], current_node_id: '', metadata: {}, created_at: '2024-01-01T00:00:00' };
    expect(() => fromDataknobsDict({ ...base, nodes: [{ node_id: '', message: { role: 'wizard', content: '' }, timestamp: '2024-01-01T00:00:00' }] })).toThrow(/role "wizard"/);
    expect(() => fromDataknobsDict({ ...base, nodes: [{ node_id: '', message: { role: 'system', content: '' }, timestamp: 'yesterday' }] })).toThrow(/not a valid ISO/);
    expect(() => fromDataknobsDict({ ...base, nodes: [{ node_id: 7 }] })).toThrow(/no "node_id" string/);
    const two = [
      { node_id: 'a', message: { role: 'system', content: '' }, timestamp: '2024-01-01T00:00:00' },
      { node_id: 'b', message: { role: 'system', content: '' }, timestamp: '2024-01-01T00:00:00' },
    ];
    expect(() => fromDataknobsDict({ ...base, nodes: two })).toThrow(/exactly one root.*found 2/);
    expect(() => fromDataknobsDict({ ...base, nodes: two, edges: [['a']] })).toThrow(/"edges".*\[parent_id, child_id\]/);
  });
});

describe('naive times that name no real moment', () => {
  it('refuses them, as Python\'s datetime.fromisoformat does, instead of moving the message to another time', () => {
    const times = ['2024-13-01T00:00:00', '2024-00-10T00:00:00', '2024-02-30T10:00:00', '2024-01-01T25:00:00', '2024-01-01T10:60:00', '2024-01-01T10:00:61'];
    const accepted: string[] = [];
    for (const time of times) {
      const file = { conversation_id: 'x', nodes: [{ node_id: '', message: { role: 'system', content: '' }, timestamp: time }], created_at: '2024-01-01T00:00:00' };
      const session = { session_id: 's', messages: [{ role: 'user', content: 'a', timestamp: time }] };
      for (const read of [() => fromDataknobsDict(file).nodes[0].timestamp, () => fromMetonSession(session).nodes[1].timestamp]) {
        try {
          accepted.push(`${time} read as ${read()}`);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect((error as Error).message).toMatch(/not a valid ISO 8601 time/);
        }
      }
    }
    expect(accepted).toEqual([]);
  });
});

describe('Meton session import', () => {
  const session = () => ({
    session_id: 'meton-42',
    start_time: '2025-03-01T10:00:00',
    end_time: '2025-03-01T10:05:00.500000',
    max_history: 20,
    messages: [
      { role: 'system', content: 'You are Meton.', timestamp: '2025-03-01T10:00:00', metadata: {} },
      { role: 'user', content: 'List the files', timestamp: '2025-03-01T10:00:01', metadata: {} },
      { role: 'assistant', content: 'Calling ls.', timestamp: '2025-03-01T10:00:02.250000', metadata: { model: 'qwen' } },
      { role: 'tool', content: 'a.ts\nb.ts', timestamp: '2025-03-01T10:00:03', metadata: { tool_name: 'ls', duration_ms: 12 } },
      { role: 'assistant', content: 'Two files.', timestamp: '2025-03-01T10:00:04', metadata: {} },
    ],
  });

  it('recognises session files and nothing else', () => {
    expect(isMetonSession(session())).toBe(true);
    expect(isMetonSession(toDataknobsDict(sampleState()))).toBe(false);
    expect(isMetonSession({ session_id: 's', messages: [], nodes: [] })).toBe(false);
    expect(isMetonSession({ session_id: 's' })).toBe(false);
    expect(isMetonSession(null)).toBe(false);
  });

  it('reads one branch: a leading system message is the root, every other message the next node', () => {
    const state = fromMetonSession(session());
    expect(state.conversationId).toBe('meton-42');
    expect(state.nodes.map((n) => [n.nodeId, n.parentId, n.position, n.message.role])).toEqual([
      ['', null, 0, 'system'],
      ['n1', '', 0, 'user'],
      ['n2', 'n1', 0, 'assistant'],
      ['n3', 'n2', 0, 'tool'],
      ['n4', 'n3', 0, 'assistant'],
    ]);
    expect(state.nodes[0].message.content).toBe('You are Meton.');
    expect(state.currentNodeId).toBe('n4');
    expect(state.nextNodeSeq).toBe(5);
    // Tool messages take their name from metadata.tool_name; metadata is kept as written.
    expect(state.nodes[3].message).toEqual({ role: 'tool', content: 'a.ts\nb.ts', name: 'ls' });
    expect(state.nodes[3].metadata).toEqual({ tool_name: 'ls', duration_ms: 12 });
    expect(state.nodes[2].message.name).toBeUndefined();
    expect(state.nodes[2].metadata).toEqual({ model: 'qwen' });
    // Naive local times (Kolkata, UTC+05:30).
    expect(state.nodes[1].timestamp).toBe('2025-03-01T04:30:01.000Z');
    expect(state.nodes[2].timestamp).toBe('2025-03-01T04:30:02.250Z');
    expect(state.createdAt).toBe('2025-03-01T04:30:00.000Z');
    expect(state.updatedAt).toBe('2025-03-01T04:35:00.500Z');
    expect(state.metadata).toEqual({ importedFrom: 'meton', metonMaxHistory: 20 });
    // It is a tree like any other: it exports as one dataknobs branch.
    expect(toDataknobsDict(state).nodes.map((n) => n.node_id)).toEqual(['', '0', '0.0', '0.0.0', '0.0.0.0']);
  });

  it('puts an empty system root above a session that starts with another role, and takes times from the messages', () => {
    const { start_time: _s, end_time: _e, ...rest } = session();
    const state = fromMetonSession({ ...rest, messages: rest.messages.slice(1) });
    expect(state.nodes.map((n) => [n.nodeId, n.parentId, n.message.role, n.message.content])).toEqual([
      ['', null, 'system', ''],
      ['n1', '', 'user', 'List the files'],
      ['n2', 'n1', 'assistant', 'Calling ls.'],
      ['n3', 'n2', 'tool', 'a.ts\nb.ts'],
      ['n4', 'n3', 'assistant', 'Two files.'],
    ]);
    expect(state.nodes[0].timestamp).toBe(state.nodes[1].timestamp);
    expect(state.createdAt).toBe('2025-03-01T04:30:01.000Z');
    expect(state.updatedAt).toBe('2025-03-01T04:30:04.000Z');
    // A system message later in the session is an ordinary node.
    const later = fromMetonSession({ session_id: 's', messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 'note' }] });
    expect(later.nodes.map((n) => [n.nodeId, n.message.role, n.message.content])).toEqual([
      ['', 'system', ''],
      ['n1', 'user', 'a'],
      ['n2', 'system', 'note'],
    ]);
  });

  it('reads an empty session as an empty conversation', () => {
    const state = fromMetonSession({ session_id: 'empty', messages: [] });
    expect(state.nodes.map((n) => [n.nodeId, n.message.role, n.message.content])).toEqual([['', 'system', '']]);
    expect(state.currentNodeId).toBe('');
  });

  it('refuses a message with an unknown role, bad times and files that are not sessions, saying which', () => {
    const bad = session();
    bad.messages[2].role = 'wizard';
    expect(() => fromMetonSession(bad)).toThrow(InvalidArgumentError);
    expect(() => fromMetonSession(bad)).toThrow(/Message 2 of Meton session "meton-42" has role "wizard"; expected one of system, user, assistant, tool/);
    const noRole = session();
    noRole.messages[1] = { content: 'x' } as never;
    expect(() => fromMetonSession(noRole)).toThrow(/Message 1 .*has role undefined/);
    const badTime = session();
    badTime.messages[1].timestamp = 'soon';
    expect(() => fromMetonSession(badTime)).toThrow(/timestamp of message 1 is not a valid ISO 8601 time/);
    expect(() => fromMetonSession({ session_id: '', messages: [] })).toThrow(/Expected a Meton session/);
    expect(() => fromMetonSession({ nodes: [] })).toThrow(/Expected a Meton session/);
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

  it('writes every branch as a section, with tool calls fenced, naming nodes by dot path', () => {
    const md = conversationToMarkdown(sampleState(), { allBranches: true });
    const sections = md.split('\n## ').slice(1);
    expect(sections).toHaveLength(2);
    expect(sections[0]).toContain('file text');
    expect(sections[0]).toContain('Tool call `read`');
    expect(sections[0]).toContain('```json\n{"path":"a.ts"}\n```');
    expect(sections[0]).toMatch(/^Branch 1: ends at node 0\.0\.0\n/);
    expect(sections[1]).toMatch(/^Branch 2: short \(current\)/);
    expect(sections[1]).toContain('_node `0.1`');
    expect(sections[0]).not.toContain('(current)');
    expect(md).not.toMatch(/node `n\d`/);
  });

  it('leaves out an empty root', () => {
    const state = sampleState();
    state.nodes[0].message.content = '';
    expect(conversationToMarkdown(state)).not.toContain('### System');
  });
});
