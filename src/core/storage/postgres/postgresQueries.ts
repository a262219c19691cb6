/**
 * Listing, counting and searching conversations in the team store's tables: one WHERE clause built from
 * the filters, so that list, count, search and bulk delete always agree on what matches (the same
 * filters, with the same meaning, as the sql.js store's `conversationQueries.ts`). Row-level security
 * leaves out the conversations of other teams before any of these conditions is looked at.
 */
import type pg from 'pg';
import { InvalidArgumentError } from '../../errors';
import { formatNodeId } from '../../nodeIds';
import type { ConversationSummary, DeleteFilters, MessageMatch, SearchOptions } from '../storage';

/** Query parameters, numbered as they are added. */
export class Params {
  readonly values: unknown[] = [];
  /** Adds a value and returns its placeholder (`$n`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

type Filter = Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'>;

/** The keys of a filter record that constrain anything: a key set to `undefined` matches every value (as in the sql.js store). */
function definedEntries(record: Record<string, unknown> | undefined): Array<[string, unknown]> {
  return record === undefined ? [] : Object.entries(record).filter(([, value]) => value !== undefined);
}

const hasKeys = (record: Record<string, unknown> | undefined): boolean => record !== undefined && Object.keys(record).length > 0;

/** An ISO time parameter; an `InvalidArgumentError` naming the option for anything else. */
export function timeParam(value: string, name: string): string {
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) {
    throw new InvalidArgumentError(`${name} must be an ISO 8601 time such as "2025-01-31T12:00:00Z"; got "${String(value)}".`);
  }
  return new Date(time).toISOString();
}

/**
 * The condition that `column` (jsonb) matches every key of `filter` by JSON equality. The containment
 * test comes first so the GIN index on node metadata can find the candidates; equality of each key is
 * then exact (containment alone would let `["a"]` match `["a", "b"]`).
 */
export function metadataMatches(column: string, filter: Record<string, unknown>, params: Params): string {
  const entries = definedEntries(filter);
  if (entries.length === 0) return 'true';
  const whole = params.add(JSON.stringify(Object.fromEntries(entries)));
  return [`${column} @> ${whole}::jsonb`, ...entries.map(([key, value]) => `${column} -> ${params.add(key)} = ${params.add(JSON.stringify(value))}::jsonb`)].join(' AND ');
}

/**
 * The collation whose `lower()` folds every letter (not only ASCII), when the database's own does not
 * (a database created with `LC_CTYPE` C); undefined to use the database's.
 */
export type FoldCollation = string | undefined;

/** Finds the collation for case-insensitive search: the database's when it folds `Ä`, else ICU's root or C.UTF-8 when installed. */
export async function foldCollation(db: pg.Pool | pg.PoolClient): Promise<FoldCollation> {
  const result = await db.query<{ folds: boolean; icu: boolean; cutf8: boolean }>(
    `SELECT lower('ÄÉ') = 'äé' AS folds, EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') AS icu,
       EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'C.utf8' AND collencoding IN (-1, pg_char_to_encoding('UTF8'))) AS cutf8`,
  );
  const { folds, icu, cutf8 } = result.rows[0];
  return folds ? undefined : icu ? 'und-x-icu' : cutf8 ? 'C.utf8' : undefined;
}

/** The condition (on node alias `n`) that a message contains `needle`, case-insensitive. */
function contentContains(needle: string, params: Params, fold: FoldCollation): string {
  const collate = fold === undefined ? '' : ` COLLATE "${fold}"`;
  return `strpos(lower(n.content${collate}), lower(${params.add(needle)}${collate})) > 0`;
}

