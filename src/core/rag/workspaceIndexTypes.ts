/** Options and results of the workspace index, apart so hosts can name them without the implementation. */
import type { Logger, WorkspaceFiles } from '../files';
import type { ChunkOptions } from './chunker';
import type { ExcludeSetting } from './fileRules';

/** How to open a `WorkspaceIndex`. */
export interface WorkspaceIndexOptions {
  /** Absolute paths of the workspace folders. */
  folders: readonly string[];
  /** The index file (next to the conversation store). */
  storagePath: string;
  /** Host excludes: globs, or a `files.exclude` map. */
  exclude?: ExcludeSetting;
  /** When given, only files matching one of these globs are indexed. */
  include?: readonly string[];
  /** Larger files are skipped (default 1,000,000 bytes). */
  maxFileBytes?: number;
  files?: WorkspaceFiles;
  logger?: Logger;
  /** Secret file globs never indexed; default `DEFAULT_SECRET_PATTERNS`. */
  secretPatterns?: readonly string[];
  /** Honour `.gitignore` files (default true). */
  gitignore?: boolean;
  chunking?: ChunkOptions;
  /** Weight of a query term found in a file's path (default 1.5). */
  pathBoost?: number;
  /** Delay before a change from `updateFile`/`removeFile` is saved (default 30 s; a missed save only means those files are re-read on the next open). */
  saveDelayMs?: number;
}

/** Progress of `update()`: files checked so far out of those found. */
export interface IndexProgress {
  done: number;
  total: number;
  path?: string;
}

/** What one `update()` (or `updateFile`) did, in files. */
export interface IndexUpdateResult {
  added: number;
  changed: number;
  removed: number;
  unchanged: number;
  /** Too large or binary. */
  skipped: number;
}

/** Size of the index. */
export interface IndexStats {
  files: number;
  binaryFiles: number;
  chunks: number;
  terms: number;
  postings: number;
  storagePath: string;
}
