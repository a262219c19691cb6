/**
 * The store and the file system it lives on: a lock left by a killed process is taken over at once,
 * a folder where the journal should be gives a typed error, a read-only store is read but never
 * written, and a full disk leaves no half-written copy behind and heals when space returns.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage, StorageError } from '../../../src/core/index';
import type { NewNode } from '../../../src/core/storage/storage';
import { sampleConversation, sampleNode } from '../../../src/core/storage/storageTestData';

const ROOT = path.resolve(__dirname, '../../..');
const WRITER = path.join(ROOT, 'test/fixtures/storageWriter.ts');

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-fs-'));
  file = path.join(dir, 'arbor.sqlite');
});
afterEach(async () => {
  await fs.chmod(dir, 0o755).catch(() => undefined);
  await fs.rm(dir, { recursive: true, force: true });
});

function node(seed: number, bytes = 300): NewNode {
  const { nodeId: _id, position: _position, ...rest } = sampleNode('', '', bytes, seed);
  return rest;
}

describe('the store on the file system', () => {
  it('takes over at once a lock left by a process killed while holding it', async () => {
    // Kill a busy writer until a kill lands while it holds the lock (it almost always does).
    let leftLocked = false;
    for (let attempt = 0; attempt < 20 && !leftLocked; attempt++) {
      const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, 'c', `w${attempt}`, 'forever'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ACK') && resolve()));
      // A moment into its write loop, where it holds the lock most of the time (each write flushes to disk under it).
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('exit', resolve));
      leftLocked = existsSync(`${file}.lock`);
    }
    expect(leftLocked).toBe(true);
    // A lock only goes stale after 60 s here and a write waits 1 s: only knowing its owner is dead lets it through.
    const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 60_000, lockWaitMs: 1000 });
    await storage.applyChange('c', { addNodes: [node(1)], updatedAt: new Date().toISOString() });
    expect(storage.warnings.join('\n')).toContain('no longer running');
    await storage.close();
  }, 60_000);

  it('says so when a folder stands where the journal belongs', async () => {
    await fs.mkdir(`${file}.arbor-journal`);
    const error = await SqlJsConversationStorage.open(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/is a folder, not a file/);
  });

  it('reads a store in a read-only folder, refuses writes at once, and writes nothing there', async () => {
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 5));
    await writer.close();
    const before = (await fs.readdir(dir)).sort();
    await fs.chmod(dir, 0o555);
    const storage = await SqlJsConversationStorage.open(file);
    expect(storage.readOnly).toBe(true);
    expect((await storage.loadConversation('c'))?.nodes).toHaveLength(5);
    const error = await storage.applyChange('c', { addNodes: [node(1)], updatedAt: new Date().toISOString() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/read-only/);
    await storage.close();
    expect((await fs.readdir(dir)).sort()).toEqual(before);
  });

  it('respects a read-only database file: the next checkpoint does not replace it', async () => {
    const writer = await SqlJsConversationStorage.open(file);
    await writer.saveConversation(sampleConversation('c', 5));
    await writer.close();
    await fs.chmod(file, 0o444);
    const bytes = await fs.readFile(file);
    const storage = await SqlJsConversationStorage.open(file);
    expect(storage.readOnly).toBe(true);
    await expect(storage.updateMetadata('c', { title: 'x' })).rejects.toBeInstanceOf(StorageError);
    await storage.checkpoint();
    await storage.close();
    expect((await fs.readFile(file)).equals(bytes)).toBe(true);
    expect(((await fs.stat(file)).mode & 0o777).toString(8)).toBe('444');
  });

  it('leaves no half-written copy on a full disk, keeps every change in the journal, and heals when space returns', async (context) => {
    const mount = path.join(dir, 'small-disk');
    await fs.mkdir(mount);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount], { stdio: 'ignore' });
    } catch {
      context.skip('a small tmpfs cannot be mounted here (needs root): the full-disk case is not tested on this machine');
    }
    try {
      const store = path.join(mount, 'arbor.sqlite');
      const storage = await SqlJsConversationStorage.open(store, { checkpointEntries: 0 });
      await storage.saveConversation(sampleConversation('c', 40, { bytes: () => 6000 }));
      await storage.checkpoint();
      // Fill the disk to leave room for small journal lines, not for a copy of the database.
      const filler = path.join(mount, 'filler');
      const { size } = await fs.stat(store);
      const free = () => Number(execFileSync('df', ['--output=avail', '-B1', mount]).toString().split('\n')[1]);
      await fs.writeFile(filler, Buffer.alloc(Math.max(0, free() - Math.floor(size / 2))));
      await storage.applyChange('c', { addNodes: [node(1, 200)], updatedAt: new Date().toISOString() });
      expect(storage.warnings.join('\n')).toMatch(/checkpoint .* failed and will be retried: .*ENOSPC/);
      expect((await fs.readdir(mount)).filter((name) => name.includes('.tmp-'))).toEqual([]);
      // Space returns: the next write's checkpoint goes through by itself.
      await fs.rm(filler);
      await storage.applyChange('c', { addNodes: [node(2, 200)], updatedAt: new Date().toISOString() });
      const journal = await fs.stat(`${store}.arbor-journal`);
      expect(journal.size).toBeLessThan(200);
      await storage.close();
      const again = await SqlJsConversationStorage.open(store);
      expect((await again.loadConversation('c'))?.nodes).toHaveLength(42);
      await again.close();
    } finally {
      execFileSync('umount', [mount], { stdio: 'ignore' });
    }
  }, 60_000);
});
