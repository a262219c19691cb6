import type * as vscode from 'vscode';
import type { ConversationManager, LLMProvider } from '../../core/index';
import type { CheckpointServices } from '../checkpoints/checkpointServices';

/**
 * What Apply on code blocks reads from the extension's shared services (`Services` in src/host
 * implements it): the conversations, the model, the editor, and what file checkpoints need (Apply
 * records its changes and checks its targets through checkpoints/).
 */
export interface ApplyServices extends CheckpointServices {
  /** The text editor the user worked in last (the chat panel takes focus from it). */
  readonly lastTextEditor: vscode.TextEditor | undefined;
  /** The manager of a stored conversation, shared by every view of it (`ConversationNotFoundError` if gone). */
  manager(conversationId: string): Promise<ConversationManager>;
  /**
   * The model provider of the current settings and key, routing VS Code's models (`vscode:` ids) to
   * `vscodeLm` and every other model to the configured provider.
   */
  provider(): Promise<LLMProvider>;
}
