/**
 * An incremental change of one conversation in the team store, inside the caller's transaction. New
 * node ids come from the conversation's `next_seq` and sibling positions from each parent's
 * `next_child`, both taken with `UPDATE … RETURNING`, so the row locks order concurrent writers and
 * none can hand out an id or a position twice. Only the nodes the change names are written.
 */
import type pg from 'pg';
import { ConversationNotFoundError, NodeNotFoundError } from '../../errors';
import { formatNodeId, nodeSeqOf } from '../../nodeIds';
import type { ConversationNode } from '../../types';
import { seqOf } from '../conversationTables';
import type { ConversationChange } from '../storage';
import { LEGACY_ID_LIMIT_KEY, insertNodeRows, nodeRecord } from './postgresNodes';
import { timeParam } from './postgresQueries';

/** What a change stored: the added nodes as the API shows them, and their row keys (for their images). */
export interface AppliedChange {
  addedNodes: ConversationNode[];
  addedKeys: string[];
}

/** Applies `change` to the conversation `conversationId`; refuses it whole (the caller rolls back) on a missing conversation or node. */
export async function applyNodeChanges(client: pg.PoolClient, conversationId: string, change: ConversationChange): Promise<AppliedChange> {
  const adds = change.addNodes ?? [];
  // Ids this store never gives are refused before anything is read, as the sql.js store does.
  const deleteSeqs = (change.deleteNodeIds ?? []).map(seqOf);
  const updateSeqs = (change.updateNodes ?? []).map((node) => seqOf(node.nodeId));
  const currentSeq = change.currentIsLastAdded && adds.length > 0 ? undefined : change.currentNodeId === undefined ? undefined : seqOf(change.currentNodeId);

  const counter = await client.query<{ key: string; first: string }>('UPDATE conversations SET next_seq = next_seq + $2 WHERE id = $1 RETURNING key, next_seq - $2 AS first', [conversationId, adds.length]);
  if (counter.rows.length === 0) throw new ConversationNotFoundError(conversationId);
  const key = counter.rows[0].key;
  const firstSeq = Number(counter.rows[0].first);

  const { parentKeys, positions } = await takePositions(client, key, conversationId, adds);
  const addedNodes: ConversationNode[] = adds.map((node, i) => ({ ...node, timestamp: timeParam(node.timestamp, `change.addNodes[${i}].timestamp`), nodeId: formatNodeId(firstSeq + i), position: positions[i] }));

  if (change.updateNodes?.length) {
    const records = change.updateNodes.map((node, i) => nodeRecord(node, updateSeqs[i], 0, `change.updateNodes[${i}]`));
    const updated = await client.query<{ seq: string }>(
      `UPDATE nodes n SET role = r.role, content = r.content, metadata = r.metadata, prompt_name = r.prompt_name, branch_name = r.branch_name, created_at = r.created_at,
         message = CASE WHEN n.message ? $3 THEN r.message || jsonb_build_object($3::text, n.message -> $3) ELSE r.message END
       FROM jsonb_to_recordset($2::jsonb) AS r(seq bigint, role text, content text, message jsonb, metadata jsonb, prompt_name text, branch_name text, created_at timestamptz)
       WHERE n.conversation = $1 AND n.seq = r.seq RETURNING n.seq`,
      [key, JSON.stringify(records), LEGACY_ID_LIMIT_KEY],
    );
    const found = new Set(updated.rows.map((row) => Number(row.seq)));
    const missing = change.updateNodes.find((_node, i) => !found.has(updateSeqs[i]));
    if (missing) throw new NodeNotFoundError(missing.nodeId, conversationId);
  }
  if (currentSeq !== undefined) {
    const exists = await client.query('SELECT 1 FROM nodes WHERE conversation = $1 AND seq = $2', [key, currentSeq]);
    if (exists.rows.length === 0) throw new NodeNotFoundError(change.currentNodeId as string, conversationId);
  }
  // A delete takes the whole stored subtree (the parent links cascade), also what another client added below it since this one last read.
  if (deleteSeqs.length) await client.query('DELETE FROM nodes WHERE conversation = $1 AND seq = ANY($2::bigint[])', [key, deleteSeqs]);

  const addedKeys = adds.length
    ? await insertNodeRows(
        client,
        key,
        adds.map((node, i) => nodeRecord(node, firstSeq + i, 0, `change.addNodes[${i}]`)),
        parentKeys,
        positions,
      )
    : [];

  const current = change.currentIsLastAdded && adds.length > 0 ? firstSeq + adds.length - 1 : currentSeq;
  await client.query('UPDATE conversations SET updated_at = $2, current_seq = coalesce($3, current_seq), metadata = coalesce($4::jsonb, metadata) WHERE key = $1', [
    key,
    timeParam(change.updatedAt, 'change.updatedAt'),
    current ?? null,
    change.metadata === undefined ? null : JSON.stringify(change.metadata),
  ]);
  if (current !== undefined) {
    await client.query('INSERT INTO reader_positions (conversation, seq) VALUES ($1, $2) ON CONFLICT (conversation, reader) DO UPDATE SET seq = excluded.seq', [key, current]);
  }
  return { addedNodes, addedKeys };
}

/**
 * Takes a sibling position for each new node from its parent's `next_child`, in one `UPDATE …
 * RETURNING` (which locks the parents' rows until the transaction ends): nodes under one parent get
 * consecutive positions in the order given. A parent that is not stored refuses the change.
 */
async function takePositions(client: pg.PoolClient, key: string, conversationId: string, adds: NonNullable<ConversationChange['addNodes']>): Promise<{ parentKeys: string[]; positions: number[] }> {
  if (adds.length === 0) return { parentKeys: [], positions: [] };
  const parentSeqs = adds.map((node) => {
    const seq = node.parentId === null ? undefined : nodeSeqOf(node.parentId);
    if (seq === undefined) throw new NodeNotFoundError(String(node.parentId), conversationId);
    return seq;
  });
  const taken = await client.query<{ seq: string; key: string; first: number }>(
    `UPDATE nodes n SET next_child = n.next_child + u.count
     FROM (SELECT seq, count(*)::int AS count FROM unnest($2::bigint[]) AS seq GROUP BY seq) u
     WHERE n.conversation = $1 AND n.seq = u.seq
     RETURNING n.seq, n.key, n.next_child - u.count AS first`,
    [key, parentSeqs],
  );
  const bySeq = new Map(taken.rows.map((row) => [Number(row.seq), { key: row.key, next: Number(row.first) }]));
  const parentKeys: string[] = [];
  const positions: number[] = [];
  adds.forEach((node, i) => {
    const parent = bySeq.get(parentSeqs[i]);
    if (!parent) throw new NodeNotFoundError(String(node.parentId), conversationId);
    parentKeys.push(parent.key);
    positions.push(parent.next++);
  });
  return { parentKeys, positions };
}
