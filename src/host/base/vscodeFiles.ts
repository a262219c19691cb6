import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import type { Disposable, FileStat, FileType, WorkspaceFiles } from '../../core/index';

function kind(type: vscode.FileType): FileType {
  if (type & vscode.FileType.SymbolicLink) return 'symlink';
  if (type & vscode.FileType.File) return 'file';
  if (type & vscode.FileType.Directory) return 'directory';
  return 'other';
}

function isNotFound(err: unknown): boolean {
  return err instanceof vscode.FileSystemError && (err.code === 'FileNotFound' || err.code === 'EntryNotFound');
}

/**
 * The engine's `WorkspaceFiles` on `vscode.workspace.fs`, so the prompt library and the index read
 * what VS Code sees (including unsaved-to-disk providers it knows), and watch through VS Code's
 * file watcher instead of opening their own.
 */
export class VscodeWorkspaceFiles implements WorkspaceFiles {
  async readFile(path: string): Promise<Uint8Array> {
    return vscode.workspace.fs.readFile(vscode.Uri.file(path));
  }

  async readDirectory(path: string): Promise<Array<[string, FileType]>> {
    const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.file(path));
    return entries.map(([name, type]) => [name, kind(type)]);
  }

  async stat(path: string): Promise<FileStat | undefined> {
    try {
      const s = await vscode.workspace.fs.stat(vscode.Uri.file(path));
      return { type: kind(s.type), size: s.size, mtimeMs: s.mtime };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async realPath(path: string): Promise<string> {
    return fs.realpath(path);
  }

  watch(dir: string, listener: (path: string) => void): Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*'));
    const fire = (uri: vscode.Uri) => listener(uri.fsPath);
    const subs = [watcher.onDidChange(fire), watcher.onDidCreate(fire), watcher.onDidDelete(fire)];
    return {
      dispose: () => {
        for (const s of subs) s.dispose();
        watcher.dispose();
      },
    };
  }
}
