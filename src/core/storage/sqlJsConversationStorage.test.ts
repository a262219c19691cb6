import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError, StorageError } from '../errors';
import { formatNodeId } from '../nodeIds';
import type { NewNode } from './storage';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation, sampleNode } from './storageTestData';

/** A node to add under `parentId`: the store gives its id and position. */
function newNode(parentId: string, bytes: number, seed: number, role: 'user' | 'assistant' = 'user'): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, bytes, seed, role);
  return node;
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-storage-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe.each([
  ['in memory', () => SqlJsConversationStorage.open()],
  ['file-backed', () => SqlJsConversationStorage.open(path.join(dir, 'sub', 'arbor.db'))],
])('SqlJsConversationStorage %s', (_label, open) => {
  it('saves, loads, applies changes and deletes', async () => {
    const storage = await open();
    const state = sampleConversation('c1', 3, { metadata: { project: 'a' } });
    state.nodes[1].branchName = 'main';
    state.nodes[1].promptName = 'review';
    await storage.saveConversation(state);
    expect(await storage.loadConversation('c1')).toEqual(state);
    expect(await storage.loadConversation('missing')).toBeNull();

    expect(state.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2']);

    // The store gives new nodes the next ids of the conversation's counter and positions after their siblings.
    const added = newNode('n2', 500, 9, 'assistant');
    const result = await storage.applyChange('c1', { addNodes: [added], currentIsLastAdded: true, updatedAt: '2025-02-01T00:00:00.000Z' });
    expect(result.addedNodes).toEqual([{ ...added, nodeId: 'n3', position: 3 }]);
    const loaded = await storage.loadConversation('c1');
    expect(loaded?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2', 'n3']);
    expect(loaded?.nodes[3]).toEqual(result.addedNodes[0]);
    expect(loaded?.currentNodeId).toBe('n3');
    expect(loaded?.nextNodeSeq).toBe(4);
    expect(loaded?.updatedAt).toBe('2025-02-01T00:00:00.000Z');

    // Several at once, in order; the current node is the last one added.
    const two = await storage.applyChange('c1', { addNodes: [newNode('n1', 10, 1), newNode('n1', 10, 2)], currentIsLastAdded: true, updatedAt: '2025-02-01T00:00:01.000Z' });
    expect(two.addedNodes.map((n) => [n.nodeId, n.parentId, n.position, n.metadata.seed])).toEqual([
      ['n4', 'n1', 4, 1],
      ['n5', 'n1', 5, 2],
    ]);
    expect((await storage.loadConversation('c1'))?.currentNodeId).toBe('n5');

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
    // Deleted ids are never given again.
    expect(pruned?.nextNodeSeq).toBe(6);
    const after = await storage.applyChange('c1', { addNodes: [newNode('n1', 10, 3)], updatedAt: '2025-02-02T00:00:01.000Z' });
    expect(after.addedNodes.map((n) => [n.nodeId, n.position])).toEqual([['n6', 6]]);
    expect((await storage.loadConversation('c1'))?.currentNodeId).toBe('n1');

    // Bad changes are refused whole, before anything is written.
    const before = await storage.loadConversation('c1');
    await expect(storage.applyChange('nope', { updatedAt: 'x' })).rejects.toBeInstanceOf(ConversationNotFoundError);
    await expect(storage.applyChange('c1', { addNodes: [newNode('n1', 10, 4), newNode('n2', 10, 5)], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { addNodes: [{ ...newNode('', 10, 4), parentId: null }], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { updateNodes: [{ ...edited, nodeId: 'n3' }], updatedAt: 'y' })).rejects.toBeInstanceOf(NodeNotFoundError);
    await expect(storage.applyChange('c1', { deleteNodeIds: ['0.0'], updatedAt: 'y' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.applyChange('c1', { currentNodeId: '0', updatedAt: 'y' })).rejects.toBeInstanceOf(InvalidArgumentError);
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
    expect((await storage.listConversations({ sortBy: 'createdAt', sortOrder: 'desc', limit: 2, offset: 1 })).map((s) => s.conversationId)).toEqual([
      'c3',
      'c2',
    ]);
    expect((await storage.listConversations({ sortBy: 'conversationId', offset: 4 })).map((s) => s.conversationId)).toEqual(['c4']);
    const odd = await storage.listConversations({ filterMetadata: { team: 'odd' }, sortBy: 'conversationId' });
    expect(odd.map((s) => s.conversationId)).toEqual(['c1', 'c3']);
    expect(odd[0]).toMatchObject({ nodeCount: 2, createdAt: '2025-01-02T00:00:00.000Z', metadata: { team: 'odd' } });
    expect((await storage.listConversations({ filterMetadata: { nested: { n: 2 }, tags: ['x', 2] } })).map((s) => s.conversationId)).toEqual(['c2']);
    expect(await storage.countConversations({ filterMetadata: { team: 'even' } })).toBe(3);
    expect(await storage.countConversations()).toBe(5);

    expect((await storage.searchConversations({ contentContains: 'über' })).map((s) => s.conversationId)).toEqual(['c3']);
    expect((await storage.searchConversations({ contentContains: 'PLAIN', sortBy: 'conversationId', offset: 1, limit: 2 })).map((s) => s.conversationId)).toEqual([
      'c1',
      'c2',
    ]);
    expect(
      (await storage.searchConversations({ createdAfter: '2025-01-02T00:00:00Z', createdBefore: '2025-01-04T00:00:00Z', sortBy: 'createdAt', sortOrder: 'asc' })).map(
        (s) => s.conversationId,
      ),
    ).toEqual(['c1', 'c2']);
    expect(await storage.countConversations({ contentContains: 'plain', filterMetadata: { team: 'even' } })).toBe(3);
    const offsetTime = sampleConversation('tz', 1, { createdAt: '2025-01-02T01:30:00+02:00' });
    await storage.saveConversation(offsetTime);
    expect((await storage.searchConversations({ createdBefore: '2025-01-02T00:00:00Z', sortBy: 'conversationId' })).map((s) => s.conversationId)).toEqual([
      'c0',
      'tz',
    ]);
    await storage.deleteConversation('tz');
    await expect(storage.searchConversations({ createdAfter: 'yesterday' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(storage.listConversations({ limit: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });

  it('searches content on every branch, not only the current one', async () => {
    const storage = await open();
    const state = sampleConversation('tree', 3);
    state.nodes.push({ ...sampleNode('n3', '', 50, 3), message: { role: 'user', content: 'A hidden SIBLING' } });
    await storage.saveConversation(state);
    expect((await storage.searchConversations({ contentContains: 'sibling' })).map((s) => s.conversationId)).toEqual(['tree']);
    await storage.close();
  });

  it('finds the matching messages themselves, on every branch, newest conversation first, up to a limit', async () => {
    const storage = await open();
    const older = sampleConversation('older', 2);
    older.updatedAt = '2025-01-01T00:00:00.000Z';
    older.nodes.push({ ...sampleNode('n2', '', 50, 3), branchName: 'alt', message: { role: 'assistant', content: 'An Über answer' } });
    const newer = sampleConversation('newer', 2);
    newer.updatedAt = '2025-02-01T00:00:00.000Z';
    newer.metadata = { title: 'Newer' };
    newer.nodes.push({ ...sampleNode('n2', '', 50, 4), message: { role: 'user', content: 'über alles' } });
    await storage.saveConversation(older);
    await storage.saveConversation(newer);
    const found = await storage.searchMessages('ÜBER');
    expect(found.map((m) => [m.conversationId, m.nodeId])).toEqual([
      ['newer', 'n2'],
      ['older', 'n2'],
    ]);
    expect(found[0]).toMatchObject({ role: 'user', content: 'über alles', conversationMetadata: { title: 'Newer' } });
    expect(found[0].branchName).toBeUndefined();
    expect(found[1]).toMatchObject({ role: 'assistant', branchName: 'alt' });
    expect(await storage.searchMessages('über', { limit: 1 })).toHaveLength(1);
    expect(await storage.searchMessages('nowhere to be found')).toEqual([]);
    await storage.close();
  });

  it('deletes many, refusing an empty filter', async () => {
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

  it('fires onDidChange for its own writes', async () => {
    const storage = await open();
    const seen: string[] = [];
    const subscription = storage.onDidChange((id) => seen.push(id));
    await storage.saveConversation(sampleConversation('e1', 1));
    await storage.updateMetadata('e1', { x: 1 });
    subscription.dispose();
    await storage.deleteConversation('e1');
    expect(seen).toEqual(['e1', 'e1']);
    await storage.close();
  });
});

describe('SqlJsConversationStorage persistence', () => {
  it('sees everything after close and reopen, and after reopen without close (journal replay)', async () => {
    const file = path.join(dir, 'arbor.db');
    const first = await SqlJsConversationStorage.open(file);
    await first.saveConversation(sampleConversation('kept', 3));
    await first.close();

    const second = await SqlJsConversationStorage.open(file);
    expect((await second.loadConversation('kept'))?.nodes).toHaveLength(3);
    await second.applyChange('kept', { addNodes: [newNode('n2', 800, 5)], currentIsLastAdded: true, updatedAt: '2025-05-01T00:00:00.000Z' });
    await second.saveConversation(sampleConversation('late', 2));
    const lateAdded = (await second.applyChange('late', { addNodes: [newNode('', 80, 6)], currentIsLastAdded: true, updatedAt: '2025-05-01T00:00:01.000Z' })).addedNodes[0];
    await second.deleteConversation('kept');
    await second.saveConversation(sampleConversation('kept', 2));
    // No close: the database file is stale and only the journal holds these changes.
    const third = await SqlJsConversationStorage.open(file);
    expect((await third.loadConversation('kept'))?.nodes).toHaveLength(2);
    const late = await third.loadConversation('late');
    expect(late?.nodes).toHaveLength(3);
    // The replayed journal gives back the ids and positions the store gave, and the counter after them.
    expect(late?.nodes[2]).toEqual(lateAdded);
    expect(late?.currentNodeId).toBe(lateAdded.nodeId);
    expect(late?.nextNodeSeq).toBe(3);
    const next = await third.applyChange('late', { addNodes: [newNode('', 80, 7)], updatedAt: '2025-05-01T00:00:02.000Z' });
    expect(next.addedNodes[0].nodeId).not.toBe(lateAdded.nodeId);
    await third.close();
    await second.close();
    const fourth = await SqlJsConversationStorage.open(file);
    expect(await fourth.countConversations()).toBe(2);
    expect((await fourth.loadConversation('late'))?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1', 'n2', 'n3']);
    expect(fourth.warnings).toEqual([]);
    await fourth.close();
  });

  it('lets two instances on one file see each other\'s journal lines on the next read or poll', async () => {
    const file = path.join(dir, 'arbor.db');
    const a = await SqlJsConversationStorage.open(file);
    const b = await SqlJsConversationStorage.open(file);
    const seenByB: string[] = [];
    b.onDidChange((id) => seenByB.push(id));
    await a.saveConversation(sampleConversation('from-a', 2));
    expect(await b.poll()).toEqual(['from-a']);
    expect(await b.poll()).toEqual([]);
    const byB = await b.applyChange('from-a', { addNodes: [newNode('', 100, 1)], updatedAt: '2025-07-01T00:00:00.000Z' });
    expect(byB.addedNodes[0].nodeId).toBe('n2');
    // a has not read since: its write still catches up first, so it cannot give n2 again.
    const byA = await a.applyChange('from-a', { addNodes: [newNode('', 100, 2)], currentNodeId: 'n2', updatedAt: '2025-07-02T00:00:00.000Z' });
    expect(byA.addedNodes[0].nodeId).toBe('n3');
    const seen = await b.loadConversation('from-a');
    expect(seen?.nodes.map((n) => [n.nodeId, n.metadata.seed])).toEqual([['', undefined], ['n1', 0], ['n2', 1], ['n3', 2]]);
    expect(seen?.currentNodeId).toBe('n2');
    expect(seenByB).toEqual(['from-a', 'from-a', 'from-a']);
    await a.close();
    await b.close();
  });

  it('checkpoints when the journal grows and keeps every change across checkpoints', async () => {
    const file = path.join(dir, 'arbor.db');
    const storage = await SqlJsConversationStorage.open(file, { checkpointEntries: 5 });
    await storage.saveConversation(sampleConversation('c', 1));
    for (let i = 0; i < 12; i++) {
      await storage.applyChange('c', { addNodes: [newNode('', 200, i)], updatedAt: new Date().toISOString() });
    }
    const journal = await fs.readFile(file + '.arbor-journal', 'utf8');
    expect(journal.trim().split('\n').length).toBeLessThan(7);
    const reader = await SqlJsConversationStorage.open(file);
    const loaded = await reader.loadConversation('c');
    expect(loaded?.nodes.map((n) => n.nodeId)).toEqual(Array.from({ length: 13 }, (_, i) => formatNodeId(i)));
    expect(loaded?.nodes.slice(1).map((n) => n.metadata.seed)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(loaded?.nextNodeSeq).toBe(13);
    await reader.close();
    await storage.close();
  });

  it('ignores a torn last journal line and keeps writing after it', async () => {
    const file = path.join(dir, 'arbor.db');
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation(sampleConversation('t', 2));
    const journalPath = file + '.arbor-journal';
    const whole = await fs.readFile(journalPath);
    await storage.applyChange('t', { addNodes: [newNode('', 300, 1)], updatedAt: '2025-06-01T00:00:00.000Z' });
    const withChange = await fs.readFile(journalPath);
    // Simulate a kill in the middle of writing the second entry.
    await fs.writeFile(journalPath, withChange.subarray(0, whole.length + Math.floor((withChange.length - whole.length) / 2)));
    const reopened = await SqlJsConversationStorage.open(file);
    expect((await reopened.loadConversation('t'))?.nodes.map((n) => n.nodeId)).toEqual(['', 'n1']);
    await reopened.applyChange('t', { addNodes: [newNode('', 300, 2)], updatedAt: '2025-06-02T00:00:00.000Z' });
    const again = await SqlJsConversationStorage.open(file);
    expect((await again.loadConversation('t'))?.nodes.map((n) => [n.nodeId, n.metadata.seed])).toEqual([['', undefined], ['n1', 0], ['n2', 2]]);
    await again.close();
    await reopened.close();
    await storage.close().catch(() => undefined);
  });
});
