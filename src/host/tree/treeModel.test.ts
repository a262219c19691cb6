import { describe, expect, it } from 'vitest';
import type { ConversationNode, FlowNodeInfo, Role } from '../../core/index';
import { conversationTitle } from '../conversations/conversationRules';
import { branchTip, buildRuns, conversationEntry, distinctWords, findRun, hasMessages, otherStoresOffer, untrustedOtherStoresOffer } from './treeModel';

/** Fixtures spell the tree as dot paths for readability; the code under test reads only parentId and position. */
function node(nodeId: string, role: Role, content: string, extra: Partial<ConversationNode> = {}): ConversationNode {
  const dot = nodeId.lastIndexOf('.');
  const parentId = nodeId === '' ? null : dot < 0 ? '' : nodeId.slice(0, dot);
  const position = nodeId === '' ? 0 : Number(nodeId.slice(dot + 1));
  return { nodeId, parentId, position, message: { role, content }, timestamp: '2026-01-01T00:00:00.000Z', metadata: {}, ...extra };
}

const root = node('', 'system', '');

describe('buildRuns', () => {
  it('shows a chain with no fork as one run with a message count', () => {
    const nodes = [root, node('0', 'user', 'Help me design a cache\nwith TTL'), node('0.0', 'assistant', 'Sure'), node('0.0.0', 'user', 'More'), node('0.0.0.0', 'assistant', 'Ok')];
    const runs = buildRuns('c1', nodes, '0.0.0.0');
    expect(runs).toHaveLength(1);
    expect(runs[0].label).toBe('You: Help me design a cache');
    expect(runs[0].nodeIds).toEqual(['0', '0.0', '0.0.0', '0.0.0.0']);
    expect(runs[0].description).toContain('4 messages');
    expect(runs[0].description).toContain('current');
    expect(runs[0].isCurrent).toBe(true);
    expect(runs[0].children).toEqual([]);
  });

  it('lists a run\'s tool results as compact step rows before its forks, each naming the tool, how it ended and how long it ran', () => {
    const call = (id: string, name: string) => ({ id, type: 'function' as const, function: { name, arguments: '{}' } });
    const result = (nodeId: string, callId: string, name: string, status: string, ms?: number) =>
      node(nodeId, 'tool', `${name} output`, {
        message: { role: 'tool', content: `${name} output`, toolCallId: callId, name },
        metadata: { toolResult: { status, endedAt: '2026-01-01T00:00:01.000Z', ...(ms !== undefined ? { startedAt: new Date(Date.parse('2026-01-01T00:00:01.000Z') - ms).toISOString() } : {}) } },
      });
    const nodes = [
      root,
      node('0', 'user', 'Look'),
      node('0.0', 'assistant', '', { message: { role: 'assistant', content: '', toolCalls: [call('c1', 'read_file'), call('c2', 'everything__echo')] } }),
      result('0.0.0', 'c1', 'read_file', 'done', 12),
      result('0.0.0.0', 'c2', 'everything__echo', 'denied'),
      node('0.0.0.0.0', 'assistant', 'Found it'),
      node('0.0.0.0.1', 'assistant', 'Another answer'),
    ];
    const runs = buildRuns('c1', nodes, '0.0.0.0.0');
    const [first, second, ...forks] = runs[0].children;
    expect([first.step, second.step]).toEqual([{ toolName: 'read_file', state: 'done' }, { toolName: 'everything__echo', state: 'denied' }]);
    expect(first).toMatchObject({ firstNodeId: '0.0.0', label: 'read_file', description: 'done · 12 ms', role: 'tool', children: [] });
    expect(second.description).toBe('denied');
    expect(forks.map((r) => r.firstNodeId)).toEqual(['0.0.0.0.0', '0.0.0.0.1']);
    expect(forks.every((r) => r.step === undefined)).toBe(true);
  });

  it('splits at a fork into one child run per sibling, each with its own continuation', () => {
    const nodes = [
      root,
      node('0', 'user', 'Q'),
      node('0.0', 'assistant', 'A1'),
      node('0.1', 'assistant', 'A2', { branchName: 'retry' }),
      node('0.1.0', 'user', 'follow up'),
    ];
    const runs = buildRuns('c1', nodes, '0.0');
    expect(runs).toHaveLength(1);
    expect(runs[0].nodeIds).toEqual(['0']);
    expect(runs[0].children.map((r) => r.nodeIds)).toEqual([['0.0'], ['0.1', '0.1.0']]);
    expect(runs[0].children[1].branchName).toBe('retry');
    expect(runs[0].children[1].description).toContain('retry');
    expect(runs[0].children[0].isCurrent).toBe(true);
    expect(runs[0].children[1].isCurrent).toBe(false);
    expect(runs[0].onCurrentPath).toBe(true);
    expect(runs[0].children[1].onCurrentPath).toBe(false);
  });

  it('shows sibling first messages at the top and a non-empty system root as its own run', () => {
    const top = buildRuns('c', [root, node('0', 'user', 'one'), node('1', 'user', 'two')], '1');
    expect(top.map((r) => r.label)).toEqual(['You: one', 'You: two']);
    const withSystem = buildRuns('c', [node('', 'system', 'Be terse'), node('0', 'user', 'hi')], '0');
    expect(withSystem).toHaveLength(1);
    expect(withSystem[0].label).toBe('System: Be terse');
    expect(withSystem[0].nodeIds).toEqual(['', '0']);
  });

  it('orders siblings by position, not by string order', () => {
    const nodes = [root, node('0', 'user', 'q'), ...Array.from({ length: 11 }, (_, i) => node(`0.${i}`, 'assistant', `a${i}`))];
    const runs = buildRuns('c', nodes.reverse(), '0');
    expect(runs[0].children.map((r) => r.firstNodeId).slice(-2)).toEqual(['0.9', '0.10']);
  });

  it('finds the run of a node and the tip of a branch', () => {
    const nodes = [root, node('0', 'user', 'q'), node('0.0', 'assistant', 'a'), node('0.1', 'assistant', 'b'), node('0.1.0', 'user', 'c'), node('0.1.1', 'user', 'd')];
    const runs = buildRuns('c', nodes, '0');
    expect(findRun(runs, '0.1.1')?.firstNodeId).toBe('0.1.1');
    expect(findRun(runs, '0.0')?.nodeIds).toEqual(['0.0']);
    expect(findRun(runs, '9')).toBeUndefined();
    expect(branchTip(nodes, '0')).toBe('0.1.1');
    expect(branchTip(nodes, '0.0')).toBe('0.0');
  });
});

