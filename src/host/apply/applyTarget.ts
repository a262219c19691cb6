/**
 * Where Apply may write a code block, judged by the edit tools' guard (`checkWriteTarget`): the path a
 * block's fence or first line names is the model's word, so `.git/config` (an `fsmonitor` line runs on
 * the next `git status`), `.env` and a path through a symbolic link out of the workspace are refused as
 * `edit_file` refuses them, and a file the workspace's rules leave out or a protected file is named in
 * Apply's question with the reason. Pure (no `vscode`).
 */
import { InvalidArgumentError, SymlinkLoopError, WorkspaceAccessError } from '../../core/index';
import { locatePath, type WorkspaceToolEnv } from '../tools/workspaceAccess';
import { checkWriteTarget, type WriteTarget } from '../tools/writeAccess';

/** The guard's answer for one Apply: the checked target and what the question must say, or a refusal. */
export type ApplyTargetCheck = { target: WriteTarget; asks: string[] } | { refusal: string };

type GuardEnv = Pick<WorkspaceToolEnv, 'folders' | 'files' | 'exclude' | 'secretPatterns'>;

/**
 * The first of `named` (paths a block names for itself: relative to the workspace, with a folder's
 * name first in a multi-root one, or absolute) that lies in a workspace folder, as an absolute path.
 */
export function namedTarget(folders: readonly string[], named: readonly string[]): string | undefined {
  for (const p of named) {
    const loc = locatePath(folders, p);
    if (loc?.inside) return loc.abs;
  }
  return undefined;
}

/** Judges the file Apply would write (absolute path) with the edit tools' guard; see the file's header. */
export async function checkApplyTarget(env: GuardEnv, abs: string): Promise<ApplyTargetCheck> {
  try {
    const target = await checkWriteTarget(env, abs);
    const asks: string[] = [];
    if (target.askReason) asks.push(`Apply ${target.askReason}.`);
    if (target.protectedReason) asks.push(`${target.shown} is protected: ${target.protectedReason}.`);
    return { target, asks };
  } catch (err) {
    if (err instanceof WorkspaceAccessError || err instanceof SymlinkLoopError || err instanceof InvalidArgumentError) {
      return { refusal: `Apply does not write this block: ${err.message}` };
    }
    throw err;
  }
}
