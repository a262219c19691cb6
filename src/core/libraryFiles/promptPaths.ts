/**
 * The safe walk of a prompts folder, shared by the prompt library and the flows: which files are listed, and
 * which may be read (never through a symbolic link that leads out of the folder).
 */
import * as nodePath from 'node:path';
import type { FileStat, WorkspaceFiles } from '../files';
import { isInside } from '../rag/workspaceScanner';

/** Where a listed prompt file may be read from, or why it may not be. */
export type PromptReadPath = { path: string; stat?: FileStat } | { refused: string } | { skip: true };

/**
 * Resolves a file listed below the prompts folder to the path to read. A file whose real path (every
 * symbolic link resolved, the folders above it too, e.g. a linked `prompts/user`) lies outside the prompts
 * folder's real path is refused; a link to a folder is skipped (folders are not entered through links).
 * Without `files.realPath`, any symbolic link on the way from the prompts folder is refused.
 */
export async function promptReadPath(files: WorkspaceFiles, promptDir: string, realRoot: string | undefined, abs: string): Promise<PromptReadPath> {
  if (files.realPath && realRoot !== undefined) {
    let real: string;
    try {
      real = await files.realPath(abs);
    } catch (err) {
      return { refused: `could not resolve the file's path: ${(err as Error).message}` };
    }
    if (!isInside(realRoot, real)) {
      return { refused: 'this file is (or lies below) a symbolic link that leads outside the prompts folder; it was not read: keep prompts inside the folder' };
    }
    const stat = await files.stat(real);
    // The stat goes along, so the reader does not ask for it again.
    return stat?.type === 'directory' ? { skip: true } : { path: real, ...(stat ? { stat } : {}) };
  }
  let cur = promptDir;
  for (const part of nodePath.relative(promptDir, abs).split(nodePath.sep).filter(Boolean)) {
    cur = nodePath.join(cur, part);
    if ((await files.stat(cur))?.type === 'symlink') {
      return { refused: 'this file goes through a symbolic link that this file system cannot resolve; it was not read: keep prompts inside the folder' };
    }
  }
  return { path: abs };
}

/** The real path of the prompts folder, or undefined when links cannot be resolved (or it does not exist). */
export async function promptRealRoot(files: WorkspaceFiles, promptDir: string): Promise<string | undefined> {
  if (!files.realPath) return undefined;
  return files.realPath(promptDir).catch(() => undefined);
}

/** Files below a folder, relative to the prompts folder; dot files are skipped, links listed for `promptReadPath` to check. */
export async function listPromptFiles(files: WorkspaceFiles, dir: string, rel: string): Promise<string[]> {
  let entries: Array<[string, string]>;
  try {
    entries = await files.readDirectory(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const [name, type] of entries) {
    if (name.startsWith('.')) continue;
    if (type === 'file' || type === 'symlink') out.push(`${rel}/${name}`);
    else if (type === 'directory') out.push(...(await listPromptFiles(files, nodePath.join(dir, name), `${rel}/${name}`)));
  }
  return out;
}
