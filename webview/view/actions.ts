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
  /** An error's button: the host runs its command (Set OpenAI API Key, Select Model, Open Settings). */
  runAction(command: ErrorActionCommand): void;
  openFile(path: string, startLine?: number, endLine?: number): void;
  /** Bookmarks a message, or removes its bookmark. */
  setBookmark(nodeId: string, bookmarked: boolean): void;
  /** Sets the note on a message; an empty note removes it. */
  setNote(nodeId: string, note: string): void;
  /** The provider's models, for the Regenerate picker. */
  models(): readonly string[];
  /** A request is streaming: branching actions wait. */
  isBusy(): boolean;
}
