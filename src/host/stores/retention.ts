import * as vscode from 'vscode';
import { applyRetention } from '../../core/index';
import { conversationTitle, retentionNotice } from '../conversations/conversationRules';
import type { StoreServices } from './storeServices';

/** The chats open in this window: a conversation retention deletes loses its tab first. */
export interface OpenChats {
  close(conversationId: string): void;
}

/**
 * Applies `arbor.retention.days` once, at activation: deletes the conversations nobody changed for
 * that many days, never one with a bookmarked message, closes their chats, and says what it removed
 * in a notification and, one line per conversation, in the log. In the background: activation does
 * not wait for it. A changed setting takes effect at the next start, never while it is being typed
 * (a "3" on the way to "30" would delete too much). Two windows starting together are safe: the store
 * deletes each conversation once, and each window reports what it deleted.
 */
export function runRetentionAtStart(deps: { services: StoreServices; panels: OpenChats }): void {
  const days = deps.services.settings.retentionDays;
  if (days <= 0) return;
  // The team store is the team's: one person's retention setting never deletes their colleagues' conversations.
  if (deps.services.usesTeamStore) {
    deps.services.logger.info(`Retention (arbor.retention.days = ${days}) applies to the local store only; conversations in the team store are kept.`);
    return;
  }
  void runRetention(deps, days);
}

async function runRetention({ services, panels }: { services: StoreServices; panels: OpenChats }, days: number): Promise<void> {
  try {
    const { cutoff, removed } = await applyRetention(await services.storage(), days);
    if (removed.length === 0) {
      services.logger.info(`Retention (arbor.retention.days = ${days}): no conversation unchanged since ${cutoff} to remove.`);
      return;
    }
    services.logger.info(`Retention (arbor.retention.days = ${days}): removed ${removed.length} conversation(s) unchanged since ${cutoff}; bookmarked ones are kept.`);
    for (const s of removed) {
      services.logger.info(`  removed "${conversationTitle(s.metadata)}" (${s.conversationId}), last changed ${s.updatedAt}, ${Math.max(0, s.nodeCount - 1)} messages`);
      panels.close(s.conversationId);
      services.forget(s.conversationId);
    }
    const choice = await vscode.window.showInformationMessage(retentionNotice(removed, days), 'Show Log');
    if (choice) services.logger.channel.show();
  } catch (err) {
    services.logger.error('Retention could not remove old conversations', err);
    void vscode.window.showWarningMessage(`Arbor could not remove old conversations (arbor.retention.days): ${err instanceof Error ? err.message : String(err)}`);
  }
}
