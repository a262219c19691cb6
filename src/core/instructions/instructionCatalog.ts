/**
 * Finds and caches a workspace's instruction files without scanning it: AGENTS.md and CLAUDE.md are
 * looked for only in the folders above the files in play (each folder asked once, then remembered),
 * and the three rule folders are listed once. The host reports file changes (`changed`), which drop
 * just what they touch, so a request costs a few map look-ups once the cache is warm.
 */
import * as nodePath from 'node:path';
import type { WorkspaceFiles } from '../files';
import { parseInstructionFile, type InstructionFile, type InstructionKind } from './instructionFile';
import { parentDir } from './applicability';

/** Where each kind lives, relative to the workspace root. */
const NAMED: ReadonlyArray<{ kind: InstructionKind; name: string }> = [
  { kind: 'agents', name: 'AGENTS.md' },
  { kind: 'claude', name: 'CLAUDE.md' },
];
const COPILOT_FILE = '.github/copilot-instructions.md';
/** The rule folders, listed with their sub-folders, and the file names they hold. */
export const RULE_FOLDERS: ReadonlyArray<{ kind: InstructionKind; folder: string; suffix: string }> = [
  { kind: 'copilotInstructions', folder: '.github/instructions', suffix: '.instructions.md' },
  { kind: 'cursor', folder: '.cursor/rules', suffix: '.mdc' },
  { kind: 'continue', folder: '.continue/rules', suffix: '.md' },
];

/** Files bigger than this are left out (with a problem reported): instructions are meant to be short. */
export const MAX_INSTRUCTION_BYTES = 64 * 1024;
/** How deep rule folders are listed. */
const MAX_RULE_DEPTH = 4;

/** A glob (relative to the workspace root) over every instruction file and rule folder, for a host's file watcher. */
export const INSTRUCTION_WATCH_GLOB = `{**/AGENTS.md,**/CLAUDE.md,${COPILOT_FILE},${RULE_FOLDERS.flatMap((r) => [r.folder, `${r.folder}/**`]).join(',')}}`;

/** What the catalog needs: the workspace files, the root folder they are relative to, and where problems go. */
export interface InstructionCatalogOptions {
  files: WorkspaceFiles;
  /** Absolute path of the workspace folder. */
  root: string;
  /** Told once per read of a file whose front matter is wrong or that is too big (the fix in the message). */
  onProblem?: (message: string) => void;
  maxBytes?: number;
}

/** The instruction files of one workspace folder, read lazily and cached until they change. */
export class InstructionCatalog {
  private readonly read = new Map<string, Promise<InstructionFile | undefined>>();
  private readonly listed = new Map<string, Promise<string[]>>();

  constructor(private readonly options: InstructionCatalogOptions) {}

  /**
   * The instruction files of `kinds` that could apply to a request with these files in play: the root's
   * and every AGENTS.md/CLAUDE.md in a folder above a file in play, Copilot's file, and every rule file.
   * Paths are workspace-relative with `/`; one that leaves the workspace (`..`, absolute) is ignored.
   */
  async collect(inPlayPaths: readonly string[], kinds: readonly InstructionKind[]): Promise<InstructionFile[]> {
    const want = new Set(kinds);
    const reads: Array<Promise<InstructionFile | undefined>> = [];
    const dirs = new Set<string>(['']);
    for (const p of inPlayPaths) {
      if (!isRelativeInside(p)) continue;
      for (let d = parentDir(p); d !== ''; d = parentDir(d)) dirs.add(d);
    }
    for (const { kind, name } of NAMED) {
      if (!want.has(kind)) continue;
      for (const d of dirs) reads.push(this.file(kind, d ? `${d}/${name}` : name));
    }
    if (want.has('copilot')) reads.push(this.file('copilot', COPILOT_FILE));
    for (const { kind, folder } of RULE_FOLDERS) {
      if (!want.has(kind)) continue;
      for (const p of await this.list(folder)) reads.push(this.file(kind, p));
    }
    return (await Promise.all(reads)).filter((f): f is InstructionFile => f !== undefined);
  }

  /** A file changed, appeared or went away (workspace-relative, `/`): what was cached about it is read again next time. */
  changed(relPath: string): void {
    const p = relPath.replace(/\\/g, '/').replace(/^\.\//, '');
    this.read.delete(p);
    for (const { folder } of RULE_FOLDERS) {
      // A folder created, deleted or renamed: everything below it goes.
      if (p === folder || p.startsWith(`${folder}/`) || folder.startsWith(`${p}/`)) {
        this.listed.delete(folder);
        for (const key of [...this.read.keys()]) if (key.startsWith(`${p}/`)) this.read.delete(key);
      }
    }
  }

  /** Forgets everything (the workspace or the settings changed). */
  clear(): void {
    this.read.clear();
    this.listed.clear();
  }

  /** The file at `relPath` read as `kind` (from the cache when it has it); `undefined` when there is none. */
  get(kind: InstructionKind, relPath: string): Promise<InstructionFile | undefined> {
    return this.file(kind, relPath);
  }

  private file(kind: InstructionKind, relPath: string): Promise<InstructionFile | undefined> {
    let found = this.read.get(relPath);
    if (!found) {
      found = this.load(kind, relPath);
      this.read.set(relPath, found);
    }
    return found;
  }

  private async load(kind: InstructionKind, relPath: string): Promise<InstructionFile | undefined> {
    const { files, root } = this.options;
    const abs = nodePath.join(root, ...relPath.split('/'));
    try {
      const stat = await files.stat(abs);
      // Only plain files: a symbolic link could lead out of the workspace.
      if (!stat || stat.type !== 'file') return undefined;
      const max = this.options.maxBytes ?? MAX_INSTRUCTION_BYTES;
      if (stat.size > max) {
        this.options.onProblem?.(`${relPath} is ${Math.round(stat.size / 1024)} KiB, more than the ${Math.round(max / 1024)} KiB Arbor sends as instructions, so it is left out. Shorten it or split it into rules with globs.`);
        return undefined;
      }
      const parsed = parseInstructionFile(kind, relPath, await files.readFile(abs));
      if (parsed.problem) this.options.onProblem?.(parsed.problem);
      return parsed;
    } catch (err) {
      this.options.onProblem?.(`Could not read ${relPath}: ${err instanceof Error ? err.message : String(err)}`);
      // A failed read is tried again next time instead of being remembered.
      this.read.delete(relPath);
      return undefined;
    }
  }

  private list(folder: string): Promise<string[]> {
    let found = this.listed.get(folder);
    if (!found) {
      const rule = RULE_FOLDERS.find((r) => r.folder === folder);
      found = rule ? this.walk(folder, rule.suffix, 0) : Promise.resolve([]);
      this.listed.set(folder, found);
    }
    return found;
  }

  private async walk(relDir: string, suffix: string, depth: number): Promise<string[]> {
    let entries: Array<[string, string]>;
    try {
      entries = await this.options.files.readDirectory(nodePath.join(this.options.root, ...relDir.split('/')));
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const [name, type] of [...entries].sort((a, b) => a[0].localeCompare(b[0]))) {
      const rel = `${relDir}/${name}`;
      if (type === 'file' && name.endsWith(suffix)) out.push(rel);
      else if (type === 'directory' && depth < MAX_RULE_DEPTH) out.push(...(await this.walk(rel, suffix, depth + 1)));
    }
    return out;
  }
}

/** A workspace-relative path that stays inside the workspace. */
function isRelativeInside(p: string): boolean {
  return p !== '' && !p.startsWith('/') && !/^[a-zA-Z]:/.test(p) && !p.split('/').includes('..');
}
