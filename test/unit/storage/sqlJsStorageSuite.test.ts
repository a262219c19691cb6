/**
 * The shared storage cases (`storageSuite.ts`, `fileStorageSuite.ts`) on the sql.js store, in memory and file-backed, plus
 * how this store numbers sibling positions (from the conversation's counter, as node ids).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from '../../../src/core/storage/sqlJsConversationStorage';
import { sampleConversation } from '../../../src/core/storage/storageTestData';
import { fileStorageSuite } from './fileStorageSuite';
import { newNode, storageSuite } from './storageSuite';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-storage-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('SqlJsConversationStorage in memory', () => {
  storageSuite(() => SqlJsConversationStorage.open());
  fileStorageSuite(() => SqlJsConversationStorage.open());

  it('gives an added node the position of its id in the conversation\'s counter', async () => {
    const storage = await SqlJsConversationStorage.open();
    await storage.saveConversation(sampleConversation('c1', 3));
    const result = await storage.applyChange('c1', { addNodes: [newNode('n2', 10, 1), newNode('n1', 10, 2)], updatedAt: '2025-02-01T00:00:00.000Z' });
    expect(result.addedNodes.map((n) => [n.nodeId, n.position])).toEqual([
      ['n3', 3],
      ['n4', 4],
    ]);
    await storage.close();
  });
});

describe('SqlJsConversationStorage file-backed', () => {
  storageSuite(() => SqlJsConversationStorage.open(path.join(dir, 'sub', 'arbor.db')));
  fileStorageSuite(() => SqlJsConversationStorage.open(path.join(dir, 'sub', 'arbor.db')));
});
