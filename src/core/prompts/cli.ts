import * as nodePath from 'node:path';
import { checkPromptFolder } from './checkPrompts';

/** Where the command line writes; tests pass their own. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const USAGE = `usage: arbor-prompts check [dir]

Loads a folder of prompt templates (default: prompts), renders every prompt with its defaults and no
retrieval, and prints each problem as path:line:col: severity: message. Exits 1 when there is an error.`;

/**
 * `arbor-prompts check [dir]`, for keeping a repository's prompt templates valid in CI. Returns the exit
 * status: 0 when there is no error, 1 when there is one, 2 for a usage mistake.
 */
export async function runPromptsCli(argv: string[], io: CliIo = { out: (l) => console.log(l), err: (l) => console.error(l) }): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (command !== 'check' || rest.length > 1 || rest.some((a) => a.startsWith('-'))) {
    io.err(command ? `arbor-prompts: unknown arguments "${argv.join(' ')}"` : 'arbor-prompts: no command given');
    io.err(USAGE);
    return 2;
  }
  const dir = rest[0] ?? 'prompts';
  const report = await checkPromptFolder(nodePath.resolve(dir));
  for (const d of report.problems) {
    const file = d.file === '.' ? dir : nodePath.join(dir, d.file);
    io.out(`${printable(file)}:${d.line}:${d.column}: ${d.severity}: ${printable(d.message)}`);
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary = `arbor-prompts: ${plural(report.prompts, 'prompt')} checked in ${printable(dir)}, ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}`;
  if (report.errors > 0) {
    io.err(summary);
    return 1;
  }
  io.out(summary);
  return 0;
}

/**
 * Escapes control characters (and Unicode line separators) as `\n`, `\x1b`, `\u2028`..., so a file name
 * or message cannot start a new output line that looks like another problem, or drive the terminal.
 */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
