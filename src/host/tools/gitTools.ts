/**
 * The built-in git tools, through the built-in Git extension's API (`vscode.git`, API version 1), so
 * they see the repositories VS Code sees and run the git it runs: `git_diff` (unstaged or staged changes,
 * with secret, ignored and outside files taken out) and `git_log`. Thin: the text is built in `gitText.ts`.
 */
import * as vscode from 'vscode';
import { capOutput, defineTool, InvalidOperationError, isInside } from '../../core/index';
import { filterDiff, formatCommits, type CommitInfo } from './gitText';
import type { OfferedTool } from './offeredTool';
import { WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

/** The part of the Git extension's API these tools use (see `extensions/git/src/api/git.d.ts` in VS Code). */
interface GitRepository {
  readonly rootUri: vscode.Uri;
  /** `git diff` (working tree against the index), or with `cached` `git diff --cached`. */
  diff(cached?: boolean): Promise<string>;
  /** `git diff -- <path>`: despite its name, the working tree against the index. */
  diffWithHEAD(path: string): Promise<string>;
  /** `git diff --cached -- <path>`. */
  diffIndexWithHEAD(path: string): Promise<string>;
  log(options?: { maxEntries?: number; path?: string }): Promise<CommitInfo[]>;
}

interface GitApi {
  readonly state: 'uninitialized' | 'initialized';
  readonly onDidChangeState: vscode.Event<'uninitialized' | 'initialized'>;
  readonly repositories: GitRepository[];
  getRepository(uri: vscode.Uri): GitRepository | null;
}

interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

/** How long a call waits for the Git extension to find the repositories after VS Code started. */
const GIT_READY_MS = 10_000;
/** Most characters of a diff returned. */
export const GIT_DIFF_MAX_CHARS = 100_000;
/** Commits listed when the model does not say, and at most. */
export const GIT_LOG_DEFAULT = 20;
export const GIT_LOG_MAX = 200;

/** The Git extension's API once it has looked for repositories; throws with what to do when git is off. */
async function gitApi(signal: AbortSignal): Promise<GitApi> {
  const extension = vscode.extensions.getExtension<GitExtension>('vscode.git');
  if (!extension) throw new InvalidOperationError('The built-in Git extension (vscode.git) is disabled or missing, so Arbor cannot read git history or changes here.');
  const git = extension.isActive ? extension.exports : await extension.activate();
  if (!git.enabled) throw new InvalidOperationError('Git is turned off in VS Code (the git.enabled setting), so Arbor cannot read git history or changes here.');
  const api = git.getAPI(1);
  if (api.state !== 'initialized') {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sub.dispose();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, GIT_READY_MS);
      const sub = api.onDidChangeState((state) => state === 'initialized' && done());
      signal.addEventListener('abort', done);
    });
    signal.throwIfAborted();
  }
  return api;
}

/** The repositories to read: the one holding `abs`, or every one that holds or lies in a workspace folder. */
function repositoriesFor(api: GitApi, folders: readonly string[], abs: string | undefined): GitRepository[] {
  if (abs) {
    const repo = api.getRepository(vscode.Uri.file(abs));
    return repo ? [repo] : [];
  }
  return api.repositories.filter((r) => folders.some((f) => isInside(r.rootUri.fsPath, f) || isInside(f, r.rootUri.fsPath)));
}

/** What a git tool reads: the workspace's rules, the checked `path` (if given) and the repositories holding it. */
async function gitTarget(env: WorkspaceToolEnv, path: string | undefined, signal: AbortSignal) {
  const access = new WorkspaceAccess(env);
  const target = path?.trim() ? await access.checkWorkspacePath(path) : undefined;
  return { access, target, repos: repositoriesFor(await gitApi(signal), access.folders, target?.abs) };
}

const NO_REPOSITORY = 'There is no git repository here that VS Code knows of (the workspace folders are not in one, or the Git extension has not found it yet).';

/** The `git_diff` tool over `env`. */
export function gitDiffTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<{ path?: string; staged?: boolean }>({
    name: 'git_diff',
    description:
      'The uncommitted changes of the workspace\'s git repository, as a unified diff. By default the changes not yet staged (`git diff`); with `staged` true the staged ones (`git diff --cached`). ' +
      'Give `path` (a file or folder) to see only its changes. New untracked files are not in a diff (list_files and read_file show them). Changes of secret and ignored files are left out.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'A workspace file or folder. Default: the whole repository.' },
        staged: { type: 'boolean', default: false, description: 'Show the staged changes instead of the unstaged ones.' },
      },
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const { access, target, repos } = await gitTarget(env, input.path, ctx.signal);
      if (repos.length === 0) return NO_REPOSITORY;
      const staged = input.staged === true;
      const parts: string[] = [];
      for (const repo of repos) {
        ctx.signal.throwIfAborted();
        const raw = target ? await (staged ? repo.diffIndexWithHEAD(target.abs) : repo.diffWithHEAD(target.abs)) : await repo.diff(staged);
        const { text, leftOut } = await filterDiff(raw, repo.rootUri.fsPath, (abs) => access.skipReason(abs));
        const notes = leftOut.length ? `[Left out the changes of ${leftOut.length} file${leftOut.length === 1 ? '' : 's'} that Arbor does not show a model (secret, ignored or outside the workspace): ${leftOut.slice(0, 10).join(', ')}${leftOut.length > 10 ? ', …' : ''}]` : '';
        const body = [text, notes].filter(Boolean).join('\n');
        if (body) parts.push(repos.length > 1 ? `Repository ${repo.rootUri.fsPath}:\n${body}` : body);
      }
      const what = `${staged ? 'staged' : 'unstaged'} changes${target ? ` in ${target.shown}` : ''}`;
      if (parts.length === 0) return `No ${what}.${staged ? '' : ' (New untracked files are not part of a diff.)'}`;
      const all = parts.join('\n\n');
      return all.length > GIT_DIFF_MAX_CHARS ? capOutput(`[The diff of the ${what} is ${all.length} characters; its middle is left out. Ask for one file or folder with path.]\n${all}`, GIT_DIFF_MAX_CHARS) : all;
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}

/** The `git_log` tool over `env`. */
export function gitLogTool(env: WorkspaceToolEnv): OfferedTool {
  const tool = defineTool<{ maxCount?: number; path?: string }>({
    name: 'git_log',
    description:
      'The latest commits of the workspace\'s git repository, newest first: short hash, date, author and message. Give `path` (a file or folder) for the commits that changed it.',
    inputSchema: {
      type: 'object',
      properties: {
        maxCount: { type: 'integer', minimum: 1, maximum: GIT_LOG_MAX, default: GIT_LOG_DEFAULT, description: 'How many commits to list.' },
        path: { type: 'string', description: 'A workspace file or folder. Default: the whole repository.' },
      },
      additionalProperties: false,
    },
    readOnly: true,
    async run(input, ctx) {
      const { target, repos } = await gitTarget(env, input.path, ctx.signal);
      if (repos.length === 0) return NO_REPOSITORY;
      const parts: string[] = [];
      for (const repo of repos) {
        ctx.signal.throwIfAborted();
        const commits = await repo.log({ maxEntries: input.maxCount ?? GIT_LOG_DEFAULT, ...(target ? { path: target.abs } : {}) });
        const body = commits.length ? formatCommits(commits) : `No commits${target ? ` change ${target.shown}` : ' yet'}.`;
        parts.push(repos.length > 1 ? `Repository ${repo.rootUri.fsPath}:\n${body}` : body);
      }
      return parts.join('\n\n');
    },
  });
  return { tool, source: 'builtin', displayName: tool.name };
}
