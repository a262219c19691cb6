import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres } from '../../../fixtures/postgresServer';
import { startTsxChild, type LineChild } from '../../../fixtures/lineChild';
import { teamStoreSql } from '../../../../scripts/teamStoreSql';
import { PostgresConversationStorage } from '../../../../src/core/storage/postgres/postgresConversationStorage';
import type { ConversationState } from '../../../../src/core/types';

/**
 * The team store with several processes on one real PostgreSQL, each its own role of one team (several
 * people's Arbor, in effect): eight writers adding messages under one parent and across conversations
 * for 30 seconds lose nothing, never share a position among siblings, and each sees every other's
 * messages through its change feed; a writer killed with SIGKILL while writing keeps every message the
 * store acknowledged, and leaves no lock behind.
 */
const ROOT = path.resolve(__dirname, '../../../..');
const WRITER = path.join(ROOT, 'test/fixtures/teamStoreWriter.ts');
const WRITERS = 8;
const SECONDS = 30;
const ACROSS = ['across-0', 'across-1', 'across-2'];

interface Ack {
  conversationId: string;
  nodeId: string;
  label: string;
}

function acks(child: LineChild): Ack[] {
  return child.lines
    .filter((line) => line.startsWith('ACK '))
    .map((line) => {
      const [, conversationId, nodeId, label] = line.split(' ');
      return { conversationId, nodeId: nodeId ?? '', label };
    });
}

function emptyConversation(conversationId: string): ConversationState {
  const now = new Date().toISOString();
  return {
    conversationId,
    nodes: [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: now, metadata: {} }],
    currentNodeId: '',
    metadata: {},
    createdAt: now,
    updatedAt: now,
  };
}

describeWithPostgres('team store across processes', (server) => {
  let db: string;
  const url = (role: string) => server().url(role, db);
  let checker: PostgresConversationStorage;

  beforeAll(async () => {
    db = await server().createDatabase();
    const people = Array.from({ length: WRITERS + 1 }, (_, i) => `person_${i}`);
    await server().psql(`${teamStoreSql()}
      CREATE ROLE team_a NOLOGIN; GRANT arbor_users TO team_a;
      ${people.map((p) => `CREATE ROLE ${p} LOGIN; GRANT team_a TO ${p};`).join('\n')}`, db);
    checker = await PostgresConversationStorage.open({ connectionString: url(`person_${WRITERS}`) });
    for (const id of ['shared', ...ACROSS, 'killed']) await checker.saveConversation(emptyConversation(id));
  }, 60_000);

  afterAll(async () => checker?.close());

  it(`loses nothing and gives no position twice with ${WRITERS} processes writing for ${SECONDS} s, each seeing the others through the feed`, async () => {
    const tags = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
    const writers = tags.map((tag, i) =>
      startTsxChild(WRITER, [JSON.stringify({ url: url(`person_${i}`), tag, seconds: SECONDS, others: tags.filter((t) => t !== tag), shared: 'shared', across: ACROSS })], ROOT),
    );
    const codes = await Promise.all(writers.map((w) => w.exited));
    expect({ codes, stderr: writers.flatMap((w) => w.stderr).join('') }).toEqual({ codes: codes.map(() => 0), stderr: '' });

    const states = new Map<string, ConversationState>();
    for (const id of ['shared', ...ACROSS]) {
      const state = await checker.loadConversation(id);
      if (!state) throw new Error(`${id} is missing`);
      states.set(id, state);
    }
    // 0 lost: every acknowledged message is stored under the id the store gave it, with its text.
    const lost: string[] = [];
    let acknowledged = 0;
    for (const writer of writers) {
      for (const ack of acks(writer)) {
        acknowledged++;
        const node = states.get(ack.conversationId)?.nodes.find((n) => n.nodeId === ack.nodeId);
        if (!node?.message.content.startsWith(`${ack.label} `)) lost.push(`${ack.conversationId}/${ack.nodeId} ${ack.label}`);
      }
    }
    expect(lost).toEqual([]);
    expect(acknowledged).toBeGreaterThan(WRITERS * 10);
    for (const [id, state] of states) {
      // 0 duplicates: no message stored twice, no id given twice, and distinct positions among siblings.
      const contents = state.nodes.map((n) => n.message.content).filter((c) => c !== '');
      expect(new Set(contents).size, `${id}: a message stored twice`).toBe(contents.length);
      expect(new Set(state.nodes.map((n) => n.nodeId)).size, `${id}: an id given twice`).toBe(state.nodes.length);
      const siblings = new Map<string, number[]>();
      for (const node of state.nodes) {
        if (node.parentId === null) continue;
        siblings.set(node.parentId, [...(siblings.get(node.parentId) ?? []), node.position]);
      }
      for (const [parent, positions] of siblings) {
        expect(new Set(positions).size, `${id}: a position given twice under "${parent}"`).toBe(positions.length);
      }
      // Nothing but the writers' messages (and their ENDs) is there.
      expect(state.nodes.length).toBe(1 + writers.reduce((sum, w) => sum + acks(w).filter((a) => a.conversationId === id).length, 0) + (id === 'shared' ? WRITERS : 0));
    }
    // Every process saw every other's messages, all of them, through its change feed.
    for (const [i, writer] of writers.entries()) {
      for (const [j, other] of writers.entries()) {
        if (i === j) continue;
        expect(writer.lines, `w${i} did not see all of w${j}'s messages`).toContain(`SEEN w${j} ${acks(other).length} of ${acks(other).length}`);
      }
    }
  }, (SECONDS + 120) * 1000);

  it('keeps every acknowledged message of a writer killed with SIGKILL while writing, and the next writer is not blocked', async () => {
    for (let round = 0; round < 3; round++) {
      const writer = startTsxChild(WRITER, [JSON.stringify({ url: url('person_0'), tag: `k${round}`, seconds: 'forever', others: [], shared: 'killed', across: ['killed'] })], ROOT);
      await writer.waitForLine((line) => line.startsWith('ACK '));
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 900));
      writer.child.kill('SIGKILL');
      await writer.exited;
      const acked = acks(writer);
      expect(acked.length).toBeGreaterThan(0);
      const stored = new Map((await checker.loadConversation('killed'))?.nodes.map((n) => [n.nodeId, n.message.content]));
      expect(acked.filter((a) => !stored.get(a.nodeId)?.startsWith(`${a.label} `))).toEqual([]);
      // The killed writer's session is gone with its transaction: the same parent takes a new child at once.
      const { addedNodes } = await checker.applyChange('killed', {
        addNodes: [{ parentId: '', message: { role: 'user', content: `after kill ${round}` }, timestamp: new Date().toISOString(), metadata: {} }],
        updatedAt: new Date().toISOString(),
      });
      const after = await checker.loadConversation('killed');
      expect(after?.nodes.find((n) => n.nodeId === addedNodes[0].nodeId)?.message.content).toBe(`after kill ${round}`);
      const positions = after?.nodes.filter((n) => n.parentId === '').map((n) => n.position) ?? [];
      expect(new Set(positions).size).toBe(positions.length);
    }
  }, 120_000);
});
