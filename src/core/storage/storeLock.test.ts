import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlJsConversationStorage } from './sqlJsConversationStorage';

/**
 * The store's cross-process lock when processes die holding it or taking it (issue 22, section 8):
 * a dead holder's lock is taken over by exactly one of the windows waiting for it, and the folders
 * killed processes leave beside the lock are cleaned when the store opens.
 */
const ROOT = path.resolve(__dirname, '../../..');
const CONTENDER = path.join(ROOT, 'test/fixtures/lockContender.ts');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The pid of a process that has exited (a lock it held is a dead holder's). */
const deadPid = () => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());

async function lockFolder(dir: string, owner: { pid: number; host: string } | null, ageMs = 0): Promise<void> {
  await fs.mkdir(dir);
  if (owner) await fs.writeFile(path.join(dir, 'owner.json'), JSON.stringify(owner));
  if (ageMs) {
    const then = new Date(Date.now() - ageMs);
    await fs.utimes(dir, then, then);
  }
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-store-lock-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the store lock when processes die', () => {
  it('cleans on open the lock folders that killed processes left, and leaves a live process its own', async () => {
    const file = path.join(dir, 'store.db');
    const host = os.hostname();
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await lockFolder(`${file}.lock.new-0dead001`, { pid: deadPid(), host });
      await lockFolder(`${file}.lock.gone-0dead002`, { pid: deadPid(), host });
      // Killed between making the folder and naming itself in it.
      await lockFolder(`${file}.lock.new-0000none`, null, 10_000);
      // Another window, alive, on its way to taking the lock.
      await lockFolder(`${file}.lock.new-0a11ve00`, { pid: live.pid as number, host });
      const storage = await SqlJsConversationStorage.open(file);
      await storage.close();
      expect((await fs.readdir(dir)).filter((name) => name.includes('.lock.')).sort()).toEqual(['store.db.lock.new-0a11ve00']);
    } finally {
      live.kill('SIGKILL');
    }
  });

  for (const holder of ['dead', 'frozen'] as const) {
    it(`lets exactly one of the windows waiting on a ${holder} holder's lock take it at a time, without an error`, async () => {
      const file = path.join(dir, 'contended.db');
      // A frozen holder (a window stopped longer than the lock's staleness) is alive, and its lock old.
      const frozen = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
      const log = path.join(dir, 'log.txt');
      const goDir = path.join(dir, 'go');
      await fs.mkdir(goDir);
      const contenders = 6;
      const rounds = 6;
      const children = Array.from({ length: contenders }, () =>
        spawn(process.execPath, ['--import', 'tsx', CONTENDER, file, log, goDir, String(rounds)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] }),
      );
      const stderr: string[] = [];
      for (const child of children) child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
      const exited = Promise.all(children.map((child) => new Promise((resolve) => child.on('exit', resolve))));
      try {
        for (let round = 0; round < rounds; round++) {
          // The lock is held by a window that was killed: every contender finds it so at the same instant.
          await fs.rm(`${file}.lock`, { recursive: true, force: true });
          await lockFolder(`${file}.lock`, { pid: holder === 'dead' ? deadPid() : (frozen.pid as number), host: os.hostname() }, holder === 'dead' ? 0 : 10_000);
          await fs.writeFile(path.join(goDir, `go-${round}`), '');
          const deadline = Date.now() + 60_000;
          while ((await fs.readdir(goDir)).filter((name) => name.startsWith(`done-${round}-`)).length < contenders && Date.now() < deadline) await pause(20);
        }
      } finally {
        await exited;
        frozen.kill('SIGKILL');
      }
      expect(stderr.join('')).toBe('');
      const lines = (await fs.readFile(log, 'utf8')).trim().split('\n');
      expect(lines.filter((line) => line.startsWith('error '))).toEqual([]);
      // In and out strictly alternate, each out by the process that went in: never two holders at once.
      const overlaps: string[] = [];
      for (let i = 0; i < lines.length; i += 2) {
        const [inWord, pid] = lines[i].split(' ');
        if (inWord !== 'in' || lines[i + 1] !== `out ${pid} ${lines[i].split(' ')[2]}`) overlaps.push(`${lines[i]} / ${lines[i + 1]}`);
      }
      expect(overlaps).toEqual([]);
      expect(lines).toHaveLength(2 * contenders * rounds);
      expect(existsSync(`${file}.lock`)).toBe(false);
    }, 180_000);
  }
});
