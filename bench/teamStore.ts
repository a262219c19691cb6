/**
 * The team store on a local PostgreSQL against the sql.js store, in one run: what persisting one added
 * message costs (`applyChange`), what resuming a 10,000-message conversation costs (`loadConversation`
 * inside `ConversationManager.resume`, then `getHistory()`), and how long a change committed by one
 * store takes to reach another store's `onDidChange` through the change feed. PostgreSQL is a throwaway
 * cluster of Debian's binaries (test/fixtures/postgresCluster.ts), on 127.0.0.1. Writes the "Team store"
 * section of docs/benchmarks.md.
 *
 * Run: npx tsx bench/teamStore.ts   (or npm run bench -- teamStore)
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as core from '../src/core/index';
import { formatNodeId } from '../src/core/nodeIds';
import { PostgresConversationStorage } from '../src/core/storage/postgres/postgresConversationStorage';
import { sampleConversation, sampleNode } from '../src/core/storage/storageTestData';
import type { ConversationNode, ConversationState } from '../src/core/types';
import { startPostgres } from '../test/fixtures/postgresCluster';
import { teamStoreSql } from '../scripts/teamStoreSql';
import { runBenchmark, summarize, writeBenchmarkSection } from './benchReport';

const APPENDS = 200;
const LONG = 10_000;
const FORK_EVERY = 500;
const RESUMES = 7;
const FEED_ROUNDS = 50;
const llm = { name: 'bench' } as unknown as core.LLMProvider;

function since(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const ms = (v: number) => (v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`);

/** A path of `length` messages below the root, with a sibling of every `FORK_EVERY`th message. */
function longConversation(conversationId: string, length: number): ConversationState {
  const at = new Date(Date.UTC(2025, 0, 1)).toISOString();
  const nodes: ConversationNode[] = [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: 'You help.' }, timestamp: at, metadata: {} }];
  let seq = 0;
  let parent = '';
  for (let i = 0; i < length; i++) {
    const nodeId = formatNodeId(++seq);
    nodes.push({ nodeId, parentId: parent, position: 0, message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }, timestamp: at, metadata: {} });
    if (i > 0 && i % FORK_EVERY === 0) {
      nodes.push({ nodeId: formatNodeId(++seq), parentId: parent, position: 1, message: { role: i % 2 ? 'assistant' : 'user', content: `fork ${i}` }, timestamp: at, metadata: {} });
    }
    parent = nodeId;
  }
  return { conversationId, nodes, currentNodeId: parent, metadata: {}, nextNodeSeq: seq + 1, createdAt: at, updatedAt: at };
}

/** One message added to each store in turn, so both see the same machine noise. */
async function measureAppends(stores: Record<string, core.ConversationStorage>): Promise<Record<string, number[]>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(stores).map((name) => [name, []]));
  for (let i = 0; i < APPENDS; i++) {
    for (const [name, storage] of Object.entries(stores)) {
      const { nodeId: _id, position: _position, ...node } = sampleNode('', '', 200 + ((i * 7919) % 2800), i, 'assistant');
      node.parentId = formatNodeId(99);
      const start = process.hrtime.bigint();
      await storage.applyChange('appends', { addNodes: [node], currentIsLastAdded: true, updatedAt: new Date().toISOString() });
      samples[name].push(since(start));
    }
  }
  return samples;
}

async function measureResume(storage: core.ConversationStorage): Promise<number[]> {
  const samples: number[] = [];
  for (let r = 0; r < RESUMES; r++) {
    const start = process.hrtime.bigint();
    const manager = await core.ConversationManager.resume('long', { llm, storage } as never);
    const history = manager.getHistory();
    samples.push(since(start));
    if (history.length !== LONG + 1) throw new Error(`The resumed path has ${history.length} messages, expected ${LONG + 1}.`);
  }
  return samples;
}

/** From `applyChange` returning in one store to `onDidChange` firing in the other (a second connection). */
async function measureFeed(writer: PostgresConversationStorage, reader: PostgresConversationStorage): Promise<number[]> {
  await writer.saveConversation(sampleConversation('feed', 2));
  // The first subscription starts the reader's feed: wait until it listens.
  const connected = new Promise<void>((resolve) => reader.onDidChangeFeedStatus((s) => s.status === 'connected' && resolve()));
  const first = reader.onDidChange(() => undefined);
  await connected;
  const samples: number[] = [];
  for (let i = 0; i < FEED_ROUNDS; i++) {
    let start = 0n;
    const heard = new Promise<number>((resolve) => {
      const subscription = reader.onDidChange((id) => {
        if (id !== 'feed' || start === 0n) return;
        subscription.dispose();
        resolve(since(start));
      });
    });
    start = process.hrtime.bigint();
    await writer.applyChange('feed', { addNodes: [{ parentId: '', message: { role: 'user', content: `ping ${i}` }, timestamp: new Date().toISOString(), metadata: {} }], updatedAt: new Date().toISOString() });
    samples.push(await Promise.race([heard, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`The change of round ${i} did not reach the other store's onDidChange within 10 s.`)), 10_000))]));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  first.dispose();
  return samples;
}

