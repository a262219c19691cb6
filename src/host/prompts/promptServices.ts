import type * as vscode from 'vscode';
import type { PromptFolderLibrary } from '../../core/index';
import type { VscodeWorkspaceFiles } from '../base/vscodeFiles';
import type { ArborSettings } from '../settings/settings';
import type { WorkspaceFileReader } from '../workspace/workspaceFileReader';
import type { ForeignPromptStore } from './foreignPrompts';

/**
 * What the host's prompt features read from the extension's shared services (`Services` in src/host
 * implements it): the prompt library and its folder, other tools' prompt files, and the workspace's files.
 */
export interface PromptServices {
  readonly files: VscodeWorkspaceFiles;
  readonly workspaceFiles: WorkspaceFileReader;
  /** Copilot's, Continue's and Claude Code's prompt files of the workspace, for the `/` menu. */
  readonly foreignPrompts: ForeignPromptStore;
  /** The validated settings. */
  readonly settings: ArborSettings;
  /** Whether the workspace is trusted; when not, prompts and indexing are off (restricted mode). */
  readonly trusted: boolean;
  /** The text editor the user worked in last (the chat panel takes focus from it). */
  readonly lastTextEditor: vscode.TextEditor | undefined;
  /** Fires when the prompt library was (re)opened, e.g. after the folder setting changed or trust was granted. */
  readonly onDidLoadLibrary: vscode.Event<PromptFolderLibrary | undefined>;
  /** Absolute paths of the workspace folders on disk. */
  folderPaths(): string[];
  /** The absolute prompts folder (in the first workspace folder), or `undefined` with no folder open. */
  promptsFolderPath(): string | undefined;
  /** The prompt library of the workspace's prompts folder; `undefined` when untrusted or no folder is open. */
  promptLibrary(): Promise<PromptFolderLibrary | undefined>;
}
