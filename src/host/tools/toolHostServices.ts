import type * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../core/index';
import type { OutputChannelLogger } from '../base/logger';
import type { VscodeWorkspaceFiles } from '../base/vscodeFiles';
import type { ArborSettings } from '../settings/settings';

/**
 * What the built-in tools read from the extension's shared services (`Services` in src/host implements
 * it): the settings, the workspace's files and folders, the editor the user worked in, and the index.
 */
export interface ToolHostServices {
  readonly logger: OutputChannelLogger;
  readonly files: VscodeWorkspaceFiles;
  /** The validated settings. */
  readonly settings: ArborSettings;
  /** The text editor the user worked in last (the chat panel takes focus from it). */
  readonly lastTextEditor: vscode.TextEditor | undefined;
  /** Absolute paths of the workspace folders on disk. */
  folderPaths(): string[];
  /** The workspace index (opened, not yet updated); `undefined` when untrusted or no folder is open. */
  workspaceIndex(): Promise<WorkspaceIndex | undefined>;
}
