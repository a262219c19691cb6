import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { StorageError } from '../errors';
import { registerQueryFunctions } from './conversationQueries';
import { applyEntry, inTransaction, queryRows, readStoreMeta, writeStoreMeta } from './conversationTables';
import { fileIdentity, moveAside, readDatabaseFile, sameIdentity, type FileIdentity } from './databaseFile';
import { appendJournal, newGeneration, preserveDamagedLines, readJournal, resetJournal, writeFileAtomic, type JournalEntry } from './journal';
import { applyLegacyEntry, migrateV1ToCurrent, type LegacyJournalEntry } from './legacyV1';
import { describeLosses, salvageGeneration, salvageInto, type SalvageReport } from './salvage';
import { removeLeftoverLockFolders, withStoreLock } from './storeLock';
import { CURRENT_SCHEMA, checkSchemaReadable, createSchema, formatSchemaVersion, upgradeSchema } from './schema';

/** How many times an open reads the database file and journal again when a checkpoint replaced the file in between. */
const MAX_REREADS = 20;

const identityOf = (stat: Stats): FileIdentity => ({ ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs });

/** Suffix of the copy of a 1.x store kept beside it when it is migrated to schema 2.0. */
export const LEGACY_BACKUP_SUFFIX = '.v1.bak';

/** What a write to a read-only store is told. */
function readOnlyMessage(file: string): string {
  return `The conversation store ${file} is read-only (its file or folder may not be written): Arbor shows its conversations but cannot change them. Make it writable and reopen it to write.`;
}

/** Tuning of the journal, checkpoints and the cross-process lock. */
export interface JournalOptions {
  /** Fold the journal into the database file once it passes this many bytes (default 8 MiB). */
  checkpointBytes?: number;
  /** ...or this many entries (default 5000). */
  checkpointEntries?: number;
  /** A lock older than this is taken over, e.g. after a window was killed (default 10 s, minimum 2 s). */
  lockStaleMs?: number;
  /** How long a write waits for another window's lock before failing (default 30 s). */
  lockWaitMs?: number;
  /**
   * The store's file or folder may not be written (no write permission): read it as it is, never
   * lock, checkpoint, repair or migrate on disk, and refuse every write with a `StorageError`.
   */
  readOnly?: boolean;
}

/** The files of one store. */
export interface StoreFiles {
  db: string;
  journal: string;
  lock: string;
}

/**
 * A sql.js database kept in step with its files: the database file (written only by checkpoints,
 * through a temporary file and a rename) and the journal of changes since (appended and flushed per
 * write). It catches up with other processes' appends and checkpoints, and takes the shared lock
 * for writes. Without files it is a plain in-memory database.
 */
export class JournaledDatabase {
  private generation = '';
  /** End of the journal lines already applied; null when the journal is not of our generation. */
  private journalOffset: number | null = null;
  private journalEntries = 0;
  private journalId: FileIdentity | null = null;
  private dbId: FileIdentity | null = null;

  constructor(
    private readonly SQL: SqlJsStatic,
    /** The live database; replaced when another process's checkpoint is loaded. */
    public db: Database,
    readonly files: StoreFiles | undefined,
    private readonly options: JournalOptions,
    /** Reports a problem; `notify` marks one the user should hear about (damage, quarantine). */
    private readonly warn: (message: string, notify?: boolean) => void,
  ) {}

  /** Opens the files under the lock: loads, repairs or creates them (see `reload`). */
  async load(): Promise<void> {
    if (this.options.readOnly) {
      await this.reload([]);
      return;
    }
    await this.withLock(async () => {
      await this.removeOrphanTempFiles();
      await this.reload([]);
    });
  }

  /**
   * Deletes temporary files of checkpoints that a killed process never renamed. Safe under the lock:
   * every checkpoint runs under it, so no live process is writing one now.
   */
  private async removeOrphanTempFiles(): Promise<void> {
    const files = this.files as StoreFiles;
    const prefixes = [`${path.basename(files.db)}.tmp-`, `${path.basename(files.journal)}.tmp-`];
    const dir = path.dirname(files.db);
    for (const name of await fs.readdir(dir)) {
      if (prefixes.some((prefix) => name.startsWith(prefix))) await fs.rm(path.join(dir, name), { recursive: true, force: true });
    }
    // Lock folders on their way in or out belong to other processes for a moment: only those of gone processes are leftovers.
    await removeLeftoverLockFolders(files.lock);
  }

