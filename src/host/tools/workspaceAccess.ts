/**
 * What the built-in tools may read, by the rules attachments and retrieval already follow: the files of
 * the workspace folders that `.gitignore`, the retrieval excludes, the tool folders (`node_modules`,
 * `.git`) and the secret-file rules all leave in. A path outside every folder is read only after the
 * user approved it (the approval layer asks, through `OfferedTool.outsideWorkspace`), and a secret file
 * is refused even then. Pure (no `vscode`): the host hands in its folders, files and settings.
 */
import * as path from 'node:path';
import { homedir } from 'node:os';
import {
  FileRules,
  inGitFolder,
  InvalidArgumentError,
  SymlinkLoopError,
  WorkspaceAccessError,
  WorkspaceScanner,
  type ExcludeSetting,
  type RagResultItem,
  type WorkspaceFiles,
} from '../../core/index';
import type { ProtectedFilesSetting } from './protectedFiles';

/** What the built-in workspace tools need from the host. */
export interface WorkspaceToolEnv {
  /** Absolute paths of the workspace folders on disk, in order. */
  folders(): readonly string[];
  /** How files are read (`VscodeWorkspaceFiles` in the extension, `nodeFiles` in tests). */
  readonly files: WorkspaceFiles;
  /** The retrieval excludes (`arbor.rag.exclude`), applied as attachments and prompts apply them. */
  exclude?(): ExcludeSetting | undefined;
  /** Secret-file globs; default `DEFAULT_SECRET_PATTERNS`, the list retrieval uses. */
  readonly secretPatterns?: readonly string[];
  /**
   * `arbor.tools.protectedFiles` and the prompt folder: files a write to is asked about every time, by
   * name. Default `DEFAULT_PROTECTED_FILES` with the prompt folder `prompts`.
   */
  protectedFiles?(): ProtectedFilesSetting;
  /**
   * Searches the workspace index (BM25, the one retrieval uses) for the `k` best chunks; `undefined`
   * when there is no index (no folder open, or Restricted Mode).
   */
  searchIndex(query: string, k: number): Promise<RagResultItem[] | undefined>;
  /** The ripgrep binary `grep` runs. */
  ripgrepPath(): string;
  /** Largest file `read_file` reads, in bytes (default `MAX_READ_BYTES`). */
  readonly maxReadBytes?: number;
}

/** Largest file `read_file` reads by default: larger ones are for `grep`. */
export const MAX_READ_BYTES = 10_000_000;

/** A file a tool may read, found and checked. */
export interface AllowedFile {
  /** Absolute path as named (a link keeps its own path). */
  abs: string;
  /** Where the bytes are read: the link's target, else `abs`. */
  readPath: string;
  /** What the model reads: the workspace-relative path (with the folder's name in a multi-root workspace), or the absolute path outside. */
  shown: string;
  size: number;
  /** True when the file is outside every workspace folder (read because the user approved it). */
  outside: boolean;
}

/** Where a path given by a model points: its absolute path, and whether that lies in a workspace folder. */
export interface LocatedPath {
  abs: string;
  inside: boolean;
}

const REASONS = {
  'tool-folder': 'is inside node_modules, .git or another tool folder',
  secret: 'looks like a secrets file (keys, credentials or an environment file)',
  excluded: 'is excluded by the arbor.rag.exclude setting',
  'not-included': 'is outside the retrieval include globs',
  gitignored: 'is ignored by .gitignore',
} as const;

/** Why a workspace path is refused, in words the model can act on. */
export function refusalText(shown: string, reason: keyof typeof REASONS): string {
  if (reason === 'secret') return `"${shown}" ${REASONS.secret}, so Arbor never sends it to a model.`;
  return `"${shown}" ${REASONS[reason]}, so Arbor's tools do not read it. If the user needs it, they can attach it to the chat by hand.`;
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(homedir(), p.slice(1)) : p;
}

