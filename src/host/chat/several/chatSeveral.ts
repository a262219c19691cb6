/**
 * Builds a chat panel's `SeveralAnswers` on the chat's services, options and branching, so the
 * controller only routes the webview's messages to it.
 */
import type { ErrorView, ToWebview } from '../../../shared/protocol';
import type { ChatOptions } from '../chatOptions';
import { totalCostUpdate } from '../../conversations/conversationRules';
import { checkReadyToSend } from '../errorActions';
import type { ChatServices } from '../chatServices';
import { SeveralAnswers } from './severalAnswers';

/** What of its chat a run uses besides the services. */
export interface SeveralChat {
  options: ChatOptions;
  branching: { failed(nodeId: string, error: ErrorView): void; retrying(nodeId: string): void };
  post(message: ToWebview): void;
  postState(): Promise<void>;
}

/** The several-models runs of the chat on `conversationId`. */
export function createSeveralAnswers(services: ChatServices, conversationId: string, chat: SeveralChat): SeveralAnswers {
  return new SeveralAnswers({
    manager: () => services.manager(conversationId),
    plan: (manager, model) => chat.options.plan(manager, model),
    checkReady: () => checkReadyToSend(services),
    whileBusy: (work) => services.whileBusy(conversationId, work),
    post: (message) => chat.post(message),
    failed: (questionId, error) => chat.branching.failed(questionId, error),
    retrying: (questionId) => chat.branching.retrying(questionId),
    warn: (message) => services.logger.warn(message),
    ended: async (manager) => {
      // The list shows the cost from the metadata; it is written only when it changed.
      const update = totalCostUpdate(manager.getMetadata() as Record<string, unknown>, manager.getTotalCost());
      if (update) await manager.setMetadata(update).catch(() => undefined);
      await chat.postState();
    },
  });
}
