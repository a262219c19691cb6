/**
 * `run_command`: runs a shell command in a workspace folder and returns its output (head and tail) with
 * its exit code. In VS Code it runs in a terminal the user can watch, else as a child process (the
 * `CommandRunner` decides). Every call asks, showing the exact command, unless
 * `arbor.tools.commandAllowList` allows it (`commandPolicy`); a command on the deny list is refused
 * without asking, and again here when it runs, in case the lists changed in between.
 */
import * as path from 'node:path';
import { defineTool, InvalidArgumentError, InvalidOperationError, isInside, type WorkspaceFiles } from '../../core/index';
import { formatCommandResult } from './commandOutput';
import { commandPolicy } from './commandPolicy';
import type { OfferedTool } from './offeredTool';
import type { CommandRunner } from './processRunner';
import { locatePath, outsidePath } from './workspaceAccess';

/** Seconds a command runs when the model does not say. */
export const COMMAND_DEFAULT_TIMEOUT_SECONDS = 300;
/** Most seconds a model may give a command. */
export const COMMAND_MAX_TIMEOUT_SECONDS = 3600;
/** Most characters of a command's output returned (head and tail). */
export const COMMAND_MAX_OUTPUT_CHARS = 30_000;

/** What the model passes to `run_command`. */
export interface RunCommandInput {
  command: string;
  cwd?: string;
  timeoutSeconds?: number;
}

/** What `run_command` needs from the host. */
export interface CommandToolEnv {
  /** Absolute paths of the workspace folders. */
  folders(): readonly string[];
  readonly files: WorkspaceFiles;
  /** `arbor.tools.commandAllowList` and `arbor.tools.commandDenyList`, as they are now. */
  commandLists(): { allow: readonly string[]; deny: readonly string[] };
  /** Runs the command (a terminal in VS Code, a child process in tests). */
  readonly runner: CommandRunner;
  /** Most characters of output returned (default `COMMAND_MAX_OUTPUT_CHARS`). */
  readonly maxOutputChars?: number;
}

/** The folder a command runs in: `cwd` (relative to the workspace folder, or absolute), else the first workspace folder. */
export async function commandFolder(env: Pick<CommandToolEnv, 'folders' | 'files'>, cwd: string | undefined): Promise<{ abs: string; shown: string; outside: boolean }> {
  const folders = env.folders();
  const given = cwd?.trim() || undefined;
  const loc = given ? locatePath(folders, given) : folders[0] ? { abs: path.resolve(folders[0]), inside: true } : undefined;
  if (!loc) throw new InvalidArgumentError(given ? `No workspace folder is open, so the relative cwd "${given}" names no folder; give an absolute path.` : 'No workspace folder is open; give the folder to run in as an absolute cwd.');
  const st = await env.files.stat(loc.abs);
  if (!st) throw new InvalidArgumentError(`No folder "${given ?? loc.abs}": give cwd as an existing folder, relative to the workspace folder.`);
  if (st.type !== 'directory' && st.type !== 'symlink') throw new InvalidArgumentError(`"${given}" is a file, not a folder: give cwd as a folder.`);
  const folder = folders.map((f) => path.resolve(f)).find((f) => isInside(f, loc.abs));
  const rel = folder ? path.relative(folder, loc.abs).split(path.sep).join('/') : '';
  const name = folder && folders.length > 1 ? path.basename(folder) : '';
  const shown = !loc.inside ? loc.abs : [name, rel].filter(Boolean).join('/') || 'the workspace folder';
  return { abs: loc.abs, shown, outside: !loc.inside };
}

/** The `run_command` tool over `env`. */
export function runCommandTool(env: CommandToolEnv): OfferedTool {
  const tool = defineTool<RunCommandInput>({
    name: 'run_command',
    description:
      'Run a shell command in the workspace (tests, builds, linters, git, scripts) and get its output and exit code. The user sees the exact command and approves it first, unless they allowed it in their settings; they may deny it. ' +
      `\`cwd\` is the folder, relative to the workspace folder (default: the workspace folder). The command is stopped after \`timeoutSeconds\` (default ${COMMAND_DEFAULT_TIMEOUT_SECONDS}). ` +
      'Nothing can be typed into it: use non-interactive flags (e.g. --yes, --no-pager, CI=1). Do not start servers or watchers that never end. ' +
      `The output returned is at most about ${COMMAND_MAX_OUTPUT_CHARS / 1000}k characters, keeping its start and end. To read or change files, use the file tools rather than cat, sed or echo.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', minLength: 1, description: 'The command line, as typed in a shell.' },
        cwd: { type: 'string', description: 'The folder to run it in, relative to the workspace folder. Default: the workspace folder.' },
        timeoutSeconds: { type: 'integer', minimum: 1, maximum: COMMAND_MAX_TIMEOUT_SECONDS, description: `Stop the command after this many seconds. Default: ${COMMAND_DEFAULT_TIMEOUT_SECONDS}.` },
      },
      required: ['command'],
      additionalProperties: false,
    },
    readOnly: false,
    async run(input, ctx) {
      const { allow, deny } = env.commandLists();
      const verdict = commandPolicy(input.command, allow, deny);
      if (verdict.kind === 'deny') throw new InvalidOperationError(verdict.reason);
      const folder = await commandFolder(env, input.cwd);
      ctx.signal.throwIfAborted();
      const timeoutSeconds = input.timeoutSeconds ?? COMMAND_DEFAULT_TIMEOUT_SECONDS;
      const result = await env.runner({
        command: input.command,
        cwd: folder.abs,
        signal: ctx.signal,
        timeoutMs: timeoutSeconds * 1000,
        maxOutputChars: env.maxOutputChars ?? COMMAND_MAX_OUTPUT_CHARS,
      });
      return {
        content: formatCommandResult(input.command, folder.shown, result, timeoutSeconds),
        metadata: { command: { cwd: folder.abs, exitCode: result.exitCode ?? null, ended: result.ended, via: result.via, omittedChars: result.omitted } },
      };
    },
  });
  return {
    tool,
    source: 'builtin',
    displayName: tool.name,
    outsideWorkspace: (input) => outsidePath(env.folders(), input.cwd),
    checkCall: async (input) => {
      if (typeof input.command !== 'string') return undefined;
      const { allow, deny } = env.commandLists();
      const verdict = commandPolicy(input.command, allow, deny);
      const outside = outsidePath(env.folders(), input.cwd);
      if (outside && verdict.kind !== 'deny') return { kind: 'ask', reason: `runs outside the workspace, in ${outside}` };
      return verdict;
    },
  };
}
