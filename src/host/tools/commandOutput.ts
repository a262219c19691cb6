/**
 * What a command printed, made fit for a model: kept in bounded memory as it streams (its head and its
 * tail, where the command line and the error are), cleaned of terminal escape sequences and progress
 * redraws, and worded with the exit code and how the run ended. Pure.
 */

/** Keeps the first and last `max / 2` characters of a stream, and counts what falls between. */
export class OutputCollector {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly half: number;

  constructor(max: number) {
    this.half = Math.max(1, Math.floor(max / 2));
  }

  push(chunk: string): void {
    if (!chunk) return;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
      if (!chunk) return;
    }
    this.tail += chunk;
    if (this.tail.length > this.half) {
      this.dropped += this.tail.length - this.half;
      this.tail = this.tail.slice(this.tail.length - this.half);
    }
  }

  /** Characters left out between the head and the tail. */
  get omitted(): number {
    return this.dropped;
  }

  /** The head, a marker naming how much was left out (when anything was), and the tail. */
  text(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[… ${this.dropped} characters of output left out …]\n${this.tail}`;
  }
}

// CSI (colours, cursor moves), OSC (titles, VS Code's shell integration marks), and other escapes.
const CSI = /\x1b\[[0-?]*[ -/]*[@-~]/g;
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g;
const OTHER_ESCAPE = /\x1b[@-Z\\-_]|\x1b[()][0-9A-Za-z]/g;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * Terminal output as text: escape sequences removed, `\r\n` as `\n`, and a line redrawn with `\r`
 * (progress bars) reduced to what it showed last.
 */
export function cleanTerminalOutput(raw: string): string {
  const text = raw.replace(OSC, '').replace(CSI, '').replace(OTHER_ESCAPE, '').replace(/\r+\n/g, '\n');
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('\r')) return line;
      const parts = line.split('\r').filter((p) => p !== '');
      return parts.length ? parts[parts.length - 1] : '';
    })
    .join('\n')
    .replace(CONTROL, '');
}

/** How a command ended. */
export interface CommandResult {
  /** The exit code; `undefined` when it is not known (killed, or a terminal that did not report it). */
  exitCode: number | undefined;
  /** The signal that ended the process, when one did. */
  signal?: string;
  /** What it printed (stdout and stderr as they came), cleaned; capped to head and tail. */
  output: string;
  /** Characters of output left out in the middle. */
  omitted: number;
  /** `exited` by itself, `aborted` by the user's Stop, `timedOut` at the call's time limit. */
  ended: 'exited' | 'aborted' | 'timedOut';
  /** Where it ran: a VS Code terminal (shell integration) or a child process. */
  via: 'terminal' | 'process';
}

/** The text the model reads for a command's run. */
export function formatCommandResult(command: string, cwdShown: string, result: CommandResult, timeoutSeconds: number): string {
  const status =
    result.ended === 'aborted'
      ? 'stopped by the user'
      : result.ended === 'timedOut'
        ? `stopped after ${timeoutSeconds} seconds (the call's time limit)`
        : result.exitCode !== undefined
          ? `exit code ${result.exitCode}`
          : result.signal
            ? `killed by ${result.signal}`
            : 'exit code unknown';
  const lines = [`$ ${command}`, `(in ${cwdShown}; ${status})`];
  const output = result.output.replace(/\s+$/, '');
  lines.push(output ? output : '(no output)');
  if (result.ended === 'timedOut') {
    lines.push(
      `[The command did not finish within ${timeoutSeconds} seconds and was stopped. If it needs longer, run it again with a larger timeoutSeconds; if it is a server or a watcher that never ends, ask the user to run it in a terminal themselves.]`,
    );
  }
  return lines.join('\n');
}
