/**
 * Listing, counting and searching conversations in the sql.js tables: one WHERE clause built from
 * the filters, so that list, count, search and bulk delete always agree on what matches.
 */
import type { Database, SqlValue } from 'sql.js';
import { InvalidArgumentError } from '../errors';
import { formatNodeId } from '../nodeIds';
import { queryRows } from './conversationTables';
import type { ConversationSummary, DeleteFilters, MessageMatch, SearchOptions } from './storage';

/** Deep equality of two JSON values (object key order does not matter). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) {
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const aKeys = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const bKeys = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every((key) => jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

const METADATA_MATCHES = 'arbor_metadata_matches';
const TIME_MS = 'arbor_time_ms';
const CONTAINS_FOLDED = 'arbor_contains_folded';

/**
 * Registers the SQL functions the queries use, and keeps SQLite's rollback journal and temporary
 * tables in memory: the database itself lives in memory (its durability is the store's own journal),
 * and through sql.js's in-memory file system each write or sort would otherwise cost file calls.
 * Safe to call again (after `db.export()`, which may drop the functions).
 */
export function registerQueryFunctions(db: Database): void {
  db.exec('PRAGMA journal_mode = MEMORY; PRAGMA temp_store = MEMORY');
  db.create_function(METADATA_MATCHES, (metadataJson: string, filterJson: string) => {
    const metadata = JSON.parse(metadataJson) as Record<string, unknown>;
    const filter = JSON.parse(filterJson) as Record<string, unknown>;
    // JSON round-tripping maps an undefined filter value to a missing key, so "absent" matches it.
    return Object.entries(filter).every(([key, value]) => jsonEqual(metadata[key], value)) ? 1 : 0;
  });
  // Case-insensitive in every language (SQLite's lower() folds only ASCII), without keeping a
  // lower-cased copy of every message: the needle comes lower-cased already.
  db.create_function(CONTAINS_FOLDED, (text: string | null, needle: string) => (text !== null && text.toLowerCase().includes(needle) ? 1 : 0));
  // Times are compared as instants, so "…00Z", "…00.000Z" and "+02:00" forms of stored times all work.
  db.create_function(TIME_MS, (iso: string) => {
    const time = Date.parse(iso);
    return Number.isNaN(time) ? null : time;
  });
}

function timeParam(value: string, name: string): number {
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new InvalidArgumentError(`${name} must be an ISO 8601 time such as "2025-01-31T12:00:00Z"; got "${value}".`);
  }
  return time;
}

type Filter = Omit<SearchOptions, 'limit' | 'offset' | 'sortBy' | 'sortOrder'>;

const hasKeys = (record: Record<string, unknown> | undefined): record is Record<string, unknown> => record !== undefined && Object.keys(record).length > 0;

/**
 * The condition (on node alias `n`) that a node's metadata matches every key of `filter`. Each key's
 * JSON name must appear in the text first, a test SQLite makes without calling into JavaScript, so only
 * the few candidate rows are parsed.
 */
function nodeMetadataMatches(filter: Record<string, unknown>, params: SqlValue[]): string {
  const keys = Object.keys(filter);
  params.push(...keys.map((key) => JSON.stringify(key)), JSON.stringify(filter));
  return `n.metadata IS NOT NULL AND ${keys.map(() => 'instr(n.metadata, ?) > 0').join(' AND ')} AND ${METADATA_MATCHES}(n.metadata, ?) = 1`;
}