  /**
   * Applies `entry` in a transaction, appends and flushes it to the journal, then commits; checkpoints
   * when the journal is large. The caller holds the lock and has caught up. Returns touched ids.
   */
  async commit(entry: JournalEntry): Promise<string[]> {
    if (this.options.readOnly) throw new StorageError(readOnlyMessage(this.files?.db ?? 'the store'));
    this.db.run('BEGIN');
    let touched: string[];
    try {
      touched = applyEntry(this.db, entry);
      if (this.files) {
        await this.append(entry);
      }
      this.db.run('COMMIT');
    } catch (error) {
      this.db.run('ROLLBACK');
      throw error instanceof StorageError || !this.files
        ? error
        : new StorageError(`Could not write to the conversation store ${this.files.db}: ${String(error)}. Nothing was changed.`, { cause: error });
    }
    try {
      await this.maybeCheckpoint();
    } catch (error) {
      // The change is safe in the journal; the next write or close tries the checkpoint again.
      this.warn(`A checkpoint of ${this.files?.db} failed and will be retried: ${String(error)}`);
    }
    return touched;
  }

  /** Folds the journal into the database file (caller holds the lock and has caught up). */
  async checkpoint(onlyIfJournalHasEntries = false): Promise<void> {
    if (this.options.readOnly) return;
    if (this.files && (!onlyIfJournalHasEntries || this.journalEntries > 0)) {
      await this.writeCheckpoint();
    }
  }

