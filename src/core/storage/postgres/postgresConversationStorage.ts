/**
 * The team store: conversations in a PostgreSQL database shared by a team, one row per node. Adding a
 * message writes that node only (never the whole conversation again): its id comes from the
 * conversation's `next_seq` and its sibling position from the parent's `next_child`, each taken with
 * `UPDATE … RETURNING` (a row lock) in the same transaction, so any number of writers under one parent
 * get distinct ids and positions. Each person keeps their own current node (`reader_positions`).
 * Row-level security on the connecting role decides which conversations exist for it.
 */
import { postgresClientConfig } from './clientConfig';
import { PostgresFileStore } from './postgresFiles';
import pg from 'pg';
import { ConversationNotFoundError, InvalidArgumentError, StorageError } from '../../errors';
import { Emitter, type ArborEvent } from '../../emitter';
import type { ImageInput } from '../../images/imageInfo';
import type { ConversationState } from '../../types';
import { requireRecord, requireString } from '../../validation';
import { seqOf } from '../conversationTables';
import { extractStateImages, prepareChangeImages } from '../nodeImages';
import { checkChange, checkState } from '../storageChecks';
import type { ChangeResult, ConversationChange, ConversationStorage, ConversationSummary, DeleteFilters, FileChange, FileState, ListOptions, MessageMatch, RecordedFileChange, SearchOptions, StoredImage } from '../storage';
import { memberTeams, migrate, resolveTeam } from './postgresMigrations';
import { forkedState, insertState, loadStateRows } from './postgresNodes';
import { countMatching, foldCollation, messagesWithMetadata, queryMessages, querySummaries, removeMatching, timeParam, type FoldCollation } from './postgresQueries';
import { applyNodeChanges } from './postgresChanges';
import { translateError } from './postgresErrors';
import { keepChangeFeed } from './postgresChangeFeed';

/** How to reach the team store. */
export interface PostgresStoreOptions {
  /** `postgresql://role@host:port/database` (the password is given apart, never in the URL). */
  connectionString: string;
  password?: string;
  ssl?: pg.ClientConfig['ssl'];
  /** The team role of new conversations; default: the only team role the user is a member of (an error naming them if several). */
  team?: string;
  /** Run pending migrations (the owner/administrator does); default true. A role that cannot gets an error naming the version it needs. */
  migrate?: boolean;
  /** Most connections at once (default 4). */
  poolSize?: number;
}

/**
 * What the team store asks of the file and image store (`PostgresFileStore` of `./postgresFiles`):
 * file changes and images of nodes, with the same semantics as the sql.js store's. `addImages` and
 * `copyForFork` run inside the caller's transaction, on its connection.
 */
export interface PostgresFiles {
  recordFileChanges(conversationId: string, nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]>;
  fileChanges(conversationId: string, nodeId: string): Promise<RecordedFileChange[]>;
  fileChangesByNode(conversationId: string): Promise<Record<string, RecordedFileChange[]>>;
  nodeImages(conversationId: string, nodeId: string): Promise<StoredImage[]>;
  imagesByNode(conversationId: string): Promise<Record<string, StoredImage[]>>;
  fileContent(hash: string): Promise<Uint8Array | null>;
  filesStateAt(conversationId: string, nodeId: string): Promise<FileState[]>;
  /** Stores the images of the node with row key `nodeKey`, inside the caller's transaction. */
  addImages(client: pg.PoolClient, nodeKey: string, images: ImageInput[]): Promise<void>;
  /** Copies the file changes and images of forked nodes (source node key → copy's node key), inside the caller's transaction. */
  copyForFork(client: pg.PoolClient, keyMap: ReadonlyMap<string, string>): Promise<void>;
}

/** See the file's comment. Open with `PostgresConversationStorage.open`. */
export class PostgresConversationStorage implements ConversationStorage {
  private closed = false;
  private readonly changeEmitter = new Emitter<string>();
  private filesLoad: Promise<PostgresFiles> | undefined;

  private feed: { dispose(): Promise<void> } | undefined;
  /** The newest change the role could see when the store opened: the feed reports every one after it. */
  private changesAtOpen = 0;
  private readonly feedStatusEmitter = new Emitter<{ status: 'connected' | 'reconnecting'; error?: Error }>();

