/**
 * `run_command`: runs a shell command in a workspace folder and returns its output (head and tail) with
 * its exit code. In VS Code it runs in a terminal the user can watch, else as a child process (the
 * `CommandRunner` decides). Every call asks, showing the exact command, unless
 * `arbor.tools.commandAllowList` allows it (`commandPolicy`); a command on the deny list is refused
 * without asking, and again here when it runs, in case the lists changed in between. A `cwd` outside the
 * workspace, or one whose links lead outside, is asked about whatever the lists say.
 */
import * as path from 'node:path';
import { defineTool, InvalidArgumentError, InvalidOperationError, isInside, SymlinkLoopError, type WorkspaceFiles } from '../../core/index';
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

/** Where a command runs, or why it cannot. */
type FolderOutcome =
  | { ok: true; abs: string; shown: string; outside: boolean }
  | { ok: false; problem: 'loop' | 'dangling' | 'other'; error: Error };

/**
 * The folder a command runs in: `cwd` (relative to the workspace folder, or absolute), else the first
 * workspace folder, judged by where it leads: its symbolic links are followed (as writes follow them),
 * so a link inside the workspace to a folder outside is outside.
 */
async function locateFolder(env: Pick<CommandToolEnv, 'folders' | 'files'>, cwd: string | undefined): Promise<FolderOutcome> {
  const folders = env.folders();
  const given = cwd?.trim() || undefined;
  const fail = (problem: 'loop' | 'dangling' | 'other', error: Error): FolderOutcome => ({ ok: false, problem, error });
  const loc = given ? locatePath(folders, given) : folders[0] ? { abs: path.resolve(folders[0]), inside: true } : undefined;
  if (!loc) return fail('other', new InvalidArgumentError(given ? `No workspace folder is open, so the relative cwd "${given}" names no folder; give an absolute path.` : 'No workspace folder is open; give the folder to run in as an absolute cwd.'));
  const named = given ?? loc.abs;
  let real = loc.abs;
  if (env.files.realPath) {
    try {
      real = await env.files.realPath(loc.abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code === 'ELOOP') return fail('loop', new SymlinkLoopError(named, { cause: err }));
      // A link to nothing somewhere on the way, or no such folder at all.
      const link = await env.files.stat(loc.abs).catch(() => undefined);
      if (link?.type === 'symlink') return fail('dangling', new InvalidArgumentError(`"${named}" is a symbolic link that leads nowhere; give cwd as an existing folder.`));
      return fail('other', new InvalidArgumentError(`No folder "${named}": give cwd as an existing folder, relative to the workspace folder.`));
    }
  }
  const st = await env.files.stat(real);
  if (!st) return fail('other', new InvalidArgumentError(`No folder "${named}": give cwd as an existing folder, relative to the workspace folder.`));
  if (st.type !== 'directory' && st.type !== 'symlink') return fail('other', new InvalidArgumentError(`"${given}" is a file, not a folder: give cwd as a folder.`));
  const realFolders = await Promise.all(folders.map((f) => (env.files.realPath ? env.files.realPath(f).catch(() => path.resolve(f)) : path.resolve(f))));
  const outside = !loc.inside || !realFolders.some((f) => isInside(f, real));
  const folder = folders.map((f) => path.resolve(f)).find((f) => isInside(f, loc.abs));
  const rel = folder ? path.relative(folder, loc.abs).split(path.sep).join('/') : '';
  const name = folder && folders.length > 1 ? path.basename(folder) : '';
  const shown = outside ? real : [name, rel].filter(Boolean).join('/') || 'the workspace folder';
  return { ok: true, abs: real, shown, outside };
}

/**
 * The folder a command runs in (see `locateFolder`): its real path, the path shown (workspace-relative
 * inside, the real absolute path outside), and whether it is outside. Throws `InvalidArgumentError` or
 * `SymlinkLoopError` with what to give instead.
 */
export async function commandFolder(env: Pick<CommandToolEnv, 'folders' | 'files'>, cwd: string | undefined): Promise<{ abs: string; shown: string; outside: boolean }> {
  const found = await locateFolder(env, cwd);
  if (!found.ok) throw found.error;
  return { abs: found.abs, shown: found.shown, outside: found.outside };
}

/** Why a call must be asked about because of its `cwd`, or `undefined`. Never rejects. */
async function folderAsk(env: CommandToolEnv, cwd: unknown): Promise<string | undefined> {
  if (typeof cwd !== 'string' || !cwd.trim()) return undefined;
  const lexical = outsidePath(env.folders(), cwd);
  if (lexical) return `runs outside the workspace, in ${lexical}`;
  const found = await locateFolder(env, cwd).catch(() => undefined);
  if (!found) return undefined;
  if (found.ok) return found.outside ? `runs outside the workspace, in ${found.abs} (where "${cwd.trim()}" leads)` : undefined;
  if (found.problem === 'loop') return `its folder "${cwd.trim()}" is a symbolic link loop`;
  if (found.problem === 'dangling') return `its folder "${cwd.trim()}" is a symbolic link that leads nowhere`;
  // Any other problem fails the call with its message when it runs.
  return undefined;
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
      if (verdict.kind === 'deny') return verdict;
      const folderReason = await folderAsk(env, input.cwd);
      return folderReason ? { kind: 'ask', reason: folderReason } : verdict;
    },
  };
}
