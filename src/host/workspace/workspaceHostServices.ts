import type * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../core/index';
import type { OutputChannelLogger } from '../base/logger';
import type { VscodeWorkspaceFiles } from '../base/vscodeFiles';

/**
 * What keeping the workspace index fresh reads from the extension's shared services (`Services` in
 * src/host implements it): the folders and their files, trust, and the index with its settings' event.
 */
export interface WorkspaceHostServices {
  readonly logger: OutputChannelLogger;
  readonly files: VscodeWorkspaceFiles;
  /** Whether the workspace is trusted; when not, prompts and indexing are off (restricted mode). */
  readonly trusted: boolean;
  /** Fires when the workspace becomes trusted (prompts and indexing turn on). */
  readonly onDidChangeTrust: vscode.Event<boolean>;
  /** Fires when the retrieval settings changed and the index was dropped, to be rebuilt. */
  readonly onDidChangeIndexSettings: vscode.Event<void>;
  /** Absolute paths of the workspace folders on disk. */
  folderPaths(): string[];
  /** The workspace index (opened, not yet updated); `undefined` when untrusted or no folder is open. */
  workspaceIndex(): Promise<WorkspaceIndex | undefined>;
}
