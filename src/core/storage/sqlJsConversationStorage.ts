import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import type { Database, SqlJsStatic } from 'sql.js';
import type { ConversationState } from '../conversation/types';
import { ConversationNotFoundError, InvalidArgumentError, NodeNotFoundError, StorageError } from '../errors';
import type { Logger } from '../files';
import { countMatching, idsForDelete, querySummaries, registerQueryFunctions } from './conversationQueries';
import { applyEntry, conversationExists, loadState, queryRows, readStoreMeta, writeStoreMeta } from './conversationTables';
import { fileIdentity, loadSqlJs, moveAside, readDatabaseFile, sameIdentity, type FileIdentity, type SqlJsWasmOptions } from './databaseFile';
import { appendJournal, newGeneration, readJournal, resetJournal, writeFileAtomic, type JournalEntry } from './journal';
import { ensureSchema } from './schema';
import type {
  ConversationChange,
  ConversationStorage,
  ConversationSummary,
  DeleteFilters,
  ListOptions,
  SearchOptions,
} from './storage';

/** Options of `SqlJsConversationStorage.open`. */
export interface SqlJsStorageOptions extends SqlJsWasmOptions {
  /** Receives warnings such as a damaged file that was moved aside. */
  logger?: Pick<Logger, 'warn'>;
  /** Fold the journal into the database file once it passes this many bytes (default 8 MiB). */
  checkpointBytes?: number;
  /** ...or this many entries (default 5000). */
  checkpointEntries?: number;
  /** A lock older than this is taken over, e.g. after a window was killed (default 10 s, minimum 2 s). */
  lockStaleMs?: number;
  /** How long a write waits for another window's lock before failing (default 30 s). */
  lockWaitMs?: number;
}

/** Suffix of the journal file beside the database (not `-journal`, which SQLite itself would claim). */
export const JOURNAL_SUFFIX = '.arbor-journal';

interface Files {
  db: string;
  journal: string;
  lock: string;
}

/**
 * The default conversation store: SQLite (sql.js) in memory, persisted as a database file plus an
 * append-only journal. A write appends one flushed journal line, so its cost does not grow with the
 * store; the journal is folded into the database file (temp file + rename) by periodic checkpoints
 * and on close. Several processes may share one store: writes take a short lock, and every call
 * first catches up with what other processes appended or checkpointed.
 */
export class SqlJsConversationStorage implements ConversationStorage {
  /** Problems found and repaired on open (e.g. a damaged file moved aside); also sent to the logger. */
  readonly warnings: string[] = [];
  private generation = '';
  /** End of the journal lines already applied; null when the journal is not of our generation. */
  private journalOffset: number | null = null;
  private journalEntries = 0;
  private journalId: FileIdentity | null = null;
  private dbId: FileIdentity | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly listeners = new Set<(conversationId: string) => void>();

  private constructor(
    private readonly SQL: SqlJsStatic,
    private db: Database,
    private readonly files: Files | undefined,
    private readonly options: SqlJsStorageOptions,
  ) {}

  /** Opens (or creates) the store at `filePath`, or a purely in-memory store when no path is given. */
  static async open(filePath?: string, options: SqlJsStorageOptions = {}): Promise<SqlJsConversationStorage> {
    const SQL = await loadSqlJs(options);
    if (filePath === undefined) {
      const db = new SQL.Database();
      ensureSchema(db, 'the in-memory store');
      registerQueryFunctions(db);
      return new SqlJsConversationStorage(SQL, db, undefined, options);
    }
    const dbPath = path.resolve(filePath);
    await fs.mkdir(path.dirname(dbPath), { recursive: true });
    const files = { db: dbPath, journal: dbPath + JOURNAL_SUFFIX, lock: dbPath + '.lock' };
    const storage = new SqlJsConversationStorage(SQL, new SQL.Database(), files, options);
    await storage.withLock(() => storage.reload([]));
    return storage;
  }

  /** The database file, or undefined for an in-memory store. */
  get filePath(): string | undefined {
    return this.files?.db;
  }

  saveConversation(state: ConversationState): Promise<void> {
    if (!state || typeof state.conversationId !== 'string' || state.conversationId === '') {
      return Promise.reject(new InvalidArgumentError('saveConversation needs a state with a non-empty conversationId.'));
    }
    return this.mutate(() => ({ entry: { op: 'save', state }, result: undefined }));
  }

  applyChange(conversationId: string, change: ConversationChange): Promise<void> {
    return this.mutate(() => {
      this.requireConversation(conversationId);
      return { entry: { op: 'change', conversationId, change }, result: undefined };
    });
  }

