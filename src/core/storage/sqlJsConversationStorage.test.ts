import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

// The conversation-level cases every store shares (save, change, list, search, delete, fork, onDidChange)
// are in test/unit/storage/storageSuite.ts, run on this store by test/unit/storage/sqlJsStorageSuite.test.ts.
// Here: what only this store has, its files and journal.
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
