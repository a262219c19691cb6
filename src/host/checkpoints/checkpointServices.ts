import type * as vscode from 'vscode';
import type { OutputChannelLogger } from '../base/logger';
import type { VscodeWorkspaceFiles } from '../base/vscodeFiles';
import type { ArborSettings } from '../settings/settings';

/**
 * What file checkpoints read from the extension's shared services (`Services` in src/host implements
 * it): the workspace's files and folders, the settings, and the diff documents Apply shows.
 */
export interface CheckpointServices {
  readonly logger: OutputChannelLogger;
  readonly files: VscodeWorkspaceFiles;
  /** The validated settings. */
  readonly settings: ArborSettings;
  /** Apply on code blocks (apply/): only its read-only documents, which restore and file diffs show. */
  readonly codeApply: {
    /** Serves `text` under `uri` (a proposed side of a diff elsewhere, e.g. Restore Files to Here); `undefined` forgets it. */
    setContent(uri: vscode.Uri, text: string | undefined): void;
  };
  /** Absolute paths of the workspace folders on disk. */
  folderPaths(): string[];
}
