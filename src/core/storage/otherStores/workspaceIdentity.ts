/**
 * Reads what VS Code writes beside each workspace-storage folder (`<root>/<id>/workspace.json`): the
 * folder, or the `.code-workspace` file, that the storage belongs to, turned into folder paths so a
 * store can be matched with the current workspace's folders. Not every host writes that file (VS Code
 * in a browser, code-server, keeps it to itself), so Arbor also writes its own record beside its store
 * (`<root>/<id>/<extension>/workspace-folders.json`), read when VS Code's is missing.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';

/**
 * The folder Arbor keeps a workspace's store in, given the one VS Code gave this window
 * (`<root>/<id>/<extension>`). VS Code locks each workspace-storage folder for one extension host; a
 * second window of the same workspace, or a window reloaded before the previous extension host let go
 * (VS Code in the browser keeps it for minutes after the page is gone), gets `<id>-1` … `<id>-9`, and a
 * chat kept there seems to vanish at the next reload. Arbor's store is made for several windows at once,
 * so it stays in `<id>` whatever suffix this window got; `<id>` exists whenever a suffix was given (VS
 * Code makes it first).
 */
export function sharedStoreDir(extensionStorageDir: string): string {
  const storageFolder = path.dirname(extensionStorageDir);
  const id = path.basename(storageFolder);
  const baseId = unnumberedStorageId(id);
  if (baseId === id) return extensionStorageDir;
  const base = path.join(path.dirname(storageFolder), baseId);
  return existsSync(base) ? path.join(base, path.basename(extensionStorageDir)) : extensionStorageDir;
}

/** A workspace-storage folder's name without the `-1` … `-9` VS Code adds for a window that found `<id>` locked. */
export function unnumberedStorageId(storageId: string): string {
  return storageId.replace(/-[1-9]$/, '');
}

/** The folders a workspace-storage folder belongs to, as `workspace.json` names them. */
export interface StorageIdentity {
  /** Absolute folder paths (the folder itself, or the folders of the workspace file). */
  folders: string[];
  /** The `.code-workspace` file, when the storage belongs to one. */
  workspaceFile?: string;
}

/**
 * The path a workspace URI names, or undefined for a URI that is not a local path. `file:` URIs give
 * their path; `vscode-remote:` ones (code-server names its folders so, with a host and port that
 * change between runs) give the path on the machine whose storage this is.
 */
export function uriToPath(uri: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return undefined;
  }
  if (parsed.protocol === 'file:') return normalizeFolder(fileURLToPath(parsed));
  if (parsed.protocol === 'vscode-remote:') return normalizeFolder(decodeURIComponent(parsed.pathname));
  return undefined;
}

/** A folder path in the form used for comparisons: absolute, no trailing separator, lower case where the file system ignores case. */
export function normalizeFolder(folder: string): string {
  const resolved = path.resolve(folder);
  return process.platform === 'win32' || process.platform === 'darwin' ? resolved.toLowerCase() : resolved;
}

/** The file Arbor writes in its store's folder naming the workspace's folders. */
export const ARBOR_IDENTITY_FILE = 'workspace-folders.json';

/** What Arbor's own record holds. */
interface ArborIdentityRecord {
  version: 1;
  folders: string[];
  workspaceFile?: string;
}

/**
 * Writes (when it changed) Arbor's record of which folders the store in `storeDir` belongs to, so a
 * later workspace of the same folders finds it where the host writes no `workspace.json`.
 */
export async function writeArborIdentity(storeDir: string, identity: StorageIdentity): Promise<void> {
  const record: ArborIdentityRecord = { version: 1, folders: identity.folders.map((f) => path.resolve(f)), ...(identity.workspaceFile ? { workspaceFile: path.resolve(identity.workspaceFile) } : {}) };
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const file = path.join(storeDir, ARBOR_IDENTITY_FILE);
  if ((await fs.readFile(file, 'utf8').catch(() => undefined)) === text) return;
  await fs.mkdir(storeDir, { recursive: true });
  // Written whole under another name, then renamed: a reader never sees half a record.
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, text);
  await fs.rename(temp, file);
}

/**
 * The folders a workspace-storage folder belongs to: what VS Code's `<storageFolder>/workspace.json`
 * names, else what Arbor's record in `<storageFolder>/<extensionDir>` names. Undefined when neither
 * is there or readable, or they name nothing this machine can read (then the storage is never matched
 * by its folders).
 */
export async function readStorageIdentity(storageFolder: string, extensionDir?: string): Promise<StorageIdentity | undefined> {
  return (await readVsCodeIdentity(storageFolder)) ?? (extensionDir ? await readArborIdentity(path.join(storageFolder, extensionDir)) : undefined);
}

async function readArborIdentity(storeDir: string): Promise<StorageIdentity | undefined> {
  const json = await readJsonc(path.join(storeDir, ARBOR_IDENTITY_FILE));
  if (!json || typeof json !== 'object') return undefined;
  const { folders, workspaceFile } = json as { folders?: unknown; workspaceFile?: unknown };
  if (!Array.isArray(folders)) return undefined;
  const paths = folders.filter((f): f is string => typeof f === 'string' && path.isAbsolute(f)).map(normalizeFolder);
  if (paths.length === 0) return undefined;
  return { folders: paths, ...(typeof workspaceFile === 'string' && path.isAbsolute(workspaceFile) ? { workspaceFile } : {}) };
}

async function readVsCodeIdentity(storageFolder: string): Promise<StorageIdentity | undefined> {
  const json = await readJsonc(path.join(storageFolder, 'workspace.json'));
  if (!json || typeof json !== 'object') return undefined;
  const record = json as Record<string, unknown>;
  if (typeof record.folder === 'string') {
    const folder = uriToPath(record.folder);
    return folder ? { folders: [folder] } : undefined;
  }
  if (typeof record.workspace === 'string') {
    const workspaceFile = uriToPath(record.workspace);
    if (!workspaceFile) return undefined;
    return { folders: await workspaceFileFolders(workspaceFile), workspaceFile };
  }
  return undefined;
}

/**
 * The folders a `.code-workspace` file lists (JSON with comments): `path` entries relative to the
 * file's folder or absolute, and `uri` entries. Empty when the file is gone or unreadable.
 */
export async function workspaceFileFolders(workspaceFile: string): Promise<string[]> {
  const json = await readJsonc(workspaceFile);
  const folders = json && typeof json === 'object' ? (json as { folders?: unknown }).folders : undefined;
  if (!Array.isArray(folders)) return [];
  const base = path.dirname(workspaceFile);
  const result: string[] = [];
  for (const entry of folders) {
    if (!entry || typeof entry !== 'object') continue;
    const { path: folderPath, uri } = entry as { path?: unknown; uri?: unknown };
    const folder = typeof folderPath === 'string' ? normalizeFolder(path.resolve(base, folderPath)) : typeof uri === 'string' ? uriToPath(uri) : undefined;
    if (folder) result.push(folder);
  }
  return result;
}

async function readJsonc(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  return errors.length > 0 && value === undefined ? undefined : value;
}
