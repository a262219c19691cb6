import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ConversationNode, ConversationState } from '../types';
import { ConversationNotFoundError, NodeNotFoundError, StorageError } from '../errors';
import { Emitter, type ArborEvent } from '../emitter';
import type { Logger } from '../files';
import { SerialQueue } from '../serialQueue';
import { countMatching, idsForDelete, messagesWithMetadata, queryMessages, querySummaries, registerQueryFunctions, summariesForDelete } from './conversationQueries';
import { conversationExists, conversationRow, loadState, nodeExists, queryRows, queryRowsCached, seqOf, subtreeIds, type ConversationRow } from './conversationTables';
import { conversationFileChanges, fileStatesAt, nodeFileChangeRows, readFileContent } from './fileCheckpointQueries';
import { fileChangeEnvelopes, prepareFileChanges, type PreparedFileChange } from './fileCheckpoints';
import { buildForkEntry } from './forkEntry';
import { conversationImages, extractStateImages, nodeImageEnvelopes, nodeImageRows, prepareChangeImages, stateImageEnvelopes, type PreparedImage } from './nodeImages';
import { loadSqlJs, type SqlJsWasmOptions } from './databaseFile';
import type { JournalEntry, StoredChange } from './journal';
import { JournaledDatabase, type JournalOptions } from './journaledDatabase';
import { createSchema } from './schema';
import { formatNodeId } from '../nodeIds';
import { requireRecord, requireString } from '../validation';
import { checkChange, checkState, isDamage, isReadOnly } from './storageChecks';
import type {
  ChangeResult,
  ConversationChange,
  ConversationStorage,
  ConversationSummary,
  DeleteFilters,
  FileChange,
  FileState,
  ListOptions,
  MessageMatch,
  RecordedFileChange,
  SearchOptions,
  StoredImage,
} from './storage';

/** Options of `SqlJsConversationStorage.open`. */
export interface SqlJsStorageOptions extends SqlJsWasmOptions, JournalOptions {
  /** Receives warnings such as a damaged file that was moved aside. */
  logger?: Pick<Logger, 'warn'>;
  /**
   * Hears once of each problem the user should know about: a damaged database or journal moved or
   * copied aside, and what was recovered (the extension shows it as a notification naming the file).
   */
  notify?: (message: string) => void;
}

/** Suffix of the journal file beside the database (not `-journal`, which SQLite itself would claim). */
export const JOURNAL_SUFFIX = '.arbor-journal';

/**
 * The default conversation store: SQLite (sql.js) in memory, persisted as a database file plus an
 * append-only journal. A write appends one flushed journal line, so its cost does not grow with the
 * store; the journal is folded into the database file (temp file + rename) by periodic checkpoints
 * and on close. Several processes may share one store: writes take a short lock, and every call
 * first catches up with what other processes appended or checkpointed. Lists default to the most
 * recently updated first, 100 at a time.
 *
 * A damaged database file is moved to `<file>.corrupt-<time>` and a fresh store is opened, so the
 * editor keeps working; the move is reported in `warnings` and to the logger, and nothing is deleted.
 */
export class SqlJsConversationStorage implements ConversationStorage {
  /** Problems found and repaired on open (e.g. a damaged file moved aside); also sent to the logger. */
  readonly warnings: string[] = [];
  private readonly queue = new SerialQueue();
  private closed = false;
  private readonly changeEmitter = new Emitter<string>((error) => this.options.logger?.warn(`An onDidChange listener failed: ${String(error)}`));

  private readonly store: JournaledDatabase;

  private constructor(store: (warn: (message: string, notify?: boolean) => void) => JournaledDatabase, private readonly options: SqlJsStorageOptions) {
    this.store = store((message, notify) => this.warn(message, notify));
  }

  /** Opens (or creates) the store at `filePath`, or a purely in-memory store when no path is given. */
  static async open(filePath?: string, options: SqlJsStorageOptions = {}): Promise<SqlJsConversationStorage> {
    const SQL = await loadSqlJs(options);
    if (filePath === undefined) {
      const db = new SQL.Database();
      createSchema(db);
      registerQueryFunctions(db);
      return new SqlJsConversationStorage((warn) => new JournaledDatabase(SQL, db, undefined, options, warn), options);
    }
    const dbPath = path.resolve(filePath);
    await fs.mkdir(path.dirname(dbPath), { recursive: true });
    const files = { db: dbPath, journal: dbPath + JOURNAL_SUFFIX, lock: dbPath + '.lock' };
    const readOnly = options.readOnly ?? (await isReadOnly(dbPath));
    const storage = new SqlJsConversationStorage((warn) => new JournaledDatabase(SQL, new SQL.Database(), files, { ...options, readOnly }, warn), { ...options, readOnly });
    try {
      await storage.store.load();
    } catch (error) {
      storage.store.db.close();
      throw error;
    }
    return storage;
  }

