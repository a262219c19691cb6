/**
 * The `files` retrieval adapter: the files a prompt or a person names, whole or by line range. A read
 * that a prompt drives honours every rule of the index (workspace only, secrets, `.gitignore`,
 * excludes, `node_modules`, size); only a path the user picked by hand may be ignored, and is marked so.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { InvalidArgumentError, WorkspaceAccessError } from '../errors';
import type { WorkspaceFiles } from '../files';
import { nodeFiles } from '../nodeFiles';
import type { RagAdapter, RagResultItem } from './ragAdapter';
import { splitLines } from './chunker';
import { FileRules, languageOf, looksBinary, type ExcludeSetting, type SkipReason } from './fileRules';
import { inGitFolder } from './pathNames';
import { WorkspaceScanner, type ScannedFile } from './workspaceScanner';

export interface FilesAdapterOptions {
  /** Absolute paths of the workspace folders. */
  folders: readonly string[];
  files?: WorkspaceFiles;
  /** Host excludes, applied as the index applies them (a path the user picked by hand may still be read). */
  exclude?: ExcludeSetting;
  /** Secret file globs that are refused; default `DEFAULT_SECRET_PATTERNS`. */
  secretPatterns?: readonly string[];
  /** Larger files are refused (default 1,000,000 bytes). */
  maxFileBytes?: number;
}

/** How a search was asked for; not part of `filters`, so a prompt's configuration cannot set it. */
export interface FilesSearchOptions {
  /**
   * The paths were picked by hand in the UI: an explicit path that `.gitignore`, the excludes or
   * `node_modules` leave out is still read, and its result carries `metadata.ignored: true` (and
   * `metadata.ignoredReason`). Secrets, paths outside the workspace and the size limit still apply.
   */
  userPicked?: boolean;
}

/** One requested path or glob, with an optional 1-based inclusive line range. */
export interface FileSpec {
  pattern: string;
  startLine?: number;
  endLine?: number;
}

const RANGE = /^(.+?):(\d+)(?:-(\d+))?$/;
const GITHUB_RANGE = /^(.+?)#L(\d+)(?:-L?(\d+))?$/;

/** Parses `a.ts, src/**\/*.md b.ts:10-20 "with space.ts"` into specs. */
export function parseFileSpecs(query: string): FileSpec[] {
  const specs: FileSpec[] = [];
  for (const m of query.matchAll(/"([^"]+)"|'([^']+)'|[^\s,]+/g)) {
    const raw = m[1] ?? m[2] ?? m[0];
    const r = GITHUB_RANGE.exec(raw) ?? (/^[A-Za-z]:[\\/]/.test(raw) && !RANGE.test(raw.slice(2)) ? null : RANGE.exec(raw));
    if (r) specs.push({ pattern: r[1], startLine: Number(r[2]), endLine: r[3] !== undefined ? Number(r[3]) : Number(r[2]) });
    else specs.push({ pattern: raw });
  }
  return specs;
}

const decoder = new TextDecoder('utf-8');

/** Returns named workspace files as retrieval results (score 1). */
export class FilesAdapter implements RagAdapter {
  private readonly files: WorkspaceFiles;
  private readonly rules: FileRules;
  private readonly scanner: WorkspaceScanner;

  constructor(private readonly options: FilesAdapterOptions) {
    this.files = options.files ?? nodeFiles;
    this.rules = new FileRules({ exclude: options.exclude, secretPatterns: options.secretPatterns });
    this.scanner = new WorkspaceScanner(options.folders, this.files, this.rules);
  }