  loadConversation(conversationId: string): Promise<ConversationState | null> {
    return this.read(() => loadState(this.db, conversationId));
  }

  deleteConversation(conversationId: string): Promise<boolean> {
    return this.mutate(() =>
      conversationExists(this.db, conversationId)
        ? { entry: { op: 'delete', conversationIds: [conversationId] }, result: true }
        : { entry: null, result: false },
    );
  }

  listConversations(options: ListOptions = {}): Promise<ConversationSummary[]> {
    return this.read(() => querySummaries(this.db, options));
  }

  countConversations(filter: Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'> = {}): Promise<number> {
    return this.read(() => countMatching(this.db, filter));
  }

  searchConversations(options: SearchOptions): Promise<ConversationSummary[]> {
    return this.read(() => querySummaries(this.db, options ?? {}));
  }

  deleteConversations(filters: DeleteFilters): Promise<number> {
    return this.mutate(() => {
      const ids = idsForDelete(this.db, filters ?? {});
      return ids.length ? { entry: { op: 'delete', conversationIds: ids }, result: ids.length } : { entry: null, result: 0 };
    });
  }

  updateMetadata(conversationId: string, metadata: Record<string, unknown>): Promise<void> {
    return this.mutate(() => {
      this.requireConversation(conversationId);
      const stored = queryRows(this.db, 'SELECT metadata FROM conversations WHERE id = ?', [conversationId]);
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
      const source = loadState(this.db, sourceId);
      if (!source) {
        throw new ConversationNotFoundError(sourceId);
      }
      if (typeof newId !== 'string' || newId === '' || conversationExists(this.db, newId)) {
        throw new InvalidArgumentError(`Cannot fork "${sourceId}" to "${newId}": choose a new, unused, non-empty conversation id.`);
      }
      let nodes = source.nodes;
      let currentNodeId = source.currentNodeId;
      if (options.upToNodeId !== undefined) {
        const byId = new Map(source.nodes.map((node) => [node.nodeId, node]));
        const keep = new Set<string>();
        for (let node = byId.get(options.upToNodeId); node; node = node.parentId === null ? undefined : byId.get(node.parentId)) {
          keep.add(node.nodeId);
        }
        if (!keep.size) {
          throw new NodeNotFoundError(options.upToNodeId, sourceId);
        }
        nodes = source.nodes.filter((node) => keep.has(node.nodeId));
        currentNodeId = options.upToNodeId;
      }
      const now = new Date().toISOString();
      const state: ConversationState = {
        conversationId: newId,
        nodes: structuredClone(nodes),
        currentNodeId,
        metadata: structuredClone(source.metadata),
        tombstones: [...source.tombstones],
        createdAt: now,
        updatedAt: now,
      };
      return { entry: { op: 'save', state }, result: state };
    });
  }

