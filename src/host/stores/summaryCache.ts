/**
 * A small JSON copy of the conversation list (titles, times, counts, costs) next to the store, so
 * the sidebar can draw its first render before sql.js has compiled and the store has loaded; the
 * real list replaces it a moment later. Pure Node (no `vscode`).
 */
import { promises as fs } from 'node:fs';
import type { ConversationMetadata, ConversationSummary } from '../../core/index';

/** The file name inside the extension's storage folder. */
export const SUMMARY_CACHE_FILE = 'conversation-list.json';

const KEPT_METADATA: readonly (keyof ConversationMetadata)[] = ['title', 'totalCostUsd', 'firstMessage'];

/** The summaries with only the metadata the tree shows. */
export function slimSummaries(list: readonly ConversationSummary[]): ConversationSummary[] {
  return list.map((s) => ({
    conversationId: s.conversationId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    nodeCount: s.nodeCount,
    metadata: Object.fromEntries(KEPT_METADATA.filter((k) => s.metadata[k] !== undefined).map((k) => [k, s.metadata[k]])),
  }));
}

function isSummary(v: unknown): v is ConversationSummary {
  const s = v as ConversationSummary;
  return (
    !!s &&
    typeof s.conversationId === 'string' &&
    typeof s.updatedAt === 'string' &&
    typeof s.createdAt === 'string' &&
    typeof s.nodeCount === 'number' &&
    !!s.metadata &&
    typeof s.metadata === 'object'
  );
}

/** The cached list, or `undefined` when there is none or it is unreadable (never throws). */
export async function readSummaryCache(file: string): Promise<ConversationSummary[] | undefined> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as { version?: number; conversations?: unknown };
    if (parsed.version !== 1 || !Array.isArray(parsed.conversations)) return undefined;
    return parsed.conversations.filter(isSummary);
  } catch {
    return undefined;
  }
}

/** Writes the list atomically (temporary file, then rename), so a reader never sees half a file. */
export async function writeSummaryCache(file: string, list: readonly ConversationSummary[]): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify({ version: 1, conversations: slimSummaries(list) }));
  await fs.rename(tmp, file);
}
