/**
 * File checkpoints and images of messages in the team store (migration 2, `postgresFilesSchema.ts`),
 * with the semantics of the sql.js store (`fileCheckpoints.ts`, `fileCheckpointQueries.ts`,
 * `nodeImages.ts`): a node's repeated changes of one file merge into one (the first `before`, the last
 * `after`, dropped when the file is back as it was), each content is stored once by its sha-256, line
 * counts as the file chips show them, and `filesStateAt` walks the path root→node.
 *
 * Every query runs as the connecting role, so row-level security decides what it sees: another team's
 * conversation is "not found", and another team's content is `null` even by its exact hash.
 */
import type pg from 'pg';
import { ConversationNotFoundError, NodeNotFoundError } from '../../errors';
import { checkImages, type ImageInput } from '../../images/imageInfo';
import { formatNodeId, nodeSeqOf } from '../../nodeIds';
import { requireString } from '../../validation';
import { decodeText, prepareFileChanges, type PreparedFileChange } from '../fileCheckpoints';
import { countLineChanges, type LineCounts } from '../lineCounts';
import { prepareImages } from '../nodeImages';
import type { FileChange, FileState, RecordedFileChange, StoredImage } from '../storage';

export { POSTGRES_FILES_MIGRATION } from './postgresFilesSchema';

/** Something that runs a query: the pool, or a client inside a transaction. */
type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** PostgreSQL's code for a foreign key violation: a content was collected under a writer that only saw it. */
const FOREIGN_KEY_VIOLATION = '23503';

/** How many times a record is tried again when a content it relied on was collected meanwhile. */
const RECORD_ATTEMPTS = 3;

/** Changes (`f`) with their contents' sizes; `by` adds a join and columns, e.g. the node's seq. */
const selectChanges = (by = { columns: '', join: '' }) => `SELECT ${by.columns}f.path, f.position, f.before_hash, b.size AS before_size, f.after_hash, a.size AS after_size, f.added, f.removed
  FROM file_changes f ${by.join}
  LEFT JOIN file_contents b ON b.hash = f.before_hash
  LEFT JOIN file_contents a ON a.hash = f.after_hash`;

/** Images (`i`) with their contents' sizes; `by` as for `selectChanges`. */
const selectImages = (by = { columns: '', join: '' }) => `SELECT ${by.columns}i.hash, i.mime, i.name, c.size, i.width, i.height
  FROM node_images i ${by.join} JOIN file_contents c ON c.hash = i.hash`;

/** What the by-node reads add: each row's node seq, for its id. */
const WITH_NODE = (alias: string) => ({ columns: 'n.seq, ', join: `JOIN nodes n ON n.key = ${alias}.node` });

const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toChange(row: Record<string, unknown>): RecordedFileChange {
  const before = row.before_hash === null ? null : { hash: String(row.before_hash), size: Number(row.before_size) };
  const after = row.after_hash === null ? null : { hash: String(row.after_hash), size: Number(row.after_size) };
  return {
    path: String(row.path),
    kind: before === null ? 'created' : after === null ? 'deleted' : 'modified',
    before,
    after,
    linesAdded: numberOrNull(row.added),
    linesRemoved: numberOrNull(row.removed),
  };
}

function toImage(row: Record<string, unknown>): StoredImage {
  return { hash: String(row.hash), mime: String(row.mime), name: String(row.name), size: Number(row.size), width: numberOrNull(row.width), height: numberOrNull(row.height) };
}

