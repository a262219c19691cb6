import type { ConversationManager } from '../../core/index';
import type { ApiKeyStore } from '../base/secrets';
import type { ArborSettings } from '../settings/settings';

/**
 * What the first-run commands read from the extension's shared services (`Services` in src/host
 * implements it): the settings, which they change, the API key, and the conversations.
 */
export interface OnboardingServices {
  readonly apiKeys: ApiKeyStore;
  /** The validated settings. */
  readonly settings: ArborSettings;
  /**
   * Changes an `arbor.*` setting where the user keeps it: in the workspace when it is set there
   * (else the workspace value would hide the change), otherwise for the user.
   */
  updateSetting(key: string, value: unknown): Promise<void>;
  /** Runs `work` on a conversation's manager while it is marked busy (every change goes through here). */
  withManager<T>(conversationId: string, work: (manager: ConversationManager) => Promise<T>): Promise<T>;
}
