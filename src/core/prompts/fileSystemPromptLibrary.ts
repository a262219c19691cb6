import * as nodePath from 'node:path';
import { Emitter, type ArborEvent } from '../emitter';
import { PromptError } from '../errors';
import type { Disposable, FileStat, WorkspaceFiles } from '../files';
import type { PromptFolderPart } from '../libraryFiles/folderPart';
import { nodeFiles } from '../nodeFiles';
import type { PromptInfo, PromptKind, PromptTemplate } from './libraryTypes';
import type { PromptDiagnostic } from '../libraryFiles/fileTypes';
import { PartialResolver, type ResolvedTemplate } from './partialResolver';
import { parsePromptFile, PROMPT_EXTENSIONS, type ParsedPromptFile } from './promptFile';
import { resolvePromptOutput, SCHEMA_FILE_SUFFIX } from './promptOutputs';
import { listPromptFiles, promptReadPath, promptRealRoot } from '../libraryFiles/promptPaths';
import { limitError, resolvePromptLimits } from '../templates/promptLimits';
import { type PromptLimits } from '../limits';
import type { RagConfig } from '../promptContracts';

/** Options of `FileSystemPromptLibrary.open`. */
export interface PromptLibraryOptions {
  /** File access; Node's `fs` by default, `vscode.workspace.fs` in the extension. */
  files?: WorkspaceFiles;
  /** Reload changed files and fire `onDidChange` (needs `files.watch`). */
  watch?: boolean;
  /** Quiet time after the last change before reloading, in ms (default 50). */
  debounceMs?: number;
  /** Safety limits on templates (see `PromptLimits`); unset ones keep `DEFAULT_PROMPT_LIMITS`. */
  limits?: Partial<PromptLimits>;
}

/** What changed on a reload: prompt paths (relative to the prompts folder) added, edited or removed. */
export interface PromptLibraryChange {
  paths: string[];
}

const FOLDERS: Array<[string, PromptKind]> = [
  ['system', 'system'],
  ['user', 'user'],
  ['messages', 'messages'],
  ['rag', 'rag'],
  ['partials', 'partial'],
];

interface CachedFile {
  mtimeMs: number;
  size: number;
  parsed: ParsedPromptFile;
}

/**
 * The prompt templates of a `prompts/` folder (system, user, messages, rag and partials sub-folders), in
 * Markdown-with-front-matter or dataknobs YAML/JSON form. A broken file is reported in `diagnostics()` and
 * the rest keeps working; with `watch` the library reloads what changed and fires `onDidChange`.
 */
export class FileSystemPromptLibrary implements Disposable {
  private prompts = new Map<string, PromptTemplate>();
  /** The files the parts read on the last load, with their sha256 (for change detection). */
  private partFiles: Array<{ path: string; sha256: string }> = [];
  private fileProblems: PromptDiagnostic[] = [];
  private templateProblems: PromptDiagnostic[] = [];
  private readonly cache = new Map<string, CachedFile>();
  private readonly changes = new Emitter<PromptLibraryChange>();
  /** Fires after a reload that changed, added or removed prompt files (with `watch: true`, or `reload()`). */
  readonly onDidChange: ArborEvent<PromptLibraryChange> = this.changes.event;
  /** Files refused at load with a typed error (a limit), by `kind/name`, for the builder to throw. */
  private refused = new Map<string, PromptError>();
  private readonly resolver: PartialResolver;
  private watcher?: Disposable;
  private timer?: ReturnType<typeof setTimeout>;
  private reloading: Promise<void> = Promise.resolve();
  private disposed = false;

  protected constructor(
    readonly promptDir: string,
    private readonly files: WorkspaceFiles,
    private readonly debounceMs: number,
    /** The limits in force: the options' over the defaults. */
    readonly limits: PromptLimits,
    /** Other kinds of file of the folder, loaded after the prompts (a subclass's: flows, `promptFolder/`). */
    private readonly parts: readonly PromptFolderPart[] = [],
  ) {
    this.resolver = new PartialResolver((kind, name) => this.prompts.get(`${kind}/${name}`), limits);
  }

