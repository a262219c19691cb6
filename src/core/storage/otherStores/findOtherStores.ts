/**
 * Finds the Arbor stores that other workspace identities of the same folders left behind: VS Code
 * gives a folder opened alone, the same folder in a multi-root workspace, a `.code-workspace` file
 * and a second code-server window (`<id>-1`) each their own workspace-storage folder, so their
 * conversations seem to vanish. Only stores whose folders are part of the current workspace are
 * read, and only read-only.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../files';
import type { SqlJsWasmOptions } from '../databaseFile';
import { JOURNAL_SUFFIX, SqlJsConversationStorage } from '../sqlJsConversationStorage';
import { listAllConversationIds } from './mergeStore';
import { StoreIdsCache } from './storeIdsCache';
import { normalizeFolder, readStorageIdentity, unnumberedStorageId } from './workspaceIdentity';

/** The distinct conversations of `stores` (one kept by two stores counts once). */
export function distinctConversations(stores: readonly OtherStore[]): number {
  return new Set(stores.flatMap((store) => store.conversationIds)).size;
}

/** Another workspace identity's store of (some of) the current folders. */
export interface OtherStore {
  /** The workspace-storage folder's name (`<id>`). */
  storageId: string;
  /** The current workspace's folders this store belongs to (as given in `folders`); empty for a sibling without `workspace.json`. */
  folders: string[];
  /** The `.code-workspace` file it was made for, if any. */
  workspaceFile?: string;
  /** The store's database file. */
  path: string;
  /** Bytes of the database file and its journal. */
  size: number;
  /** The newest modification time of the database file and its journal. */
  lastUsed: Date;
  /** How many conversations it holds. */
  conversations: number;
  /** Their ids (the same conversation kept by two stores is one to open). */
  conversationIds: string[];
}

/** Where to look and what the current workspace is. */
export interface FindOtherStoresOptions extends SqlJsWasmOptions {
  /** The workspace-storage root: the parent of the `<id>` folders. */
  storageRoot: string;
  /** The current store's folder, `<root>/<id>/<extension id>`. */
  currentStoreDir: string;
  /** The current workspace's folder paths. */
  folders: readonly string[];
  /** The store's file name in its folder, e.g. `arbor.sqlite`. */
  storeFile: string;
  /**
   * A JSON file (the extension's global storage) remembering each store's ids by the size and time of its
   * files, so a store that did not change since an earlier search is not opened again. Without it every
   * candidate store is opened.
   */
  idsCacheFile?: string;
  logger?: Pick<Logger, 'warn'>;
}

/**
 * The other stores of the current workspace's folders, most recently used first. A storage folder
 * counts when its `workspace.json` (else Arbor's record beside its store) names one of the folders,
 * or a workspace file listing one, or when
 * it is a numbered sibling (`<id>-1` … `<id>-9`, or `<id>` itself for `<id>-1`) of the current one and
 * names no other folder. Empty stores and stores that cannot be read are left out (the latter logged).
 */
export async function findOtherStores(options: FindOtherStoresOptions): Promise<OtherStore[]> {
  const currentDir = path.resolve(options.currentStoreDir);
  const extensionDir = path.basename(currentDir);
  const currentId = path.basename(path.dirname(currentDir));
  const baseId = unnumberedStorageId(currentId);
  const wanted = new Map(options.folders.map((folder) => [normalizeFolder(folder), folder]));
  let entries: string[];
  try {
    entries = await fs.readdir(options.storageRoot);
  } catch {
    return [];
  }
  const cache = options.idsCacheFile ? await StoreIdsCache.load(options.idsCacheFile, options.logger) : undefined;
  const found: OtherStore[] = [];
  const present = new Set<string>();
  for (const storageId of entries.sort()) {
    if (storageId === currentId) continue;
    const storageFolder = path.join(options.storageRoot, storageId);
    const storePath = path.join(storageFolder, extensionDir, options.storeFile);
    const files = await fileStats(storePath);
    if (!files) continue;
    present.add(storePath);
    const identity = await readStorageIdentity(storageFolder, extensionDir);
    const sibling = unnumberedStorageId(storageId) === baseId;
    const folders = identity ? identity.folders.flatMap((folder) => (wanted.has(folder) ? [wanted.get(folder) as string] : [])) : [];
    if (folders.length === 0 && !(sibling && !identity)) continue;
    // Keyed by the sizes and times taken before the read: a store written during it reads again next time.
    let conversationIds = cache?.get(storePath, files.size, files.lastUsed.getTime());
    if (!conversationIds) {
      conversationIds = await listConversationIds(storePath, options);
      if (conversationIds) cache?.set(storePath, files.size, files.lastUsed.getTime(), conversationIds);
    }
    if (!conversationIds?.length) continue;
    found.push({
      storageId,
      folders: [...new Set(folders)],
      ...(identity?.workspaceFile ? { workspaceFile: identity.workspaceFile } : {}),
      path: storePath,
      ...files,
      conversations: conversationIds.length,
      conversationIds,
    });
  }
  if (cache) {
    cache.pruneUnder(options.storageRoot, present);
    await cache.save();
  }
  return found.sort((a, b) => b.lastUsed.getTime() - a.lastUsed.getTime());
}

async function fileStats(storePath: string): Promise<{ size: number; lastUsed: Date } | undefined> {
  let size = 0;
  let newest = -1;
  for (const file of [storePath, storePath + JOURNAL_SUFFIX]) {
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) continue;
      size += stat.size;
      newest = Math.max(newest, stat.mtimeMs);
    } catch {
      // A store without a journal (or a journal whose database is not written yet) is fine.
    }
  }
  return newest < 0 ? undefined : { size, lastUsed: new Date(newest) };
}

/** The ids of the store's conversations, opened read-only (nothing of it is written); undefined when it cannot be read. */
async function listConversationIds(storePath: string, options: FindOtherStoresOptions): Promise<string[] | undefined> {
  let store: SqlJsConversationStorage | undefined;
  try {
    store = await SqlJsConversationStorage.open(storePath, { readOnly: true, wasmPath: options.wasmPath, wasmBinary: options.wasmBinary, logger: options.logger });
    return await listAllConversationIds(store);
  } catch (error) {
    options.logger?.warn(`Could not read the conversation store ${storePath}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  } finally {
    await store?.close().catch(() => undefined);
  }
}