  /**
   * Fires a conversation id after each change, made by this instance (at once) or by anyone of the
   * role's teams (through the change feed of `./postgresChangeFeed`, which the first subscription
   * starts: a change of this instance is reported by both).
   */
  readonly onDidChange: ArborEvent<string> = (listener) => {
    if (!this.closed) {
      const { connectionString, password, ssl } = this.options;
      this.feed ??= keepChangeFeed({ connectionString, password, ssl, pool: this.pool, startAfter: this.changesAtOpen, onChange: (id) => this.changeEmitter.fire(id), onStatus: (status, error) => this.feedStatusEmitter.fire({ status, error }) });
    }
    return this.changeEmitter.event(listener);
  };

  /** The change feed's connection came up, or was lost and is being re-made (with the error). */
  readonly onDidChangeFeedStatus = this.feedStatusEmitter.event;

  private constructor(
    /** The connections, for the file store and the change feed. */
    readonly pool: pg.Pool,
    /** What the store was opened with. */
    readonly options: Readonly<PostgresStoreOptions>,
    private team: string | undefined,
    /** The collation case-insensitive search folds letters with (see `foldCollation`). */
    private readonly fold: FoldCollation,
    private readonly filesFactory: ((pool: pg.Pool) => PostgresFiles | Promise<PostgresFiles>) | undefined,
  ) {}

