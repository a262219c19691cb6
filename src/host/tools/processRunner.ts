/**
 * Runs a shell command as a child process: what `run_command` falls back to when no VS Code terminal
 * with shell integration is at hand. The command runs through the system shell in its own process
 * group, with stdin closed and pagers off (nobody can type into it); stdout and stderr are collected
 * as one stream, in the order they were written, head and tail kept. Stop (the signal) or the time limit ends the whole group:
 * SIGTERM, then SIGKILL for whatever is still there after a grace period. Pure Node (no `vscode`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { InvalidOperationError } from '../../core/index';
import { cleanTerminalOutput, OutputCollector, type CommandResult } from './commandOutput';

/** One command to run. */
export interface CommandRequest {
  command: string;
  /** Absolute folder it runs in. */
  cwd: string;
  /** Stop: ends the command. */
  signal: AbortSignal;
  /** Ends the command after this long. */
  timeoutMs: number;
  /** Most characters of output kept (head and tail). */
  maxOutputChars: number;
}

/** Runs a command to its end (or its stop) and reports how it ended; rejects only when it could not start. */
export type CommandRunner = (request: CommandRequest) => Promise<CommandResult>;

/** Options of `runInProcess`, for tests. */
export interface ProcessRunnerOptions {
  /** Time between SIGTERM and SIGKILL (default 2 s). */
  killGraceMs?: number;
  /** The shell (default: `/bin/sh`; on Windows, Node's `shell: true`, i.e. `cmd.exe`). */
  shell?: string;
}

/** Set for every command: a pager would wait for keys nobody can press. */
export const COMMAND_ENV = { PAGER: 'cat', GIT_PAGER: 'cat' } as const;

/** Time after a process exited that its output pipes may take to close (a background child can hold them open). */
const DRAIN_MS = 1000;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (process.platform === 'win32') {
    // No process groups: taskkill ends the tree.
    spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** See the file's header. */
export function runInProcess(request: CommandRequest, options: ProcessRunnerOptions = {}): Promise<CommandResult> {
  const { command, cwd, signal, timeoutMs, maxOutputChars } = request;
  const grace = options.killGraceMs ?? 2000;
  if (signal.aborted) return Promise.resolve({ exitCode: undefined, output: '', omitted: 0, ended: 'aborted', via: 'process' });
  return new Promise<CommandResult>((resolve, reject) => {
    const posix = process.platform !== 'win32';
    // On POSIX the shell itself sends stderr to stdout, so their lines keep the order they were written in.
    const child = spawn(posix ? (options.shell ?? '/bin/sh') : command, posix ? ['-c', `exec 2>&1\n${command}`] : [], {
      cwd,
      shell: posix ? false : (options.shell ?? true),
      detached: posix,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...COMMAND_ENV },
      windowsHide: true,
    });
    const collector = new OutputCollector(maxOutputChars);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => collector.push(chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => collector.push(chunk));

    let ended: CommandResult['ended'] = 'exited';
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'aborted' | 'timedOut') => {
      if (ended !== 'exited' || child.exitCode !== null || child.signalCode !== null) return;
      ended = why;
      signalGroup(child, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(child, 'SIGKILL'), grace);
    };
    const onAbort = () => stop('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop('timedOut'), timeoutMs);
    const cleanUp = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };

    child.once('error', (err) => {
      cleanUp();
      if (killTimer) clearTimeout(killTimer);
      reject(new InvalidOperationError(`The command could not be started in ${cwd}: ${err.message}`, { cause: err }));
    });
    child.once('exit', (code, sig) => {
      cleanUp();
      // SIGKILL the rest of a stopped group (children that ignored SIGTERM) at once: the shell is gone.
      if (killTimer) {
        clearTimeout(killTimer);
        signalGroup(child, 'SIGKILL');
      }
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        clearTimeout(drain);
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({
          exitCode: code ?? undefined,
          ...(sig ? { signal: sig } : {}),
          output: cleanTerminalOutput(collector.text()),
          omitted: collector.omitted,
          ended,
          via: 'process',
        });
      };
      const drain = setTimeout(finish, DRAIN_MS);
      if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) finish();
      else child.once('close', finish);
    });
  });
}