function inside(folder: string, abs: string): boolean {
  const rel = path.relative(folder, abs);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Where `p` points: an absolute path (or `~/…`) as it is; a relative one inside the folder whose name it
 * starts with (multi-root), else inside the first folder. `undefined` for a relative path with no folder
 * open. Lexical only (no file is touched), so the approval layer can call it before a tool runs.
 */
export function locatePath(folders: readonly string[], p: string): LocatedPath | undefined {
  const given = expandHome(p.trim());
  if (path.isAbsolute(given)) {
    const abs = path.resolve(given);
    return { abs, inside: folders.some((f) => inside(path.resolve(f), abs)) };
  }
  if (folders.length === 0) return undefined;
  const first = given.split(/[\\/]/)[0];
  const named = folders.length > 1 ? folders.find((f) => path.basename(f) === first) : undefined;
  const abs = named ? path.resolve(named, given.slice(first.length + 1)) : path.resolve(folders[0], given);
  return { abs, inside: folders.some((f) => inside(path.resolve(f), abs)) };
}

/** The absolute path `p` names when it lies outside every workspace folder (for `OfferedTool.outsideWorkspace`). */
export function outsidePath(folders: readonly string[], p: unknown): string | undefined {
  if (typeof p !== 'string' || !p.trim()) return undefined;
  const loc = locatePath(folders, p);
  return loc && !loc.inside ? loc.abs : undefined;
}

/**
 * The rules of one tool call, from the current folders and settings: the same `FileRules` and
 * `WorkspaceScanner` (with `.gitignore` at every level) that the `files` retrieval adapter builds.
 * Made per call, so a changed `.gitignore` or setting counts from the next call.
 */
export class WorkspaceAccess {
  readonly folders: readonly string[];
  readonly rules: FileRules;
  readonly scanner: WorkspaceScanner;
  private readonly files: WorkspaceFiles;
  private readonly allowedCache = new Map<string, Promise<boolean>>();

  constructor(env: Pick<WorkspaceToolEnv, 'folders' | 'files' | 'exclude' | 'secretPatterns'>) {
    this.folders = env.folders().map((f) => path.resolve(f));
    this.files = env.files;
    this.rules = new FileRules({ exclude: env.exclude?.(), secretPatterns: env.secretPatterns });
    this.scanner = new WorkspaceScanner(this.folders, this.files, this.rules);
  }

  /** The path shown to the model for an absolute path: workspace-relative inside, absolute outside. */
  shownPath(abs: string): string {
    const loc = this.scanner.locate(abs);
    return loc ? this.scanner.shownPath(loc.folder, loc.relPath) : abs;
  }

  /** Whether an absolute path outside the workspace names a secret (by name, or a folder such as `.ssh`) or lies in `.git`. */
  private forbiddenOutside(abs: string): boolean {
    const posix = abs.split(path.sep).join('/').replace(/^[A-Za-z]:/, '').replace(/^\/+/, '');
    return this.rules.isSecret(posix) || inGitFolder(posix);
  }

  /**
   * Why a workspace file (absolute path) is left out, as a scan would leave it out, or `undefined` when
   * tools may show it. Outside the folders: `'outside'`. The file need not exist.
   */
  async skipReason(abs: string): Promise<keyof typeof REASONS | 'outside' | undefined> {
    const loc = this.scanner.locate(abs);
    if (!loc) return 'outside';
    if (loc.relPath === '') return undefined;
    if (inGitFolder(loc.relPath)) return 'tool-folder';
    return this.scanner.skipReason(loc.folder, loc.relPath);
  }

  /** Whether a workspace file (absolute path) may be shown to the model; cached for the call. */
  allows(abs: string): Promise<boolean> {
    let allowed = this.allowedCache.get(abs);
    if (!allowed) {
      allowed = this.skipReason(abs).then((r) => r === undefined);
      this.allowedCache.set(abs, allowed);
    }
    return allowed;
  }

  /**
   * A path named by the model inside the workspace, checked by the rules (it need not exist): its
   * absolute and shown paths. Throws `WorkspaceAccessError` for a path outside the folders or one the
   * rules leave out.
   */
  async checkWorkspacePath(p: string): Promise<{ abs: string; shown: string }> {
    const loc = locatePath(this.folders, p);
    if (!loc) throw new InvalidArgumentError(`No workspace folder is open, so "${p}" names no file.`);
    if (!loc.inside) throw new WorkspaceAccessError(`"${p}" is outside the workspace folders (${this.folders.join(', ')}); this tool only looks inside them.`, p);
    const reason = await this.skipReason(loc.abs);
    if (reason && reason !== 'outside') throw new WorkspaceAccessError(refusalText(p, reason), p);
    return { abs: loc.abs, shown: this.shownPath(loc.abs) };
  }

  /**
   * Finds a file to read: inside the workspace by every rule retrieval follows (a relative path is
   * tried in each folder, as the `files` adapter tries it); outside, only refusing secrets and `.git`,
   * since the user approved the read. Throws `WorkspaceAccessError` or `InvalidArgumentError` with
   * what to do instead.
   */
  async resolveFile(p: string): Promise<AllowedFile> {
    const loc = locatePath(this.folders, p);
    if (!loc) throw new InvalidArgumentError(`No workspace folder is open, so the relative path "${p}" names no file; give an absolute path.`);
    if (!loc.inside) return this.resolveOutside(p, loc.abs);
    const candidates = [loc.abs];
    const given = expandHome(p.trim());
    if (!path.isAbsolute(given)) {
      for (const f of this.folders) {
        const abs = path.resolve(f, given);
        if (!candidates.includes(abs) && this.scanner.locate(abs)) candidates.push(abs);
      }
    }
    for (const abs of candidates) {
      const found = await this.resolveInside(p, abs);
      if (found) return found;
    }
    throw new InvalidArgumentError(`No file "${p}" in the workspace folders (${this.folders.join(', ')}). Check the path (relative to a workspace folder), or find it with list_files.`);
  }

  private async resolveInside(p: string, abs: string): Promise<AllowedFile | undefined> {
    const loc = this.scanner.locate(abs)!;
    const shown = this.scanner.shownPath(loc.folder, loc.relPath);
    if (loc.relPath === '') throw new InvalidArgumentError(`"${p}" is a workspace folder, not a file; list its files with list_files.`);
    // A path missing here may be in another folder, where other rules apply.
    const st = await this.files.stat(abs);
    if (!st) return undefined;
    const reason = await this.skipReason(abs);
    if (reason && reason !== 'outside') throw new WorkspaceAccessError(refusalText(shown, reason), p);
    let readPath: string;
    try {
      readPath = await this.scanner.resolveReadPath(loc.folder, abs);
    } catch (err) {
      if (err instanceof SymlinkLoopError) throw err;
      if (err instanceof WorkspaceAccessError) {
        const target = await this.files.realPath?.(abs).catch(() => undefined);
        throw new WorkspaceAccessError(
          `"${shown}" is a symbolic link that leads outside the workspace folders${target ? ` (to ${target})` : ''}; read the file it points to by its absolute path instead (the user is asked first).`,
          p,
        );
      }
      throw err;
    }
    if (readPath !== abs) {
      const real = this.scanner.locate(readPath);
      if (real && this.rules.forbids(real.relPath)) throw new WorkspaceAccessError(`"${shown}" links to a secret or tool-folder file, so Arbor does not send it to a model.`, p);
    }
    const real = readPath === abs ? st : await this.files.stat(readPath);
    if (!real || real.type === 'directory') throw new InvalidArgumentError(`"${shown}" is a folder, not a file; list its files with list_files and the glob "${shown}/**".`);
    if (real.type !== 'file') throw new InvalidArgumentError(`"${shown}" is not a regular file.`);
    return { abs, readPath, shown, size: real.size, outside: false };
  }

  private async resolveOutside(p: string, abs: string): Promise<AllowedFile> {
    const refuse = () => new WorkspaceAccessError(`"${p}" looks like a secrets file (keys, credentials or an environment file) or lies in .git, so Arbor never sends it to a model.`, p);
    if (this.forbiddenOutside(abs)) throw refuse();
    const st = await this.files.stat(abs);
    if (!st) throw new InvalidArgumentError(`No file "${abs}". Check the path.`);
    const readPath = this.files.realPath ? await this.files.realPath(abs).catch(() => abs) : abs;
    if (readPath !== abs && this.forbiddenOutside(readPath)) throw refuse();
    // A link from outside into the workspace reaches a file by the workspace's rules.
    const reason = readPath !== abs ? await this.skipReason(readPath) : 'outside';
    if (reason && reason !== 'outside') throw new WorkspaceAccessError(`"${p}" links to ${this.shownPath(readPath)}, which ${REASONS[reason]}, so Arbor's tools do not read it.`, p);
    const real = readPath === abs ? st : await this.files.stat(readPath);
    if (!real || real.type === 'directory') throw new InvalidArgumentError(`"${abs}" is a folder, not a file.`);
    if (real.type !== 'file') throw new InvalidArgumentError(`"${abs}" is not a regular file.`);
    return { abs, readPath, shown: abs, size: real.size, outside: true };
  }
}
