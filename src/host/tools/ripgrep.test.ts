import { execFileSync } from 'node:child_process';
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findRipgrep, parseRipgrepLine, RipgrepUnavailableError, runRipgrep } from './ripgrep';

const RG = '/usr/bin/rg';

/** Pids of this process's children whose command line has `arg`, from /proc. */
function childrenWith(arg: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (ppid === process.pid && cmdline.includes(arg)) pids.push(Number(name));
    } catch {
      // The process ended while it was read.
    }
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runRipgrep', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-rg-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('reports each match with its line, text and the column of the match in characters', async () => {
    await fs.writeFile(path.join(dir, 'a.txt'), 'first\nämne needle here\nneedle\n');
    const seen: unknown[] = [];
    const result = await runRipgrep(RG, ['--json', '--regexp', 'needle', '--', dir], (m) => (seen.push(m), true));
    expect(result).toEqual({ exitCode: 0, stderr: '', stopped: false });
    expect(seen).toEqual([
      { path: path.join(dir, 'a.txt'), line: 2, text: 'ämne needle here', column: 5 },
      { path: path.join(dir, 'a.txt'), line: 3, text: 'needle', column: 0 },
    ]);
    expect((await runRipgrep(RG, ['--json', '--regexp', 'zebra', '--', dir], () => true)).exitCode).toBe(1);
  });

  it('stops when the caller has enough', async () => {
    for (let i = 0; i < 50; i++) await fs.writeFile(path.join(dir, `f${i}.txt`), 'needle\n');
    let calls = 0;
    const result = await runRipgrep(RG, ['--json', '--sort', 'path', '--regexp', 'needle', '--', dir], () => ++calls < 3);
    expect(result.stopped).toBe(true);
    expect(calls).toBe(3);
  });

  it('kills rg when the signal aborts (Stop), and returns only after it has exited', async () => {
    // rg blocks reading a named pipe nobody writes to: it is surely still running when Stop comes.
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const stop = new AbortController();
    const run = runRipgrep(RG, ['--json', '--regexp', 'needle', '--', fifo], () => true, stop.signal);
    let pids: number[] = [];
    while ((pids = childrenWith(fifo)).length === 0) await sleep(20);
    expect(pids).toHaveLength(1);
    stop.abort(new Error('stopped by the user'));
    await expect(run).rejects.toThrow('stopped by the user');
    expect(alive(pids[0])).toBe(false);
    // An already stopped call never starts rg.
    await expect(runRipgrep(RG, ['--json', '--regexp', 'x', '--', fifo], () => true, stop.signal)).rejects.toThrow('stopped by the user');
    expect(childrenWith(fifo)).toEqual([]);
  });

  it('says when rg cannot be started', async () => {
    await expect(runRipgrep(path.join(dir, 'missing-rg'), ['--json', '--regexp', 'x', '--', dir], () => true)).rejects.toThrow(RipgrepUnavailableError);
  });
});

describe('parseRipgrepLine', () => {
  it('reads matches, including paths and lines rg gives as bytes, and skips the other messages', () => {
    const bytes = (s: string) => ({ bytes: Buffer.from(s).toString('base64') });
    expect(parseRipgrepLine(JSON.stringify({ type: 'match', data: { path: bytes('/w/ä.txt'), lines: bytes('x y\r\n'), line_number: 4, submatches: [{ start: 2 }] } }))).toEqual({
      path: '/w/ä.txt',
      line: 4,
      text: 'x y',
      column: 2,
    });
    expect(parseRipgrepLine('{"type":"begin","data":{"path":{"text":"/w/a"}}}')).toBeUndefined();
    expect(parseRipgrepLine('not json')).toBeUndefined();
  });
});

describe('findRipgrep', () => {
  it("finds the rg VS Code ships, unpacked or not, else the one on the PATH", async () => {
    const appRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-approot-'));
    try {
      expect(findRipgrep(appRoot)).toBe('rg');
      expect(findRipgrep(undefined)).toBe('rg');
      const unpacked = path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', 'rg');
      await fs.mkdir(path.dirname(unpacked), { recursive: true });
      await fs.writeFile(unpacked, '');
      expect(findRipgrep(appRoot)).toBe(unpacked);
      const plain = path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin', 'rg');
      await fs.mkdir(path.dirname(plain), { recursive: true });
      await fs.writeFile(plain, '');
      expect(findRipgrep(appRoot)).toBe(plain);
    } finally {
      await fs.rm(appRoot, { recursive: true, force: true });
    }
  });
});