  /** Loads every prompt below `promptDir`; a missing folder gives an empty library. */
  static async open(promptDir: string, options: PromptLibraryOptions = {}): Promise<FileSystemPromptLibrary> {
    return FileSystemPromptLibrary.openWith((files, debounceMs, limits) => new FileSystemPromptLibrary(promptDir, files, debounceMs, limits), promptDir, options);
  }

  /**
   * `open` for a subclass: `make` builds the library from the options' file access, debounce and limits
   * (their defaults filled in); it is loaded, then watched with `watch`.
   */
  protected static async openWith<T extends FileSystemPromptLibrary>(
    make: (files: WorkspaceFiles, debounceMs: number, limits: PromptLimits) => T,
    promptDir: string,
    options: PromptLibraryOptions,
  ): Promise<T> {
    const lib = make(options.files ?? nodeFiles, options.debounceMs ?? 50, resolvePromptLimits(options.limits));
    await lib.reload();
    if (options.watch && lib.files.watch && (await lib.files.stat(promptDir))?.type === 'directory') {
      lib.watcher = lib.files.watch(promptDir, () => lib.scheduleReload());
    }
    return lib;
  }

  getSystemPrompt(name: string): PromptTemplate | undefined {
    return this.prompts.get(`system/${name}`);
  }

  getUserPrompt(name: string): PromptTemplate | undefined {
    return this.prompts.get(`user/${name}`);
  }

  getMessagePrompt(name: string): PromptTemplate | undefined {
    return this.prompts.get(`messages/${name}`);
  }

  getPartial(name: string): PromptTemplate | undefined {
    return this.prompts.get(`partial/${name}`);
  }

  /** Why a file of that kind and name was refused at load (a limit it passed), when it was. */
  loadError(kind: PromptKind, name: string): PromptError | undefined {
    return this.refused.get(`${kind}/${name}`);
  }

  /** The retrieval config of `prompts/rag/<name>.*` (the first, when the file lists several). */
  getRagConfig(name: string): RagConfig | undefined {
    return this.prompts.get(`rag/${name}`)?.ragConfigs?.[0];
  }