/** Builds the WHERE clause (on conversation alias `c`) for a set of filters. */
export function buildWhere(filter: Filter, params: Params, fold: FoldCollation = undefined): string {
  const clauses: string[] = [];
  if (hasKeys(filter.filterMetadata)) clauses.push(metadataMatches('c.metadata', filter.filterMetadata as Record<string, unknown>, params));
  if (filter.createdAfter !== undefined) clauses.push(`c.created_at >= ${params.add(timeParam(filter.createdAfter, 'createdAfter'))}::timestamptz`);
  if (filter.createdBefore !== undefined) clauses.push(`c.created_at < ${params.add(timeParam(filter.createdBefore, 'createdBefore'))}::timestamptz`);
  if (filter.updatedBefore !== undefined) clauses.push(`c.updated_at < ${params.add(timeParam(filter.updatedBefore, 'updatedBefore'))}::timestamptz`);
  if (filter.contentContains !== undefined && filter.contentContains !== '') {
    clauses.push(`EXISTS (SELECT 1 FROM nodes n WHERE n.conversation = c.key AND ${contentContains(filter.contentContains, params, fold)})`);
  }
  if (hasKeys(filter.withoutNodeMetadata)) {
    clauses.push(`NOT EXISTS (SELECT 1 FROM nodes n WHERE n.conversation = c.key AND ${metadataMatches('n.metadata', filter.withoutNodeMetadata as Record<string, unknown>, params)})`);
  }
  if (filter.conversationIds !== undefined) {
    if (!Array.isArray(filter.conversationIds)) throw new InvalidArgumentError('conversationIds must be an array of conversation ids.');
    clauses.push(`c.id = ANY(${params.add(filter.conversationIds.map(String))}::text[])`);
  }
  return clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
}

const SORT_COLUMNS = { createdAt: 'c.created_at', updatedAt: 'c.updated_at', conversationId: 'c.id' } as const;

function nonNegativeInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(`${name} must be a whole number of 0 or more; got ${value}.`);
  return value;
}

/** The columns of a summary, from conversation alias `c`. */
const SUMMARY_COLUMNS = `c.id, c.metadata, c.created_at, c.updated_at, (SELECT count(*) FROM nodes n WHERE n.conversation = c.key)::int AS node_count`;

interface SummaryRow {
  id: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  node_count: number;
}

function toSummary(row: SummaryRow): ConversationSummary {
  return { conversationId: row.id, metadata: row.metadata, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString(), nodeCount: Number(row.node_count) };
}

/** Lists conversation summaries matching `options`; limit defaults to 100, offset always applies. */
export async function querySummaries(db: pg.Pool | pg.PoolClient, options: SearchOptions, fold: FoldCollation = undefined): Promise<ConversationSummary[]> {
  const limit = nonNegativeInteger(options.limit, 'limit', 100);
  const offset = nonNegativeInteger(options.offset, 'offset', 0);
  const sortBy = options.sortBy ?? 'updatedAt';
  const column = SORT_COLUMNS[sortBy];
  if (!column) throw new InvalidArgumentError(`sortBy must be one of ${Object.keys(SORT_COLUMNS).join(', ')}; got "${String(sortBy)}".`);
  const order = options.sortOrder ?? (sortBy === 'conversationId' ? 'asc' : 'desc');
  if (order !== 'asc' && order !== 'desc') throw new InvalidArgumentError(`sortOrder must be "asc" or "desc"; got "${String(order)}".`);
  const params = new Params();
  const where = buildWhere(options, params, fold);
  // Ids sort by code point, as SQLite's BINARY collation does, whatever the database's collation.
  const sql = `SELECT ${SUMMARY_COLUMNS} FROM conversations c ${where} ORDER BY ${column === 'c.id' ? 'c.id COLLATE "C"' : column} ${order}, c.id COLLATE "C" ${order} LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`;
  const result = await db.query<SummaryRow>(sql, params.values);
  return result.rows.map(toSummary);
}

