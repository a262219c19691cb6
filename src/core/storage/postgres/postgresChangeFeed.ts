/**
 * The team store's live feed: which conversations changed, as soon as their transactions commit, on
 * every machine connected to the same database.
 *
 * A dedicated `pg.Client` (never a pooled one: the pool closes idle clients, and their LISTEN with them)
 * listens on `arbor_changes`. A notification carries a `changes.id` only; the feed then reads the new
 * rows of `changes` through the store's pool, where row-level security leaves only the changes of the
 * connecting role's teams, and reports each distinct conversation id once per batch. Notifications are
 * not replayed after a lost connection, so the feed reconnects with backoff and catches up from the last
 * id it saw.
 *
 * Ids are handed out when a row is inserted, but transactions commit in their own order: a change with
 * a smaller id can commit after one with a larger id. While connected, the notification names that id,
 * and the feed reads it even though it is below the last seen. After a reconnection there is no such
 * notification, so the catch-up looks back `CATCH_UP_LOOKBACK` ids below the last seen and skips the ids
 * it already reported.
 */
import pg from 'pg';
import { postgresClientConfig } from './clientConfig';
import { CHANGES_CHANNEL } from './postgresSchema';

/** How the feed connects and whom it tells. */
export interface PostgresChangeFeedOptions {
  /** Where the store is, as for the pool (without a password: see `password`). */
  connectionString: string;
  password?: string;
  ssl?: pg.ConnectionConfig['ssl'];
  /** The store's pool: the feed's catch-up queries run there, under the same role. */
  pool: pg.Pool;
  /** A conversation the role may see changed (was created, written, moved or deleted). */
  onChange(conversationId: string): void;
  /** The listening connection is up (`connected`), or was lost and is being re-made (`reconnecting`). */
  onStatus?(status: 'connected' | 'reconnecting', error?: Error): void;
  /**
   * Report the changes after this id, including those committed before the feed listened (a store
   * passes the newest id it saw when it opened, so nothing between its open and its feed is missed).
   * Default: the newest change when the feed starts.
   */
  startAfter?: number;
}

/** How far below the last seen id a catch-up after a reconnection looks (see the file's comment). */
export const CATCH_UP_LOOKBACK = 1000;
/** Reconnection delays: the first, doubled each failure up to the last. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 10_000;
/** The pause before reading again after the pool failed to read the new changes. */
const DRAIN_RETRY_MS = 1000;

/** Listens for changes of the store's conversations; `start` resolves once it listens. */
export class PostgresChangeFeed {
  private client: pg.Client | undefined;
  private lastSeen = 0;
  /** Ids reported that are within `CATCH_UP_LOOKBACK` of the last seen (so a catch-up skips them). */
  private readonly reported = new Set<number>();
  /** Ids named by notifications not read yet. */
  private readonly notified = new Set<number>();
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  private lookBack = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private drainRetry: NodeJS.Timeout | undefined;
  private failures = 0;
  private disposed = false;

  private constructor(private readonly options: PostgresChangeFeedOptions) {}