  onDidChange(listener: (conversationId: string) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /**
   * Catches up with changes other processes made and returns the ids they touched (firing
   * `onDidChange` for each). Cheap when nothing changed: two `stat` calls.
   */
  poll(): Promise<string[]> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      await this.catchUp(false, changed);
      this.fire(changed);
      return changed;
    });
  }

  /** Folds the journal into the database file now. */
  checkpoint(): Promise<void> {
    return this.enqueue(async () => {
      if (this.files) {
        const changed: string[] = [];
        await this.withLock(async () => {
          await this.catchUp(true, changed);
          await this.writeCheckpoint();
        });
        this.fire(changed);
      }
    });
  }

  /** Checkpoints, then releases the database; later calls fail with `StorageError`. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      try {
        if (this.files) {
          await this.withLock(async () => {
            await this.catchUp(true, []);
            if (this.journalEntries > 0) {
              await this.writeCheckpoint();
            }
          });
        }
      } finally {
        this.closed = true;
        this.db.close();
        this.listeners.clear();
      }
    });
  }

  private requireConversation(conversationId: string): void {
    if (!conversationExists(this.db, conversationId)) {
      throw new ConversationNotFoundError(conversationId);
    }
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.closed) {
        throw new StorageError('This conversation store is closed; open it again to use it.');
      }
      return task();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private read<T>(query: () => T): Promise<T> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      await this.catchUp(false, changed);
      this.fire(changed);
      return query();
    });
  }

  /**
   * Runs one write: under the lock, catch up, build the entry from the current state (validation
   * errors are thrown here), apply it in a transaction, append and flush it, then commit.
   */
  private mutate<T>(build: () => { entry: JournalEntry | null; result: T }): Promise<T> {
    return this.enqueue(async () => {
      const changed: string[] = [];
      const result = await this.withLock(async () => {
        await this.catchUp(true, changed);
        const { entry, result } = build();
        if (entry) {
          this.db.run('BEGIN');
          try {
            changed.push(...applyEntry(this.db, entry));
            if (this.files) {
              await this.append(entry);
            }
            this.db.run('COMMIT');
          } catch (error) {
            this.db.run('ROLLBACK');
            throw error instanceof StorageError || !this.files
              ? error
              : new StorageError(`Could not write to the conversation store ${this.files.db}: ${String(error)}. Nothing was changed.`, {
                  cause: error,
                });
          }
          await this.maybeCheckpoint();
        }
        return result;
      });
      this.fire(changed);
      return result;
    });
  }

  private async append(entry: JournalEntry): Promise<void> {
    const files = this.files as Files;
    if (this.journalOffset === null) {
      this.journalOffset = await resetJournal(files.journal, this.generation);
      this.journalEntries = 0;
    }
    this.journalOffset = await appendJournal(files.journal, this.journalOffset, [entry]);
    this.journalEntries++;
    this.journalId = await fileIdentity(files.journal);
  }

  private async maybeCheckpoint(): Promise<void> {
    const maxBytes = this.options.checkpointBytes ?? 8 * 1024 * 1024;
    const maxEntries = this.options.checkpointEntries ?? 5000;
    if (this.files && ((this.journalOffset ?? 0) > maxBytes || this.journalEntries > maxEntries)) {
      await this.writeCheckpoint();
    }
  }

  private fire(conversationIds: string[]): void {
    for (const id of new Set(conversationIds)) {
      for (const listener of [...this.listeners]) {
        try {
          listener(id);
        } catch (error) {
          this.options.logger?.warn(`An onDidChange listener failed: ${String(error)}`);
        }
      }
    }
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.options.logger?.warn(message);
  }

  private async withLock<T>(task: () => Promise<T>): Promise<T> {
    if (!this.files) {
      return task();
    }
    const stale = Math.max(2000, this.options.lockStaleMs ?? 10_000);
    const waitMs = this.options.lockWaitMs ?? 30_000;
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(this.files.db, {
        realpath: false,
        lockfilePath: this.files.lock,
        stale,
        update: Math.floor(stale / 2),
        retries: { retries: Math.ceil(waitMs / 50), factor: 1.3, minTimeout: 2, maxTimeout: 50 },
        onCompromised: (error) => this.warn(`The lock on ${this.files?.db} was lost: ${String(error)}`),
      });
    } catch (error) {
      throw new StorageError(
        `Could not lock the conversation store ${this.files.db} within ${waitMs} ms: ${String(error)}. ` +
          `Another Arbor window may be busy with it; if none is, delete ${this.files.lock} and try again.`,
        { cause: error },
      );
    }
    try {
      return await task();
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Brings the in-memory database up to date with the files: a full reload when the database file
   * was replaced (another process checkpointed), otherwise the journal lines appended since the
   * last look. Ids of touched conversations are pushed onto `changed`.
   */
  private async catchUp(holdingLock: boolean, changed: string[]): Promise<void> {
    const files = this.files;
    if (!files) {
      return;
    }
    const dbId = await fileIdentity(files.db);
    if (!sameIdentity(dbId, this.dbId)) {
      if (holdingLock) {
        await this.reload(changed);
      } else {
        await this.withLock(() => this.reload(changed));
      }
      return;
    }
    const journalId = await fileIdentity(files.journal);
    if (sameIdentity(journalId, this.journalId)) {
      return;
    }
    const journal = await readJournal(files.journal, this.journalOffset ?? undefined);
    if (!journal) {
      // Deleted by hand: the next write starts a new one.
      this.journalOffset = null;
      this.journalId = null;
      return;
    }
    if (journal.generation !== this.generation || this.journalOffset === null) {
      // Replaced or damaged without (yet) a new database file seen here: only a full reload is safe.
      if (holdingLock) {
        await this.reload(changed);
      } else {
        await this.withLock(() => this.reload(changed));
      }
      return;
    }
    for (const { entry } of journal.entries) {
      changed.push(...this.replay(entry));
    }
    this.journalEntries += journal.entries.length;
    this.journalOffset = journal.validEnd;
    this.journalId = { ino: journal.stat.ino, size: journal.stat.size, mtimeMs: journal.stat.mtimeMs };
  }

  private replay(entry: JournalEntry): string[] {
    try {
      return this.inTransaction(() => applyEntry(this.db, entry));
    } catch (error) {
      this.warn(`Skipped a journal entry of ${this.files?.journal} that could not be applied: ${String(error)}`);
      return [];
    }
  }

  private inTransaction<T>(fn: () => T): T {
    this.db.run('BEGIN');
    try {
      const result = fn();
      this.db.run('COMMIT');
      return result;
    } catch (error) {
      this.db.run('ROLLBACK');
      throw error;
    }
  }

  /**
   * Loads the database file and replays its journal (caller holds the lock). Repairs what it must:
   * creates a missing store, moves damaged files aside, migrates an older schema, resets a journal
   * that an interrupted checkpoint already folded in. A newer schema major is refused untouched.
   */
  private async reload(changed: string[]): Promise<void> {
    const files = this.files as Files;
    const read = await readDatabaseFile(this.SQL, files.db);
    let db: Database;
    let mustCheckpoint = false;
    if (read.kind === 'ok') {
      db = read.db;
      try {
        mustCheckpoint = ensureSchema(db, files.db);
      } catch (error) {
        db.close();
        throw error;
      }
    } else {
      if (read.kind === 'corrupt') {
        const movedTo = await moveAside(files.db);
        this.warn(`The conversation store ${files.db} could not be opened because ${read.reason}. It was moved to ${movedTo} and a new, empty store was created.`);
      }
      db = new this.SQL.Database();
      ensureSchema(db, files.db);
      mustCheckpoint = true;
    }
    registerQueryFunctions(db);
    let generation = readStoreMeta(db, 'generation');
    const journal = await readJournal(files.journal);
    let journalOffset: number | null = null;
    let journalEntries = 0;
    if (journal && journal.generation === null && journal.size > 0) {
      const movedTo = await moveAside(files.journal);
      this.warn(`The journal ${files.journal} has a damaged header; it was moved to ${movedTo}. Changes in it were not applied.`);
    } else if (journal && journal.generation !== null && journal.generation === generation) {
      const previous = this.db;
      this.db = db;
      try {
        for (const { entry } of journal.entries) {
          this.replay(entry);
        }
      } finally {
        this.db = previous;
      }
      journalOffset = journal.validEnd;
      journalEntries = journal.entries.length;
    } else if (journal && journal.entries.length > 0 && read.kind !== 'ok') {
      const movedTo = await moveAside(files.journal);
      this.warn(`The journal ${files.journal} belongs to a database that is gone; it was moved to ${movedTo}.`);
    }
    if (generation === null) {
      generation = newGeneration();
      writeStoreMeta(db, 'generation', generation);
      mustCheckpoint = true;
    }
    const before = this.summaryVersions();
    this.db.close();
    this.db = db;
    this.generation = generation;
    this.journalOffset = journalOffset;
    this.journalEntries = journalEntries;
    changed.push(...diffVersions(before, this.summaryVersions()));
    if (mustCheckpoint) {
      await this.writeCheckpoint();
    } else {
      if (journalOffset === null) {
        this.journalOffset = await resetJournal(files.journal, generation);
      }
      this.dbId = read.kind === 'ok' ? { ino: read.stat.ino, size: read.stat.size, mtimeMs: read.stat.mtimeMs } : null;
      this.journalId = await fileIdentity(files.journal);
    }
  }

  /** `updated_at` (and node count) per conversation, to tell what a full reload changed. */
  private summaryVersions(): Map<string, string> {
    try {
      const rows = queryRows(this.db, 'SELECT c.id, c.updated_at, (SELECT count(*) FROM nodes n WHERE n.conversation_id = c.id) FROM conversations c');
      return new Map(rows.map(([id, updatedAt, count]) => [String(id), `${String(updatedAt)}#${String(count)}`]));
    } catch {
      return new Map();
    }
  }

  /**
   * Writes the whole database to a temporary file, renames it over the database file, then starts
   * an empty journal of a new generation. A kill between the two steps leaves a journal of the old
   * generation, which the next open recognises as already folded in and discards.
   */
  private async writeCheckpoint(): Promise<void> {
    const files = this.files as Files;
    const previous = this.generation;
    const generation = newGeneration();
    writeStoreMeta(this.db, 'generation', generation);
    try {
      const data = this.db.export();
      registerQueryFunctions(this.db);
      await writeFileAtomic(files.db, data);
    } catch (error) {
      writeStoreMeta(this.db, 'generation', previous);
      throw new StorageError(`Could not write the conversation store ${files.db}: ${String(error)}. The journal still holds every change.`, {
        cause: error,
      });
    }
    this.generation = generation;
    this.dbId = await fileIdentity(files.db);
    this.journalOffset = await resetJournal(files.journal, generation);
    this.journalEntries = 0;
    this.journalId = await fileIdentity(files.journal);
  }
}

function diffVersions(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [id, version] of after) {
    if (before.get(id) !== version) {
      changed.push(id);
    }
  }
  for (const id of before.keys()) {
    if (!after.has(id)) {
      changed.push(id);
    }
  }
  return changed;
}
