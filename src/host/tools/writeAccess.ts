/**
 * Where the tools that change files may write. Inside the workspace, a file the rules let tools read is
 * written after the usual approval; a file outside every folder, or one the workspace's rules leave out
 * (`.gitignore`, the retrieval excludes, `node_modules`), is written only after an ask that names it
 * (`askReason`); a secret file (keys, credentials, `.env`) or anything in `.git` is never written, asked
 * or not. A symbolic link is judged by where it leads. Pure (no `vscode`).
 */
import * as path from 'node:path';
import { InvalidArgumentError, isInside, SymlinkLoopError, WorkspaceAccessError, type WorkspaceFiles } from '../../core/index';
import type { CallVerdict } from './offeredTool';
import { locatePath, WorkspaceAccess, type WorkspaceToolEnv } from './workspaceAccess';

/** A path a tool may write, checked. */
export interface WriteTarget {
  /** Absolute path as named. */
  abs: string;
  /** Where the bytes land: the target of a symbolic link on the way, else `abs`. */
  real: string;
  /** The path the model and the user read: workspace-relative inside, absolute outside. */
  shown: string;
  /** Outside every workspace folder. */
  outside: boolean;
  /**
   * Why this write needs an ask that names the path (outside the workspace, or left out by the
   * workspace's rules); `undefined` for an ordinary workspace file.
   */
  askReason?: string;
  /** Why this file is protected (it decides what runs or what models are told): asked by name every time, never covered by a grant. */
  protectedReason?: string;
}

const LEFT_OUT = {
  'tool-folder': 'is inside node_modules or another tool folder',
  excluded: 'is excluded by the arbor.rag.exclude setting',
  'not-included': 'is outside the retrieval include globs (arbor.rag.include)',
  gitignored: 'is ignored by .gitignore',
} as const;

function posixOf(abs: string): string {
  return abs.split(path.sep).join('/').replace(/^[A-Za-z]:/, '').replace(/^\/+/, '');
}

function refusal(shown: string, why: string): WorkspaceAccessError {
  return new WorkspaceAccessError(`"${shown}" ${why}, so Arbor's tools never write it, even with approval. If it must change, ask the user to edit it themselves.`, shown);
}

/**
 * Where the bytes written to `abs` would land: the real path of the nearest part of it that exists,
 * with the rest of the path below it. `abs` itself without `files.realPath`.
 */
async function realLocation(files: WorkspaceFiles, abs: string): Promise<string> {
  if (!files.realPath) return abs;
  let existing = abs;
  const rest: string[] = [];
  while (!(await files.stat(existing))) {
    const parent = path.dirname(existing);
    if (parent === existing) return abs;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  let real: string;
  try {
    real = await files.realPath(existing);
  } catch (err) {
    if ((err as NodeJS.ErrnoException)?.code === 'ELOOP') throw new SymlinkLoopError(abs, { cause: err });
    // A link to nothing: writing through it would create its target, wherever that is.
    throw new WorkspaceAccessError(`"${abs}" goes through a symbolic link that leads nowhere (${existing}); write the file it should point to by its own path.`, abs);
  }
  return path.join(real, ...rest);
}

/** The workspace folders with their links resolved, paired with the folders as named. */
async function realFolders(files: WorkspaceFiles, folders: readonly string[]): Promise<string[]> {
  return Promise.all(folders.map(async (f) => (files.realPath ? files.realPath(f).catch(() => f) : f)));
}

/**
 * Checks a path a model wants to write (it need not exist): see the file's header. Throws
 * `WorkspaceAccessError` for a path that is never written, `InvalidArgumentError` for one that names
 * no file (no folder open for a relative path, a workspace folder itself).
 */
export async function checkWriteTarget(env: Pick<WorkspaceToolEnv, 'folders' | 'files' | 'exclude' | 'secretPatterns'>, p: string): Promise<WriteTarget> {
  const access = new WorkspaceAccess(env);
  const loc = locatePath(access.folders, p);
  if (!loc) throw new InvalidArgumentError(`No workspace folder is open, so the relative path "${p}" names no file; give an absolute path.`);
  const abs = loc.abs;
  const shown = access.shownPath(abs);
  if (access.folders.includes(abs)) throw new InvalidArgumentError(`"${p}" is a workspace folder, not a file.`);

  const real = await realLocation(env.files, abs);
  // Judge the place the bytes land, in the workspace's terms when it is inside a folder.
  const reals = await realFolders(env.files, access.folders);
  const k = reals.findIndex((f) => isInside(f, real));
  const landing = k >= 0 ? path.join(access.folders[k], path.relative(reals[k], real)) : real;
  if (real !== abs && loc.inside && k < 0) {
    throw new WorkspaceAccessError(
      `"${shown}" is a symbolic link (or lies below one) that leads outside the workspace, to ${real}; write that path instead (the user is asked first).`,
      p,
    );
  }
  for (const place of new Set([abs, landing])) {
    const inside = access.scanner.locate(place);
    const rel = inside ? inside.relPath : posixOf(place);
    const placeShown = inside ? access.shownPath(place) : place;
    if (rel.split('/').includes('.git')) throw refusal(placeShown, 'is inside a .git folder');
    if (access.rules.isSecret(rel)) throw refusal(placeShown, 'looks like a secrets file (keys, credentials or an environment file)');
  }

  const outside = !loc.inside;
  if (k < 0) return { abs, real, shown, outside, askReason: `writes outside the workspace: ${real === abs ? abs : `${abs} (a link to ${real})`}` };
  if (access.scanner.locate(landing)?.relPath === '') throw new InvalidArgumentError(`"${p}" is a workspace folder, not a file.`);
  const reason = await access.skipReason(landing);
  if (reason && reason !== 'outside' && reason !== 'secret') {
    const where = outside ? `${abs} (a link to ${access.shownPath(landing)}, which` : `"${shown}" (which`;
    return { abs, real, shown, outside, askReason: `writes ${where} ${LEFT_OUT[reason]})` };
  }
  return outside ? { abs, real, shown, outside, askReason: `writes outside the workspace: ${abs}` } : { abs, real, shown, outside };
}

/**
 * The approval verdict of a write to `p` (for `OfferedTool.checkCall`): `deny` for a path never
 * written, `ask` naming a path outside the workspace or left out by its rules, else `undefined`.
 * Never rejects: a path that names no file is left to the call, which fails saying why.
 */
export async function writeVerdict(env: Pick<WorkspaceToolEnv, 'folders' | 'files' | 'exclude' | 'secretPatterns'>, p: unknown): Promise<CallVerdict | undefined> {
  if (typeof p !== 'string' || !p.trim()) return undefined;
  try {
    const target = await checkWriteTarget(env, p);
    return target.askReason ? { kind: 'ask', reason: target.askReason } : undefined;
  } catch (err) {
    if (err instanceof WorkspaceAccessError || err instanceof SymlinkLoopError) return { kind: 'deny', reason: err.message };
    return undefined;
  }
}
