import type * as vscode from 'vscode';
import type { ConversationStorage } from '../../core/index';
import type { OutputChannelLogger } from '../base/logger';

/**
 * What the Conversations tree reads from the extension's shared services (`Services` in src/host
 * implements it): the conversation store, where it lives, and the events that redraw the tree.
 */
export interface TreeServices {
  readonly logger: OutputChannelLogger;
  /** Whether conversations live in the team store (`arbor.storage.kind` is `postgres`). */
  readonly usesTeamStore: boolean;
  /** Whether the store has finished opening (the tree draws from its cached list until then). */
  readonly storageReady: boolean;
  /** Fires with a conversation id after it changed, in this window or (on the next poll) in another. */
  readonly onDidChangeConversation: vscode.Event<string>;
  /** Fires after the store was switched (local ↔ team, another address or password): every view re-reads it. */
  readonly onDidSwitchStore: vscode.Event<void>;
  /**
   * Where conversations and the index live: the workspace's storage folder, else the global one (see
   * `Services.storageDir`).
   */
  storageDir(): string;
  /** The conversation store of the settings (the local sql.js file or the team store), opened on first use. */
  storage(): Promise<ConversationStorage>;
}