  /** True when the store may not be written (see `SqlJsStorageOptions.readOnly`): reads work, writes fail at once. */
  get readOnly(): boolean {
    return this.options.readOnly === true;
  }

  /** The database file, or undefined for an in-memory store. */
  get filePath(): string | undefined {
    return this.store.files?.db;
  }

  /** Writes a whole conversation; its node ids must be ones this store gives (`formatNodeId`). */
  saveConversation(state: ConversationState): Promise<void> {
    let extracted: ReturnType<typeof extractStateImages>;
    try {
      checkState(state);
      extracted = extractStateImages(state);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!extracted) return this.mutate(() => ({ entry: { op: 'save', state }, result: undefined }));
    const { state: stripped, images } = extracted;
    // Inline images (an imported file) go to node_images, after the nodes they belong to.
    return this.mutate(() => ({ entry: { op: 'save', state: { ...stripped, nodes: [...stripped.nodes, ...stateImageEnvelopes(this.store.db, images, stripped.updatedAt)] } }, result: undefined }));
  }

  /**
   * Applies a change. New nodes get their ids and positions here, under the lock and after catching
   * up with other processes, from the conversation's stored counter: two windows adding to one
   * conversation at once get distinct ids, and the journal records the ids given.
   */
  applyChange(conversationId: string, change: ConversationChange): Promise<ChangeResult> {
    let images: PreparedImage[][] | undefined;
    try {
      checkChange(conversationId, change);
      images = prepareChangeImages(change);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.mutate(() => {
      const row = this.requireConversation(conversationId);
      const db = this.store.db;
      let next = row.nextSeq;
      const added: ConversationNode[] = (change.addNodes ?? []).map((node) => {
        if (node.parentId === null || !nodeExists(db, row.key, node.parentId)) {
          throw new NodeNotFoundError(String(node.parentId), conversationId);
        }
        const seq = next++;
        return { ...node, nodeId: formatNodeId(seq), position: seq };
      });
      for (const node of change.updateNodes ?? []) {
        if (!nodeExists(db, row.key, node.nodeId)) throw new NodeNotFoundError(node.nodeId, conversationId);
      }
      // A delete takes the whole stored subtree, also what another window added below it since this
      // one last read, so no node is left without its parent.
      const deleteNodeIds = change.deleteNodeIds?.length ? subtreeIds(db, row.key, change.deleteNodeIds) : [];
      let currentNodeId = change.currentNodeId;
      if (change.currentIsLastAdded && added.length > 0) currentNodeId = added[added.length - 1].nodeId;
      else if (currentNodeId !== undefined) {
        seqOf(currentNodeId);
        if (!nodeExists(db, row.key, currentNodeId)) throw new NodeNotFoundError(currentNodeId, conversationId);
      }
      const stored: StoredChange = { updatedAt: change.updatedAt };
      if (added.length) {
        // Image envelopes follow the nodes they belong to (see nodeImageSchema.ts).
        const present = new Set<string>();
        const imageEnvelopes = images ? added.flatMap((node, i) => (images[i]?.length ? nodeImageEnvelopes(db, seqOf(node.nodeId), images[i], node.timestamp, present) : [])) : [];
        stored.insertNodes = imageEnvelopes.length ? [...added, ...imageEnvelopes] : added;
        stored.nextNodeSeq = next;
      }
      if (change.updateNodes?.length) stored.updateNodes = change.updateNodes;
      if (deleteNodeIds.length) stored.deleteNodeIds = deleteNodeIds;
      if (currentNodeId !== undefined) stored.currentNodeId = currentNodeId;
      if (change.metadata !== undefined) stored.metadata = change.metadata;
      return { entry: { op: 'change', conversationId, change: stored }, result: { addedNodes: added } };
    });
  }

  loadConversation(conversationId: string): Promise<ConversationState | null> {
    return this.read(() => loadState(this.store.db, requireString(conversationId, 'conversationId')));
  }

  deleteConversation(conversationId: string): Promise<boolean> {
    return this.mutate(() =>
      conversationExists(this.store.db, conversationId)
        ? { entry: { op: 'delete', conversationIds: [conversationId] }, result: true }
        : { entry: null, result: false },
    );
  }

  listConversations(options: ListOptions = {}): Promise<ConversationSummary[]> {
    return this.read(() => querySummaries(this.store.db, options));
  }

  countConversations(filter: Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'> = {}): Promise<number> {
    return this.read(() => countMatching(this.store.db, filter));
  }

  searchConversations(options: SearchOptions): Promise<ConversationSummary[]> {
    return this.read(() => querySummaries(this.store.db, options ?? {}));
  }

  searchMessages(query: string, options: { limit?: number } = {}): Promise<MessageMatch[]> {
    return this.read(() => queryMessages(this.store.db, requireString(query, 'query', { allowEmpty: true }), options?.limit));
  }

  findMessages(options: { filterMetadata: Record<string, unknown>; limit?: number }): Promise<MessageMatch[]> {
    return this.read(() => messagesWithMetadata(this.store.db, requireRecord(options?.filterMetadata, 'filterMetadata'), options.limit));
  }

  deleteConversations(filters: DeleteFilters): Promise<number> {
    return this.mutate(() => {
      const ids = idsForDelete(this.store.db, filters ?? {});
      return ids.length ? { entry: { op: 'delete', conversationIds: ids }, result: ids.length } : { entry: null, result: 0 };
    });
  }

  removeConversations(filters: DeleteFilters): Promise<ConversationSummary[]> {
    return this.mutate(() => {
      const removed = summariesForDelete(this.store.db, filters ?? {});
      return removed.length ? { entry: { op: 'delete', conversationIds: removed.map((s) => s.conversationId) }, result: removed } : { entry: null, result: [] };
    });
  }

  updateMetadata(conversationId: string, metadata: Record<string, unknown>): Promise<void> {
    return this.mutate(() => {
      requireString(conversationId, 'conversationId');
      requireRecord(metadata, 'metadata');
      this.requireConversation(conversationId);
      const stored = queryRows(this.store.db, 'SELECT metadata FROM conversations WHERE id = ?', [conversationId]);
      const merged = { ...(JSON.parse(String(stored[0][0])) as Record<string, unknown>) };
      for (const [key, value] of Object.entries(metadata)) {
        if (value === undefined) {
          delete merged[key];
        } else {
          merged[key] = value;
        }
      }
      const change: ConversationChange = { metadata: merged, updatedAt: new Date().toISOString() };
      return { entry: { op: 'change', conversationId, change }, result: undefined };
    });
  }

  forkConversation(sourceId: string, newId: string, options: { upToNodeId?: string } = {}): Promise<ConversationState> {
    return this.mutate(() => {
      const { state, entry } = buildForkEntry(this.store.db, sourceId, newId, options);
      return { entry, result: state };
    });
  }

  recordFileChanges(conversationId: string, nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]> {
    let prepared: PreparedFileChange[];
    try {
      requireString(conversationId, 'conversationId');
      requireString(nodeId, 'nodeId', { allowEmpty: true });
      prepared = prepareFileChanges(changes);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.mutate(() => {
      const { row, seq } = this.requireNode(conversationId, nodeId);
      if (prepared.length === 0) return { entry: null, result: nodeFileChangeRows(this.store.db, row.key, seq).map((r) => r.change) };
      const updatedAt = String(queryRowsCached(this.store.db, 'SELECT updated_at FROM conversations WHERE key = ?', [row.key])[0][0]);
      // A `change` that only carries envelopes: every release applies it (see fileCheckpointSchema.ts).
      const { envelopes, stored } = fileChangeEnvelopes(this.store.db, row.key, seq, prepared, new Date().toISOString());
      return { entry: { op: 'change', conversationId, change: { insertNodes: envelopes, updatedAt } }, result: stored };
    });
  }

  fileChanges(conversationId: string, nodeId: string): Promise<RecordedFileChange[]> {
    return this.read(() => {
      const { row, seq } = this.requireNode(conversationId, nodeId);
      return nodeFileChangeRows(this.store.db, row.key, seq).map((r) => r.change);
    });
  }

  fileChangesByNode(conversationId: string): Promise<Record<string, RecordedFileChange[]>> {
    return this.read(() => conversationFileChanges(this.store.db, this.requireConversation(requireString(conversationId, 'conversationId')).key));
  }

  nodeImages(conversationId: string, nodeId: string): Promise<StoredImage[]> {
    return this.read(() => {
      const { row, seq } = this.requireNode(conversationId, nodeId);
      return nodeImageRows(this.store.db, row.key, seq);
    });
  }

  imagesByNode(conversationId: string): Promise<Record<string, StoredImage[]>> {
    return this.read(() => conversationImages(this.store.db, this.requireConversation(requireString(conversationId, 'conversationId')).key));
  }

  fileContent(hash: string): Promise<Uint8Array | null> {
    return this.read(() => readFileContent(this.store.db, requireString(hash, 'hash')));
  }

  filesStateAt(conversationId: string, nodeId: string): Promise<FileState[]> {
    return this.read(() => {
      const { row, seq } = this.requireNode(conversationId, nodeId);
      return fileStatesAt(this.store.db, row.key, seq);
    });
  }

  /** Fires a conversation id after any change, from this process or (noticed on the next read or poll) from another. */
  readonly onDidChange: ArborEvent<string> = this.changeEmitter.event;

  /**
   * Catches up with changes other processes made and returns the ids they touched (firing
   * `onDidChange` for each). Cheap when nothing changed: two `stat` calls.
   */
  poll(): Promise<string[]> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      await this.store.catchUp(false, changed);
      this.fire(changed);
      return [...new Set(changed)];
    });
  }

  /** Folds the journal into the database file now. */
  checkpoint(): Promise<void> {
    return this.enqueue(async () => {
      if (this.store.files) {
        const changed: string[] = [];
        await this.store.withLock(async () => {
          await this.store.catchUp(true, changed);
          await this.store.checkpoint();
        });
        this.fire(changed);
      }
    });
  }

  /** Checkpoints, then releases the database; later calls fail with `StorageError`. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      try {
        if (this.store.files) {
          await this.store.withLock(async () => {
            await this.store.catchUp(true, []);
            await this.store.checkpoint(true);
          });
        }
      } finally {
        this.closed = true;
        this.store.db.close();
        this.changeEmitter.dispose();
      }
    });
  }

  private requireConversation(conversationId: string): ConversationRow {
    const row = conversationRow(this.store.db, conversationId);
    if (!row) {
      throw new ConversationNotFoundError(conversationId);
    }
    return row;
  }

  private requireNode(conversationId: string, nodeId: string): { row: ConversationRow; seq: number } {
    const row = this.requireConversation(requireString(conversationId, 'conversationId'));
    if (!nodeExists(this.store.db, row.key, requireString(nodeId, 'nodeId', { allowEmpty: true }))) throw new NodeNotFoundError(nodeId, conversationId);
    return { row, seq: seqOf(nodeId) };
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(() => {
      if (this.closed) {
        throw new StorageError('This conversation store is closed; open it again to use it.');
      }
      return task();
    });
  }

  private read<T>(query: () => T): Promise<T> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      await this.store.catchUp(false, changed);
      try {
        return query();
      } catch (error) {
        if (!isDamage(error)) throw error;
        // Damaged data (JSON that no longer parses, a malformed page): rebuild from what is readable, then answer.
        await this.store.recoverFromDamage(String(error), changed);
        return query();
      } finally {
        this.fire(changed);
      }
    });
  }

  /**
   * Runs one write: under the lock, catch up, build the entry from the current state (validation
   * errors are thrown here), apply it in a transaction, append and flush it, then commit.
   */
  private mutate<T>(build: () => { entry: JournalEntry | null; result: T }): Promise<T> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      const result = await this.store.withLock(async () => {
        await this.store.catchUp(true, changed);
        const { entry, result } = build();
        if (entry) {
          changed.push(...(await this.store.commit(entry)));
        }
        return result;
      });
      this.fire(changed);
      return result;
    });
  }

  private fire(conversationIds: string[]): void {
    for (const id of new Set(conversationIds)) {
      this.changeEmitter.fire(id);
    }
  }

  private warn(message: string, notify = false): void {
    this.warnings.push(message);
    this.options.logger?.warn(message);
    if (notify) this.options.notify?.(message);
  }

}
