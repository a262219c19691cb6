import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../errors';
import { BOOKMARKED } from '../metadataKeys';
import { SqlJsConversationStorage } from '../storage/sqlJsConversationStorage';
import { sampleConversation } from '../storage/storageTestData';
import { applyRetention } from './retention';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString();

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-retention-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** A stored conversation of three messages last changed `days` ago, its second message bookmarked when asked. */
async function seed(storage: SqlJsConversationStorage, id: string, days: number, options: { bookmarked?: boolean; note?: string } = {}): Promise<void> {
  const state = sampleConversation(id, 4, { metadata: { title: `Title of ${id}` } });
  state.createdAt = daysAgo(days + 1);
  state.updatedAt = daysAgo(days);
  if (options.bookmarked) state.nodes[2].metadata = { ...state.nodes[2].metadata, ...BOOKMARKED };
  if (options.note) state.nodes[1].metadata = { ...state.nodes[1].metadata, note: options.note };
  await storage.saveConversation(state);
}

describe('the store: bookmarked messages and old conversations', () => {
  it('findMessages lists bookmarked messages across conversations with their metadata, and nothing else', async () => {
    const storage = await SqlJsConversationStorage.open();
    await seed(storage, 'a', 1, { bookmarked: true, note: 'a note that mentions "bookmarked": true' });
    await seed(storage, 'b', 2);
    await seed(storage, 'c', 3, { bookmarked: true });
    const found = await storage.findMessages({ filterMetadata: BOOKMARKED });
    expect(found.map((m) => [m.conversationId, m.nodeId])).toEqual([['a', 'n2'], ['c', 'n2']]);
    expect(found[0]).toMatchObject({ conversationMetadata: { title: 'Title of a' }, role: 'assistant', metadata: { bookmarked: true } });
    expect(await storage.findMessages({ filterMetadata: { note: 'a note that mentions "bookmarked": true' } })).toHaveLength(1);
    expect(await storage.findMessages({ filterMetadata: BOOKMARKED, limit: 1 })).toHaveLength(1);
    await expect(storage.findMessages({ filterMetadata: {} })).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });

  it('searches by last change and leaves out conversations with a matching message', async () => {
    const storage = await SqlJsConversationStorage.open();
    await seed(storage, 'old', 40);
    await seed(storage, 'old-bookmarked', 50, { bookmarked: true });
    await seed(storage, 'new', 2);
    const ids = async (options: Parameters<typeof storage.searchConversations>[0]) => (await storage.searchConversations(options)).map((s) => s.conversationId).sort();
    expect(await ids({ updatedBefore: daysAgo(30) })).toEqual(['old', 'old-bookmarked']);
    expect(await ids({ updatedBefore: daysAgo(30), withoutNodeMetadata: BOOKMARKED })).toEqual(['old']);
    expect(await ids({ withoutNodeMetadata: BOOKMARKED })).toEqual(['new', 'old']);
    expect(await storage.countConversations({ updatedBefore: daysAgo(45) })).toBe(1);
    await expect(storage.searchConversations({ updatedBefore: 'last month' })).rejects.toThrow(/updatedBefore must be an ISO 8601 time/);
    await storage.close();
  });

  it('removeConversations returns what it deleted, and refuses a filter that only leaves some out', async () => {
    const storage = await SqlJsConversationStorage.open();
    await seed(storage, 'x', 10);
    await seed(storage, 'y', 20);
    await expect(storage.removeConversations({ withoutNodeMetadata: BOOKMARKED })).rejects.toBeInstanceOf(InvalidArgumentError);
    const removed = await storage.removeConversations({ conversationIds: ['x', 'y', 'missing'] });
    expect(removed.map((s) => [s.conversationId, s.metadata.title, s.nodeCount])).toEqual([['y', 'Title of y', 4], ['x', 'Title of x', 4]]);
    expect(await storage.removeConversations({ conversationIds: ['x'] })).toEqual([]);
    expect(await storage.countConversations()).toBe(0);
    await storage.close();
  });
});

describe('applyRetention', () => {
  it('deletes what nobody changed for that many days, never a conversation with a bookmark, and says which', async () => {
    const storage = await SqlJsConversationStorage.open();
    await seed(storage, 'old', 31);
    await seed(storage, 'older', 400);
    await seed(storage, 'old-bookmarked', 90, { bookmarked: true });
    await seed(storage, 'recent', 29);
    const result = await applyRetention(storage, 30, NOW);
    expect(result.cutoff).toBe(daysAgo(30));
    expect(result.removed.map((s) => s.conversationId)).toEqual(['older', 'old']);
    expect((await storage.listConversations()).map((s) => s.conversationId).sort()).toEqual(['old-bookmarked', 'recent']);
    expect((await applyRetention(storage, 30, NOW)).removed).toEqual([]);
    await storage.close();
  });

  it('keeps everything with 0 days, and refuses a negative number', async () => {
    const storage = await SqlJsConversationStorage.open();
    await seed(storage, 'ancient', 5000);
    expect((await applyRetention(storage, 0, NOW)).removed).toEqual([]);
    expect(await storage.countConversations()).toBe(1);
    await expect(applyRetention(storage, -1, NOW)).rejects.toBeInstanceOf(InvalidArgumentError);
    await storage.close();
  });

  it('two windows on one store running it at once delete each conversation once and report it once', async () => {
    const file = path.join(dir, 'arbor.sqlite');
    const first = await SqlJsConversationStorage.open(file);
    for (let i = 0; i < 20; i++) await seed(first, `old-${i}`, 60 + i);
    await seed(first, 'kept', 60, { bookmarked: true });
    const second = await SqlJsConversationStorage.open(file);
    const [a, b] = await Promise.all([applyRetention(first, 30, NOW), applyRetention(second, 30, NOW)]);
    const reported = [...a.removed, ...b.removed].map((s) => s.conversationId).sort();
    expect(reported).toEqual(Array.from({ length: 20 }, (_, i) => `old-${i}`).sort());
    expect((await second.listConversations()).map((s) => s.conversationId)).toEqual(['kept']);
    await first.close();
    await second.close();
  });

  it('a bookmark set in another window before the delete keeps that conversation', async () => {
    const file = path.join(dir, 'arbor.sqlite');
    const first = await SqlJsConversationStorage.open(file);
    await seed(first, 'old', 60);
    const second = await SqlJsConversationStorage.open(file);
    const state = await second.loadConversation('old');
    const node = state!.nodes[1];
    // The other window bookmarks without changing the update time: the bookmark alone must keep it.
    await second.applyChange('old', { updateNodes: [{ ...node, metadata: { ...node.metadata, ...BOOKMARKED } }], updatedAt: state!.updatedAt });
    expect((await applyRetention(first, 30, NOW)).removed).toEqual([]);
    expect(await first.countConversations()).toBe(1);
    await first.close();
    await second.close();
  });
});
