import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../errors';
import { loadSqlJs } from './databaseFile';
import { CURRENT_SCHEMA, encodeSchemaVersion, SCHEMA_2_0 } from './schema';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from './sqlJsConversationStorage';
import { sampleConversation } from './storageTestData';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-storage-recovery-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function corruptCopies(file: string): Promise<string[]> {
  const names = await fs.readdir(path.dirname(file));
  return names.filter((name) => name.startsWith(`${path.basename(file)}.corrupt-`));
}

/** Runs a snippet in a fresh Node process (sql.js keeps its first wasm for the life of a process). */
function runFresh(code: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', code], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('SqlJsConversationStorage wasm loading', () => {
  it('loads the wasm from a given path or given bytes, as a bundled extension passes them', async () => {
    const wasmCopy = path.join(dir, 'shipped-next-to-bundle.wasm');
    await fs.copyFile(require.resolve('sql.js/dist/sql-wasm.wasm'), wasmCopy);
    const open = (options: string) =>
      `const { SqlJsConversationStorage } = require('./src/core/storage/sqlJsConversationStorage.ts');
       const fs = require('node:fs');
       SqlJsConversationStorage.open(undefined, ${options})
         .then((s) => s.countConversations().then((n) => { console.log('count', n); return s.close(); }))
         .catch((e) => { console.error(e.message); process.exit(3); });`;
    expect(runFresh(open(`{ wasmPath: ${JSON.stringify(wasmCopy)} }`)).stdout).toContain('count 0');
    expect(runFresh(open(`{ wasmBinary: fs.readFileSync(${JSON.stringify(wasmCopy)}) }`)).stdout).toContain('count 0');
    const missing = runFresh(open(`{ wasmPath: ${JSON.stringify(path.join(dir, 'missing.wasm'))} }`));
    expect(missing.status).toBe(3);
    expect(missing.stderr).toMatch(/Could not load the SQLite engine \(sql\.js\) from .*missing\.wasm/);
  }, 60_000);
});