async function main(): Promise<void> {
  const server = await startPostgres();
  if ('skip' in server) throw new Error(server.skip);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-bench-team-'));
  try {
    const db = await server.createDatabase('arbor_bench');
    await server.psql(`${teamStoreSql()}
      CREATE ROLE team_a NOLOGIN; GRANT arbor_users TO team_a;
      CREATE ROLE alice LOGIN; GRANT team_a TO alice; CREATE ROLE bob LOGIN; GRANT team_a TO bob;`, db);
    const postgres = await PostgresConversationStorage.open({ connectionString: server.url('alice', db) });
    const sqlJs = await core.SqlJsConversationStorage.open(path.join(dir, 'arbor.sqlite'));
    const stores = { postgres, sqlJs };
    for (const [name, storage] of Object.entries(stores)) {
      const start = process.hrtime.bigint();
      await storage.saveConversation(sampleConversation('appends', 100));
      await storage.saveConversation(longConversation('long', LONG));
      process.stdout.write(`${name}: stored the conversations in ${ms(since(start))}\n`);
    }
    // A few untimed rounds first, so connections and caches are warm in both.
    for (const storage of Object.values(stores)) await measureResume(storage);
    const appends = await measureAppends(stores);
    process.stdout.write('measured appends\n');
    const resume = { postgres: await measureResume(postgres), sqlJs: await measureResume(sqlJs) };
    const openStart = process.hrtime.bigint();
    const fresh = await PostgresConversationStorage.open({ connectionString: server.url('bob', db) });
    await core.ConversationManager.resume('long', { llm, storage: fresh } as never);
    const coldResume = since(openStart);
    const feed = await measureFeed(postgres, fresh);
    await fresh.close();
    await postgres.close();
    await sqlJs.close();

    const a = { postgres: summarize(appends.postgres), sqlJs: summarize(appends.sqlJs) };
    const r = { postgres: summarize(resume.postgres), sqlJs: summarize(resume.sqlJs) };
    const f = summarize(feed);
    const table = [
      `The team store (\`PostgresConversationStorage\`, PostgreSQL ${(await server.psql('SHOW server_version;')).trim()} on 127.0.0.1, a throwaway cluster with \`fsync=off\`) against the sql.js store (file-backed, flushed journal), both in one run of \`npx tsx bench/teamStore.ts\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} shared CPUs. Persist: ${APPENDS} \`applyChange\` calls adding one message of 200 B to 3 KB, alternating between the stores. Resume: \`ConversationManager.resume\` + \`getHistory()\` of a path of ${LONG.toLocaleString('en-US')} messages with a fork every ${FORK_EVERY}, on an open store, median of ${RESUMES}. Live: from \`applyChange\` returning in one store to \`onDidChange\` in another connected as another person, ${FEED_ROUNDS} rounds.`,
      '',
      `Targets: resume of ${LONG.toLocaleString('en-US')} messages at most 100 ms (${ms(r.postgres.median)}, ${r.postgres.median <= 100 ? 'met' : 'missed'}); a change reaches another window within a second (${ms(f.p95)} at p95, ${f.p95 <= 1000 ? 'met' : 'missed'}).`,
      '',
      '| measure | PostgreSQL median | PostgreSQL p95 | sql.js median | sql.js p95 | PostgreSQL / sql.js |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
      `| persist one message | ${ms(a.postgres.median)} | ${ms(a.postgres.p95)} | ${ms(a.sqlJs.median)} | ${ms(a.sqlJs.p95)} | ${(a.postgres.median / a.sqlJs.median).toFixed(2)}x |`,
      `| resume ${LONG.toLocaleString('en-US')} messages | ${ms(r.postgres.median)} | ${ms(r.postgres.p95)} | ${ms(r.sqlJs.median)} | ${ms(r.sqlJs.p95)} | ${(r.postgres.median / r.sqlJs.median).toFixed(2)}x |`,
      `| open a new connection + resume (once) | ${ms(coldResume)} | | | | |`,
      `| change to another window's onDidChange | ${ms(f.median)} | ${ms(f.p95)} | | | |`,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    await writeBenchmarkSection('Team store', table);
  } finally {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
