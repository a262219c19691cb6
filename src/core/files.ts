/**
 * The engine reaches files only through these interfaces: the extension implements them on
 * `vscode.workspace.fs`, tests and the command line on Node's `fs` (`nodeFiles`).
 */

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileStat {
  type: FileType;
  size: number;
  mtimeMs: number;
}

export interface Disposable {
  dispose(): void;
}

/** Read-only access to a tree of files by absolute path. */
export interface WorkspaceFiles {
  readFile(path: string): Promise<Uint8Array>;
  /** Entries of a folder, names only. Rejects when the folder does not exist. */
  readDirectory(path: string): Promise<Array<[name: string, type: FileType]>>;
  /** `undefined` when nothing is there. */
  stat(path: string): Promise<FileStat | undefined>;
  /**
   * The path with every symbolic link resolved, so callers can refuse links that lead outside the
   * workspace. Optional: without it, symbolic links are not followed at all.
   */
  realPath?(path: string): Promise<string>;
  /** Calls `listener` with the absolute path of anything that changes below `dir`. */
  watch?(dir: string, listener: (path: string) => void): Disposable;
}

/** Where the engine writes what it wants a person or a log to see. Never given secrets. */
export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}
