/**
 * The other tools' prompt files of the workspace (Copilot, Continue, Claude Code) as the window uses
 * them: read from the first workspace folder when the workspace is trusted, reread when one of their
 * folders changes, offered by the `/` menu with their tool's name, and asked for their version.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FOREIGN_FOLDERS, loadForeignPrompts, type ForeignEditorContext, type ForeignPromptSet, type WorkspaceFiles } from '../../core/index';
import { Disposable } from '../base/lifecycle';
import type { ForeignSendContext } from './foreignPromptSend';
import type { WorkspaceFileReader } from '../workspace/workspaceFileReader';

/** What the store needs of the window. */
export interface ForeignPromptDeps {
  files: WorkspaceFiles;
  folders(): string[];
  trusted(): boolean;
  warn(message: string, err?: unknown): void;
}

const EMPTY: ForeignPromptSet = { prompts: [], diagnostics: [] };

/** See the file's header. */
export class ForeignPromptStore extends Disposable {
  private cache?: { key: string; set: Promise<ForeignPromptSet> };
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  /** Fires when a file in one of the folders was created, changed or deleted. */
  readonly onDidChange = this._onDidChange.event;

  constructor(private readonly deps: ForeignPromptDeps) {
    super();
    const glob = `{${FOREIGN_FOLDERS.map((f) => f.folder).join(',')}}/**`;
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(glob));
    const changed = () => {
      this.cache = undefined;
      this._onDidChange.fire();
    };
    this._register(watcher.onDidCreate(changed));
    this._register(watcher.onDidChange(changed));
    this._register(watcher.onDidDelete(changed));
  }

  /**
   * The prompts and their problems; `reserved` are the names of the workspace's own `/` prompts, which a
   * foreign prompt of the same name yields to (it is offered as `copilot:name`). None when untrusted.
   */
  async list(reserved: ReadonlySet<string> = new Set()): Promise<ForeignPromptSet> {
    const root = this.deps.folders()[0];
    if (!root || !this.deps.trusted()) return EMPTY;
    const key = `${root}\n${[...reserved].sort().join('\n')}`;
    if (this.cache?.key !== key) {
      const set = loadForeignPrompts(root, { files: this.deps.files, reservedNames: reserved }).catch((err: unknown) => {
        this.deps.warn("Could not read the other tools' prompt files", err);
        return EMPTY;
      });
      this.cache = { key, set };
    }
    return this.cache.set;
  }
}

/** The active editor as foreign prompts see it: selection, file, its text and the workspace folder. */
export function foreignEditorContext(editor: vscode.TextEditor | undefined, folders: readonly string[]): ForeignEditorContext {
  const own = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
  const workspaceFolder = own?.uri.fsPath ?? folders[0];
  if (!editor) return workspaceFolder ? { workspaceFolder } : {};
  const doc = editor.document;
  return {
    selection: editor.selection.isEmpty ? '' : doc.getText(editor.selection),
    ...(doc.uri.scheme === 'file' ? { filePath: doc.uri.fsPath } : {}),
    fileText: doc.getText(),
    ...(workspaceFolder ? { workspaceFolder } : {}),
  };
}

/** The active editor's file as a workspace-relative attachment, when it is a workspace file. */
export function activeFileAttachment(editor: vscode.TextEditor | undefined, folders: readonly string[]): { kind: 'file'; path: string } | undefined {
  if (!editor || editor.document.uri.scheme !== 'file') return undefined;
  const abs = editor.document.uri.fsPath;
  for (const folder of folders) {
    const rel = path.relative(folder, abs);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return { kind: 'file', path: rel.split(path.sep).join('/') };
  }
  return undefined;
}

/** What sending a foreign prompt reads of the window's services (`PromptServices` has it all). */
export interface ForeignSendServices {
  readonly foreignPrompts: ForeignPromptStore;
  readonly workspaceFiles: WorkspaceFileReader;
  readonly lastTextEditor: vscode.TextEditor | undefined;
  folderPaths(): string[];
}

/** What sending a foreign prompt needs, on the window's services. */
export function foreignSendContext(services: ForeignSendServices): ForeignSendContext & { list(reserved: ReadonlySet<string>): Promise<ForeignPromptSet> } {
  return {
    list: (reserved) => services.foreignPrompts.list(reserved),
    editor: () => foreignEditorContext(services.lastTextEditor, services.folderPaths()),
    activeFile: () => activeFileAttachment(services.lastTextEditor, services.folderPaths()),
    resolveAttachments: (attachments) => services.workspaceFiles.resolveAttachments(attachments),
    readText: (relPath) => services.workspaceFiles.readText(relPath),
  };
}
