/**
 * Node rows of the team store: writing a whole conversation's nodes in two statements whatever its
 * size or depth, adding nodes under the parent's row lock, and loading a whole conversation in one
 * query whose rows are turned into the tree in memory.
 */
import type pg from 'pg';
import { InvalidArgumentError, NodeNotFoundError } from '../../errors';
import { formatNodeId } from '../../nodeIds';
import type { ConversationNode, ConversationState, LLMMessage } from '../../types';
import { seqOf } from '../conversationTables';
import { timeParam } from './postgresQueries';

/**
 * The root message's key that keeps a conversation's `legacyIdLimit` (stores migrated from 1.x): the
 * schema has no column for it, and only a whole-conversation save or a fork ever sets it.
 */
export const LEGACY_ID_LIMIT_KEY = '$arborLegacyIdLimit';

/** An ISO 8601 text of a timestamptz column, in UTC with milliseconds (what `Date.toISOString` writes). */
export const isoText = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A node as the INSERT's record set takes it. */
interface NodeRecord {
  seq: number;
  next_child: number;
  role: string;
  content: string;
  message: Record<string, unknown>;
  metadata: Record<string, unknown>;
  prompt_name: string | null;
  branch_name: string | null;
  created_at: string;
}

const RECORD_COLUMNS = 'seq bigint, next_child int, role text, content text, message jsonb, metadata jsonb, prompt_name text, branch_name text, created_at timestamptz';

/** The message fields beside role and content, stored in `message`. */
function extraOf(message: LLMMessage): Record<string, unknown> {
  const { role: _role, content: _content, ...rest } = message;
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
}

/** A node's stored fields; its time must be one PostgreSQL reads (an ISO 8601 time). */
export function nodeRecord(node: Omit<ConversationNode, 'nodeId' | 'position' | 'parentId'>, seq: number, nextChild: number, name: string): NodeRecord {
  return {
    seq,
    next_child: nextChild,
    role: node.message.role,
    content: node.message.content,
    message: extraOf(node.message),
    metadata: node.metadata ?? {},
    prompt_name: node.promptName ?? null,
    branch_name: node.branchName ?? null,
    created_at: timeParam(node.timestamp, `${name}.timestamp`),
  };
}

/** The node as the API shows it, with its time as stored (ISO 8601, UTC, milliseconds). */
export function normalizedNode<T extends { timestamp: string }>(node: T, name: string): T {
  return { ...node, timestamp: timeParam(node.timestamp, `${name}.timestamp`) };
}

/**
 * Inserts new rows for `records` with the given parents (node keys) and positions, in one statement.
 * Returns each new row's key, in `records` order.
 */
export async function insertNodeRows(client: pg.PoolClient, conversationKey: string, records: NodeRecord[], parentKeys: Array<string | null>, positions: number[]): Promise<string[]> {
  const result = await client.query<{ key: string; seq: string }>(
    `INSERT INTO nodes (conversation, seq, parent, position, next_child, role, content, message, metadata, prompt_name, branch_name, created_at)
     SELECT $1, r.seq, u.parent, u.position, r.next_child, r.role, r.content, r.message, r.metadata, r.prompt_name, r.branch_name, r.created_at
     FROM jsonb_to_recordset($2::jsonb) AS r(${RECORD_COLUMNS}, i bigint)
     JOIN unnest($3::bigint[], $4::int[]) WITH ORDINALITY AS u(parent, position, i) ON u.i = r.i
     ORDER BY r.i
     RETURNING key, seq`,
    [conversationKey, JSON.stringify(records.map((record, i) => ({ ...record, i: i + 1 }))), parentKeys, positions],
  );
  const bySeq = new Map(result.rows.map((row) => [Number(row.seq), row.key]));
  return records.map((record) => bySeq.get(record.seq) as string);
}

