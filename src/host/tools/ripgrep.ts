/**
 * Runs ripgrep (`rg --json`) as a child process, never through a shell, and hands each match to the
 * caller as it arrives; the caller can stop early, and an abort of the signal kills the process. Also
 * finds the `rg` VS Code ships. Pure Node (no `vscode`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** One matching line as `rg --json` reports it. */
export interface RipgrepMatch {
  /** Absolute path when rg was given absolute paths. */
  path: string;
  /** 1-based. */
  line: number;
  /** The line without its line break. */
  text: string;
  /** Character offset of the first match in `text`. */
  column: number;
}

/** How a run ended. */
export interface RipgrepResult {
  /** rg's exit code: 0 matches, 1 no match, 2 an error (possibly after some matches); `null` when killed. */
  exitCode: number | null;
  /** The start of what rg wrote to stderr. */
  stderr: string;
  /** True when the caller stopped the run (its `onMatch` returned false). */
  stopped: boolean;
}

/** ripgrep could not be started (missing binary, no permission). */
export class RipgrepUnavailableError extends Error {
  constructor(readonly rgPath: string, cause: unknown) {
    super(`ripgrep could not be started from "${rgPath}" (${cause instanceof Error ? cause.message : String(cause)}).`, { cause });
    this.name = 'RipgrepUnavailableError';
  }
}

const MAX_STDERR = 4000;

function textOf(field: { text?: string; bytes?: string } | undefined): string | undefined {
  if (!field) return undefined;
  if (typeof field.text === 'string') return field.text;
  return typeof field.bytes === 'string' ? Buffer.from(field.bytes, 'base64').toString('utf8') : undefined;
}

/** The match of one `rg --json` line, or `undefined` for the other kinds (begin, end, summary, context). */
export function parseRipgrepLine(line: string): RipgrepMatch | undefined {
  let msg: { type?: string; data?: any };
  try {
    msg = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (msg.type !== 'match' || !msg.data) return undefined;
  const file = textOf(msg.data.path);
  const text = textOf(msg.data.lines);
  if (file === undefined || text === undefined || typeof msg.data.line_number !== 'number') return undefined;
  const bytesStart = msg.data.submatches?.[0]?.start;
  // rg gives byte offsets; the line's characters before the first match give the column.
  const column = typeof bytesStart === 'number' ? Buffer.from(text, 'utf8').subarray(0, bytesStart).toString('utf8').length : 0;
  return { path: file, line: msg.data.line_number, text: text.replace(/\r?\n$/, ''), column };
}

/**
 * Runs `rgPath` with `args` (which must include `--json`), calling `onMatch` for each match in order;
 * `onMatch` returning false stops the run (the process is killed). An abort of `signal` kills the process
 * and rejects with the signal's reason once it has exited. Rejects with `RipgrepUnavailableError` when
 * rg cannot be started.
 */
export async function runRipgrep(
  rgPath: string,
  args: readonly string[],
  onMatch: (match: RipgrepMatch) => boolean | Promise<boolean>,
  signal?: AbortSignal,
): Promise<RipgrepResult> {
  signal?.throwIfAborted();
  const child = spawn(rgPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'], signal, windowsHide: true });
  let startError: unknown;
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.on('error', (err) => {
      // Not started: there will be no 'close'. Started and then aborted: 'close' follows the kill.
      if (child.pid === undefined) {
        startError = err;
        resolve(null);
      }
    });
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    if (stderr.length < MAX_STDERR) stderr += chunk.slice(0, MAX_STDERR - stderr.length);
  });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill();
  };
  let stopped = false;
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const match = parseRipgrepLine(line);
      if (match && !(await onMatch(match))) {
        stopped = true;
        break;
      }
    }
  } catch (err) {
    kill();
    await exited;
    signal?.throwIfAborted();
    throw err;
  } finally {
    lines.close();
  }
  // Stopped early: rg may still be searching.
  if (stopped) kill();
  const exitCode = await exited;
  if (startError) throw new RipgrepUnavailableError(rgPath, startError);
  signal?.throwIfAborted();
  return { exitCode, stderr: stderr.trim(), stopped };
}

/**
 * The ripgrep VS Code ships under its install folder (`appRoot`), in `node_modules` or, in packaged
 * builds, `node_modules.asar.unpacked`; else `rg` from the PATH.
 */
export function findRipgrep(appRoot: string | undefined, exists: (p: string) => boolean = existsSync): string {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  if (appRoot) {
    for (const modules of ['node_modules', 'node_modules.asar.unpacked']) {
      const candidate = path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe);
      if (exists(candidate)) return candidate;
    }
  }
  return exe;
}