  private async append(entry: JournalEntry): Promise<void> {
    const files = this.files as StoreFiles;
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

  /**
   * Rebuilds the store from what can still be read of it, after a read failed on damaged data (a
   * row whose JSON no longer parses, a page SQLite calls malformed): the file as it was is moved
   * aside, the readable conversations go into a fresh database, which is checkpointed.
   */
  async recoverFromDamage(reason: string, changed: string[]): Promise<void> {
    await this.withLock(async () => {
      await this.catchUp(true, changed);
      const fresh = new this.SQL.Database();
      createSchema(fresh);
      const report = salvageInto(this.db, fresh);
      registerQueryFunctions(fresh);
      const movedTo = this.files && !this.options.readOnly ? await moveAside(this.files.db) : undefined;
      const before = this.summaryVersions();
      this.db.close();
      this.db = fresh;
      // A salvage keeps or loses conversations, never adds one: each of them may have changed.
      changed.push(...before.keys());
      this.warn(
        `A read of the conversation store ${this.files?.db ?? '(in memory)'} failed on damaged data (${reason}). ` +
          `${movedTo ? `The file was moved to ${movedTo} and t` : 'T'}he store was rebuilt from what could be read: ${report.conversations} conversation(s) with ${report.nodes} message(s). ` +
          describeLosses(report),
        true,
      );
      if (this.files && !this.options.readOnly) await this.writeCheckpoint();
    });
  }

  /** Runs `task` holding the store's cross-process lock (no lock in memory). */
  async withLock<T>(task: () => Promise<T>): Promise<T> {
    if (!this.files || this.options.readOnly) {
      return task();
    }
    return withStoreLock(this.files, this.options, this.warn, task);
  }

  /**
   * Brings the in-memory database up to date with the files: a full reload when the database file
   * was replaced (another process checkpointed), otherwise the journal lines appended since the
   * last look. Ids of touched conversations are pushed onto `changed`.
   */
  async catchUp(holdingLock: boolean, changed: string[]): Promise<void> {
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
    if (journal.generation !== this.generation || this.journalOffset === null || journal.damaged.length > 0) {
      // Replaced or damaged without (yet) a new database file seen here: only a full reload is safe
      // (it also copies damaged lines aside and checkpoints past them).
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
    return this.replayOn(this.db, () => applyEntry(this.db, entry)) ?? [];
  }

  private replayOn<T>(db: Database, apply: () => T): T | undefined {
    try {
      return inTransaction(db, apply);
    } catch (error) {
      this.warn(`Skipped a journal entry of ${this.files?.journal} that could not be applied: ${String(error)}`);
      return undefined;
    }
  }

  /**
   * Converts a 1.x store (its journal already replayed) to schema 2.0 in memory, after writing the
   * 1.x data as it stands to `<file>.v1.bak`, a store the release before can still open. The
   * caller then checkpoints: until that rename the file on disk is the old store, after it the new
   * one, so a kill at any instant leaves one of the two, whole.
   */
  private async migrateLegacy(db: Database): Promise<void> {
    const files = this.files as StoreFiles;
    const backup = files.db + LEGACY_BACKUP_SUFFIX;
    await writeFileAtomic(backup, db.export());
    registerQueryFunctions(db);
    try {
      inTransaction(db, () => migrateV1ToCurrent(db));
    } catch (error) {
      db.close();
      throw new StorageError(
        `Could not migrate ${files.db} to storage schema ${formatSchemaVersion(CURRENT_SCHEMA)}: ${String(error)}. The file on disk was not changed; a copy is in ${backup}.`,
        { cause: error },
      );
    }
    this.warn(`The conversation store ${files.db} was migrated to storage schema ${formatSchemaVersion(CURRENT_SCHEMA)}; the previous file is kept as ${backup} until you delete it.`);
  }

  /**
   * Loads the database file and replays its journal (caller holds the lock). Repairs what it must:
   * creates a missing store, moves damaged files aside, migrates an older schema, resets a journal
   * that an interrupted checkpoint already folded in. A newer schema major is refused untouched.
   * The database file and the journal are read as a pair: when the journal is of another generation
   * because the database file was replaced after it was read (a checkpoint by a process that took the
   * lock over, or any writer when read-only), both are read again, so a journal is never taken for a
   * leftover, nor reset, while its entries are in no file this read saw.
   */
  private async reload(changed: string[], attempt = 0): Promise<void> {
    // Read-only: nothing below may write (see the `readOnly` checks), and there is no lock to hold.
    const files = this.files as StoreFiles;
    const read = await readDatabaseFile(this.SQL, files.db);
    let db: Database;
    let mustCheckpoint = false;
    let legacy = false;
    let salvaged: { movedTo: string; reason: string; report: SalvageReport } | undefined;
    if (read.kind === 'ok') {
      db = read.db;
      try {
        const version = checkSchemaReadable(db, files.db);
        legacy = version.major === 1;
        if (version.major === 0) {
          createSchema(db);
          mustCheckpoint = true;
        } else if (!legacy && inTransaction(db, () => upgradeSchema(db))) {
          // Before the journal is replayed: envelopes in it need the 2.1 triggers (fileCheckpointSchema.ts).
          mustCheckpoint = true;
        }
      } catch (error) {
        db.close();
        throw error;
      }
    } else if (read.kind === 'damaged') {
      let version;
      try {
        version = checkSchemaReadable(read.db, files.db);
      } catch (error) {
        read.db.close();
        throw error;
      }
      const movedTo = this.options.readOnly ? `nowhere (the store is read-only; it was read as it is)` : await moveAside(files.db);
      db = new this.SQL.Database();
      createSchema(db);
      if (version.major === CURRENT_SCHEMA.major) {
        const report = salvageInto(read.db, db);
        const generation = salvageGeneration(read.db);
        // The journal written against the damaged file still applies on top of what was saved from it.
        if (generation) writeStoreMeta(db, 'generation', generation);
        salvaged = { movedTo, reason: read.reason, report };
      } else {
        this.warn(`The conversation store ${files.db} is damaged (${read.reason}). It was moved to ${movedTo} and a new, empty store was created.`, true);
      }
      read.db.close();
      mustCheckpoint = true;
    } else {
      if (read.kind === 'corrupt' && this.options.readOnly) {
        throw new StorageError(`The conversation store ${files.db} could not be opened because ${read.reason}, and it is read-only, so it cannot be set aside. Make its folder writable and open it again.`);
      }
      if (read.kind === 'corrupt') {
        const movedTo = await moveAside(files.db);
        this.warn(`The conversation store ${files.db} could not be opened because ${read.reason}. It was moved to ${movedTo} and a new, empty store was created.`, true);
      }
      db = new this.SQL.Database();
      createSchema(db);
      mustCheckpoint = true;
    }
    registerQueryFunctions(db);
    let generation = readStoreMeta(db, 'generation');
    const journal = await readJournal(files.journal);
    if (read.kind === 'ok' && journal?.generation && journal.generation !== generation && attempt < MAX_REREADS && !sameIdentity(await fileIdentity(files.db), identityOf(read.stat))) {
      db.close();
      return this.reload(changed, attempt + 1);
    }
    let journalOffset: number | null = null;
    let journalEntries = 0;
    if (journal && journal.generation === null && journal.size > 0 && this.options.readOnly) {
      this.warn(`The journal ${files.journal} has a damaged header; its changes were not applied (the store is read-only, so it was left in place).`, true);
    } else if (journal && journal.generation === null && journal.size > 0) {
      const movedTo = await moveAside(files.journal);
      this.warn(`The journal ${files.journal} has a damaged header; it was moved to ${movedTo}. Changes in it were not applied.`, true);
    } else if (journal && journal.generation !== null && journal.generation === generation) {
      for (const { entry } of journal.entries) {
        if (legacy) this.replayOn(db, () => applyLegacyEntry(db, entry as unknown as LegacyJournalEntry));
        else this.replayOn(db, () => applyEntry(db, entry));
      }
      journalOffset = journal.validEnd;
      journalEntries = journal.entries.length;
      if (journal.damaged.length > 0) {
        // The intact entries around the damage are applied; the checkpoint below folds them into the
        // database file and starts a clean journal, so the damage is reported once.
        const copiedTo = this.options.readOnly ? 'nowhere (the store is read-only)' : await preserveDamagedLines(files.journal, journal.damaged);
        const lines = journal.damaged.length === 1 ? '1 damaged line' : `${journal.damaged.length} damaged lines`;
        this.warn(
          `The conversation journal ${files.journal} had ${lines}, copied to ${copiedTo}; the ${journal.entries.length} intact changes in it were kept. ` +
            'A change in a damaged line may be missing: the copy can be inspected by hand.',
          true,
        );
        mustCheckpoint = true;
      }
    } else if (journal && journal.entries.length > 0 && read.kind !== 'ok' && !this.options.readOnly) {
      const movedTo = await moveAside(files.journal);
      this.warn(`The journal ${files.journal} belongs to a database that is gone; it was moved to ${movedTo}.`);
    }
    if (salvaged) {
      const { report } = salvaged;
      const lost = describeLosses(report);
      this.warn(
        `The conversation store ${files.db} was damaged (${salvaged.reason}). It was moved to ${salvaged.movedTo}, and a new store was rebuilt from it: ` +
          `${report.conversations} conversation(s) with ${report.nodes} message(s), plus ${journalEntries} later change(s) from the journal. ${lost}`,
        true,
      );
    }
    if (legacy && this.options.readOnly) {
      inTransaction(db, () => migrateV1ToCurrent(db));
      this.warn(`The conversation store ${files.db} is of storage schema 1.x and read-only: it was converted in memory to be read; the file stays as it is.`);
    } else if (legacy) {
      await this.migrateLegacy(db);
      journalOffset = null;
      journalEntries = 0;
      mustCheckpoint = true;
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
    if (mustCheckpoint && !this.options.readOnly) {
      await this.writeCheckpoint();
    } else {
      if (journalOffset === null && !this.options.readOnly) {
        this.journalOffset = await resetJournal(files.journal, generation);
      }
      this.dbId = read.kind === 'ok' ? identityOf(read.stat) : null;
      // The journal as it was read: lines appended since are read by the next catch-up, not skipped.
      this.journalId = journal && journalOffset !== null ? identityOf(journal.stat) : await fileIdentity(files.journal);
    }
  }

  /** `updated_at` (and node count) per conversation, to tell what a full reload changed. */
  private summaryVersions(): Map<string, string> {
    try {
      const rows = queryRows(this.db, 'SELECT c.id, c.updated_at, (SELECT count(*) FROM nodes n WHERE n.conversation = c.key) FROM conversations c');
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
    const files = this.files as StoreFiles;
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