/** Line counts between two texts (null = absent file); null when either side is binary (undefined). */
function lineCounts(before: string | null | undefined, after: string | null | undefined): LineCounts | null {
  if (before === undefined || after === undefined) return null;
  return countLineChanges(before ?? '', after ?? '');
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** What one record writes: rows to insert, to update (merged) and to delete (back as they were). */
interface RecordPlan {
  inserts: Array<{ path: string; folder: string | null; position: number; before: string | null; after: string | null; lines: LineCounts | null }>;
  updates: Array<{ path: string; folder: string | null; after: string | null; lines: LineCounts | null }>;
  deletes: string[];
  /** Contents the new and merged rows refer to, by hash. */
  contents: Map<string, Uint8Array>;
}

/**
 * The file checkpoints and images of the team store, on the pool of a `PostgresConversationStorage`
 * (which delegates its file and image methods here, and calls `addImages` and `copyForFork` inside its
 * own transactions).
 */
export class PostgresFileStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Stores the files a node changed, each content once by its hash. A path the node already changed
   * merges into one change (the first `before`, the new `after`); a change that leaves the file as it
   * was is not stored. Returns all the node's changes as stored.
   */
  async recordFileChanges(conversationId: string, nodeId: string, changes: FileChange[]): Promise<RecordedFileChange[]> {
    requireString(conversationId, 'conversationId');
    requireString(nodeId, 'nodeId', { allowEmpty: true });
    const prepared = prepareFileChanges(changes);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction(async (client) => {
          const node = await this.nodeKey(client, conversationId, nodeId);
          if (prepared.length === 0) return this.changesOfNode(client, node);
          // One record of a node at a time: merging reads the node's changes, then writes them.
          await client.query('SELECT 1 FROM nodes WHERE key = $1 FOR NO KEY UPDATE', [node]);
          const plan = await this.planRecord(client, node, prepared);
          await this.writeRecord(client, node, plan, attempt === 1);
          return this.changesOfNode(client, node);
        });
      } catch (error) {
        // A content this record saw stored was collected before its row referred to it: send it all again.
        if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION || attempt >= RECORD_ATTEMPTS) throw error;
      }
    }
  }

  /** The files a node changed, in the order they were first recorded (empty when none). */
  async fileChanges(conversationId: string, nodeId: string): Promise<RecordedFileChange[]> {
    return this.changesOfNode(this.pool, await this.nodeKey(this.pool, conversationId, nodeId));
  }

  /** Every node of a conversation that changed files, by node id. */
  async fileChangesByNode(conversationId: string): Promise<Record<string, RecordedFileChange[]>> {
    const key = await this.conversationKey(this.pool, conversationId);
    const { rows } = await this.pool.query(`${selectChanges(WITH_NODE('f'))} WHERE n.conversation = $1 ORDER BY n.seq, f.position, f.path`, [key]);
    const byNode: Record<string, RecordedFileChange[]> = {};
    for (const row of rows) (byNode[formatNodeId(Number(row.seq))] ??= []).push(toChange(row));
    return byNode;
  }

  /** The images of a node, in the order they were attached (empty when none). */
  async nodeImages(conversationId: string, nodeId: string): Promise<StoredImage[]> {
    const node = await this.nodeKey(this.pool, conversationId, nodeId);
    const { rows } = await this.pool.query(`${selectImages()} WHERE i.node = $1 ORDER BY i.position`, [node]);
    return rows.map(toImage);
  }

  /** Every node of a conversation that has images, by node id. */
  async imagesByNode(conversationId: string): Promise<Record<string, StoredImage[]>> {
    const key = await this.conversationKey(this.pool, conversationId);
    const { rows } = await this.pool.query(`${selectImages(WITH_NODE('i'))} WHERE n.conversation = $1 ORDER BY n.seq, i.position`, [key]);
    const byNode: Record<string, StoredImage[]> = {};
    for (const row of rows) (byNode[formatNodeId(Number(row.seq))] ??= []).push(toImage(row));
    return byNode;
  }

  /** The bytes of a content a visible change or image refers to, or null (none does, or none this role may see). */
  async fileContent(hash: string): Promise<Uint8Array | null> {
    const { rows } = await this.pool.query('SELECT bytes FROM file_contents WHERE hash = $1', [requireString(hash, 'hash')]);
    return rows.length ? new Uint8Array(rows[0].bytes as Buffer) : null;
  }

  /**
   * For each file changed on the path root→`nodeId`: its hash after the deepest change on the path, the
   * node of that change, and its hash before the shallowest one; sorted by path.
   */
  async filesStateAt(conversationId: string, nodeId: string): Promise<FileState[]> {
    const node = await this.nodeKey(this.pool, conversationId, nodeId);
    const { rows } = await this.pool.query(
      `WITH RECURSIVE path(key, seq, parent, depth) AS (
         SELECT key, seq, parent, 0 FROM nodes WHERE key = $1
         UNION ALL
         SELECT n.key, n.seq, n.parent, p.depth + 1 FROM path p JOIN nodes n ON n.key = p.parent
       )
       SELECT DISTINCT ON (f.path) f.path, p.seq, f.after_hash, f.folder,
         first_value(f.before_hash) OVER (PARTITION BY f.path ORDER BY p.depth DESC) AS original_hash
       FROM path p JOIN file_changes f ON f.node = p.key
       ORDER BY f.path, p.depth`,
      [node],
    );
    return rows
      .map((row) => ({
        path: String(row.path),
        hash: row.after_hash === null ? null : String(row.after_hash),
        nodeId: formatNodeId(Number(row.seq)),
        originalHash: row.original_hash === null ? null : String(row.original_hash),
        ...(row.folder === null ? {} : { folder: String(row.folder) }),
      }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Stores the images of the node `nodeKey` (its `nodes.key`) inside the caller's transaction, after any
   * it has already: checked (type from the bytes, pixel size from the header), each content once.
   */
  async addImages(client: pg.PoolClient, nodeKey: string, images: ImageInput[]): Promise<void> {
    // Sizes are the caller's to limit (arbor.images.maxBytes): the store takes any size it can hold.
    const prepared = prepareImages(checkImages(images, Number.POSITIVE_INFINITY));
    if (prepared.length === 0) return;
    await client.query('SELECT arbor_store_contents($1::bytea[])', [prepared.map((image) => asBuffer(image.bytes))]);
    await client.query(
      `INSERT INTO node_images (node, position, hash, mime, name, width, height)
       SELECT $1, b.base + x.ord - 1, x.hash, x.mime, x.name, x.width, x.height
       FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::int[]) WITH ORDINALITY AS x(hash, mime, name, width, height, ord),
         (SELECT coalesce(max(position) + 1, 0) AS base FROM node_images WHERE node = $1) b`,
      [nodeKey, prepared.map((i) => i.hash), prepared.map((i) => i.mime), prepared.map((i) => i.name), prepared.map((i) => i.width), prepared.map((i) => i.height)],
    );
  }

  /**
   * Copies the file changes and images of the nodes a fork copied (source node key → copy's node key),
   * inside the caller's transaction. The contents are stored already: only rows are written.
   */
  async copyForFork(client: pg.PoolClient, keyMap: ReadonlyMap<string, string>): Promise<void> {
    if (keyMap.size === 0) return;
    const params = [[...keyMap.keys()], [...keyMap.values()]];
    const pairs = 'unnest($1::bigint[], $2::bigint[]) AS m(source, copy)';
    await client.query(
      `INSERT INTO file_changes (node, position, path, before_hash, after_hash, added, removed, folder)
       SELECT m.copy, f.position, f.path, f.before_hash, f.after_hash, f.added, f.removed, f.folder FROM file_changes f JOIN ${pairs} ON f.node = m.source ORDER BY m.copy, f.position`,
      params,
    );
    await client.query(
      `INSERT INTO node_images (node, position, hash, mime, name, width, height)
       SELECT m.copy, i.position, i.hash, i.mime, i.name, i.width, i.height FROM node_images i JOIN ${pairs} ON i.node = m.source ORDER BY m.copy, i.position`,
      params,
    );
  }

  /** What recording `changes` writes, given the node's stored changes (the caller holds the node's lock). */
  private async planRecord(client: pg.PoolClient, node: string, changes: PreparedFileChange[]): Promise<RecordPlan> {
    const { rows } = await client.query('SELECT path, position, before_hash FROM file_changes WHERE node = $1', [node]);
    const existing = new Map(rows.map((row) => [String(row.path), { position: Number(row.position), before: row.before_hash as string | null }]));
    let nextPosition = Math.max(-1, ...[...existing.values()].map((row) => row.position)) + 1;
    const plan: RecordPlan = { inserts: [], updates: [], deletes: [], contents: new Map() };
    const need = (content: { hash: string; bytes: Uint8Array } | null) => content && plan.contents.set(content.hash, content.bytes);
    for (const change of changes) {
      const after = change.after?.hash ?? null;
      const earlier = existing.get(change.path);
      if (!earlier) {
        need(change.before);
        need(change.after);
        plan.inserts.push({ path: change.path, folder: change.folder, position: nextPosition++, before: change.before?.hash ?? null, after, lines: change.lines });
      } else if (earlier.before === after) {
        plan.deletes.push(change.path);
      } else {
        need(change.after);
        const beforeText = earlier.before === null ? null : await this.storedText(client, earlier.before);
        plan.updates.push({ path: change.path, folder: change.folder, after, lines: lineCounts(beforeText, change.after === null ? null : (change.after.text ?? undefined)) });
      }
    }
    return plan;
  }

  /**
   * Writes a planned record: the contents first (those this role can already see are only sent when
   * `skipVisible` is false), then inserts, updates and deletes, in that order, so a content a deleted
   * row releases is already referred to by a new row when the collector looks.
   */
  private async writeRecord(client: pg.PoolClient, node: string, plan: RecordPlan, skipVisible: boolean): Promise<void> {
    let hashes = [...plan.contents.keys()].sort();
    if (skipVisible && hashes.length > 0) {
      const { rows } = await client.query('SELECT hash FROM file_contents WHERE hash = ANY ($1::text[])', [hashes]);
      const visible = new Set(rows.map((row) => String(row.hash)));
      hashes = hashes.filter((hash) => !visible.has(hash));
    }
    if (hashes.length > 0) await client.query('SELECT arbor_store_contents($1::bytea[])', [hashes.map((hash) => asBuffer(plan.contents.get(hash) as Uint8Array))]);
    const { inserts, updates, deletes } = plan;
    if (inserts.length > 0) {
      await client.query(
        `INSERT INTO file_changes (node, position, path, before_hash, after_hash, added, removed, folder)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[])`,
        [
          node,
          inserts.map((r) => r.position),
          inserts.map((r) => r.path),
          inserts.map((r) => r.before),
          inserts.map((r) => r.after),
          inserts.map((r) => r.lines?.added ?? null),
          inserts.map((r) => r.lines?.removed ?? null),
          inserts.map((r) => r.folder),
        ],
      );
    }
    if (updates.length > 0) {
      await client.query(
        `UPDATE file_changes f SET after_hash = u.after, added = u.added, removed = u.removed, folder = coalesce(u.folder, f.folder)
         FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[]) AS u(path, after, added, removed, folder)
         WHERE f.node = $1 AND f.path = u.path`,
        [node, updates.map((r) => r.path), updates.map((r) => r.after), updates.map((r) => r.lines?.added ?? null), updates.map((r) => r.lines?.removed ?? null), updates.map((r) => r.folder)],
      );
    }
    if (deletes.length > 0) await client.query('DELETE FROM file_changes WHERE node = $1 AND path = ANY ($2::text[])', [node, deletes]);
  }

  /** A stored content as text; undefined when it is binary (or not readable), so no line counts. */
  private async storedText(client: pg.PoolClient, hash: string): Promise<string | undefined> {
    const { rows } = await client.query('SELECT bytes FROM file_contents WHERE hash = $1', [hash]);
    return rows.length ? (decodeText(new Uint8Array(rows[0].bytes as Buffer)) ?? undefined) : undefined;
  }

  private async changesOfNode(db: Queryable, node: string): Promise<RecordedFileChange[]> {
    const { rows } = await db.query(`${selectChanges()} WHERE f.node = $1 ORDER BY f.position, f.path`, [node]);
    return rows.map(toChange);
  }

  /** The key of a conversation this role can see, or `ConversationNotFoundError`. */
  private async conversationKey(db: Queryable, conversationId: string): Promise<string> {
    const { rows } = await db.query('SELECT key FROM conversations WHERE id = $1', [requireString(conversationId, 'conversationId')]);
    if (rows.length === 0) throw new ConversationNotFoundError(conversationId);
    return String(rows[0].key);
  }

  /** The key of a node of a conversation this role can see, or `ConversationNotFoundError` / `NodeNotFoundError`. */
  private async nodeKey(db: Queryable, conversationId: string, nodeId: string): Promise<string> {
    requireString(nodeId, 'nodeId', { allowEmpty: true });
    const { rows } = await db.query('SELECT c.key, n.key AS node FROM conversations c LEFT JOIN nodes n ON n.conversation = c.key AND n.seq = $2 WHERE c.id = $1', [
      requireString(conversationId, 'conversationId'),
      nodeSeqOf(nodeId) ?? -1,
    ]);
    if (rows.length === 0) throw new ConversationNotFoundError(conversationId);
    if (rows[0].node === null) throw new NodeNotFoundError(nodeId, conversationId);
    return String(rows[0].node);
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
