import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FilesAdapter, PromptFolderLibrary, PromptBuilder, WorkspaceIndex } from '../../core/index';
import type { Logger, RagAdapter, WorkspaceFiles } from '../../core/index';
import type { ArborSettings } from '../settings/settings';

/** What the workspace services read from the shared `Services`. */
export interface WorkspaceServicesDeps {
  files: WorkspaceFiles;
  logger: Logger;
  settings: () => ArborSettings;
  trusted: () => boolean;
  folders: () => string[];
  promptsFolder: () => string | undefined;
  storageDir: () => string;
}

/**
 * The parts of Arbor that read the workspace: the prompt library (watched), the prompt builder with
 * its `workspace` and `files` retrieval adapters, and the workspace index. Each opens on first use,
 * and none opens in an untrusted workspace or without a folder.
 */
export class WorkspaceServices implements vscode.Disposable {
  private readonly _onDidLoadLibrary = new vscode.EventEmitter<PromptFolderLibrary | undefined>();
  /** Fires when the prompt library was (re)opened. */
  readonly onDidLoadLibrary = this._onDidLoadLibrary.event;
  private libraryPromise?: Promise<PromptFolderLibrary | undefined>;
  private builderPromise?: Promise<PromptBuilder | undefined>;
  private indexPromise?: Promise<WorkspaceIndex | undefined>;
  private files?: FilesAdapter;

  constructor(private readonly deps: WorkspaceServicesDeps) {}

  /** The prompt library of the workspace's prompts folder; `undefined` when untrusted or no folder is open. */
  promptLibrary(): Promise<PromptFolderLibrary | undefined> {
    this.libraryPromise ??= (async () => {
      const dir = this.deps.promptsFolder();
      if (!dir || !this.deps.trusted()) return undefined;
      const library = await PromptFolderLibrary.open(dir, { files: this.deps.files, watch: true });
      this._onDidLoadLibrary.fire(library);
      return library;
    })();
    this.libraryPromise.catch((err) => {
      this.deps.logger.error('Could not open the prompt library', err);
      this.libraryPromise = undefined;
    });
    return this.libraryPromise;
  }

  /** Drops the library and builder (folder setting changed, trust granted) and opens them again. */
  reopenLibrary(): void {
    const old = this.libraryPromise;
    this.libraryPromise = undefined;
    this.builderPromise = undefined;
    void old?.then((lib) => lib?.dispose()).catch(() => undefined);
    void this.promptLibrary().catch(() => undefined);
  }

  /** Drops the index and the builder that uses it (retrieval settings changed); both reopen on next use. */
  reopenIndex(): void {
    const old = this.indexPromise;
    this.indexPromise = undefined;
    this.builderPromise = undefined;
    this.files = undefined;
    void old?.then((i) => i?.dispose()).catch(() => undefined);
  }

  /**
   * The `files` adapter of the current retrieval settings, shared by prompts and attachments so its
   * scanner's `.gitignore` cache serves both; rebuilt when the settings change (`reopenIndex`).
   */
  filesAdapter(): FilesAdapter {
    if (!this.files) {
      const s = this.deps.settings();
      this.files = new FilesAdapter({ folders: this.deps.folders(), files: this.deps.files, exclude: s.ragExclude, maxFileBytes: s.ragMaxFileBytes });
    }
    return this.files;
  }

  /** The prompt builder over the library, with the `workspace` (index) and `files` retrieval adapters. */
  promptBuilder(): Promise<PromptBuilder | undefined> {
    this.builderPromise ??= (async () => {
      const library = await this.promptLibrary();
      if (!library) return undefined;
      const adapters: Record<string, RagAdapter> = { files: this.filesAdapter() };
      const index = await this.workspaceIndex();
      if (index) adapters.workspace = index;
      return new PromptBuilder(library, { adapters });
    })();
    this.builderPromise.catch(() => (this.builderPromise = undefined));
    return this.builderPromise;
  }

  /** The workspace index (opened, not yet updated); `undefined` when untrusted or no folder is open. */
  workspaceIndex(): Promise<WorkspaceIndex | undefined> {
    this.indexPromise ??= (async () => {
      const folders = this.deps.folders();
      if (folders.length === 0 || !this.deps.trusted()) return undefined;
      const dir = this.deps.storageDir();
      await fs.mkdir(dir, { recursive: true });
      const s = this.deps.settings();
      return WorkspaceIndex.open({
        folders,
        storagePath: path.join(dir, 'index.bin'),
        exclude: s.ragExclude,
        include: s.ragInclude.length > 0 ? s.ragInclude : undefined,
        maxFileBytes: s.ragMaxFileBytes,
        files: this.deps.files,
        logger: this.deps.logger,
      });
    })();
    this.indexPromise.catch((err) => {
      this.deps.logger.error('Could not open the workspace index', err);
      this.indexPromise = undefined;
    });
    return this.indexPromise;
  }

  dispose(): void {
    this._onDidLoadLibrary.dispose();
    void this.libraryPromise?.then((l) => l?.dispose()).catch(() => undefined);
    void this.indexPromise?.then((i) => i?.dispose()).catch(() => undefined);
  }
}
