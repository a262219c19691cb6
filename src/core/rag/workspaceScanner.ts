/**
 * Lists the files retrieval may read in the workspace folders: it honours `.gitignore` files at
 * every level, the host's excludes and the secret rules, and never leaves a folder, not even
 * through a symbolic link.
 */
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isSymlinkLoop, SymlinkLoopError, WorkspaceAccessError } from '../errors';
import type { FileStat, Logger, WorkspaceFiles } from '../files';
import { FileRules, type SkipReason } from './fileRules';

/** A file the scanner found and the rules allow. */
export interface ScannedFile {
  /** Absolute path as found in the folder (a link keeps its own path). */
  absPath: string;
  /** The path to read: the link's target for a symbolic link, else `absPath`. */
  readPath: string;
  /** Index of the workspace folder. */
  folder: number;
  /** Path relative to the folder, with `/` separators. */
  relPath: string;
  size: number;
  mtimeMs: number;
}

interface IgnoreLayer {
  /** Folder of the `.gitignore`, relative to the workspace folder ('' for the root). */
  base: string;
  ig: Ignore;
}

const enc = new TextDecoder();

/** Whether `child` is `parent` or below it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Walks workspace folders under a set of `FileRules`. */
export class WorkspaceScanner {
  readonly folders: string[];
  private realFolders: string[] | undefined;
  /** `.gitignore` rules per folder path (absolute); `null` when the folder has none. */
  private readonly ignoreCache = new Map<string, Ignore | null>();

  constructor(
    folders: readonly string[],
    private readonly files: WorkspaceFiles,
    readonly rules: FileRules,
    private readonly options: { gitignore?: boolean; logger?: Logger } = {},
  ) {
    this.folders = folders.map((f) => path.resolve(f));
  }

  private async real(): Promise<string[]> {
    if (!this.realFolders) {
      const rp = this.files.realPath?.bind(this.files);
      this.realFolders = await Promise.all(this.folders.map(async (f) => (rp ? rp(f).catch(() => f) : f)));
    }
    return this.realFolders;
  }

  /** Forgets cached `.gitignore` rules (after one of them changed). */
  clearIgnoreCache(): void {
    this.ignoreCache.clear();
  }

  /** Folder index and `/`-separated relative path of an absolute path, or undefined when it is in no folder. */
  locate(absPath: string): { folder: number; relPath: string } | undefined {
    const abs = path.resolve(absPath);
    for (let i = 0; i < this.folders.length; i++) {
      if (isInside(this.folders[i], abs)) {
        return { folder: i, relPath: path.relative(this.folders[i], abs).split(path.sep).join('/') };
      }
    }
    return undefined;
  }

  /** The path shown for a file: relative to its folder, prefixed by the folder's name in a multi-root workspace. */
  shownPath(folder: number, relPath: string): string {
    return this.folders.length > 1 && folder >= 0 ? `${path.basename(this.folders[folder])}/${relPath}` : relPath;
  }

  /**
   * Where a file inside the folder may be read from: itself, or the target of a symbolic link when
   * that target stays inside the folder. Throws `WorkspaceAccessError` otherwise, `SymlinkLoopError`
   * for a link that leads back to itself.
   */
  async resolveReadPath(folder: number, absPath: string): Promise<string> {
    const rp = this.files.realPath?.bind(this.files);
    const root = this.folders[folder];
    if (rp) {
      const realRoot = (await this.real())[folder];
      let real: string;
      try {
        real = await rp(absPath);
      } catch (err) {
        throw isSymlinkLoop(err) ? new SymlinkLoopError(absPath, { cause: err }) : err;
      }
      if (!isInside(realRoot, real)) {
        throw new WorkspaceAccessError(`"${absPath}" is a symbolic link (or lies below one) that leads outside the workspace folder "${root}"; retrieval only reads files inside the workspace.`, absPath);
      }
      return real;
    }
    // Without realPath, refuse any link on the way down from the folder.
    const rel = path.relative(root, absPath);
    let cur = root;
    for (const part of rel.split(path.sep).filter(Boolean)) {
      cur = path.join(cur, part);
      const st = await this.files.stat(cur);
      if (st?.type === 'symlink') {
        throw new WorkspaceAccessError(`"${absPath}" goes through the symbolic link "${cur}", which this file system cannot resolve; retrieval does not follow it.`, absPath);
      }
    }
    return absPath;
  }

  private async ignoreAt(dirAbs: string, hasFile?: boolean): Promise<Ignore | null> {
    const cached = this.ignoreCache.get(dirAbs);
    if (cached !== undefined) return cached;
    let ig: Ignore | null = null;
    const file = path.join(dirAbs, '.gitignore');
    if (hasFile ?? (await this.files.stat(file))?.type === 'file') {
      try {
        ig = ignore().add(enc.decode(await this.files.readFile(file)));
      } catch (err) {
        this.options.logger?.warn(`Could not read ${file}; its rules are not applied: ${String(err)}`);
      }
    }
    this.ignoreCache.set(dirAbs, ig);
    return ig;
  }