  /**
   * Connects, brings the schema up to date (or checks it is) and finds the team of new conversations.
   * `files` makes the file and image store (default: `PostgresFileStore`, made the first time a file or
   * image is used).
   */
  static async open(options: PostgresStoreOptions, files?: (pool: pg.Pool) => PostgresFiles): Promise<PostgresConversationStorage> {
    requireString(options?.connectionString, 'connectionString');
    const pool = new pg.Pool({ ...postgresClientConfig(options), max: options.poolSize ?? 4 });
    // An idle connection the server drops must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, options.migrate ?? true);
        const team = await resolveTeam(client, options.team);
        const store = new PostgresConversationStorage(pool, { ...options }, team, await foldCollation(client), files);
        store.changesAtOpen = Number((await client.query<{ max: string }>('SELECT coalesce(max(id), 0)::text AS max FROM changes')).rows[0].max);
        return store;
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw translateError(error, options.connectionString);
    }
  }

  /** The team role new conversations go to; undefined when the role belongs to no team. */
  get newConversationTeam(): string | undefined {
    return this.team;
  }

  /** Writes a whole conversation, replacing the one stored under its id (its file changes and images go with it). */
  async saveConversation(state: ConversationState): Promise<void> {
    checkState(state);
    const extracted = extractStateImages(state);
    const stripped = extracted?.state ?? state;
    const createdAt = timeParam(state.createdAt, 'state.createdAt');
    const updatedAt = timeParam(state.updatedAt, 'state.updatedAt');
    const files = extracted ? await this.files() : undefined;
    await this.transaction(async (client) => {
      const existing = await client.query<{ key: string }>('SELECT key FROM conversations WHERE id = $1 FOR UPDATE', [state.conversationId]);
      let key: string;
      const nextSeq = Math.max(state.nextNodeSeq ?? 0, ...state.nodes.map((node) => seqOf(node.nodeId) + 1));
      const row = [state.conversationId, JSON.stringify(state.metadata), nextSeq, seqOf(state.currentNodeId), createdAt, updatedAt];
      if (existing.rows.length) {
        key = existing.rows[0].key;
        await client.query('DELETE FROM nodes WHERE conversation = $1', [key]);
        await client.query('UPDATE conversations SET metadata = $2, next_seq = $3, current_seq = $4, created_at = $5, updated_at = $6 WHERE id = $1', row);
      } else {
        key = await this.insertConversation(client, row, this.requireTeam());
      }
      const keys = await insertState(client, key, stripped);
      await client.query('INSERT INTO reader_positions (conversation, seq) VALUES ($1, $2) ON CONFLICT (conversation, reader) DO UPDATE SET seq = excluded.seq', [key, seqOf(state.currentNodeId)]);
      for (const [nodeId, images] of extracted?.images ?? []) {
        await files?.addImages(client, keys.get(nodeId) as string, images.map((image) => ({ bytes: image.bytes, mime: image.mime, name: image.name })));
      }
    });
    this.changeEmitter.fire(state.conversationId);
  }

  /** Applies a change in one transaction: each added node is one row, under its parent's and its conversation's row locks. */
  async applyChange(conversationId: string, change: ConversationChange): Promise<ChangeResult> {
    checkChange(conversationId, change);
    prepareChangeImages(change);
    const files = change.addImages?.some((images) => images?.length) ? await this.files() : undefined;
    const result = await this.transaction(async (client) => {
      const applied = await applyNodeChanges(client, conversationId, change);
      for (const [i, images] of (change.addImages ?? []).entries()) {
        if (images?.length) await files?.addImages(client, applied.addedKeys[i], images as ImageInput[]);
      }
      return { addedNodes: applied.addedNodes };
    });
    this.changeEmitter.fire(conversationId);
    return result;
  }

  async loadConversation(conversationId: string): Promise<ConversationState | null> {
    requireString(conversationId, 'conversationId');
    return (await this.run((db) => loadStateRows(db, conversationId)))?.state ?? null;
  }

  async deleteConversation(conversationId: string): Promise<boolean> {
    requireString(conversationId, 'conversationId');
    const deleted = await this.run(async (db) => (await db.query('DELETE FROM conversations WHERE id = $1', [conversationId])).rowCount === 1);
    if (deleted) this.changeEmitter.fire(conversationId);
    return deleted;
  }

  listConversations(options: ListOptions = {}): Promise<ConversationSummary[]> {
    return this.run((db) => querySummaries(db, options ?? {}, this.fold));
  }

  countConversations(filter: Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'> = {}): Promise<number> {
    return this.run((db) => countMatching(db, filter ?? {}, this.fold));
  }

  searchConversations(options: SearchOptions): Promise<ConversationSummary[]> {
    return this.run((db) => querySummaries(db, options ?? {}, this.fold));
  }

  searchMessages(query: string, options: { limit?: number } = {}): Promise<MessageMatch[]> {
    requireString(query, 'query', { allowEmpty: true });
    return this.run((db) => queryMessages(db, query, options?.limit, this.fold));
  }

  findMessages(options: { filterMetadata: Record<string, unknown>; limit?: number }): Promise<MessageMatch[]> {
    requireRecord(options?.filterMetadata, 'filterMetadata');
    return this.run((db) => messagesWithMetadata(db, options.filterMetadata, options.limit));
  }

  async deleteConversations(filters: DeleteFilters): Promise<number> {
    return (await this.removeConversations(filters)).length;
  }

  async removeConversations(filters: DeleteFilters): Promise<ConversationSummary[]> {
    const removed = await this.transaction((client) => removeMatching(client, filters ?? {}, this.fold));
    for (const summary of removed) this.changeEmitter.fire(summary.conversationId);
    return removed;
  }

  async updateMetadata(conversationId: string, metadata: Record<string, unknown>): Promise<void> {
    requireString(conversationId, 'conversationId');
    requireRecord(metadata, 'metadata');
    const removed = Object.keys(metadata).filter((key) => metadata[key] === undefined);
    const set = JSON.stringify(metadata);
    const result = await this.run((db) =>
      db.query('UPDATE conversations SET metadata = (metadata - $2::text[]) || $3::jsonb, updated_at = $4 WHERE id = $1', [conversationId, removed, set, new Date().toISOString()]),
    );
    if (result.rowCount === 0) throw new ConversationNotFoundError(conversationId);
    this.changeEmitter.fire(conversationId);
  }

  /** Copies a conversation (or the path root→a node) into the source's team, with its file changes and images. */
  async forkConversation(sourceId: string, newId: string, options: { upToNodeId?: string } = {}): Promise<ConversationState> {
    requireString(sourceId, 'sourceId');
    const files = await this.files();
    const state = await this.transaction(async (client) => {
      const source = await loadStateRows(client, sourceId);
      if (!source) throw new ConversationNotFoundError(sourceId);
      requireString(newId, 'newId', { name: true });
      const taken = await client.query('SELECT 1 FROM conversations WHERE id = $1', [newId]);
      if (taken.rows.length) throw new InvalidArgumentError(`Cannot fork "${sourceId}" to "${newId}": choose a new, unused, non-empty conversation id.`);
      const copy = forkedState(source.state, newId, options.upToNodeId);
      const team = (await client.query<{ team: string }>('SELECT team FROM conversations WHERE key = $1', [source.conversationKey])).rows[0].team;
      const row = [newId, JSON.stringify(copy.metadata), copy.nextNodeSeq, seqOf(copy.currentNodeId), copy.createdAt, copy.updatedAt];
      const key = await this.insertConversation(client, row, team);
      const keys = await insertState(client, key, copy);
      await client.query('INSERT INTO reader_positions (conversation, seq) VALUES ($1, $2)', [key, seqOf(copy.currentNodeId)]);
      // Without the file store's module there are no file tables (its migration comes with it): nothing to copy.
      await files?.copyForFork(client, new Map(copy.nodes.map((node) => [source.nodeKeys.get(node.nodeId) as string, keys.get(node.nodeId) as string])));
      return copy;
    });
    this.changeEmitter.fire(newId);
    return state;
  }

  async recordFileChanges(conversationId: string, nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]> {
    const result = await this.withFiles((files) => files.recordFileChanges(conversationId, nodeId, changes));
    this.changeEmitter.fire(conversationId);
    return result;
  }

  fileChanges(conversationId: string, nodeId: string): Promise<RecordedFileChange[]> {
    return this.withFiles((files) => files.fileChanges(conversationId, nodeId));
  }

  fileChangesByNode(conversationId: string): Promise<Record<string, RecordedFileChange[]>> {
    return this.withFiles((files) => files.fileChangesByNode(conversationId));
  }

  nodeImages(conversationId: string, nodeId: string): Promise<StoredImage[]> {
    return this.withFiles((files) => files.nodeImages(conversationId, nodeId));
  }

  imagesByNode(conversationId: string): Promise<Record<string, StoredImage[]>> {
    return this.withFiles((files) => files.imagesByNode(conversationId));
  }

  fileContent(hash: string): Promise<Uint8Array | null> {
    return this.withFiles((files) => files.fileContent(hash));
  }

  filesStateAt(conversationId: string, nodeId: string): Promise<FileState[]> {
    return this.withFiles((files) => files.filesStateAt(conversationId, nodeId));
  }

  /** Closes every connection; later calls fail with `StorageError`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.changeEmitter.dispose();
    this.feedStatusEmitter.dispose();
    await this.feed?.dispose();
    await this.pool.end();
  }

  /** The teams the connecting role belongs to (to offer a choice when it has several). */
  teams(): Promise<string[]> {
    return this.run((db) => memberTeams(db));
  }

  private requireTeam(): string {
    if (this.team === undefined) {
      throw new StorageError(`The role of this connection belongs to no team of the team store, so it cannot create conversations. Ask the administrator to grant it a team role (see the README's "Team store").`);
    }
    return this.team;
  }

  /** Inserts a conversation row; an id another team uses (invisible here) is refused with a clear message. */
  private async insertConversation(client: pg.PoolClient, row: unknown[], team: string): Promise<string> {
    await client.query('SAVEPOINT insert_conversation');
    try {
      const inserted = await client.query<{ key: string }>(
        'INSERT INTO conversations (id, metadata, next_seq, current_seq, created_at, updated_at, team) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING key',
        [...row, team],
      );
      await client.query('RELEASE SAVEPOINT insert_conversation');
      return inserted.rows[0].key;
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT insert_conversation');
      if ((error as { code?: string }).code === '23505') {
        throw new InvalidArgumentError(`The conversation id "${String(row[0])}" is already used in the team store by a conversation this role cannot see (another team's); choose another id.`);
      }
      throw error;
    }
  }

  private filesLoaded(): Promise<PostgresFiles> {
    this.filesLoad ??= Promise.resolve(this.filesFactory ? this.filesFactory(this.pool) : new PostgresFileStore(this.pool));
    return this.filesLoad;
  }

  /** The file and image store. */
  private async files(): Promise<PostgresFiles> {
    this.ensureOpen();
    return this.filesLoaded();
  }

  private async withFiles<T>(fn: (files: PostgresFiles) => Promise<T>): Promise<T> {
    const files = await this.files();
    try {
      return await fn(files);
    } catch (error) {
      throw translateError(error, this.options.connectionString);
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StorageError('This conversation store is closed; open it again to use it.');
  }

  /** Runs queries on the pool (each its own transaction), with errors made readable. */
  private async run<T>(fn: (db: pg.Pool) => Promise<T>): Promise<T> {
    this.ensureOpen();
    try {
      return await fn(this.pool);
    } catch (error) {
      throw translateError(error, this.options.connectionString);
    }
  }

  /** Runs `fn` in one transaction on one connection: all of it is stored, or none. */
  private async transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.ensureOpen();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw translateError(error, this.options.connectionString);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw translateError(error, this.options.connectionString);
    } finally {
      client.release(broken);
    }
  }
}
