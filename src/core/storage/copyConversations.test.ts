import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makePng } from '../../../test/fixtures/pngImages';
import { copyConversations } from './copyConversations';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';
import type { ConversationStorage, NewNode } from './storage';
import { sampleConversation, sampleNode } from './storageTestData';

const bytes = (text: string) => new TextEncoder().encode(text);
const PNG = makePng(40, 30, 3);

function newNode(parentId: string, seed: number): NewNode {
  const { nodeId: _id, position: _position, ...node } = sampleNode('', parentId, 120, seed);
  return node;
}

/** A conversation with a branch, an image on one message and a file change on another. */
async function seed(store: ConversationStorage, conversationId: string): Promise<string> {
  const state = sampleConversation(conversationId, 4, { metadata: { title: `Chat ${conversationId}` } });
  await store.saveConversation(state);
  // A second child of the first message: a branch.
  const { addedNodes } = await store.applyChange(conversationId, {
    addNodes: [newNode(state.nodes[1].nodeId, 50)],
    addImages: [[{ bytes: PNG, name: 'shot.png' }]],
    updatedAt: '2025-02-01T00:00:00.000Z',
  });
  await store.recordFileChanges(conversationId, addedNodes[0].nodeId, [{ path: 'src/app.ts', before: bytes('old\n'), after: bytes('new\nline\n') }]);
  return addedNodes[0].nodeId;
}

describe('copyConversations between two real sql.js file stores', () => {
  let dir: string;
  let local: SqlJsConversationStorage;
  let team: SqlJsConversationStorage;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-copy-'));
    local = await SqlJsConversationStorage.open(path.join(dir, 'local.sqlite'));
    team = await SqlJsConversationStorage.open(path.join(dir, 'team.sqlite'));
  });
  afterEach(async () => {
    await local.close();
    await team.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('copies under the same ids with branches, current node, metadata, images and file changes, keeping the source', async () => {
    const branches = { a: await seed(local, 'a'), b: await seed(local, 'b') };
    const report = await copyConversations(local, team, ['a', 'b']);
    expect(report).toEqual({ copied: ['a', 'b'], skipped: [], failed: [] });
    for (const id of ['a', 'b'] as const) {
      const [from, to] = [await local.loadConversation(id), await team.loadConversation(id)];
      expect(to).toEqual(from);
      const branch = from!.nodes.find((n) => n.nodeId === branches[id])!;
      // A second child of the first message: the copy keeps both branches.
      expect(to!.nodes.filter((n) => n.parentId === branch.parentId)).toHaveLength(2);
      const images = await team.nodeImages(id, branch.nodeId);
      expect(images).toHaveLength(1);
      expect(Buffer.from((await team.fileContent(images[0].hash))!).equals(Buffer.from(PNG))).toBe(true);
      const changes = await team.fileChanges(id, branch.nodeId);
      expect(changes).toMatchObject([{ path: 'src/app.ts', kind: 'modified', linesAdded: 2, linesRemoved: 1 }]);
      expect(new TextDecoder().decode((await team.fileContent(changes[0].after!.hash))!)).toBe('new\nline\n');
    }
    expect(await local.countConversations()).toBe(2);
  });

  it('moves: deletes from the source only what was copied, and never overwrites the target', async () => {
    await seed(local, 'a');
    await seed(local, 'taken');
    await team.saveConversation(sampleConversation('taken', 2, { metadata: { title: 'Theirs' } }));
    const report = await copyConversations(local, team, ['a', 'taken', 'gone'], { move: true });
    expect(report.copied).toEqual(['a']);
    expect(report.skipped).toEqual([
      { conversationId: 'taken', reason: 'exists' },
      { conversationId: 'gone', reason: 'missing' },
    ]);
    expect(await local.loadConversation('a')).toBeNull();
    expect((await local.loadConversation('taken'))?.metadata).toEqual({ title: 'Chat taken' });
    expect((await team.loadConversation('taken'))?.metadata).toEqual({ title: 'Theirs' });
  });

  it('keeps the source and leaves no half copy when the target fails', async () => {
    await seed(local, 'a');
    await team.close();
    const report = await copyConversations(local, team, ['a'], { move: true });
    expect(report.copied).toEqual([]);
    expect(report.failed.map((f) => f.conversationId)).toEqual(['a']);
    expect(await local.loadConversation('a')).not.toBeNull();
    team = await SqlJsConversationStorage.open(path.join(dir, 'team.sqlite'));
    expect(await team.loadConversation('a')).toBeNull();
  });
});
