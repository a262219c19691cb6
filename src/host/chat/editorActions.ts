import * as vscode from 'vscode';
import { FileRules } from '../../core/index';
import type { Attachment } from '../../shared/protocol';
import type { ChatServices } from './chatServices';
import { toWorkspaceRelative } from '../base/workspacePaths';

/** The selection of an editor as an attachment with its text, file and 1-based line range. */
export function selectionAttachment(services: ChatServices, editor: vscode.TextEditor | undefined = services.lastTextEditor): Attachment | undefined {
  if (!editor || editor.selection.isEmpty) return undefined;
  const sel = editor.selection;
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  const doc = editor.document;
  return {
    kind: 'selection',
    path: toWorkspaceRelative(services.folderPaths(), doc.uri.fsPath) ?? vscode.workspace.asRelativePath(doc.uri, false),
    startLine: sel.start.line + 1,
    endLine,
    language: doc.languageId,
    text: doc.getText(sel),
  };
}

/**
 * An editor's whole file as an attachment, read from disk when the message is sent; a file with
 * unsaved changes, or one outside the workspace, carries the editor's text instead.
 */
export function fileAttachment(services: ChatServices, editor: vscode.TextEditor): Attachment {
  const doc = editor.document;
  const rel = doc.uri.scheme === 'file' ? toWorkspaceRelative(services.folderPaths(), doc.uri.fsPath) : undefined;
  if (!rel || doc.isDirty) {
    return { kind: 'selection', path: rel ?? vscode.workspace.asRelativePath(doc.uri, false), startLine: 1, endLine: doc.lineCount, language: doc.languageId, text: doc.getText() };
  }
  return { kind: 'file', path: rel, language: doc.languageId };
}

/** The editor values every prompt template can use: `selection`, `file`, `language`, `workspaceFolder`. */
export function editorValues(services: ChatServices): Record<string, string> {
  const editor = services.lastTextEditor;
  const folder = vscode.workspace.workspaceFolders?.[0];
  const values: Record<string, string> = { selection: '', file: '', language: '', workspaceFolder: folder?.uri.fsPath ?? '' };
  if (editor) {
    const doc = editor.document;
    values.selection = editor.selection.isEmpty ? '' : doc.getText(editor.selection);
    values.file = toWorkspaceRelative(services.folderPaths(), doc.uri.fsPath) ?? vscode.workspace.asRelativePath(doc.uri, false);
    values.language = doc.languageId;
    const own = vscode.workspace.getWorkspaceFolder(doc.uri);
    if (own) values.workspaceFolder = own.uri.fsPath;
  }
  return values;
}

/** Inserts `text` at the cursor (replacing the selection) of the editor the user worked in last. */
export async function insertIntoEditor(services: ChatServices, text: string): Promise<boolean> {
  const last = services.lastTextEditor;
  if (!last) {
    void vscode.window.showInformationMessage('Open a file in an editor first: Arbor inserts at its cursor.');
    return false;
  }
  // An editor hidden behind the chat can no longer be edited: use its document where it shows, else show it again.
  const visible = vscode.window.visibleTextEditors;
  const editor = visible.includes(last)
    ? last
    : (visible.find((e) => e.document === last.document) ??
      (await vscode.window.showTextDocument(last.document, { viewColumn: last.viewColumn ?? vscode.ViewColumn.One, selection: last.selection })));
  const ok = await editor.edit((b) => {
    for (const sel of editor.selections) b.replace(sel, text);
  });
  if (ok) await vscode.window.showTextDocument(editor.document, editor.viewColumn);
  return ok;
}

/** Opens a workspace file at a 1-based line range; refuses paths outside the workspace. */
export async function openWorkspaceFile(services: ChatServices, relPath: string, startLine?: number, endLine?: number): Promise<void> {
  const abs = await services.workspaceFiles.resolve(relPath);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
  const options: vscode.TextDocumentShowOptions = { viewColumn: vscode.ViewColumn.One, preview: true };
  if (startLine !== undefined) {
    const last = Math.max(0, doc.lineCount - 1);
    const start = Math.min(last, Math.max(0, startLine - 1));
    const end = Math.min(last, Math.max(start, (endLine ?? startLine) - 1));
    options.selection = new vscode.Range(start, 0, end, doc.lineAt(end).text.length);
  }
  await vscode.window.showTextDocument(doc, options);
}

/** The engine's rules for secret files (`.env`, keys, credentials). */
const SECRET_RULES = new FileRules();

/** Workspace files whose path contains `query` (for `#file`), as workspace-relative paths; never secret files. */
export async function findWorkspaceFiles(services: ChatServices, query: string, limit = 50): Promise<string[]> {
  const cleaned = query.replace(/[{}[\]*?!\\]/g, '').trim();
  const pattern = cleaned ? `**/*${cleaned}*` : '**/*';
  const exclude = '{**/node_modules/**,**/.git/**,**/dist/**,**/out/**}';
  let uris = await vscode.workspace.findFiles(pattern, exclude, limit * 2);
  if (uris.length === 0 && cleaned.includes('/')) uris = await vscode.workspace.findFiles(`**/${cleaned}*`, exclude, limit * 2);
  const folders = services.folderPaths();
  return uris
    .map((u) => toWorkspaceRelative(folders, u.fsPath))
    // Secret files are never read for a model, so the picker does not offer them.
    .filter((p): p is string => !!p && !SECRET_RULES.isSecret(p))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .slice(0, limit);
}
