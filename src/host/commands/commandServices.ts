import type { ConversationManager } from '../../core/index';
import type { ChatServices } from '../chat/chatServices';
import type { TeamStorePasswordStore } from '../stores/teamStorePassword';

/**
 * What the command handlers read from the extension's shared services (`Services` in src/host
 * implements it): what the chats use (commands hand their services to chat, checkpoint and prompt
 * functions), and the store's places, polling and team password.
 */
export interface CommandServices extends ChatServices {
  /** The team store's password (secret storage). */
  readonly teamStorePassword: TeamStorePasswordStore;
  /** Whether conversations live in the team store (`arbor.storage.kind` is `postgres`). */
  readonly usesTeamStore: boolean;
  /**
   * Where conversations and the index live: the workspace's storage folder, else the global one. A
   * window that VS Code gave a numbered sibling (`<id>-1`: another window or a lingering extension host
   * holds `<id>`) still uses `<id>`, which Arbor's store shares safely, so a reload never shows another store.
   */
  storageDir(): string;
  /** The extension's folder shared by every window (caches that are not any one workspace's). */
  globalStorageDir(): string;
  /** Reads changes other windows made (the tree and open chats then refresh). */
  pollStorage(): Promise<void>;
  /** Adopts a manager made elsewhere (a fork). */
  adopt(manager: ConversationManager): void;
}
