import * as nodePath from 'node:path';
import { nodeFiles } from '../nodeFiles';
import { checkPromptFolder, type PromptCheckReport } from './checkPrompts';
import { FOREIGN_FOLDERS } from '../prompts/foreign/foreignTypes';
import { loadForeignPrompts } from '../prompts/foreign/loadForeignPrompts';

/** Where the command line writes; tests pass their own. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const USAGE = `usage: arbor-prompts check [dir] [--root <folder>]

Loads a folder of prompt templates (default: prompts in the --root folder), renders every prompt with its defaults and no
retrieval, checks the flows of its flows/ folder and the other tools' prompt files of the workspace folder (--root, default: the current
folder): ${FOREIGN_FOLDERS.map((f) => f.folder).join(', ')}, and prints each problem as
path:line:col: severity: message. Exits 1 when there is an error.`;

/**
 * `arbor-prompts check [dir] [--root <folder>]`, for keeping a repository's prompt templates (and its Copilot,
 * Continue and Claude Code prompt files) valid in CI. Returns the exit
 * status: 0 when there is no error, 1 when there is one, 2 for a usage mistake.
 */
export async function runPromptsCli(argv: string[], io: CliIo = { out: (l) => console.log(l), err: (l) => console.error(l) }): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  const args = command === 'check' ? checkArguments(rest) : undefined;
  if (!args) {
    io.err(command ? `arbor-prompts: unknown arguments "${argv.join(' ')}"` : 'arbor-prompts: no command given');
    io.err(USAGE);
    return 2;
  }
  const rootArg = args.root ?? '.';
  const dir = args.dir ?? nodePath.join(rootArg, 'prompts');
  const root = nodePath.resolve(rootArg);
  const foreign = await loadForeignPrompts(root);
  // Without a folder named on the command line, a workspace whose prompts are all other tools' needs no prompts/.
  const ownMissing = args.dir === undefined && foreign.prompts.length + foreign.diagnostics.length > 0 && !(await isFolder(nodePath.resolve(dir)));
  const report: PromptCheckReport = ownMissing ? { problems: [], prompts: 0, flows: 0, rendered: 0, errors: 0, warnings: 0 } : await checkPromptFolder(nodePath.resolve(dir));
  for (const d of report.problems) {
    const file = d.file === '.' ? dir : nodePath.join(dir, d.file);
    io.out(`${printable(file)}:${d.line}:${d.column}: ${d.severity}: ${printable(d.message)}`);
  }
  for (const d of foreign.diagnostics) {
    io.out(`${printable(nodePath.join(rootArg, d.file))}:${d.line}:${d.column}: ${d.severity}: ${printable(d.message)}`);
    if (d.severity === 'error') report.errors++;
    else report.warnings++;
  }
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const others = foreign.prompts.length > 0 ? ` and ${plural(foreign.prompts.length, 'prompt file')} of other tools` : '';
  const flows = report.flows > 0 ? ` and ${plural(report.flows, 'flow')}` : '';
  const summary = `arbor-prompts: ${plural(report.prompts, 'prompt')}${flows} checked in ${printable(dir)}${others}, ${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}`;
  if (report.errors > 0) {
    io.err(summary);
    return 1;
  }
  io.out(summary);
  return 0;
}

/** `check`'s arguments: an optional folder and `--root <folder>`; `undefined` for anything else. */
function checkArguments(rest: string[]): { dir?: string; root?: string } | undefined {
  const out: { dir?: string; root?: string } = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--root' && rest[i + 1] !== undefined && out.root === undefined) out.root = rest[++i];
    else if (a.startsWith('--root=') && out.root === undefined) out.root = a.slice('--root='.length);
    else if (!a.startsWith('-') && out.dir === undefined) out.dir = a;
    else return undefined;
  }
  return out;
}

async function isFolder(path: string): Promise<boolean> {
  return (await nodeFiles.stat(path))?.type === 'directory';
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
