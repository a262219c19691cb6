/**
 * File checkpoints through the store's repairs: a salvage of a damaged database keeps the changes of
 * the nodes it keeps (and leaves out those whose content no longer reads back with its hash), and a
 * journal of envelopes is applied even on a database that lost the 2.1 triggers, or else refused whole.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyEntry, inTransaction, queryRows } from './conversationTables';
import { loadSqlJs } from './databaseFile';
import { readJournal } from './journal';
import { salvageInto } from './salvage';
import { SCHEMA_2_0, createSchema } from './schema';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';

const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-file-recovery-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('file checkpoints when a store is repaired', () => {
  it('survive a salvage under the new conversation keys, except a change whose content is damaged', async () => {
    const file = path.join(dir, 'source.db');
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation(sampleConversation('first', 3));
    await storage.saveConversation(sampleConversation('second', 3));
    // Large enough to be stored deflated: the salvage checks the hash of the inflated bytes.
    const big = bytes('a line that repeats\n'.repeat(100));
    await storage.recordFileChanges('second', 'n1', [{ path: 'kept.txt', before: bytes('a\n'), after: big }]);
    await storage.recordFileChanges('second', 'n2', [{ path: 'damaged.txt', before: null, after: bytes('will be damaged\n') }]);
    const kept = await storage.fileChanges('second', 'n1');
    await storage.close();

    const SQL = await loadSqlJs();
    const source = new SQL.Database(await fs.readFile(file));
    source.run('UPDATE file_contents SET data = ? WHERE hash = ?', [bytes('something else'), sha(bytes('will be damaged\n'))]);
    // Salvaging into a fresh store gives "second" another key than it had.
    source.run(`UPDATE conversations SET key = key + 10`);
    source.run(`UPDATE nodes SET conversation = conversation + 10`);
    source.run(`UPDATE file_changes SET conversation = conversation + 10`);
    const target = new SQL.Database();
    createSchema(target);
    const report = salvageInto(source, target);
    expect(report).toMatchObject({ conversations: 2, lostFileChanges: 1 });
    await fs.writeFile(path.join(dir, 'salvaged.db'), target.export());
    source.close();
    target.close();

    const salvaged = await SqlJsConversationStorage.open(path.join(dir, 'salvaged.db'));
    expect(await salvaged.fileChangesByNode('second')).toEqual({ n1: kept });
    expect(await salvaged.fileChangesByNode('first')).toEqual({});
    expect(Buffer.from((await salvaged.fileContent(sha(big))) as Uint8Array).equals(Buffer.from(big))).toBe(true);
    expect(await salvaged.fileContent(sha(bytes('something else')))).toBeNull();
    await salvaged.close();
  });

  it('applies a journal of envelopes on a database that lost the 2.1 tables (a 2.0 salvage): the upgrade comes before the replay', async () => {
    const file = path.join(dir, 'arbor.db');
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 2));
    await writer.checkpoint();
    await writer.recordFileChanges('c', 'n1', [{ path: 'a.txt', before: null, after: bytes('from the journal\n') }]);
    const expected = await writer.fileChanges('c', 'n1');
    const envelopeEntry = (await readJournal(file + JOURNAL_SUFFIX))?.entries.at(-1)?.entry;
    expect(envelopeEntry?.op).toBe('change');

    // What a 2.0 Arbor's salvage writes: the same generation, the 2.0 schema only.
    const SQL = await loadSqlJs();
    const old = new SQL.Database(await fs.readFile(file));
    const stripped = new SQL.Database();
    stripped.exec(SCHEMA_2_0);
    for (const [key, value] of queryRows(old, 'SELECT key, value FROM store_meta')) stripped.run('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)', [key, value]);
    for (const row of queryRows(old, 'SELECT * FROM conversations')) stripped.run('INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?, ?)', row);
    for (const row of queryRows(old, 'SELECT * FROM nodes')) stripped.run('INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', row);
    old.close();

    // Without the triggers an envelope collides with the root's key: the whole entry is refused, nothing half-applied.
    const copy = new SQL.Database(stripped.export());
    expect(() => inTransaction(copy, () => applyEntry(copy, envelopeEntry!))).toThrow(/UNIQUE constraint failed: nodes.conversation, nodes.seq/);
    expect(queryRows(copy, 'SELECT count(*) FROM nodes')[0][0]).toBe(2);
    copy.close();

    await fs.writeFile(file, stripped.export());
    stripped.close();
    const reopened = await SqlJsConversationStorage.open(file);
    expect(reopened.warnings).toEqual([]);
    expect(await reopened.fileChanges('c', 'n1')).toEqual(expected);
    expect((await reopened.loadConversation('c'))?.nodes).toHaveLength(2);
    await reopened.close();
    await writer.close();
  });
});
