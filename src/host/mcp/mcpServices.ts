import type * as vscode from 'vscode';
import type { OutputChannelLogger } from '../base/logger';

/**
 * What the MCP servers' view reads from the extension's shared services (`Services` in src/host
 * implements it): the log, and trust (servers of an untrusted workspace do not start).
 */
export interface McpServices {
  readonly logger: OutputChannelLogger;
  /** Whether the workspace is trusted; when not, prompts and indexing are off (restricted mode). */
  readonly trusted: boolean;
  /** Fires when the workspace becomes trusted (prompts and indexing turn on). */
  readonly onDidChangeTrust: vscode.Event<boolean>;
}
