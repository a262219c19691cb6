/**
 * Restore Files to Here over the team store, on a real PostgreSQL: the workspace folder of a file
 * change (the migration after migration 2, on a store the release before wrote), and a checkpoint row a
 * teammate rewrote with the SQL their grants allow, which Restore judges again instead of trusting.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { nodeFiles } from '../../../../src/core/index';
import { PostgresFileStore } from '../../../../src/core/storage/postgres/postgresFiles';
import { POSTGRES_FILE_FOLDERS_MIGRATION } from '../../../../src/core/storage/postgres/postgresFilesSchema';
import { POSTGRES_MIGRATIONS } from '../../../../src/core/storage/postgres/postgresSchema';
import { planRestore, recheckRestore, writeRestoreWithFs, type RestoreSource } from '../../../../src/host/checkpoints/restorePlan';
import { applyMigrations, filesTestDb, insertConversation, inTransaction, type FilesTestDb } from './filesTestDb';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describeWithPostgres('Restore over the team store', (server) => {
  let db: FilesTestDb | undefined;
  let root: string;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-team-restore-')));
  });
  afterEach(async () => {
    await db?.end();
    db = undefined;
    await fs.rm(root, { recursive: true, force: true });
  });

  it('adds the folder of a file change to a store at migration 2, keeps old rows without one, and refuses a folder that is a path', async () => {
    const index = POSTGRES_MIGRATIONS.indexOf(POSTGRES_FILE_FOLDERS_MIGRATION);
    expect(index).toBeGreaterThanOrEqual(2);
    db = await filesTestDb(server(), index);
    const c = await insertConversation(db.pool('alice'), 'c', 'team_a', [null, 0, 1, 2]);
    // Written as the release before writes a change: contents through the function, then the row, no folder.
    const [v0, v1, v2] = ['v0\n', 'v1\n', 'v2\n'].map(bytes);
    await inTransaction(db.pool('alice'), async (client) => {
      await client.query('SELECT arbor_store_contents($1::bytea[])', [[Buffer.from(v0), Buffer.from(v1)]]);
      await client.query('INSERT INTO file_changes (node, position, path, before_hash, after_hash) VALUES ($1, 0, $2, $3, $4)', [c.keys[2], 'src/app.ts', sha(v0), sha(v1)]);
    });
    await applyMigrations(db.admin, index, POSTGRES_MIGRATIONS.length);

    const files = new PostgresFileStore(db.pool('alice'));
    expect(await files.filesStateAt('c', c.id(2))).toEqual([{ path: 'src/app.ts', hash: sha(v1), nodeId: c.id(2), originalHash: sha(v0) }]);
    await files.recordFileChanges('c', c.id(3), [{ path: 'src/app.ts', folder: 'lib', before: v1, after: v2 }]);
    expect(await files.filesStateAt('c', c.id(3))).toEqual([{ path: 'src/app.ts', hash: sha(v2), nodeId: c.id(3), originalHash: sha(v0), folder: 'lib' }]);
    // A teammate's SQL cannot turn the folder into a path.
    await expect(db.pool('anna').query("UPDATE file_changes SET folder = '../up' WHERE path = 'src/app.ts'")).rejects.toThrow(/file_changes_folder_is_a_name/);
  });

  it('refuses a checkpoint path a teammate rewrote to leave the workspace, and restores the rest', async () => {
    db = await filesTestDb(server());
    const c = await insertConversation(db.pool('alice'), 'c', 'team_a', [null, 0, 1, 2]);
    const files = new PostgresFileStore(db.pool('alice'));
    await files.recordFileChanges('c', c.id(2), [
      { path: 'a.txt', folder: 'ws', before: bytes('a0\n'), after: bytes('a1\n') },
      { path: 'evil.sh', folder: 'ws', before: null, after: bytes('#!/bin/sh\necho owned\n') },
    ]);
    await files.recordFileChanges('c', c.id(3), [{ path: 'a.txt', folder: 'ws', before: bytes('a1\n'), after: bytes('a2\n') }]);
    // The restore-time check does not lean on a column check (an older server, a dump restored without
    // it): any check on the path is dropped, then a teammate of the same team rewrites the row.
    await db.admin.query(`DO $$ DECLARE r record; BEGIN
      FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = 'file_changes'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%path%' LOOP
        EXECUTE format('ALTER TABLE file_changes DROP CONSTRAINT %I', r.conname);
      END LOOP; END $$`);
    await db.pool('anna').query("UPDATE file_changes SET path = '../escape/evil.sh' WHERE path = 'evil.sh'");

    const ws = path.join(root, 'ws');
    await fs.mkdir(ws);
    await fs.writeFile(path.join(ws, 'a.txt'), 'a2\n');
    const source: RestoreSource = {
      currentNodeId: c.id(3),
      getFilesStateAt: (nodeId) => files.filesStateAt('c', nodeId),
      getFileChangesByNode: () => files.fileChangesByNode('c'),
      getFileContent: (hash) => files.fileContent(hash),
    };
    const env = { folders: () => [ws], files: nodeFiles };
    const plan = await planRestore(env, source, c.id(2));
    expect(plan.refused).toEqual([{ path: '../escape/evil.sh', reason: expect.stringContaining('The checkpoint row "../escape/evil.sh" is not a workspace-relative path') }]);
    const { ready } = await recheckRestore(env, plan.items);
    await writeRestoreWithFs(ready);
    expect(await fs.readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('a1\n');
    await expect(fs.stat(path.join(root, 'escape/evil.sh'))).rejects.toThrow(/ENOENT/);
  });
});