  /** Every loaded prompt, sorted by kind then name. */
  listPrompts(): PromptInfo[] {
    return [...this.prompts.values()]
      .map((p) => ({ name: p.name, kind: p.kind, path: p.path, description: p.description, params: p.params }))
      .sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind.localeCompare(b.kind)));
  }

  /** Every problem found in the folder: unreadable files, syntax errors, bad includes, unknown rag names. */
  diagnostics(): PromptDiagnostic[] {
    return [...this.fileProblems, ...this.templateProblems].sort((a, b) =>
      a.file === b.file ? a.line - b.line || a.column - b.column : a.file.localeCompare(b.file),
    );
  }

  /**
   * A prompt's template (or one of its messages) with its includes resolved. Throws a `PromptError` with
   * file, line and column for a syntax error, an escaping or missing partial, or an include cycle.
   */
  resolveTemplate(prompt: PromptTemplate, text?: string, offset?: PromptTemplate['templateOffset']): ResolvedTemplate {
    return this.resolver.resolve(prompt, text, offset);
  }

  /** The retrieval configs of a prompt with `prompts/rag/` names expanded; unknown names are listed apart. */
  ragConfigsOf(prompt: PromptTemplate): { configs: RagConfig[]; unknown: string[] } {
    const configs: RagConfig[] = [];
    const unknown: string[] = [];
    for (const entry of prompt.rag) {
      if ('ref' in entry) {
        const found = this.prompts.get(`rag/${entry.ref}`)?.ragConfigs;
        if (found?.length) configs.push(...found);
        else unknown.push(entry.ref);
      } else configs.push(entry);
    }
    return { configs, unknown };
  }

  /** Re-reads the folder now (files whose size and time are unchanged are not re-parsed). */
  async reload(): Promise<PromptLibraryChange> {
    let change: PromptLibraryChange = { paths: [] };
    this.reloading = this.reloading.then(async () => {
      change = await this.load();
    });
    await this.reloading;
    if (change.paths.length) this.changes.fire(change);
    return change;
  }

  dispose(): void {
    this.disposed = true;
    this.watcher?.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.changes.dispose();
  }

  private scheduleReload(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.disposed) this.reload().catch(() => undefined);
    }, this.debounceMs);
  }

  private async load(): Promise<PromptLibraryChange> {
    const before = new Map([...[...this.prompts.values()].map((p) => [p.path, versionOf(p)] as const), ...this.partFiles.map((f) => [f.path, f.sha256] as const)]);
    const prompts = new Map<string, PromptTemplate>();
    const problems: PromptDiagnostic[] = [];
    const refused = new Map<string, PromptError>();
    const seen = new Set<string>();
    const realRoot = await promptRealRoot(this.files, this.promptDir);
    for (const [folder, kind] of FOLDERS) {
      const files = await listPromptFiles(this.files, nodePath.join(this.promptDir, folder), folder);
      files.sort((a, b) => extRank(a) - extRank(b) || a.localeCompare(b));
      for (const rel of files) {
        // A prompt's `output:` schema file lives beside it; it is read with the prompt, not as one.
        if (rel.toLowerCase().endsWith(SCHEMA_FILE_SUFFIX)) continue;
        const ext = PROMPT_EXTENSIONS.find((e) => rel.toLowerCase().endsWith(e));
        if (!ext) {
          problems.push({ file: rel, line: 1, column: 1, severity: 'warning', message: `ignored: prompt files end in ${PROMPT_EXTENSIONS.join(', ')}` });
          continue;
        }
        const abs = nodePath.join(this.promptDir, ...rel.split('/'));
        seen.add(abs);
        const where = await promptReadPath(this.files, this.promptDir, realRoot, abs);
        if ('skip' in where) continue;
        if ('refused' in where) {
          problems.push({ file: rel, line: 1, column: 1, severity: 'error', message: where.refused });
          continue;
        }
        const parsed = await this.readParsed(abs, where.path, rel, kind, promptName(rel, folder), where.stat);
        problems.push(...parsed.diagnostics);
        if (parsed.error && !refused.has(`${kind}/${promptName(rel, folder)}`)) refused.set(`${kind}/${promptName(rel, folder)}`, parsed.error);
        if (!parsed.prompt) continue;
        const key = `${kind}/${parsed.prompt.name}`;
        const existing = prompts.get(key);
        if (existing) {
          problems.push({ file: rel, line: 1, column: 1, severity: 'warning', message: `ignored: ${existing.path} has the same prompt name "${parsed.prompt.name}"` });
          continue;
        }
        prompts.set(key, parsed.prompt);
      }
    }
    for (const [key, prompt] of prompts) {
      const resolved = await resolvePromptOutput(this.files, this.promptDir, realRoot, prompt);
      if (!resolved) continue;
      if ('problem' in resolved) problems.push(resolved.problem);
      // A copy: the parsed prompt is cached by file, and its schema file may change on its own.
      else prompts.set(key, { ...prompt, output: resolved.output });
    }
    for (const key of this.cache.keys()) if (!seen.has(key)) this.cache.delete(key);
    this.prompts = prompts;
    this.refused = refused;
    this.fileProblems = problems;
    this.resolver.prune(new Set([...prompts.values()].map((p) => `${p.path}\0${p.sha256}`)));
    this.templateProblems = this.checkTemplates();
    // Parts (flows) name prompts, so they load after them; their problems show with the prompts'.
    const partFiles: Array<{ path: string; sha256: string }> = [];
    for (const part of this.parts) {
      const loaded = await part.load(this.promptDir, this.files, this);
      partFiles.push(...loaded.read);
      this.fileProblems.push(...loaded.problems);
    }
    this.partFiles = partFiles;

    const after = new Map([...[...prompts.values()].map((p) => [p.path, versionOf(p)] as const), ...partFiles.map((f) => [f.path, f.sha256] as const)]);
    const paths = new Set<string>();
    for (const [path, sha] of after) if (before.get(path) !== sha) paths.add(path);
    for (const path of before.keys()) if (!after.has(path)) paths.add(path);
    return { paths: [...paths].sort() };
  }

  /** Parses the file listed as `abs`, read from `readPath` (its checked real path), unless unchanged since last time. */
  private async readParsed(abs: string, readPath: string, rel: string, kind: PromptKind, name: string, known?: FileStat): Promise<ParsedPromptFile> {
    const stat = known ?? (await this.files.stat(readPath));
    const cached = this.cache.get(abs);
    if (stat && cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.parsed;
    let parsed: ParsedPromptFile;
    if (stat && stat.size > this.limits.maxTemplateBytes) {
      // Not even read: a huge file would cost memory and parsing time before any template check ran.
      const error = limitError('maxTemplateBytes', this.limits.maxTemplateBytes, `the file is ${stat.size} bytes`, rel, 1, 1);
      return { diagnostics: [{ file: rel, line: 1, column: 1, severity: 'error', message: stripPosition(error.message) }], error };
    }
    try {
      const bytes = await this.files.readFile(readPath);
      parsed = parsePromptFile({ name, kind, path: rel, absolutePath: abs, bytes });
    } catch (err) {
      parsed = { diagnostics: [{ file: rel, line: 1, column: 1, severity: 'error', message: `could not read the file: ${(err as Error).message}` }] };
    }
    if (stat) this.cache.set(abs, { mtimeMs: stat.mtimeMs, size: stat.size, parsed });
    return parsed;
  }

  /** Checks every template (syntax, includes) and every rag name, so problems show before a render. */
  private checkTemplates(): PromptDiagnostic[] {
    const out: PromptDiagnostic[] = [];
    const report = (prompt: PromptTemplate, err: unknown) => {
      if (err instanceof PromptError) {
        out.push({ file: err.file ?? prompt.path, line: err.line ?? 1, column: err.column ?? 1, severity: 'error', message: stripPosition(err.message) });
      } else throw err;
    };
    for (const prompt of this.prompts.values()) {
      if (prompt.kind === 'rag') continue;
      const texts = prompt.kind === 'messages' ? (prompt.messages ?? []) : [{ content: prompt.template, offset: prompt.templateOffset }];
      for (const t of texts) {
        try {
          for (const h of this.resolver.prepare(prompt, t.content, t.offset).analysis.unknownHelpers) {
            out.push({ file: prompt.path, line: h.line, column: h.column, severity: 'error', message: `unknown helper "${h.name}": use if, unless, each, with or lookup` });
          }
          this.resolver.resolve(prompt, t.content, t.offset);
        } catch (err) {
          report(prompt, err);
        }
      }
      const rag = this.ragConfigsOf(prompt);
      for (const ref of rag.unknown) {
        out.push({ file: prompt.path, line: 1, column: 1, severity: 'error', message: `rag config "${ref}" was not found: add prompts/rag/${ref}.yaml or fix the name` });
      }
      for (const config of rag.configs) {
        try {
          this.resolver.prepare({ ...prompt, conditionalSections: false }, config.query, { line: 1, column: 0 });
        } catch (err) {
          report(prompt, new PromptError(`rag query "${config.query}" is not a valid template: ${stripPosition((err as Error).message)}`, prompt.path, 1, 1));
        }
      }
    }
    // The same syntax error is found once per prompt that includes the broken file: keep one of each.
    const unique = new Map(out.map((d) => [`${d.file}:${d.line}:${d.column}:${d.message}`, d]));
    return [...unique.values()];
  }
}

/** `user/review/deep.prompt.md` in folder `user` is named `review/deep`: the path without folder and extensions. */
function promptName(rel: string, folder: string): string {
  const inside = rel.slice(folder.length + 1);
  const slash = inside.lastIndexOf('/');
  const base = inside.slice(slash + 1);
  const dot = base.indexOf('.');
  return inside.slice(0, slash + 1) + (dot > 0 ? base.slice(0, dot) : base);
}

/** What tells a reload that a prompt changed: its file, and the schema its `output:` file holds. */
function versionOf(p: PromptTemplate): string {
  return `${p.sha256}:${p.output?.schemaHash ?? ''}`;
}

function extRank(rel: string): number {
  const i = PROMPT_EXTENSIONS.findIndex((e) => rel.toLowerCase().endsWith(e));
  return i < 0 ? PROMPT_EXTENSIONS.length : i;
}

/** Diagnostics carry the position apart; drop the `file:line:col: ` prefix of the error message. */
function stripPosition(message: string): string {
  return message.replace(/^[^\s:]+:\d+:\d+: /, '');
}