  private static ignored(layers: readonly IgnoreLayer[], relPath: string, isDir: boolean): boolean {
    let state = false;
    for (const { base, ig } of layers) {
      const sub = base === '' ? relPath : relPath.slice(base.length + 1);
      const r = ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) state = true;
      else if (r.unignored) state = false;
    }
    return state;
  }

  /** Every allowed file of every folder. */
  async scan(signal?: AbortSignal): Promise<ScannedFile[]> {
    const out: ScannedFile[] = [];
    for (let i = 0; i < this.folders.length; i++) {
      const st = await this.files.stat(this.folders[i]);
      if (!st) {
        this.options.logger?.warn(`Workspace folder ${this.folders[i]} does not exist; nothing indexed from it.`);
        continue;
      }
      await this.walk(i, this.folders[i], '', [], out, signal);
    }
    return out;
  }

  private async walk(folder: number, dirAbs: string, dirRel: string, layers: IgnoreLayer[], out: ScannedFile[], signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    let entries: Array<[string, string]>;
    try {
      entries = await this.files.readDirectory(dirAbs);
    } catch (err) {
      this.options.logger?.warn(`Could not list ${dirAbs}: ${String(err)}`);
      return;
    }
    if (this.options.gitignore !== false) {
      const ig = await this.ignoreAt(dirAbs, entries.some(([n, t]) => n === '.gitignore' && t === 'file'));
      if (ig) layers = [...layers, { base: dirRel, ig }];
    }
    const subdirs: Array<[string, string]> = [];
    const candidates: Array<Promise<ScannedFile | undefined>> = [];
    for (const [name, type] of entries) {
      const abs = path.join(dirAbs, name);
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      if (type === 'directory') {
        if (!this.rules.skipsDirectory(rel) && !WorkspaceScanner.ignored(layers, rel, true)) subdirs.push([abs, rel]);
      } else if (type === 'file' || type === 'symlink') {
        if (this.rules.skipsFile(rel) || WorkspaceScanner.ignored(layers, rel, false)) continue;
        candidates.push(this.fileEntry(folder, abs, rel, type === 'symlink'));
      }
    }
    for (const f of await Promise.all(candidates)) if (f) out.push(f);
    for (const [abs, rel] of subdirs) await this.walk(folder, abs, rel, layers, out, signal);
  }

  private async fileEntry(folder: number, abs: string, rel: string, link: boolean): Promise<ScannedFile | undefined> {
    if (!link) return this.entryAt(folder, abs, rel, abs);
    // A link is followed only to a file inside the same folder; links to folders are not entered.
    if (!this.files.realPath) return undefined;
    let readPath: string;
    try {
      readPath = await this.resolveReadPath(folder, abs);
    } catch (err) {
      // A loop is a broken workspace the person can fix, so it is worth a warning; a link out is by design.
      if (err instanceof SymlinkLoopError) this.options.logger?.warn(`Skipped ${rel}: ${err.message}`);
      else this.options.logger?.debug(err instanceof Error ? err.message : String(err));
      return undefined;
    }
    return this.entryAt(folder, abs, rel, readPath);
  }

  /** The entry for `abs` read from `readPath` (already resolved); `st` is the stat of `abs` when the caller has it. */
  private async entryAt(folder: number, abs: string, rel: string, readPath: string, st?: FileStat): Promise<ScannedFile | undefined> {
    if (readPath !== abs) {
      // The target must pass the same rules as the link: a link to `.env` is still a secret.
      const realRel = path.relative((await this.real())[folder], readPath).split(path.sep).join('/');
      if (this.rules.forbids(realRel)) return undefined;
      st = await this.files.stat(readPath);
    } else {
      st ??= await this.files.stat(abs);
    }
    if (!st || st.type !== 'file') return undefined;
    return { absPath: abs, readPath, folder, relPath: rel, size: st.size, mtimeMs: st.mtimeMs };
  }

  /**
   * Why the rules (tool folders, secrets, excludes, includes, `.gitignore` at every level, for the
   * path and each folder above it) leave a path of a folder out, as a scan would; `undefined` when
   * they do not. The path need not exist.
   */
  async skipReason(folder: number, relPath: string): Promise<SkipReason | undefined> {
    const fileReason = this.rules.fileSkipReason(relPath);
    if (fileReason) return fileReason;
    const parts = relPath.split('/');
    let layers: IgnoreLayer[] = [];
    let dirAbs = this.folders[folder];
    let dirRel = '';
    for (let i = 0; i < parts.length; i++) {
      if (this.options.gitignore !== false) {
        const ig = await this.ignoreAt(dirAbs);
        if (ig) layers = [...layers, { base: dirRel, ig }];
      }
      dirRel = dirRel === '' ? parts[i] : `${dirRel}/${parts[i]}`;
      dirAbs = path.join(dirAbs, parts[i]);
      const last = i === parts.length - 1;
      const dirReason = last ? undefined : this.rules.directorySkipReason(dirRel);
      if (dirReason) return dirReason;
      if (WorkspaceScanner.ignored(layers, dirRel, !last)) return 'gitignored';
    }
    return undefined;
  }

  /**
   * Checks one path against every rule, as a scan would: the file when it is allowed and exists,
   * `undefined` when it is excluded, ignored, missing, not a file or a link loop.
   */
  async check(absPath: string): Promise<ScannedFile | undefined> {
    const loc = this.locate(absPath);
    if (!loc || loc.relPath === '') return undefined;
    const { folder, relPath } = loc;
    if ((await this.skipReason(folder, relPath)) !== undefined) return undefined;
    const abs = path.join(this.folders[folder], ...relPath.split('/'));
    try {
      const st = await this.files.stat(abs);
      if (!st || (st.type !== 'file' && st.type !== 'symlink')) return undefined;
      // Resolved once: this also refuses a file below a linked folder that leads outside.
      return await this.entryAt(folder, abs, relPath, await this.resolveReadPath(folder, abs), st);
    } catch {
      return undefined;
    }
  }
}
