/**
 * The `FileWriter` of the extension: every change goes through one `vscode.WorkspaceEdit`, so the
 * editor's Undo takes it back, and a file open in an editor is edited as the editor has it (unsaved
 * changes included). A file that had no unsaved changes is saved after the edit; one that had is left
 * unsaved, since saving would also write the user's own unsaved work.
 */
import * as vscode from 'vscode';
import { minimalReplacement, toLf, withEol } from '../../core/index';
import { decodeText, StaleFileError, type FileWrite, type FileWriter, type WriteOutcome } from './fileChanges';

const encoder = new TextEncoder();

function openDocument(abs: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && d.uri.fsPath === abs);
}

/** `text` without a leading byte-order mark (a document's text never has one). */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

async function create(change: FileWrite): Promise<WriteOutcome> {
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(vscode.Uri.file(change.abs), { contents: encoder.encode(change.after), overwrite: false, ignoreIfExists: false });
  if (!(await vscode.workspace.applyEdit(edit))) throw new StaleFileError(change.shown, true);
  return { saved: true };
}

async function replace(change: FileWrite & { before: string }): Promise<WriteOutcome> {
  const uri = vscode.Uri.file(change.abs);
  const doc = openDocument(change.abs) ?? (await vscode.workspace.openTextDocument(uri));
  const text = doc.getText();
  if (toLf(text) !== toLf(withoutBom(change.before))) throw new StaleFileError(change.shown, false);
  const wasDirty = doc.isDirty;
  const target = withEol(withoutBom(change.after), doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n');
  const r = minimalReplacement(text, target);
  if (r) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text);
    if (!(await vscode.workspace.applyEdit(edit))) throw new StaleFileError(change.shown, false);
  }
  if (wasDirty) return { saved: false };
  return { saved: await doc.save() };
}

/** See the file's header. */
export const vscodeFileWriter: FileWriter = {
  async readText(abs) {
    const doc = openDocument(abs);
    if (doc) return doc.getText();
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(abs));
    } catch (err) {
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
      throw err;
    }
    // As a document would read it: the byte-order mark is not part of the text.
    return withoutBom(decodeText(abs, bytes));
  },
  write(change) {
    return change.before === undefined ? create(change) : replace({ ...change, before: change.before });
  },
};
