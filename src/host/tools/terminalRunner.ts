/**
 * Runs `run_command`'s commands in a VS Code terminal the user can watch (and type into, when a
 * command asks something), through shell integration: `executeCommand`, its output stream, and the
 * end event with the exit code. An idle Arbor terminal in the same folder is reused. When shell
 * integration does not come up within a few seconds (a shell VS Code cannot integrate with, or
 * integration turned off), the terminal is closed and the command runs as a child process instead.
 * Stop and the time limit send Ctrl+C, then close the terminal if the command still runs.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { cleanTerminalOutput, OutputCollector, type CommandResult } from './commandOutput';
import { COMMAND_ENV, runInProcess, type CommandRequest, type CommandRunner } from './processRunner';

/** Options of `TerminalCommandRunner`. */
export interface TerminalRunnerOptions {
  /** How long a new terminal may take to start its shell integration (default 5 s). */
  integrationTimeoutMs?: number;
  /** After Ctrl+C, how long the command may take to end before its terminal is closed (default 3 s). */
  interruptGraceMs?: number;
  /** Runs a command when no terminal can (default `runInProcess`). */
  fallback?: CommandRunner;
  /** Hears why a command ran as a child process. */
  log?(message: string): void;
}

const TERMINAL_NAME = 'Arbor';
/** Time the output stream may take to end after the command did. */
const STREAM_DRAIN_MS = 500;

function delay<T>(ms: number, value: T): { promise: Promise<T>; cancel(): void } {
  let timer: NodeJS.Timeout;
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
}

/** The terminal's shell integration, once it is there; `undefined` after `timeoutMs`, an abort, or the terminal closing. */
function shellIntegrationOf(terminal: vscode.Terminal, timeoutMs: number, signal: AbortSignal): Promise<vscode.TerminalShellIntegration | undefined> {
  if (terminal.shellIntegration) return Promise.resolve(terminal.shellIntegration);
  return new Promise((resolve) => {
    const subscriptions: vscode.Disposable[] = [];
    const done = (value: vscode.TerminalShellIntegration | undefined) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      for (const s of subscriptions) s.dispose();
      resolve(value);
    };
    const onAbort = () => done(undefined);
    const timer = setTimeout(() => done(terminal.shellIntegration), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    subscriptions.push(
      vscode.window.onDidChangeTerminalShellIntegration((e) => e.terminal === terminal && done(e.shellIntegration)),
      vscode.window.onDidCloseTerminal((t) => t === terminal && done(undefined)),
    );
  });
}

/** See the file's header. */
export class TerminalCommandRunner {
  /** Arbor's terminals that ran a command and wait for the next. */
  private readonly idle = new Set<vscode.Terminal>();
  private readonly options: Required<Omit<TerminalRunnerOptions, 'log'>> & Pick<TerminalRunnerOptions, 'log'>;

  constructor(options: TerminalRunnerOptions = {}) {
    this.options = {
      integrationTimeoutMs: options.integrationTimeoutMs ?? 5000,
      interruptGraceMs: options.interruptGraceMs ?? 3000,
      fallback: options.fallback ?? ((request) => runInProcess(request)),
      log: options.log,
    };
  }

  /** The `CommandRunner` of `run_command`. */
  readonly run: CommandRunner = async (request) => {
    const terminal = this.takeIdle(request.cwd) ?? vscode.window.createTerminal({ name: TERMINAL_NAME, cwd: request.cwd, env: { ...COMMAND_ENV }, isTransient: true });
    const integration = await shellIntegrationOf(terminal, this.options.integrationTimeoutMs, request.signal);
    if (request.signal.aborted) {
      this.release(terminal);
      return { exitCode: undefined, output: '', omitted: 0, ended: 'aborted', via: 'terminal' };
    }
    if (!integration) {
      this.options.log?.(`The terminal's shell integration did not start within ${this.options.integrationTimeoutMs / 1000} s; running "${request.command}" as a child process instead.`);
      terminal.dispose();
      return this.options.fallback(request);
    }
    terminal.show(true);
    try {
      return await this.execute(terminal, integration, request);
    } finally {
      this.release(terminal);
    }
  };

  /** An idle terminal of ours whose shell is in `cwd` (a command may have changed its folder). */
  private takeIdle(cwd: string): vscode.Terminal | undefined {
    for (const t of this.idle) {
      if (t.exitStatus !== undefined) {
        this.idle.delete(t);
        continue;
      }
      const at = t.shellIntegration?.cwd;
      if (at?.scheme === 'file' && path.resolve(at.fsPath) === path.resolve(cwd)) {
        this.idle.delete(t);
        return t;
      }
    }
    return undefined;
  }

  private release(terminal: vscode.Terminal): void {
    if (terminal.exitStatus === undefined) this.idle.add(terminal);
    else this.idle.delete(terminal);
  }

  private async execute(terminal: vscode.Terminal, integration: vscode.TerminalShellIntegration, request: CommandRequest): Promise<CommandResult> {
    const collector = new OutputCollector(request.maxOutputChars);
    const subscriptions: vscode.Disposable[] = [];
    const execution = integration.executeCommand(request.command);
    // Read at once: the stream only has what is written after the first read.
    const stream = execution.read();
    const ended = new Promise<{ exitCode: number | undefined }>((resolve) => {
      subscriptions.push(
        vscode.window.onDidEndTerminalShellExecution((e) => e.execution === execution && resolve({ exitCode: e.exitCode })),
        vscode.window.onDidCloseTerminal((t) => t === terminal && resolve({ exitCode: undefined })),
      );
    });
    const reading = (async () => {
      for await (const data of stream) collector.push(data);
    })().catch(() => undefined);

    let how: CommandResult['ended'] = 'exited';
    let onAbort: (() => void) | undefined;
    const limit = delay(request.timeoutMs, 'timedOut' as const);
    const stopped = new Promise<'aborted' | 'timedOut'>((resolve) => {
      onAbort = () => resolve('aborted');
      request.signal.addEventListener('abort', onAbort, { once: true });
      void limit.promise.then(resolve);
    });
    try {
      const first = await Promise.race([ended, stopped]);
      let exitCode: number | undefined;
      if (typeof first === 'string') {
        how = first;
        terminal.sendText('\x03', false);
        const grace = delay(this.options.interruptGraceMs, undefined);
        const after = await Promise.race([ended, grace.promise]);
        grace.cancel();
        // Still running after Ctrl+C: closing the terminal ends its shell, and the command with it.
        if (!after) terminal.dispose();
      } else {
        exitCode = first.exitCode;
      }
      const drain = delay(STREAM_DRAIN_MS, undefined);
      await Promise.race([reading, drain.promise]);
      drain.cancel();
      return { exitCode, output: cleanTerminalOutput(collector.text()), omitted: collector.omitted, ended: how, via: 'terminal' };
    } finally {
      limit.cancel();
      if (onAbort) request.signal.removeEventListener('abort', onAbort);
      for (const s of subscriptions) s.dispose();
    }
  }
}