describe('conversationEntry', () => {
  it('shows title, relative time, message count without the root, and cost', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    const entry = conversationEntry(
      { conversationId: 'x', metadata: { title: 'Cache design', totalCostUsd: 0.0123 }, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:55:00Z', nodeCount: 7 },
      now,
    );
    expect(entry.label).toBe('Cache design');
    expect(entry.description).toBe('5 min ago · 6 messages · $0.012');
  });

  it('falls back to the first message, then a placeholder, for the title', () => {
    expect(conversationTitle({}, '\n  Explain   this\nplease')).toBe('Explain this');
    expect(conversationTitle({})).toBe('New conversation');
  });
});

describe('sibling labels', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const at = (iso: string) => ({ timestamp: iso });

  it('show the words where sibling questions first differ, with the time, and the full text in the tooltip', () => {
    const nodes = [
      root,
      node('0', 'user', 'Explain how the cache evicts entries in detail, with examples', at('2026-01-01T00:00:00Z')),
      node('1', 'user', 'Explain how the cache evicts entries briefly', at('2026-01-01T00:55:00Z')),
    ];
    const [first, second] = buildRuns('c', nodes, '1', now);
    expect(first.label).toBe('You: …in detail, with examples');
    expect(second.label).toBe('You: …briefly');
    expect(first.description).toBe('1 h ago');
    expect(second.description).toBe('5 min ago · ● current');
    expect(first.tooltip).toBe('You: Explain how the cache evicts entries in detail, with examples');
  });

  it('show each answer’s model in front, and keep the whole text when siblings share no first word', () => {
    const nodes = [
      root,
      node('0', 'user', 'Q'),
      node('0.0', 'assistant', 'A cache keeps recent items', { metadata: { model: 'llama3.2' }, timestamp: '2026-01-01T00:58:00Z' }),
      node('0.1', 'assistant', 'Caches keep items close', { metadata: { model: 'qwen3' }, timestamp: '2026-01-01T00:59:50Z' }),
    ];
    const [a, b] = buildRuns('c', nodes, '0.1', now)[0].children;
    expect(a.label).toBe('Assistant: A cache keeps recent items');
    expect(a.description).toBe('llama3.2 · 2 min ago');
    expect(b.description).toBe('qwen3 · just now · ● current');
  });

  it('leave a run without siblings as it was', () => {
    const nodes = [root, node('0', 'user', 'Only question'), node('0.0', 'assistant', 'Only answer')];
    expect(buildRuns('c', nodes, '0.0', now)[0]).toMatchObject({ label: 'You: Only question', description: '2 messages · ● current' });
  });

  it('cut what differs to fit beside the description', () => {
    expect(distinctWords('Tell me about the tree view in great length please', ['Tell me about the tree model'])).toBe('…view in great length please');
    expect(distinctWords('same words', ['same words'])).toBe('same words');
    expect(distinctWords('short', ['short and longer'])).toBe('short');
    const long = buildRuns('c', [root, node('0', 'user', `Why ${'very '.repeat(20)}long`), node('1', 'user', 'Other')], '1', now)[0];
    expect(long.label.length).toBeLessThanOrEqual('You: '.length + 32);
  });
});

