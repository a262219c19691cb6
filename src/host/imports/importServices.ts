import type { ConversationManager, ImportedConversation } from '../../core/index';
import type { ApiKeyStore } from '../base/secrets';
import type { OutputChannelLogger } from '../base/logger';

/**
 * What the import commands read from the extension's shared services (`Services` in src/host
 * implements it): the conversations they store, and the API key a Continue config may bring.
 */
export interface ImportServices {
  readonly logger: OutputChannelLogger;
  readonly apiKeys: ApiKeyStore;
  /** Imports a parsed conversation file as a new conversation (a copy under a new id when its id is taken). */
  importConversation(obj: unknown): Promise<ImportedConversation>;
  /** Runs `work` on a conversation's manager while it is marked busy (every change goes through here). */
  withManager<T>(conversationId: string, work: (manager: ConversationManager) => Promise<T>): Promise<T>;
}
