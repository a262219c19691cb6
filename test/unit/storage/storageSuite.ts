/**
 * The conversation-level behaviour every `ConversationStorage` must have, run against each store (the
 * sql.js store in `sqlJsStorageSuite.test.ts`, the team store on PostgreSQL in
 * `postgres/postgresStorageSuite.test.ts`). What only one store has (the sql.js journal and file damage,
 * PostgreSQL's roles and teams) is tested beside that store.
 *
 * Sibling positions are checked by what the interface promises (after every earlier sibling), not by
 * value: the sql.js store numbers them from the conversation's counter, the team store from the parent's.
 */
import { expect, it } from 'vitest';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError, StorageError } from '../../../src/core/errors';
import { nodeSeqOf } from '../../../src/core/nodeIds';
import type { ConversationStorage, NewNode } from '../../../src/core/storage/storage';
import { sampleConversation, sampleNode } from '../../../src/core/storage/storageTestData';
import type { ConversationNode, ConversationState } from '../../../src/core/types';

/** A node to add under `parentId`: the store gives its id and position. */
export function newNode(parentId: string, bytes: number, seed: number, role: 'user' | 'assistant' = 'user'): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, bytes, seed, role);
  return node;
}

/** Checks that `node` sits after every child its parent had before it (by id: ids are given in creation order). */
export function expectAfterSiblings(state: ConversationState | null, node: ConversationNode): void {
  const seq = nodeSeqOf(node.nodeId) as number;
  const earlier = (state?.nodes ?? []).filter((other) => other.parentId === node.parentId && (nodeSeqOf(other.nodeId) as number) < seq);
  for (const sibling of earlier) expect(node.position, `${node.nodeId} after its sibling ${sibling.nodeId}`).toBeGreaterThan(sibling.position);
}