describe('bookmarks and notes in the tree', () => {
  it('marks a run by what its messages carry: bookmarks and notes in the description and tooltip, and its first message for its commands', () => {
    const nodes = [
      root,
      node('0', 'user', 'Which conifer loses its needles?', { metadata: { note: 'for the talk\nsecond line' } }),
      node('0.0', 'assistant', 'The larch.', { metadata: { bookmarked: true } }),
      node('0.0.0', 'user', 'And in winter?', { metadata: { bookmarked: true, note: 'check' } }),
    ];
    const [run] = buildRuns('c', nodes, '0.0.0');
    expect(run).toMatchObject({ bookmarks: 2, firstBookmarked: false, firstNote: 'for the talk\nsecond line' });
    expect(run.description).toBe('3 messages · 2 bookmarks · 2 notes · ● current');
    expect(run.tooltip).toBe(
      'You: Which conifer loses its needles?\n    Note: for the talk\nAssistant: The larch.  (bookmarked)\nYou: And in winter?  (bookmarked)  ← current\n    Note: check',
    );
    const [single] = buildRuns('c', [root, node('0', 'user', 'Q', { metadata: { bookmarked: true, note: 'a note on Q' } })], '');
    expect(single).toMatchObject({ bookmarks: 1, firstBookmarked: true, firstNote: 'a note on Q' });
    expect(single.description).toBe('bookmarked · note: a note on Q');
    const [plain] = buildRuns('c', [root, node('0', 'user', 'Q', { metadata: { note: '  ' } })], '');
    expect(plain).toMatchObject({ bookmarks: 0, firstBookmarked: false, description: '' });
    expect(plain.firstNote).toBeUndefined();
  });
});

describe('hasMessages', () => {
  it('lists a conversation once it has a message beside its root', () => {
    expect(hasMessages({ nodeCount: 1 })).toBe(false);
    expect(hasMessages({ nodeCount: 2 })).toBe(true);
  });
});

describe('the offer of conversations other workspaces left', () => {
  const commands = { open: 'open', dismiss: 'dismiss' };
  const now = Date.parse('2026-03-10T12:00:00Z');

  it('counts a conversation two stores kept once, and says when the newest was last used', () => {
    const offer = otherStoresOffer(
      [
        { where: 'project', conversationIds: ['a', 'b'], size: '12.0 KB', lastUsed: new Date('2026-03-08T12:00:00Z') },
        { where: 'team.code-workspace: project, lib', conversationIds: ['b', 'c'], size: '4.0 KB', lastUsed: new Date('2026-03-10T11:00:00Z') },
      ],
      2,
      commands,
      now,
    );
    expect(offer.label).toBe('3 conversations from 2 other workspaces');
    expect(offer.description).toBe('last used 1 h ago');
    expect(offer.tooltip).toContain('Conversations from these folders were found in 2 other workspaces (3 conversations, last used 1 h ago):');
    expect(offer.tooltip).toContain('• project: 2 conversations, 12.0 KB, last used 2 days ago');
    expect(offer.children.map((c) => [c.label, c.command])).toEqual([
      ['Open Them Here', 'open'],
      ['Dismiss', 'dismiss'],
    ]);
  });

  it('speaks of this folder and another workspace when there is one of each, and of one conversation', () => {
    const offer = otherStoresOffer([{ where: 'project', conversationIds: ['a'], size: '1 KB', lastUsed: new Date('2026-03-10T11:59:30Z') }], 1, commands, now);
    expect(offer.label).toBe('1 conversation from another workspace');
    expect(offer.description).toBe('last used just now');
    expect(offer.tooltip).toContain('Conversations from this folder were found in another workspace (1 conversation, last used just now):');
  });

  it('in an untrusted workspace offers to look, without having read anything', () => {
    const offer = untrustedOtherStoresOffer(1, commands);
    expect(offer.description).toBe('not looked for: this workspace is not trusted');
    expect(offer.children.map((c) => [c.label, c.command])).toEqual([
      ['Look for Them…', 'open'],
      ['Dismiss', 'dismiss'],
    ]);
  });
});

describe('flow rows', () => {
  /** Nodes as dot paths, each with an optional flow marker (as chat/flowView.test.ts builds them). */
  function flowNode(nodeId: string, role: Role, flow?: Partial<FlowNodeInfo>): ConversationNode {
    const dot = nodeId.lastIndexOf('.');
    const parentId = nodeId === '' ? null : dot < 0 ? '' : nodeId.slice(0, dot);
    const position = nodeId === '' ? 0 : Number(nodeId.slice(dot + 1));
    const metadata = flow ? { flow: { name: 'review-fix', version: 'v1', runId: 'r1', state: 'review', step: 1, ...flow } } : {};
    return { nodeId, parentId, position, message: { role, content: `${role} ${nodeId}` }, timestamp: '2026-01-01T00:00:00.000Z', metadata };
  }

  it('shows in the Conversations tree on the rows of a flow, and not on the others', () => {
    const nodes = [
      flowNode('', 'system'),
      flowNode('0', 'user', { memoryIn: {} }),
      flowNode('0.0', 'assistant', { memory: {}, next: 'fix' }),
      flowNode('0.0.0', 'user', { state: 'fix', step: 2 }),
      flowNode('0.0.1', 'user'),
    ];
    const runs = buildRuns('c1', nodes, '0.0.0');
    expect(runs[0].description).toContain('review-fix · review · step 1');
    const [flowRow, plainRow] = runs[0].children;
    expect(flowRow.description).toContain('review-fix · fix · step 2');
    expect(plainRow.description).not.toContain('review-fix');
  });
});
