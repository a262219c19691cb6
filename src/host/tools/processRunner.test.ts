import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, type CommandRequest } from './processRunner';

/** Whether a process runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Waits until `pid` is gone, or gives up after many tries (a failure, not a timing claim). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** The first number the output has on a line of its own. */
function firstPid(output: string): number | undefined {
  const m = /^(\d+)$/m.exec(output);
  return m ? Number(m[1]) : undefined;
}

describe('runInProcess', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-cmd-')));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const request = (command: string, patch: Partial<CommandRequest> = {}): CommandRequest => ({
    command,
    cwd: dir,
    signal: new AbortController().signal,
    timeoutMs: 60_000,
    maxOutputChars: 10_000,
    ...patch,
  });

  it('runs through the shell in the given folder, with stdout and stderr together and the exit code', async () => {
    await fs.writeFile(path.join(dir, 'here.txt'), 'x');
    const result = await runInProcess(request('ls; echo "to stderr" >&2; echo "$PAGER"; exit 3'));
    expect(result).toEqual({ exitCode: 3, output: 'here.txt\nto stderr\ncat\n', omitted: 0, ended: 'exited', via: 'process' });
    expect((await runInProcess(request('true'))).exitCode).toBe(0);
  });

  it('keeps the head and tail of long output and counts what it left out', async () => {
    const result = await runInProcess(request('i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done', { maxOutputChars: 200 }));
    expect(result.exitCode).toBe(0);
    expect(result.output.startsWith('line 0\nline 1\n')).toBe(true);
    expect(result.output.endsWith('line 1998\nline 1999\n')).toBe(true);
    expect(result.output).toMatch(/\n\[… \d+ characters of output left out …\]\n/);
    const total = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('').length;
    expect(result.omitted).toBe(total - 200);
  });

  it('kills the whole process group on Stop, children included', async () => {
    const controller = new AbortController();
    const pending = runInProcess(request('sleep 300 & echo $! > child.pid; wait', { signal: controller.signal }));
    // The output only comes back at the end: the background child's pid is read from the file it wrote.
    let child: number | undefined;
    for (let i = 0; i < 200 && !child; i++) {
      await new Promise((r) => setTimeout(r, 50));
      child = Number(await fs.readFile(path.join(dir, 'child.pid'), 'utf8').catch(() => '')) || undefined;
    }
    expect(child).toBeDefined();
    expect(alive(child!)).toBe(true);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ ended: 'aborted', exitCode: undefined, signal: 'SIGTERM' });
    expect(await gone(child!)).toBe(true);
  });

  it('kills with SIGKILL what ignores SIGTERM, and stops a command at its time limit', async () => {
    const result = await runInProcess(request("trap '' TERM; echo started; sleep 300 & echo $!; wait", { timeoutMs: 300 }), { killGraceMs: 100 });
    expect(result.ended).toBe('timedOut');
    expect(result.output.startsWith('started\n')).toBe(true);
    const child = firstPid(result.output);
    expect(child).toBeDefined();
    expect(await gone(child!)).toBe(true);
  });

  it('returns at once for a signal already aborted, and rejects when the folder does not exist', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await runInProcess(request('echo never', { signal: controller.signal }))).toMatchObject({ ended: 'aborted', output: '' });
    await expect(runInProcess(request('echo hi', { cwd: path.join(dir, 'missing') }))).rejects.toThrow(/could not be started in .*missing/);
  });
});