/** Counts the conversations matching `filter`. */
export async function countMatching(db: pg.Pool | pg.PoolClient, filter: Filter, fold: FoldCollation = undefined): Promise<number> {
  const params = new Params();
  const where = buildWhere(filter, params, fold);
  const result = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM conversations c ${where}`, params.values);
  return Number(result.rows[0].count);
}

/**
 * Deletes the conversations matching bulk-delete filters and returns them as they were just before,
 * oldest change first. The rows are locked first: when two clients remove at once, each conversation
 * is returned by the one that deleted it. Refuses filters that select nothing in particular.
 */
export async function removeMatching(client: pg.PoolClient, filters: DeleteFilters, fold: FoldCollation = undefined): Promise<ConversationSummary[]> {
  const hasFilter =
    hasKeys(filters.filterMetadata) || filters.createdAfter !== undefined || filters.createdBefore !== undefined || filters.updatedBefore !== undefined || filters.conversationIds !== undefined;
  if (!hasFilter) {
    throw new InvalidArgumentError(
      'deleteConversations needs at least one filter (filterMetadata, createdAfter, createdBefore, updatedBefore or conversationIds); ' +
        'an empty filter would delete every conversation. Use explicit filters to delete many.',
    );
  }
  const params = new Params();
  const where = buildWhere(filters, params, fold);
  const locked = await client.query<{ key: string }>(`SELECT c.key FROM conversations c ${where} FOR UPDATE OF c`, params.values);
  if (locked.rows.length === 0) return [];
  const keys = locked.rows.map((r) => r.key);
  const result = await client.query<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM conversations c WHERE c.key = ANY($1::bigint[]) ORDER BY c.updated_at, c.id COLLATE "C"`, [keys]);
  await client.query('DELETE FROM conversations WHERE key = ANY($1::bigint[])', [keys]);
  return result.rows.map(toSummary);
}

/** Messages whose content contains `query` (case-insensitive, the same test as `contentContains`). */
export async function queryMessages(db: pg.Pool | pg.PoolClient, query: string, limitOption: number | undefined, fold: FoldCollation = undefined): Promise<MessageMatch[]> {
  const limit = nonNegativeInteger(limitOption, 'limit', 200);
  if (query === '') return [];
  const params = new Params();
  return selectMessages(db, contentContains(query, params, fold), params, limit);
}

/** Messages whose node metadata matches every key of `filter` (JSON equality); an empty filter is refused. */
export async function messagesWithMetadata(db: pg.Pool | pg.PoolClient, filter: Record<string, unknown>, limitOption: number | undefined): Promise<MessageMatch[]> {
  const limit = nonNegativeInteger(limitOption, 'limit', 200);
  if (!hasKeys(filter)) throw new InvalidArgumentError('findMessages needs filterMetadata with at least one key, such as { bookmarked: true }.');
  const params = new Params();
  return selectMessages(db, metadataMatches('n.metadata', filter, params), params, limit);
}

interface MessageRow {
  id: string;
  conversation_metadata: Record<string, unknown>;
  seq: string;
  role: MessageMatch['role'];
  content: string;
  branch_name: string | null;
  metadata: Record<string, unknown>;
}

/** The messages a condition on node alias `n` selects, most recently updated conversations first. */
async function selectMessages(db: pg.Pool | pg.PoolClient, condition: string, params: Params, limit: number): Promise<MessageMatch[]> {
  const result = await db.query<MessageRow>(
    `SELECT c.id, c.metadata AS conversation_metadata, n.seq, n.role, n.content, n.branch_name, n.metadata
     FROM nodes n JOIN conversations c ON c.key = n.conversation
     WHERE ${condition}
     ORDER BY c.updated_at DESC, c.id COLLATE "C", n.created_at, n.seq
     LIMIT ${params.add(limit)}`,
    params.values,
  );
  return result.rows.map((row) => ({
    conversationId: row.id,
    conversationMetadata: row.conversation_metadata,
    nodeId: formatNodeId(Number(row.seq)),
    role: row.role,
    content: row.content,
    ...(row.branch_name === null ? {} : { branchName: row.branch_name }),
    metadata: row.metadata,
  }));
}
