import type { ConversationStorage } from '../../core/index';
import type { OutputChannelLogger } from '../base/logger';
import type { ArborSettings } from '../settings/settings';

/**
 * What the store's upkeep (retention) reads from the extension's shared services (`Services` in
 * src/host implements it): the settings and the open conversation store.
 */
export interface StoreServices {
  readonly logger: OutputChannelLogger;
  /** The validated settings. */
  readonly settings: ArborSettings;
  /** Whether conversations live in the team store (`arbor.storage.kind` is `postgres`). */
  readonly usesTeamStore: boolean;
  /** The conversation store of the settings (the local sql.js file or the team store), opened on first use. */
  storage(): Promise<ConversationStorage>;
  /** Forgets a conversation's manager (after it was deleted); views redraw. */
  forget(conversationId: string): void;
}
