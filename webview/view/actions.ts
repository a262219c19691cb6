/**
 * What a message can ask of the page: each action ends as one protocol message to the host.
 * Views receive this interface instead of the VS Code API so they stay easy to follow and test.
 */
import type { ErrorActionCommand } from '../../src/shared/protocol';

/** Callbacks from message views to the page. */
export interface MessageActions {
  switchTo(nodeId: string): void;
  /** Older messages of the path, above the oldest one shown. */
  loadEarlier(): void;
  edit(nodeId: string, text: string): void;
  regenerate(nodeId: string, model?: string): void;
  retry(): void;
  /** Branch from Here: the next message starts a new branch at this message. */
  branchHere(nodeId: string): void;
  /** Compact up to Here: the older turns up to this message become a summary below it. */
  compactHere(nodeId: string): void;
  /** Undo on a summary: back to the full history. */
  undoCompaction(nodeId: string): void;
  /** An error's button: the host runs its command (Set OpenAI API Key, Select Model, Open Settings). */
  runAction(command: ErrorActionCommand): void;
  openFile(path: string, startLine?: number, endLine?: number): void;
  /** The provider's models, for the Regenerate picker. */
  models(): readonly string[];
  /** A request is streaming: branching actions wait. */
  isBusy(): boolean;
}