  /**
   * `query`: paths or globs separated by commas or white space, each optionally `path:10-20`;
   * `filters.paths` adds more. Globs return at most `k` files (all when `k` is 0); explicit paths
   * are always returned. Throws `WorkspaceAccessError` for a path outside the workspace, a secret,
   * or (unless `options.userPicked`) a path the index leaves out; `SymlinkLoopError` for a link loop.
   */
  async search(query: string, k: number, filters?: Record<string, unknown>, options: FilesSearchOptions = {}): Promise<RagResultItem[]> {
    const specs = parseFileSpecs(query);
    const extra = filters?.paths;
    for (const p of Array.isArray(extra) ? extra : typeof extra === 'string' ? [extra] : []) {
      if (typeof p === 'string') specs.push(...parseFileSpecs(p));
    }
    const out: RagResultItem[] = [];
    const seen = new Set<string>();
    let globBudget = k > 0 ? k : Number.POSITIVE_INFINITY;
    for (const spec of specs) {
      if (picomatch.scan(spec.pattern).isGlob) {
        for (const f of await this.globFiles(spec.pattern)) {
          if (globBudget <= 0) break;
          const key = `${f.absPath}:${spec.startLine ?? ''}`;
          if (seen.has(key) || f.size > this.maxBytes) continue;
          const item = await this.read(f, spec, false, undefined);
          if (item) {
            seen.add(key);
            out.push(item);
            globBudget--;
          }
        }
      } else {
        const { file: f, ignored } = await this.resolve(spec.pattern, options.userPicked === true);
        const key = `${f.absPath}:${spec.startLine ?? ''}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push((await this.read(f, spec, true, ignored))!);
      }
    }
    return out;
  }

  private get maxBytes(): number {
    return this.options.maxFileBytes ?? 1_000_000;
  }

  private async globFiles(glob: string): Promise<ScannedFile[]> {
    const g = glob.replace(/\\/g, '/').replace(/^\.\//, '');
    if (g.split('/').includes('..')) throw new WorkspaceAccessError(`The glob "${glob}" climbs out of the workspace with "..": use a pattern relative to a workspace folder.`, glob);
    const scanner = new WorkspaceScanner(this.options.folders, this.files, new FileRules({ exclude: this.options.exclude, secretPatterns: this.options.secretPatterns, include: [g] }));
    const multi = this.scanner.folders.length > 1;
    let found = await scanner.scan();
    if (multi && found.length === 0) {
      // In a multi-root workspace a glob may start with the folder name.
      const all = await new WorkspaceScanner(this.options.folders, this.files, new FileRules({ exclude: this.options.exclude, secretPatterns: this.options.secretPatterns })).scan();
      const m = picomatch(g, { dot: true });
      found = all.filter((f) => m(this.scanner.shownPath(f.folder, f.relPath)));
    }
    return found.sort((a, b) => a.folder - b.folder || (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  }

  /**
   * Why the index leaves out a file the user picked by hand (gitignored, excluded, in
   * `node_modules`…), or undefined when it does not; refuses what is never read (secrets, outside).
   */
  async ignoredReason(relPath: string): Promise<SkipReason | undefined> {
    return (await this.resolve(relPath, true)).ignored;
  }

  /**
   * Finds an explicit path in the workspace, refusing anything outside it or secret, and anything
   * the index leaves out unless the user picked it (then `ignored` says why it would be left out).
   */
  private async resolve(p: string, userPicked: boolean): Promise<{ file: ScannedFile; ignored?: SkipReason }> {
    const parts = p.split(/[\\/]+/);
    if (parts.includes('..')) {
      throw new WorkspaceAccessError(`"${p}" climbs out of the workspace with "..". Name files by their path inside a workspace folder.`, p);
    }
    const folders = this.scanner.folders;
    const candidates: string[] = [];
    if (path.isAbsolute(p)) {
      if (!this.scanner.locate(p)) {
        throw new WorkspaceAccessError(`"${p}" is outside the workspace folders (${folders.join(', ')}); only files inside the workspace can be used as context.`, p);
      }
      candidates.push(path.resolve(p));
    } else {
      const rel = parts.filter((x) => x !== '' && x !== '.');
      for (const f of folders) if (folders.length > 1 && rel[0] === path.basename(f)) candidates.push(path.join(f, ...rel.slice(1)));
      for (const f of folders) candidates.push(path.join(f, ...rel));
    }
    for (const abs of candidates) {
      const loc = this.scanner.locate(abs)!;
      if (inGitFolder(loc.relPath)) {
        throw new WorkspaceAccessError(`"${p}" is inside .git, whose files can hold credentials (remote URLs, hooks); Arbor does not send them to a model.`, p);
      }
      if (this.rules.isSecret(loc.relPath)) {
        throw new WorkspaceAccessError(`"${p}" looks like a secrets file (credentials, keys or an environment file), so Arbor does not send it to a model.`, p);
      }
      const st = await this.files.stat(abs);
      if (!st) continue;
      const ignored = await this.scanner.skipReason(loc.folder, loc.relPath);
      if (ignored && (!userPicked || ignored === 'secret')) throw new WorkspaceAccessError(refusal(p, ignored), p);
      const readPath = await this.scanner.resolveReadPath(loc.folder, abs);
      const real = readPath === abs ? st : await this.files.stat(readPath);
      if (!real || real.type !== 'file') throw new InvalidArgumentError(`"${p}" is not a file.`);
      const realLoc = this.scanner.locate(readPath);
      if (realLoc && this.rules.isSecret(realLoc.relPath)) {
        throw new WorkspaceAccessError(`"${p}" links to a secret file, so Arbor does not send it to a model.`, p);
      }
      return { file: { absPath: abs, readPath, folder: loc.folder, relPath: loc.relPath, size: real.size, mtimeMs: real.mtimeMs }, ignored };
    }
    throw new InvalidArgumentError(`No file "${p}" in the workspace folders (${folders.join(', ')}). Check the path; it is relative to a workspace folder.`);
  }

  private async read(f: ScannedFile, spec: FileSpec, explicit: boolean, ignored: SkipReason | undefined): Promise<RagResultItem | undefined> {
    if (f.size > this.maxBytes) {
      throw new InvalidArgumentError(`"${f.relPath}" is ${f.size} bytes, over the ${this.maxBytes}-byte limit for context files; name a line range instead (path:10-80).`);
    }
    const bytes = await this.files.readFile(f.readPath);
    if (looksBinary(bytes)) {
      if (explicit) throw new InvalidArgumentError(`"${f.relPath}" is a binary file and cannot be used as text context.`);
      return undefined;
    }
    const lines = splitLines(decoder.decode(bytes));
    let start = 1;
    let end = lines.length;
    if (spec.startLine !== undefined) {
      start = spec.startLine;
      end = Math.min(spec.endLine ?? start, lines.length);
      if (start < 1 || start > lines.length || end < start) {
        throw new InvalidArgumentError(`Lines ${spec.startLine}-${spec.endLine} are not in "${f.relPath}", which has ${lines.length} lines.`);
      }
    }
    return {
      content: lines.slice(start - 1, end).join('\n'),
      score: 1,
      path: this.scanner.shownPath(f.folder, f.relPath),
      startLine: start,
      endLine: Math.max(start, end),
      metadata: { language: languageOf(f.relPath), absolutePath: f.absPath, ...(ignored ? { ignored: true, ignoredReason: ignored } : {}) },
    };
  }
}

/** Why a prompt may not read `p`, and how the person can still use it. */
function refusal(p: string, reason: SkipReason): string {
  const why: Record<SkipReason, string> = {
    'tool-folder': 'is inside node_modules (or another tool folder)',
    secret: 'looks like a secret',
    excluded: 'is excluded by the retrieval or files.exclude settings',
    'not-included': 'is outside the retrieval include globs',
    gitignored: 'is ignored by .gitignore',
  };
  return `"${p}" ${why[reason]}, so a prompt cannot read it; attach it by hand in the chat to use it anyway.`;
}