describe('SqlJsConversationStorage damaged and foreign files', () => {
  it('moves a file that is not a database aside, keeps its bytes, and opens a fresh store', async () => {
    const file = path.join(dir, 'notes.db');
    await fs.writeFile(file, 'these are my notes, not a database\n'.repeat(20));
    const warnings: string[] = [];
    const storage = await SqlJsConversationStorage.open(file, { logger: { warn: (message) => warnings.push(message) } });
    const moved = await corruptCopies(file);
    expect(moved).toHaveLength(1);
    expect(await fs.readFile(path.join(dir, moved[0]), 'utf8')).toBe('these are my notes, not a database\n'.repeat(20));
    expect(storage.warnings).toHaveLength(1);
    expect(storage.warnings[0]).toMatch(/not an SQLite database.*moved to .*notes\.db\.corrupt-/);
    expect(warnings).toEqual(storage.warnings);
    await storage.saveConversation(sampleConversation('fresh', 2));
    await storage.close();
    const reopened = await SqlJsConversationStorage.open(file);
    expect(await reopened.countConversations()).toBe(1);
    expect(reopened.warnings).toEqual([]);
    await reopened.close();
  });

  it('moves a truncated database aside instead of opening or overwriting it', async () => {
    const file = path.join(dir, 'cut.db');
    const storage = await SqlJsConversationStorage.open(file);
    for (let i = 0; i < 20; i++) {
      await storage.saveConversation(sampleConversation(`c${i}`, 20, { bytes: () => 1500 }));
    }
    await storage.close();
    const whole = await fs.readFile(file);
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    await fs.writeFile(file, cut);

    const reopened = await SqlJsConversationStorage.open(file);
    expect(reopened.warnings[0]).toMatch(/truncated/);
    const moved = await corruptCopies(file);
    expect(moved).toHaveLength(1);
    expect((await fs.readFile(path.join(dir, moved[0]))).equals(cut)).toBe(true);
    expect(await reopened.countConversations()).toBe(0);
    await reopened.close();
  });

  it('refuses a file from a newer schema major version and leaves it byte-identical', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.exec(SCHEMA_2_0);
    db.exec(
      `INSERT INTO conversations (id, metadata, current_seq, next_seq, created_at, updated_at) VALUES ('future', '{}', 0, 1, '2030-01-01T00:00:00Z', '2030-01-01T00:00:00Z');
       PRAGMA user_version = 3000;`,
    );
    const bytes = db.export();
    db.close();
    const file = path.join(dir, 'future.db');
    await fs.writeFile(file, bytes);

    const opening = SqlJsConversationStorage.open(file);
    await expect(opening).rejects.toBeInstanceOf(StorageError);
    await expect(opening).rejects.toThrow(/newer Arbor \(storage schema 3\.0; this version reads 2\.x\).*left untouched/);
    expect((await fs.readFile(file)).equals(Buffer.from(bytes))).toBe(true);
    expect(await fs.readdir(dir)).toEqual(['future.db']);
  });

  it('searches stored messages (case-insensitively, beyond ASCII) after a reopen, a checkpoint and another instance\'s checkpoint', async () => {
    // Search, metadata filters and time filters run as JavaScript SQL functions, which every
    // database object the store loads or re-creates must have again.
    const file = path.join(dir, 'search.db');
    const writer = await SqlJsConversationStorage.open(file);
    const state = sampleConversation('old', 2, { metadata: { v: 1 }, createdAt: '2024-01-01T00:00:00.000Z' });
    state.nodes[1].message.content = 'ÉCOLE and Straße';
    await writer.saveConversation(state);
    await writer.close();
    const search = async (storage: SqlJsConversationStorage) => [
      (await storage.searchConversations({ contentContains: 'école', filterMetadata: { v: 1 }, createdBefore: '2024-01-02T00:00:00Z' })).map((c) => c.conversationId),
      (await storage.searchMessages('STRAßE')).map((m) => [m.conversationId, m.nodeId]),
    ];
    const expected = [['old'], [['old', 'n1']]];

    const reopened = await SqlJsConversationStorage.open(file);
    expect(await search(reopened)).toEqual(expected);
    const other = await SqlJsConversationStorage.open(file);
    expect(await search(other)).toEqual(expected);
    await reopened.saveConversation(sampleConversation('new', 1));
    await reopened.checkpoint();
    expect(await search(reopened)).toEqual(expected);
    // `other` sees a new database file and loads it whole.
    expect(await other.poll()).toEqual(['new']);
    expect(await search(other)).toEqual(expected);
    expect(await other.countConversations({ contentContains: 'ÉCOLE' })).toBe(1);
    await other.close();
    await reopened.close();
  });

  it('opens a file from a newer minor version and keeps its version', async () => {
    const file = path.join(dir, 'minor.db');
    const created = await SqlJsConversationStorage.open(file);
    await created.saveConversation(sampleConversation('m', 2));
    await created.close();
    const SQL = await loadSqlJs();
    const db = new SQL.Database(await fs.readFile(file));
    const newerMinor = encodeSchemaVersion(CURRENT_SCHEMA) + 1;
    db.run(`PRAGMA user_version = ${newerMinor}`);
    await fs.writeFile(file, db.export());
    db.close();

    const storage = await SqlJsConversationStorage.open(file);
    expect((await storage.loadConversation('m'))?.nodes).toHaveLength(2);
    expect(storage.warnings).toEqual([]);
    await storage.saveConversation(sampleConversation('n', 1));
    await storage.close();
    const onDisk = new SQL.Database(await fs.readFile(file));
    expect(onDisk.exec('PRAGMA user_version')[0].values[0][0]).toBe(newerMinor);
    expect(onDisk.exec('SELECT count(*) FROM conversations')[0].values[0][0]).toBe(2);
    onDisk.close();
  });

  it('refuses an SQLite database that is not an Arbor store without touching it', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);');
    const bytes = db.export();
    db.close();
    const file = path.join(dir, 'invoices.db');
    await fs.writeFile(file, bytes);
    await expect(SqlJsConversationStorage.open(file)).rejects.toThrow(/not an Arbor store/);
    expect((await fs.readFile(file)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('discards a journal that a checkpoint had already folded in (kill between the two renames)', async () => {
    const file = path.join(dir, 'window.db');
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation(sampleConversation('a', 2));
    const staleJournal = await fs.readFile(file + JOURNAL_SUFFIX);
    await storage.checkpoint();
    await storage.deleteConversation('a');
    await storage.close();
    // The old journal is back, as if the process died after renaming the database but before the journal;
    // replaying it would wrongly bring back the deleted conversation.
    await fs.writeFile(file + JOURNAL_SUFFIX, staleJournal);
    const reopened = await SqlJsConversationStorage.open(file);
    await reopened.saveConversation(sampleConversation('b', 2));
    expect((await reopened.listConversations({ sortBy: 'conversationId' })).map((s) => s.conversationId)).toEqual(['b']);
    const again = await SqlJsConversationStorage.open(file);
    expect(await again.countConversations()).toBe(1);
    await again.close();
    await reopened.close();
  });
});
