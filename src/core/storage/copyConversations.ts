/**
 * Copies conversations from one store to another under the same ids (local ↔ team store), with
 * their images and recorded file changes, through `ConversationStorage` alone. A move deletes the
 * source only after the copy is stored and read back whole, so a failure never loses a conversation.
 */
import type { ConversationNode, ConversationState } from '../types';
import type { ConversationStorage, FileChange } from './storage';

/** What happened to each conversation asked for. */
export interface CopyReport {
  /** Copied (and, for a move, deleted from the source). */
  copied: string[];
  /** Left alone: the target already has a conversation with that id, or the source has none. */
  skipped: Array<{ conversationId: string; reason: 'exists' | 'missing' }>;
  /** Not copied; the source keeps it, and no partial copy is left in the target. */
  failed: Array<{ conversationId: string; error: Error }>;
}

/** Options of `copyConversations`. */
export interface CopyOptions {
  /** Delete each conversation from the source once its copy is stored. */
  move?: boolean;
  /** Called after each conversation, for progress. */
  onProgress?(done: number, total: number): void;
}

/**
 * Copies `conversationIds` from `source` to `target`, keeping ids, messages, branches, the current
 * node, metadata, times, images (as inline base64, which the stores turn back into stored images) and
 * file changes. A conversation the target already has is skipped, never overwritten (it may hold
 * others' newer messages).
 */
export async function copyConversations(source: ConversationStorage, target: ConversationStorage, conversationIds: readonly string[], options: CopyOptions = {}): Promise<CopyReport> {
  const report: CopyReport = { copied: [], skipped: [], failed: [] };
  const ids = [...new Set(conversationIds)];
  for (const [i, conversationId] of ids.entries()) {
    try {
      const outcome = await copyOne(source, target, conversationId, options.move === true);
      if (outcome === 'copied') report.copied.push(conversationId);
      else report.skipped.push({ conversationId, reason: outcome });
    } catch (err) {
      report.failed.push({ conversationId, error: err instanceof Error ? err : new Error(String(err)) });
    }
    options.onProgress?.(i + 1, ids.length);
  }
  return report;
}

async function copyOne(source: ConversationStorage, target: ConversationStorage, conversationId: string, move: boolean): Promise<'copied' | 'exists' | 'missing'> {
  const state = await source.loadConversation(conversationId);
  if (!state) return 'missing';
  if (await target.loadConversation(conversationId)) return 'exists';
  const withImages = await inlineImages(source, state);
  const changes = await source.fileChangesByNode(conversationId);
  await target.saveConversation(withImages);
  try {
    for (const [nodeId, recorded] of Object.entries(changes)) {
      const files: FileChange[] = [];
      for (const change of recorded) {
        files.push({ path: change.path, before: await contentOf(source, change.before?.hash), after: await contentOf(source, change.after?.hash) });
      }
      await target.recordFileChanges(conversationId, nodeId, files);
    }
    const copy = await target.loadConversation(conversationId);
    if (!copy || copy.nodes.length !== state.nodes.length) {
      throw new Error(`The copy of conversation ${conversationId} has ${copy?.nodes.length ?? 0} messages instead of ${state.nodes.length}.`);
    }
  } catch (err) {
    // No half copy: the source still has it all.
    await target.deleteConversation(conversationId).catch(() => undefined);
    throw err;
  }
  if (move) await source.deleteConversation(conversationId);
  return 'copied';
}

/** The state with each message's stored images inline (base64), as the stores take them in `saveConversation`. */
async function inlineImages(source: ConversationStorage, state: ConversationState): Promise<ConversationState> {
  const byNode = await source.imagesByNode(state.conversationId);
  if (Object.keys(byNode).length === 0) return state;
  const nodes: ConversationNode[] = [];
  for (const node of state.nodes) {
    const images = byNode[node.nodeId];
    if (!images?.length) {
      nodes.push(node);
      continue;
    }
    const inline: string[] = [];
    for (const image of images) {
      const bytes = await source.fileContent(image.hash);
      if (bytes) inline.push(Buffer.from(bytes).toString('base64'));
    }
    nodes.push({ ...node, message: { ...node.message, images: inline } });
  }
  return { ...state, nodes };
}

async function contentOf(source: ConversationStorage, hash: string | undefined): Promise<Uint8Array | null> {
  if (hash === undefined) return null;
  const bytes = await source.fileContent(hash);
  if (!bytes) throw new Error(`A file version (${hash.slice(0, 12)}…) of the conversation is missing from the source store.`);
  return bytes;
}
