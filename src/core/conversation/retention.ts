import { InvalidArgumentError } from '../errors';
import { BOOKMARKED } from '../metadataKeys';
import type { ConversationStorage, ConversationSummary } from '../storage/storage';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What one retention pass did. */
export interface RetentionResult {
  /** Conversations last changed before this ISO time were due, unless bookmarked. */
  cutoff: string;
  /** The conversations this pass deleted, as they were listed just before, least recently changed first. */
  removed: ConversationSummary[];
}

/**
 * Deletes the conversations nobody changed for `days` days (by their update time: a new message, an
 * edit, a rename, a note or a bookmark counts; reading does not), never one with a bookmarked message.
 * `days` of 0 keeps everything. The store checks the filters under its write lock, so two windows
 * running this at once delete each conversation once, and each reports only what it deleted.
 */
export async function applyRetention(storage: ConversationStorage, days: number, now: number = Date.now()): Promise<RetentionResult> {
  if (!Number.isFinite(days) || days < 0) {
    throw new InvalidArgumentError(`Retention needs a number of days of 0 or more (0 keeps every conversation); got ${days}.`);
  }
  const cutoff = new Date(now - days * DAY_MS).toISOString();
  if (days === 0) return { cutoff, removed: [] };
  const removed = await storage.removeConversations({ updatedBefore: cutoff, withoutNodeMetadata: BOOKMARKED });
  return { cutoff, removed };
}