/**
 * Writes every node of a whole conversation under a conversation row that has none. A parent's row key
 * is not known before it is inserted, so the rows go in first without parents (at distinct negative
 * positions the unique sibling index allows), then one UPDATE links them: two statements for any depth.
 * Returns the new row key of each node id. Each parent's `next_child` continues after its children.
 */
export async function insertState(client: pg.PoolClient, conversationKey: string, state: ConversationState): Promise<Map<string, string>> {
  const nextChild = new Map<string, number>();
  for (const node of state.nodes) {
    if (node.parentId !== null) nextChild.set(node.parentId, Math.max(nextChild.get(node.parentId) ?? 0, node.position + 1));
  }
  const records = state.nodes.map((node, i) => {
    const record = nodeRecord(node, seqOf(node.nodeId), nextChild.get(node.nodeId) ?? 0, `state.nodes[${i}]`);
    if (node.parentId === null && state.legacyIdLimit !== undefined) record.message = { ...record.message, [LEGACY_ID_LIMIT_KEY]: state.legacyIdLimit };
    return record;
  });
  const keys = await insertNodeRows(client, conversationKey, records, records.map(() => null), records.map((r) => -1 - r.seq));
  const keyOf = new Map(state.nodes.map((node, i) => [node.nodeId, keys[i]]));
  const siblings = new Set<string>();
  for (const node of state.nodes) {
    const place = `${node.parentId ?? ''}\u0000${node.parentId === null ? 'root' : node.position}`;
    if (siblings.has(place)) throw new InvalidArgumentError(`state.nodes: two children of "${node.parentId}" have position ${node.position}; sibling positions must differ.`);
    siblings.add(place);
  }
  await client.query(
    `UPDATE nodes n SET parent = u.parent, position = u.position
     FROM unnest($1::bigint[], $2::bigint[], $3::int[]) AS u(key, parent, position) WHERE n.key = u.key`,
    [keys, state.nodes.map((node) => (node.parentId === null ? null : keyOf.get(node.parentId))), state.nodes.map((node) => (node.parentId === null ? 0 : node.position))],
  );
  return keyOf;
}

interface LoadRow {
  key: string;
  metadata: Record<string, unknown> | null;
  next_seq: string;
  current_seq: string;
  reader_seq: string | null;
  created_at: string;
  updated_at: string;
  node_key: string | null;
  seq: number | null;
  parent: string | null;
  position: number;
  role: LLMMessage['role'];
  content: string;
  message: Record<string, unknown>;
  node_metadata: Record<string, unknown>;
  prompt_name: string | null;
  branch_name: string | null;
  timestamp: string;
}

/** A loaded conversation with the row key of each node (for copying rows that hang on them). */
export interface LoadedState {
  conversationKey: string;
  state: ConversationState;
  nodeKeys: Map<string, string>;
}

/**
 * Loads one whole conversation in one query (the conversation's own columns on the first row only),
 * building the tree in memory. The current node is this reader's own (`reader_positions`), else the
 * conversation's last set one, else the root, whichever still exists. Null when it is not stored or
 * not visible to this role.
 */
