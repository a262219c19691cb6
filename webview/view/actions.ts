/**
 * What a message can ask of the page: each action ends as one protocol message to the host.
 * Views receive this interface instead of the VS Code API so they stay easy to follow and test.
 */
import type { ErrorActionCommand, PromptSummary, ToolGrantScope } from '../../src/shared/protocol';

/** Callbacks from message views to the page. */
export interface MessageActions {
  switchTo(nodeId: string): void;
  /** Older messages of the path, above the oldest one shown. */
  loadEarlier(): void;
  edit(nodeId: string, text: string): void;
  /** Edit of a `/` prompt message: render `promptName` again with these values into a sibling. */
  editPrompt(nodeId: string, promptName: string, params: Record<string, string>, text: string): void;
  /** The version chip's Compare: diff the template version that rendered the message with the file now. */
  openPromptDiff(nodeId: string): void;
  /** The library's prompts, for the form Edit reopens. */
  prompts(): readonly PromptSummary[];
  regenerate(nodeId: string, model?: string): void;
  retry(): void;
  /** Branch from Here: the next message starts a new branch at this message. */
  branchHere(nodeId: string): void;
  /** Compact up to Here: the older turns up to this message become a summary below it. */
  compactHere(nodeId: string): void;
  /** Undo on a summary: back to the full history. */
  undoCompaction(nodeId: string): void;
  /** Remove on a branch summary. */
  removeBranchSummary(nodeId: string): void;
  /** An error's button: the host runs its command (Set OpenAI API Key, Select Model, Open Settings). */
  runAction(command: ErrorActionCommand): void;
  openFile(path: string, startLine?: number, endLine?: number): void;
  /** An instruction chip's toggle: leave the file out of this chat's requests, or send it again. */
  setInstructionExcluded(path: string, excluded: boolean): void;
  /** Bookmarks a message, or removes its bookmark. */
  setBookmark(nodeId: string, bookmarked: boolean): void;
  /** Sets the note on a message; an empty note removes it. */
  setNote(nodeId: string, note: string): void;
  /** The user's answer to a tool call waiting for approval: Allow this far (with edited arguments), or Deny. */
  decideTool(callId: string, decision: { scope?: ToolGrantScope; deny?: string; input?: string }): void;
  /** Restore Files to Here on a message's file chips. */
  restoreFiles(nodeId: string): void;
  /** A file chip: the change of that file by that node, as a diff. */
  openFileChange(nodeId: string, path: string): void;
  /** Compare on an answer of several models: the two answers side by side in a diff editor. */
  compareAnswers(leftNodeId: string, rightNodeId: string): void;
  /** Merge on an answer of several models: `model` fuses these answers into a new sibling answer. */
  mergeAnswers(nodeIds: readonly string[], model: string): void;
  /** The provider's models, for the Regenerate picker. */
  models(): readonly string[];
  /** Re-run on a flow message's marker: its step runs again on a new branch. */
  flowRerun?(nodeId: string): void;
  /** A request is streaming: branching actions wait. */
  isBusy(): boolean;
}
