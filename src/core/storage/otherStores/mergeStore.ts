/** Brings the conversations of another store into this one, for history left in another workspace's storage. */
import { copyConversations, type CopyOptions, type CopyReport } from '../copyConversations';
import type { ConversationStorage } from '../storage';

/**
 * Copies every conversation of `source` into `target` under the same ids, with images and file
 * changes. One the target already has is skipped, so merging twice duplicates nothing; the source is
 * only read.
 */
export async function mergeStoreInto(source: ConversationStorage, target: ConversationStorage, options: Pick<CopyOptions, 'onProgress'> = {}): Promise<CopyReport> {
  return copyConversations(source, target, await listAllConversationIds(source), options);
}

/** Every conversation id of `storage`, a page at a time. */
export async function listAllConversationIds(storage: Pick<ConversationStorage, 'listConversations'>): Promise<string[]> {
  const ids: string[] = [];
  const pageSize = 500;
  for (let offset = 0; ; offset += pageSize) {
    const page = await storage.listConversations({ limit: pageSize, offset, sortBy: 'conversationId', sortOrder: 'asc' });
    ids.push(...page.map((summary) => summary.conversationId));
    if (page.length < pageSize) return ids;
  }
}