export async function loadStateRows(db: pg.Pool | pg.PoolClient, conversationId: string): Promise<LoadedState | null> {
  // The conversation's row first (its node columns null), then its nodes: a UNION ALL, so its columns
  // are sent once, and no sort (the nodes are put in id order here, where they mostly are already).
  const result = await db.query<LoadRow>(
    `WITH c AS MATERIALIZED (
       SELECT key, metadata, next_seq, current_seq, created_at, updated_at,
         (SELECT rp.seq FROM reader_positions rp WHERE rp.conversation = conversations.key AND rp.reader = current_user) AS reader_seq
       FROM conversations WHERE id = $1
     )
     SELECT c.key, c.metadata, c.next_seq, c.current_seq, c.reader_seq, ${isoText('c.created_at')} AS created_at, ${isoText('c.updated_at')} AS updated_at,
       NULL::bigint AS node_key, NULL::int AS seq, NULL::bigint AS parent, NULL::int AS position, NULL AS role, NULL AS content, NULL::jsonb AS message,
       NULL::jsonb AS node_metadata, NULL AS prompt_name, NULL AS branch_name, NULL AS timestamp
     FROM c
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       n.key, n.seq::int, n.parent, n.position, n.role, n.content, n.message, n.metadata, n.prompt_name, n.branch_name, ${isoText('n.created_at')}
     FROM c JOIN nodes n ON n.conversation = c.key`,
    [conversationId],
  );
  if (result.rows.length === 0) return null;
  const first = result.rows.find((row) => row.node_key === null) as LoadRow;
  const rows = result.rows.filter((row) => row.node_key !== null).sort((a, b) => (a.seq as number) - (b.seq as number));
  const seqOfKey = new Map<string, number>();
  for (const row of rows) seqOfKey.set(row.node_key as string, row.seq as number);
  const nodes: ConversationNode[] = [];
  const nodeKeys = new Map<string, string>();
  let legacyIdLimit: number | undefined;
  for (const row of rows) {
    if (row.node_key === null || row.seq === null) continue;
    const { [LEGACY_ID_LIMIT_KEY]: legacy, ...extra } = row.message;
    if (row.parent === null && typeof legacy === 'number') legacyIdLimit = legacy;
    const nodeId = formatNodeId(row.seq);
    const node: ConversationNode = {
      nodeId,
      parentId: row.parent === null ? null : formatNodeId(seqOfKey.get(row.parent) as number),
      position: row.position,
      message: { role: row.role, content: row.content, ...extra } as LLMMessage,
      timestamp: row.timestamp,
      metadata: row.node_metadata,
    };
    if (row.prompt_name !== null) node.promptName = row.prompt_name;
    if (row.branch_name !== null) node.branchName = row.branch_name;
    nodes.push(node);
    nodeKeys.set(nodeId, row.node_key);
  }
  const present = (seq: string | null) => seq !== null && nodeKeys.has(formatNodeId(Number(seq)));
  const currentSeq = present(first.reader_seq) ? Number(first.reader_seq) : present(first.current_seq) ? Number(first.current_seq) : 0;
  const state: ConversationState = {
    conversationId,
    nodes,
    currentNodeId: formatNodeId(currentSeq),
    metadata: first.metadata ?? {},
    nextNodeSeq: Number(first.next_seq),
    createdAt: first.created_at,
    updatedAt: first.updated_at,
  };
  if (legacyIdLimit !== undefined) state.legacyIdLimit = legacyIdLimit;
  return { conversationKey: first.key, state, nodeKeys };
}

/** The copy `forkConversation` stores: the source's nodes (or those on the path root→`upToNodeId`) under `newId`. */
export function forkedState(source: ConversationState, newId: string, upToNodeId: string | undefined): ConversationState {
  let nodes = source.nodes;
  let currentNodeId = source.currentNodeId;
  if (upToNodeId !== undefined) {
    const byId = new Map(source.nodes.map((node) => [node.nodeId, node]));
    const keep = new Set<string>();
    for (let node = byId.get(upToNodeId); node; node = node.parentId === null ? undefined : byId.get(node.parentId)) keep.add(node.nodeId);
    if (!keep.size) throw new NodeNotFoundError(upToNodeId, source.conversationId);
    nodes = source.nodes.filter((node) => keep.has(node.nodeId));
    currentNodeId = upToNodeId;
  }
  const now = new Date().toISOString();
  return {
    conversationId: newId,
    nodes,
    currentNodeId,
    metadata: source.metadata,
    nextNodeSeq: source.nextNodeSeq,
    ...(source.legacyIdLimit !== undefined ? { legacyIdLimit: source.legacyIdLimit } : {}),
    createdAt: now,
    updatedAt: now,
  };
}