  /**
   * Connects, listens, and starts from the newest change the role can see (earlier changes are not
   * reported) or from `startAfter`. Rejects when the first connection fails, with the server's error.
   */
  static async start(options: PostgresChangeFeedOptions): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(options);
    await feed.connect();
    try {
      // Listening before reading the newest id: a change committed in between is reported, not lost.
      if (options.startAfter === undefined) {
        const { rows } = await options.pool.query<{ max: string | null }>('SELECT max(id)::text AS max FROM changes');
        feed.lastSeen = Number(rows[0]?.max ?? 0);
      } else {
        feed.lastSeen = options.startAfter;
        await feed.readChanges();
      }
    } catch (error) {
      await feed.dispose();
      throw error;
    }
    options.onStatus?.('connected');
    return feed;
  }

  /** Stops listening and closes the feed's connection (the pool is the store's, and stays open). */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.drainRetry);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
    }
    await this.draining?.catch(() => undefined);
  }

  private async connect(): Promise<void> {
    // The URL parsed first: pg drops a password given beside a connection string (see clientConfig.ts).
    const client = new pg.Client({ ...postgresClientConfig(this.options), keepAlive: true, application_name: 'arbor change feed' });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (!this.disposed) this.reconnectLater(error ?? new Error('The team store closed the change feed\'s connection.'));
    };
    // An idle client's error is emitted, not thrown: without this listener it would end the process.
    client.on('error', (error) => onLost(error));
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL) return;
      const id = Number(message.payload);
      if (Number.isSafeInteger(id) && id > 0) this.notified.add(id);
      this.drain();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      lost = true;
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
  }

  private reconnectLater(error: Error): void {
    if (this.disposed || this.retryTimer) return;
    this.options.onStatus?.('reconnecting', error);
    const delay = Math.min(FIRST_RETRY_MS * 2 ** this.failures, MAX_RETRY_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.reconnect();
    }, delay);
  }

  private async reconnect(): Promise<void> {
    if (this.disposed) return;
    try {
      await this.connect();
    } catch (error) {
      this.failures++;
      this.reconnectLater(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.disposed) {
      await this.dispose();
      return;
    }
    this.failures = 0;
    this.lookBack = true;
    this.options.onStatus?.('connected');
    this.drain();
  }

  /** Reads what is new (one batch at a time; a request during a batch runs one more after it). */
  private drain(): void {
    if (this.disposed) return;
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = this.readChanges()
      .catch(() => {
        // The pool could not read (the server is going down or restarting): the same rows are asked
        // for again, looking back, after a pause, once the listening connection is back, or on the
        // next notification, whichever comes first.
        this.lookBack = true;
        if (!this.disposed) this.drainRetry ??= setTimeout(() => {
          this.drainRetry = undefined;
          this.drain();
        }, DRAIN_RETRY_MS);
      })
      .finally(() => {
        this.draining = undefined;
        if (this.drainAgain) {
          this.drainAgain = false;
          this.drain();
        }
      });
  }

  private async readChanges(): Promise<void> {
    const named = [...this.notified];
    this.notified.clear();
    const lookBack = this.lookBack;
    this.lookBack = false;
    const from = lookBack ? Math.max(0, this.lastSeen - CATCH_UP_LOOKBACK) : this.lastSeen;
    let rows: { id: string; conversation_id: string }[];
    try {
      ({ rows } = await this.options.pool.query<{ id: string; conversation_id: string }>(
        'SELECT id::text AS id, conversation_id FROM changes WHERE id > $1 OR id = ANY($2::bigint[]) ORDER BY id',
        [from, named],
      ));
    } catch (error) {
      for (const id of named) this.notified.add(id);
      throw error;
    }
    const changed = new Set<string>();
    for (const row of rows) {
      const id = Number(row.id);
      if (this.reported.has(id)) continue;
      this.reported.add(id);
      if (id > this.lastSeen) this.lastSeen = id;
      changed.add(row.conversation_id);
    }
    for (const id of this.reported) if (id <= this.lastSeen - CATCH_UP_LOOKBACK) this.reported.delete(id);
    if (this.disposed) return;
    for (const conversationId of changed) {
      try {
        this.options.onChange(conversationId);
      } catch {
        // A listener's failure is its own; the other conversations are still reported.
      }
    }
  }
}

/**
 * A feed kept running for a store's lifetime: like `PostgresChangeFeed.start`, but a first connection
 * that fails is retried with the same backoff (reported as `reconnecting` with its error) instead of
 * failing, since the store itself may work again before the feed does.
 */
export function keepChangeFeed(options: PostgresChangeFeedOptions): { dispose(): Promise<void> } {
  let feed: PostgresChangeFeed | undefined;
  let disposed = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  const attempt = (): void => {
    PostgresChangeFeed.start(options).then(
      async (started) => {
        if (disposed) await started.dispose();
        else feed = started;
      },
      (error: unknown) => {
        if (disposed) return;
        options.onStatus?.('reconnecting', error instanceof Error ? error : new Error(String(error)));
        timer = setTimeout(attempt, Math.min(FIRST_RETRY_MS * 2 ** failures++, MAX_RETRY_MS));
      },
    );
  };
  attempt();
  return {
    async dispose() {
      disposed = true;
      clearTimeout(timer);
      await feed?.dispose();
    },
  };
}