/** Builds the WHERE clause (on table alias `c`) for a set of filters. */
function buildWhere(filter: Filter): { sql: string; params: SqlValue[] } {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  if (hasKeys(filter.filterMetadata)) {
    clauses.push(`${METADATA_MATCHES}(c.metadata, ?) = 1`);
    params.push(JSON.stringify(filter.filterMetadata));
  }
  if (filter.createdAfter !== undefined) {
    clauses.push(`${TIME_MS}(c.created_at) >= ?`);
    params.push(timeParam(filter.createdAfter, 'createdAfter'));
  }
  if (filter.createdBefore !== undefined) {
    clauses.push(`${TIME_MS}(c.created_at) < ?`);
    params.push(timeParam(filter.createdBefore, 'createdBefore'));
  }
  if (filter.updatedBefore !== undefined) {
    clauses.push(`${TIME_MS}(c.updated_at) < ?`);
    params.push(timeParam(filter.updatedBefore, 'updatedBefore'));
  }
  if (filter.contentContains !== undefined && filter.contentContains !== '') {
    clauses.push(`EXISTS (SELECT 1 FROM nodes n WHERE n.conversation = c.key AND ${CONTAINS_FOLDED}(n.content, ?) = 1)`);
    params.push(filter.contentContains.toLowerCase());
  }
  if (hasKeys(filter.withoutNodeMetadata)) {
    clauses.push(`NOT EXISTS (SELECT 1 FROM nodes n WHERE n.conversation = c.key AND ${nodeMetadataMatches(filter.withoutNodeMetadata, params)})`);
  }
  if (filter.conversationIds !== undefined) {
    // One JSON parameter, not one per id: SQLite allows some 32,000 variables, and a spread of
    // hundreds of thousands of arguments overflows the stack.
    clauses.push('c.id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.conversationIds));
  }
  return { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}

const SORT_COLUMNS = { createdAt: 'c.created_at', updatedAt: 'c.updated_at', conversationId: 'c.id' } as const;

function nonNegativeInteger(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) {
    return fallback;
  }
  if (!Number.isInteger(value) || value < 0) {
    throw new InvalidArgumentError(`${name} must be a whole number of 0 or more; got ${value}.`);
  }
  return value;
}

/** Lists conversation summaries matching `options`; limit defaults to 100, offset always applies. */
export function querySummaries(db: Database, options: SearchOptions): ConversationSummary[] {
  const limit = nonNegativeInteger(options.limit, 'limit', 100);
  const offset = nonNegativeInteger(options.offset, 'offset', 0);
  const sortBy = options.sortBy ?? 'updatedAt';
  const column = SORT_COLUMNS[sortBy];
  if (!column) {
    throw new InvalidArgumentError(`sortBy must be one of ${Object.keys(SORT_COLUMNS).join(', ')}; got "${String(sortBy)}".`);
  }
  const order = options.sortOrder ?? (sortBy === 'conversationId' ? 'asc' : 'desc');
  if (order !== 'asc' && order !== 'desc') {
    throw new InvalidArgumentError(`sortOrder must be "asc" or "desc"; got "${String(order)}".`);
  }
  return selectSummaries(db, buildWhere(options), `ORDER BY ${column} ${order}, c.id ${order} LIMIT ? OFFSET ?`, [limit, offset]);
}

/** The summaries of the conversations a WHERE clause selects, with `tail` (order, limit) after it. */
function selectSummaries(db: Database, where: { sql: string; params: SqlValue[] }, tail = '', tailParams: SqlValue[] = []): ConversationSummary[] {
  const rows = queryRows(
    db,
    `SELECT c.id, c.metadata, c.created_at, c.updated_at,
       (SELECT count(*) FROM nodes n WHERE n.conversation = c.key)
     FROM conversations c ${where.sql}
     ${tail}`,
    [...where.params, ...tailParams],
  );
  return rows.map(([conversationId, metadata, createdAt, updatedAt, nodeCount]) => ({
    conversationId: String(conversationId),
    metadata: JSON.parse(String(metadata)),
    createdAt: String(createdAt),
    updatedAt: String(updatedAt),
    nodeCount: Number(nodeCount),
  }));
}

/** Counts the conversations matching `filter`. */
export function countMatching(db: Database, filter: Filter): number {
  const where = buildWhere(filter);
  return Number(queryRows(db, `SELECT count(*) FROM conversations c ${where.sql}`, where.params)[0][0]);
}

/** The WHERE clause of bulk-delete filters; refuses filters that select nothing in particular. */
function deleteWhere(filters: DeleteFilters): { sql: string; params: SqlValue[] } {
  const hasFilter =
    hasKeys(filters.filterMetadata) ||
    filters.createdAfter !== undefined ||
    filters.createdBefore !== undefined ||
    filters.updatedBefore !== undefined ||
    filters.conversationIds !== undefined;
  if (!hasFilter) {
    throw new InvalidArgumentError(
      'deleteConversations needs at least one filter (filterMetadata, createdAfter, createdBefore, updatedBefore or conversationIds); ' +
        'an empty filter would delete every conversation. Use explicit filters to delete many.',
    );
  }
  return buildWhere(filters);
}

/** Ids of the conversations matching bulk-delete filters; refuses a filter that sets nothing. */
export function idsForDelete(db: Database, filters: DeleteFilters): string[] {
  const where = deleteWhere(filters);
  return queryRows(db, `SELECT c.id FROM conversations c ${where.sql}`, where.params).map((row) => String(row[0]));
}

/** Summaries of the conversations matching bulk-delete filters, oldest change first; refuses a filter that sets nothing. */
export function summariesForDelete(db: Database, filters: DeleteFilters): ConversationSummary[] {
  return selectSummaries(db, deleteWhere(filters), 'ORDER BY c.updated_at, c.id');
}

/** Messages whose content contains `query` (case-insensitive, the same test as `contentContains`). */
export function queryMessages(db: Database, query: string, limitOption: number | undefined): MessageMatch[] {
  const limit = nonNegativeInteger(limitOption, 'limit', 200);
  if (query === '') {
    return [];
  }
  return selectMessages(db, `${CONTAINS_FOLDED}(n.content, ?) = 1`, [query.toLowerCase()], limit);
}

/** Messages whose node metadata matches every key of `filter` (JSON equality); an empty filter is refused. */
export function messagesWithMetadata(db: Database, filter: Record<string, unknown>, limitOption: number | undefined): MessageMatch[] {
  const limit = nonNegativeInteger(limitOption, 'limit', 200);
  if (!hasKeys(filter)) {
    throw new InvalidArgumentError('findMessages needs filterMetadata with at least one key, such as { bookmarked: true }.');
  }
  const params: SqlValue[] = [];
  const condition = nodeMetadataMatches(filter, params);
  return selectMessages(db, condition, params, limit);
}

/** The messages a condition on node alias `n` selects, most recently updated conversations first. */
function selectMessages(db: Database, condition: string, params: SqlValue[], limit: number): MessageMatch[] {
  const rows = queryRows(
    db,
    `SELECT c.id, c.metadata, n.seq, n.role, n.content, n.branch_name, n.metadata
     FROM nodes n JOIN conversations c ON c.key = n.conversation
     WHERE ${condition}
     ORDER BY c.updated_at DESC, c.id, n.timestamp, n.seq
     LIMIT ?`,
    [...params, limit],
  );
  return rows.map(([conversationId, metadata, seq, role, content, branchName, nodeMetadata]) => ({
    conversationId: String(conversationId),
    conversationMetadata: JSON.parse(String(metadata)),
    nodeId: formatNodeId(Number(seq)),
    role: role as MessageMatch['role'],
    content: String(content),
    ...(branchName === null ? {} : { branchName: String(branchName) }),
    metadata: nodeMetadata === null ? {} : JSON.parse(String(nodeMetadata)),
  }));
}