/** Registers the shared cases; `open` gives a new, empty store for each case. */
export function storageSuite(open: () => Promise<ConversationStorage>): void {
  it('saves, loads, applies changes and deletes', async () => {
    const storage = await open();
    const state = sampleConversation('c1', 3, { metadata: { project: 'a' } });
    state.nodes[1].branchName = 'main';
    state.nodes[1].promptName = 'review';
    state.nodes[2].message = { role: 'assistant', content: 'answer', thinking: 'hmm', toolCalls: [{ id: 't1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] };
    await storage.saveConversation(state);
    expect(await storage.loadConversation('c1')).toEqual(state);
    expect(await storage.loadConversation('missing')).toBeNull();

    expect(state.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2']);

    // The store gives new nodes the next ids of the conversation's counter and positions after their siblings.
    const added = newNode('n2', 500, 9, 'assistant');
    const result = await storage.applyChange('c1', { addNodes: [added], currentIsLastAdded: true, updatedAt: '2025-02-01T00:00:00.000Z' });
    expect(result.addedNodes).toEqual([{ ...added, nodeId: 'n3', position: result.addedNodes[0].position }]);
    const loaded = await storage.loadConversation('c1');
    expect(loaded?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2', 'n3']);
    expect(loaded?.nodes[3]).toEqual(result.addedNodes[0]);
    expect(loaded?.currentNodeId).toBe('n3');
    expect(loaded?.nextNodeSeq).toBe(4);
    expect(loaded?.updatedAt).toBe('2025-02-01T00:00:00.000Z');

    // Several at once, in order, under a parent that has a child already; the current node is the last one added.
    const two = await storage.applyChange('c1', { addNodes: [newNode('n1', 10, 1), newNode('n1', 10, 2)], currentIsLastAdded: true, updatedAt: '2025-02-01T00:00:01.000Z' });
    expect(two.addedNodes.map((n) => [n.nodeId, n.parentId, n.metadata.seed])).toEqual([
      ['n4', 'n1', 1],
      ['n5', 'n1', 2],
    ]);
    const withTwo = await storage.loadConversation('c1');
    for (const node of two.addedNodes) expectAfterSiblings(withTwo, node);
    expect(two.addedNodes[1].position).toBeGreaterThan(two.addedNodes[0].position);
    expect(withTwo?.currentNodeId).toBe('n5');

    // Updates change the message, names and metadata; id, parent and position stay.
    const edited = { ...(loaded?.nodes[1] as (typeof state.nodes)[number]), message: { role: 'user' as const, content: 'edited' }, branchName: 'renamed', metadata: { x: 1 } };
    await storage.applyChange('c1', { updateNodes: [edited], updatedAt: '2025-02-01T00:00:02.000Z' });
    const afterEdit = await storage.loadConversation('c1');
    expect(afterEdit?.nodes[1]).toEqual(edited);
    expect(afterEdit?.nodes[1].position).toBe(state.nodes[1].position);

    await storage.applyChange('c1', {
      deleteNodeIds: ['n2', 'n3', 'n5'],
      currentNodeId: 'n1',
      metadata: { project: 'b' },
      updatedAt: '2025-02-02T00:00:00.000Z',
    });
    const pruned = await storage.loadConversation('c1');
    expect(pruned?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n4']);
    expect(pruned?.currentNodeId).toBe('n1');
    expect(pruned?.metadata).toEqual({ project: 'b' });
    expect(pruned).not.toHaveProperty('tombstones');
    // Deleted ids are never given again, nor are the positions of deleted siblings.
    expect(pruned?.nextNodeSeq).toBe(6);
    const after = await storage.applyChange('c1', { addNodes: [newNode('n1', 10, 3)], updatedAt: '2025-02-02T00:00:01.000Z' });
    expect(after.addedNodes.map((n) => n.nodeId)).toEqual(['n6']);
    expect(after.addedNodes[0].position).toBeGreaterThan(two.addedNodes[1].position);
    expect((await storage.loadConversation('c1'))?.currentNodeId).toBe('n1');

    // A delete takes the whole subtree below the nodes named.
    await storage.applyChange('c1', { addNodes: [newNode('n6', 10, 4)], updatedAt: '2025-02-02T00:00:02.000Z' });
    await storage.applyChange('c1', { deleteNodeIds: ['n6'], updatedAt: '2025-02-02T00:00:03.000Z' });
    expect((await storage.loadConversation('c1'))?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n4']);

    // Bad changes are refused whole, before anything is written.
    const before = await storage.loadConversation('c1');
    await expect(storage.applyChange('nope', { updatedAt: 'x' })).rejects.toBeInstanceOf(ConversationNotFoundError);
    await expect(storage.applyChange('c1', { addNodes: [newNode('n1', 10, 4), newNode('n2', 10, 5)], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { addNodes: [{ ...newNode('', 10, 4), parentId: null }], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { updateNodes: [{ ...edited, nodeId: 'n3' }], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { deleteNodeIds: ['0.0'], updatedAt: 'y' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.applyChange('c1', { currentNodeId: '0', updatedAt: 'y' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.applyChange('c1', { currentNodeId: 'n9', updatedAt: '2025-02-03T00:00:00.000Z' })).rejects.toBeInstanceOf(NodeNotFoundError);
    expect(await storage.loadConversation('c1')).toEqual(before);
    // A whole conversation must use ids this store gives.
    const dotted = sampleConversation('dotted', 2);
    dotted.nodes[1].nodeId = '0';
    dotted.currentNodeId = '0';
    await expect(storage.saveConversation(dotted)).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await storage.loadConversation('dotted')).toBeNull();
    expect(await storage.deleteConversation('c1')).toBe(true);
    expect(await storage.deleteConversation('c1')).toBe(false);
    expect(await storage.loadConversation('c1')).toBeNull();
    await storage.close();
    await expect(storage.loadConversation('c1')).rejects.toBeInstanceOf(StorageError);
  });

  it('replaces a conversation saved again under its id, and keeps counting after its highest id', async () => {
    const storage = await open();
    const first = sampleConversation('again', 4, { metadata: { v: 1 } });
    await storage.saveConversation(first);
    const second = sampleConversation('again', 2, { metadata: { v: 2 } });
    second.nodes.push({ ...sampleNode('n7', '', 20, 7), position: 5 });
    delete second.nextNodeSeq;
    await storage.saveConversation(second);
    const loaded = await storage.loadConversation('again');
    expect(loaded?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n7']);
    expect(loaded?.metadata).toEqual({ v: 2 });
    expect(loaded?.nextNodeSeq).toBe(8);
    expect(await storage.countConversations()).toBe(1);
    const added = await storage.applyChange('again', { addNodes: [newNode('', 10, 1)], updatedAt: '2025-03-01T00:00:00.000Z' });
    expect(added.addedNodes[0].nodeId).toBe('n8');
    expectAfterSiblings(await storage.loadConversation('again'), added.addedNodes[0]);
    await storage.close();
  });

  it('lists, counts and searches with filters, sorting, limit and offset', async () => {
    const storage = await open();
    for (let i = 0; i < 5; i++) {
      const state = sampleConversation(`c${i}`, 2, {
        createdAt: `2025-01-0${i + 1}T00:00:00.000Z`,
        metadata: { team: i % 2 ? 'odd' : 'even', tags: ['x', i], nested: { n: i } },
      });
      state.updatedAt = `2025-03-0${5 - i}T00:00:00.000Z`;
      state.nodes[1].message.content = i === 3 ? 'Grüße from the ÜBER branch' : `plain ${i}`;
      await storage.saveConversation(state);
    }
    expect((await storage.listConversations()).map((s) => s.conversationId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect((await storage.listConversations({ sortBy: 'createdAt', sortOrder: 'desc', limit: 2, offset: 1 })).map((s) => s.conversationId)).toEqual(['c3', 'c2']);
    expect((await storage.listConversations({ sortBy: 'conversationId', offset: 4 })).map((s) => s.conversationId)).toEqual(['c4']);
    const odd = await storage.listConversations({ filterMetadata: { team: 'odd' }, sortBy: 'conversationId' });
    expect(odd.map((s) => s.conversationId)).toEqual(['c1', 'c3']);
    expect(odd[0]).toMatchObject({ nodeCount: 2, createdAt: '2025-01-02T00:00:00.000Z', metadata: { team: 'odd' } });
    expect((await storage.listConversations({ filterMetadata: { nested: { n: 2 }, tags: ['x', 2] } })).map((s) => s.conversationId)).toEqual(['c2']);
    // JSON equality, not containment: a shorter array or object does not match.
    expect(await storage.listConversations({ filterMetadata: { tags: ['x'] } })).toEqual([]);
    expect(await storage.listConversations({ filterMetadata: { nested: {} } })).toEqual([]);
    expect(await storage.countConversations({ filterMetadata: { team: 'even' } })).toBe(3);
    expect(await storage.countConversations()).toBe(5);

    expect((await storage.searchConversations({ contentContains: 'über' })).map((s) => s.conversationId)).toEqual(['c3']);
    expect((await storage.searchConversations({ contentContains: 'PLAIN', sortBy: 'conversationId', offset: 1, limit: 2 })).map((s) => s.conversationId)).toEqual(['c1', 'c2']);
    expect(
      (await storage.searchConversations({ createdAfter: '2025-01-02T00:00:00Z', createdBefore: '2025-01-04T00:00:00Z', sortBy: 'createdAt', sortOrder: 'asc' })).map((s) => s.conversationId),
    ).toEqual(['c1', 'c2']);
    expect((await storage.searchConversations({ updatedBefore: '2025-03-03T00:00:00Z', sortBy: 'conversationId' })).map((s) => s.conversationId)).toEqual(['c3', 'c4']);
    expect((await storage.searchConversations({ conversationIds: ['c4', 'c1', 'zz'] })).map((s) => s.conversationId)).toEqual(['c1', 'c4']);
    expect(await storage.countConversations({ contentContains: 'plain', filterMetadata: { team: 'even' } })).toBe(3);
    const offsetTime = sampleConversation('tz', 1, { createdAt: '2025-01-02T01:30:00+02:00' });
    await storage.saveConversation(offsetTime);
    expect((await storage.searchConversations({ createdBefore: '2025-01-02T00:00:00Z', sortBy: 'conversationId' })).map((s) => s.conversationId)).toEqual(['c0', 'tz']);
    await storage.deleteConversation('tz');
    await expect(storage.searchConversations({ createdAfter: 'yesterday' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.listConversations({ limit: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.listConversations({ sortBy: 'size' as never })).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });

  it('searches content on every branch, not only the current one, and leaves out conversations by their messages\' metadata', async () => {
    const storage = await open();
    const state = sampleConversation('tree', 3);
    state.nodes.push({ ...sampleNode('n3', '', 50, 3), message: { role: 'user', content: 'A hidden SIBLING' }, metadata: { bookmarked: true } });
    await storage.saveConversation(state);
    await storage.saveConversation(sampleConversation('plain', 2));
    expect((await storage.searchConversations({ contentContains: 'sibling' })).map((s) => s.conversationId)).toEqual(['tree']);
    expect((await storage.searchConversations({ withoutNodeMetadata: { bookmarked: true } })).map((s) => s.conversationId)).toEqual(['plain']);
    expect(await storage.countConversations({ withoutNodeMetadata: { bookmarked: false } })).toBe(2);
    await storage.close();
  });

  it('finds the matching messages themselves, on every branch, newest conversation first, up to a limit', async () => {
    const storage = await open();
    const older = sampleConversation('older', 2);
    older.updatedAt = '2025-01-01T00:00:00.000Z';
    older.nodes.push({ ...sampleNode('n2', '', 50, 3), branchName: 'alt', message: { role: 'assistant', content: 'An Über answer' }, metadata: { bookmarked: true, note: 'see' } });
    const newer = sampleConversation('newer', 2);
    newer.updatedAt = '2025-02-01T00:00:00.000Z';
    newer.metadata = { title: 'Newer' };
    newer.nodes.push({ ...sampleNode('n2', '', 50, 4), message: { role: 'user', content: 'über alles' }, metadata: { bookmarked: true } });
    await storage.saveConversation(older);
    await storage.saveConversation(newer);
    const found = await storage.searchMessages('ÜBER');
    expect(found.map((m) => [m.conversationId, m.nodeId])).toEqual([
      ['newer', 'n2'],
      ['older', 'n2'],
    ]);
    expect(found[0]).toMatchObject({ role: 'user', content: 'über alles', conversationMetadata: { title: 'Newer' } });
    expect(found[0].branchName).toBeUndefined();
    expect(found[1]).toMatchObject({ role: 'assistant', branchName: 'alt', metadata: { bookmarked: true, note: 'see' } });
    expect(await storage.searchMessages('über', { limit: 1 })).toHaveLength(1);
    expect(await storage.searchMessages('nowhere to be found')).toEqual([]);
    expect(await storage.searchMessages('')).toEqual([]);
    const bookmarked = await storage.findMessages({ filterMetadata: { bookmarked: true } });
    expect(bookmarked.map((m) => [m.conversationId, m.nodeId])).toEqual([
      ['newer', 'n2'],
      ['older', 'n2'],
    ]);
    expect((await storage.findMessages({ filterMetadata: { note: 'see' } })).map((m) => m.conversationId)).toEqual(['older']);
    await expect(storage.findMessages({ filterMetadata: {} })).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });

  it('deletes many, refusing an empty filter, and says which it removed', async () => {
    const storage = await open();
    for (let i = 0; i < 4; i++) {
      await storage.saveConversation(sampleConversation(`d${i}`, 1, { metadata: { keep: i < 2 }, createdAt: `2025-01-0${i + 1}T00:00:00.000Z` }));
    }
    await expect(storage.deleteConversations({})).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.deleteConversations({ filterMetadata: {} })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(await storage.deleteConversations({ filterMetadata: { keep: false } })).toBe(2);
    expect(await storage.deleteConversations({ conversationIds: ['d0', 'zz'] })).toBe(1);
    expect(await storage.deleteConversations({ createdBefore: '2025-01-01T00:00:00Z' })).toBe(0);
    expect((await storage.listConversations()).map((s) => s.conversationId)).toEqual(['d1']);
    const removed = await storage.removeConversations({ conversationIds: ['d1'] });
    expect(removed).toEqual([{ conversationId: 'd1', metadata: { keep: true }, createdAt: '2025-01-02T00:00:00.000Z', updatedAt: '2025-01-02T00:00:00.000Z', nodeCount: 1 }]);
    expect(await storage.removeConversations({ conversationIds: ['d1'] })).toEqual([]);
    await storage.close();
  });

  it('merges metadata and forks whole or up to a node', async () => {
    const storage = await open();
    const source = sampleConversation('src', 4, { metadata: { a: 1, b: 2 } });
    source.nodes.push(sampleNode('n4', '', 100, 7));
    await storage.saveConversation(source);
    await storage.updateMetadata('src', { b: undefined, c: 'new' });
    expect((await storage.loadConversation('src'))?.metadata).toEqual({ a: 1, c: 'new' });
    await expect(storage.updateMetadata('nope', { a: 1 })).rejects.toBeInstanceOf(ConversationNotFoundError);

    const whole = await storage.forkConversation('src', 'copy');
    expect(whole.nodes).toHaveLength(5);
    expect(whole.currentNodeId).toBe(source.currentNodeId);
    whole.nodes[1].message.content = 'changed by the caller';
    whole.metadata.a = 99;
    expect((await storage.loadConversation('copy'))?.nodes[1].message.content).not.toBe('changed by the caller');
    expect((await storage.loadConversation('src'))?.metadata).toEqual({ a: 1, c: 'new' });
    expect(await storage.loadConversation('copy')).toEqual({ ...(await storage.loadConversation('src')), conversationId: 'copy', createdAt: whole.createdAt, updatedAt: whole.updatedAt });
    const partial = await storage.forkConversation('src', 'part', { upToNodeId: 'n2' });
    expect(partial.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2']);
    expect(partial.currentNodeId).toBe('n2');
    expect(await storage.loadConversation('part')).toEqual(partial);
    expect((await storage.loadConversation('src'))?.nodes).toHaveLength(5);
    // The copy keeps counting where the source was: a node added to it gets an id its source never gave.
    const more = await storage.applyChange('part', { addNodes: [newNode('n2', 10, 1)], updatedAt: '2025-03-01T00:00:00.000Z' });
    expect(['', 'n1', 'n2', 'n3', 'n4']).not.toContain(more.addedNodes[0].nodeId);
    await expect(storage.forkConversation('src', 'x', { upToNodeId: 'n9' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.forkConversation('src', 'x', { upToNodeId: '0.0' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.forkConversation('src', 'copy')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.forkConversation('gone', 'y')).rejects.toBeInstanceOf(ConversationNotFoundError);
    await storage.close();
  });

  it('keeps the legacy id limit of a conversation migrated from 1.x, through saves, edits and forks', async () => {
    const storage = await open();
    const state = { ...sampleConversation('legacy', 3), legacyIdLimit: 2 };
    await storage.saveConversation(state);
    expect(await storage.loadConversation('legacy')).toEqual(state);
    await storage.applyChange('legacy', { updateNodes: [{ ...state.nodes[0], message: { role: 'system', content: 'a new system prompt' } }], updatedAt: '2025-04-01T00:00:00.000Z' });
    const edited = await storage.loadConversation('legacy');
    expect(edited?.legacyIdLimit).toBe(2);
    expect(edited?.nodes[0].message).toEqual({ role: 'system', content: 'a new system prompt' });
    expect((await storage.forkConversation('legacy', 'legacy-copy')).legacyIdLimit).toBe(2);
    expect((await storage.loadConversation('legacy-copy'))?.legacyIdLimit).toBe(2);
    await storage.close();
  });

  it('fires onDidChange for its own writes', async () => {
    const storage = await open();
    const seen: string[] = [];
    const subscription = storage.onDidChange?.((id) => seen.push(id));
    await storage.saveConversation(sampleConversation('e1', 1));
    await storage.updateMetadata('e1', { x: 1 });
    // Each write is reported once it returns; a store with a change feed (the team store) may report a
    // write of its own a second time when the feed brings it back, which listeners take as a refresh.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen)).toEqual(new Set(['e1']));
    subscription?.dispose();
    const before = seen.length;
    await storage.deleteConversation('e1');
    expect(seen.length).toBe(before);
    await storage.close();
  });
}
