/**
 * Schema 2.3 (the workspace folder of a file change) against the release before it. A store written by
 * the last 2.2 release (test/fixtures/storeV2_2: a checkpoint plus a journal it never folded, file
 * checkpoints in both) opens, is upgraded in place, keeps every file checkpoint as that release loaded
 * it (without a folder: unknown), and from then on stores the folder of each change, through the
 * journal, a merge and a fork.
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_SUFFIX, SqlJsConversationStorage, type FileState } from '../../../src/core/index';
import { CURRENT_SCHEMA } from '../../../src/core/storage/schema';
import type { RecordedFileChange } from '../../../src/core/storage/storage';

const FIXTURE = path.resolve(__dirname, '../../fixtures/storeV2_2');
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as { first: string; second: string; statesAtSecond: FileState[]; fileChanges: Record<string, RecordedFileChange[]> };
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-store-v2-2-'));
  file = path.join(dir, 'arbor.sqlite');
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite'), file);
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite.arbor-journal'), file + JOURNAL_SUFFIX);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function userVersion(): Promise<number> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await fs.readFile(file));
  try {
    return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
  } finally {
    db.close();
  }
}

describe('a store written by the schema 2.2 release', () => {
  it('is upgraded to 2.3 in place, keeps its file checkpoints without a folder, and then records folders', async () => {
    expect(await userVersion()).toBe(2002);
    let storage = await SqlJsConversationStorage.open(file);
    expect(storage.warnings).toEqual([]);
    expect(await storage.filesStateAt('conv-files', expected.second)).toEqual(expected.statesAtSecond);
    expect((await storage.filesStateAt('conv-files', expected.second)).every((s) => !('folder' in s))).toBe(true);
    expect(await storage.fileChangesByNode('conv-files')).toEqual(expected.fileChanges);
    expect(await userVersion()).toBe(CURRENT_SCHEMA.major * 1000 + CURRENT_SCHEMA.minor);

    // A new change records its folder; a later record of the same file by the same node without one keeps it.
    const { addedNodes } = await storage.applyChange('conv-files', {
      addNodes: [{ parentId: expected.second, message: { role: 'assistant', content: 'Edited the lib.' }, timestamp: new Date().toISOString(), metadata: {} }],
      currentIsLastAdded: true,
      updatedAt: new Date().toISOString(),
    });
    const third = addedNodes[0].nodeId;
    await storage.recordFileChanges('conv-files', third, [{ path: 'src/app.ts', folder: 'lib', before: bytes('export const app = 2;\n'), after: bytes('export const app = 3;\n') }]);
    await storage.recordFileChanges('conv-files', third, [{ path: 'src/app.ts', before: bytes('export const app = 3;\n'), after: bytes('export const app = 4;\n') }]);
    const folderOf = async (conversationId: string, nodeId: string) => (await storage.filesStateAt(conversationId, nodeId)).map((s) => [s.path, s.folder]);
    expect(await folderOf('conv-files', third)).toEqual([['NOTE.md', undefined], ['src/app.ts', 'lib']]);
    // Back at the node before, the old row still has none.
    expect(await folderOf('conv-files', expected.second)).toEqual([['NOTE.md', undefined], ['src/app.ts', undefined]]);

    // A fork copies the folder; a reopen (journal replay, then a checkpoint) keeps it.
    await storage.forkConversation('conv-files', 'conv-fork', {});
    await storage.close();
    storage = await SqlJsConversationStorage.open(file);
    expect(await folderOf('conv-files', third)).toEqual([['NOTE.md', undefined], ['src/app.ts', 'lib']]);
    const fork = await storage.loadConversation('conv-fork');
    expect(await folderOf('conv-fork', fork!.currentNodeId)).toEqual([['NOTE.md', undefined], ['src/app.ts', 'lib']]);
    await storage.close();
  });

  it('refuses a folder name that is not one path segment', async () => {
    const storage = await SqlJsConversationStorage.open(file);
    try {
      await expect(storage.recordFileChanges('conv-files', expected.second, [{ path: 'x.txt', folder: '../up', before: null, after: bytes('x') }])).rejects.toThrow(/must be the name of a workspace folder/);
    } finally {
      await storage.close();
    }
  });
});
