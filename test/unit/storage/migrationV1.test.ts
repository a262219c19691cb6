/**
 * Opening a real 1.x store (test/fixtures/storeV1, written by the release before schema 2.0: a
 * checkpointed database plus a journal it never folded in) migrates it to schema 2.0 with nothing
 * lost, keeps the old file as `.v1.bak`, resolves the old dot-path ids, and survives a kill at any
 * instant of the migration.
 */
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, SqlJsConversationStorage, isDotPath, type ConversationState, type LLMProvider } from '../../../src/core/index';
import { CURRENT_SCHEMA } from '../../../src/core/storage/schema';
import { LEGACY_BACKUP_SUFFIX } from '../../../src/core/storage/journaledDatabase';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/storeV1');
const OPENER = path.join(ROOT, 'test/fixtures/storeOpener.ts');
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Record<string, ConversationState>;
const llm = { name: 'none' } as unknown as LLMProvider;
const CURRENT_VERSION = CURRENT_SCHEMA.major * 1000 + CURRENT_SCHEMA.minor;

let dir: string;
let file: string;

async function copyFixture(): Promise<void> {
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite'), file);
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite.arbor-journal'), file + '.arbor-journal');
}

async function userVersion(bytes: Uint8Array): Promise<number> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  try {
    return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
  } finally {
    db.close();
  }
}

/** Checks every conversation and node of expected.json against the store, through old ids. */
async function expectEverythingKept(storage: SqlJsConversationStorage): Promise<void> {
  const ids = (await storage.listConversations({ sortBy: 'conversationId' })).map((c) => c.conversationId);
  expect(ids).toEqual(Object.keys(expected).sort());
  for (const [conversationId, old] of Object.entries(expected)) {
    const manager = await ConversationManager.resume(conversationId, { llm, storage });
    const state = manager.toState();
    expect(state.nodes).toHaveLength(old.nodes.length);
    expect(state.metadata).toEqual(old.metadata);
    expect(state.createdAt).toBe(old.createdAt);
    expect(state.updatedAt).toBe(old.updatedAt);
    expect(manager.currentNodeId).toBe(manager.getNode(old.currentNodeId).nodeId);
    for (const oldNode of old.nodes) {
      const node = manager.getNode(oldNode.nodeId);
      expect(isDotPath(node.nodeId) && node.nodeId !== '').toBe(false);
      expect(node.message).toEqual(oldNode.message);
      expect(node.timestamp).toBe(oldNode.timestamp);
      expect(node.metadata).toEqual(oldNode.metadata);
      expect(node.branchName).toBe(oldNode.branchName);
      expect(node.promptName).toBe(oldNode.promptName);
      expect(node.parentId).toBe(oldNode.parentId === null ? null : manager.getNode(oldNode.parentId).nodeId);
      // Sibling order is the old order: the children of each old node, by old index.
      const oldChildren = old.nodes
        .filter((n) => n.parentId === oldNode.nodeId)
        .sort((a, b) => Number(a.nodeId.split('.').pop()) - Number(b.nodeId.split('.').pop()))
        .map((n) => manager.getNode(n.nodeId).nodeId);
      expect(manager.getChildren(node.nodeId).map((n) => n.nodeId)).toEqual(oldChildren);
    }
    expect(manager.getTotalCost()).toBeCloseTo(old.nodes.reduce((sum, n) => sum + (typeof n.metadata.costUsd === 'number' ? n.metadata.costUsd : 0), 0), 10);
  }
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-migrate-'));
  file = path.join(dir, 'arbor.sqlite');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('migrating a 1.x store to schema 2.0', () => {
  it('keeps every conversation, node, branch name, current position, cost, retrieval and attachment', async () => {
    await copyFixture();
    const storage = await SqlJsConversationStorage.open(file);
    expect(storage.warnings.join('\n')).toContain(`kept as ${file}${LEGACY_BACKUP_SUFFIX}`);
    await expectEverythingKept(storage);

    const branches = await ConversationManager.resume('conv-branches', { llm, storage });
    // What the journal held after the checkpoint was replayed before the migration.
    expect(branches.getMetadata('title')).toBe('Review the SSE parser');
    const long = await ConversationManager.resume('conv-long', { llm, storage });
    expect(long.getNode('0.0.0.0.0.0.0.0.0.0.1').branchName).toBe('late branch');
    expect(branches.getNode('0.1').branchName).toBe('gpt-4.1 retry');
    expect(branches.getNode('1').metadata.ragMetadata).toMatchObject({ RAG_CONTENT: { adapter: 'workspace', results: [{ path: 'src/sse.ts' }] } });
    expect(branches.getNode('0').metadata.attachments).toEqual([{ kind: 'file', path: 'src/sse.ts', startLine: 10, endLine: 40 }]);
    // Deleted branches stay deleted: their old ids resolve to nothing.
    expect(branches.hasNode('2')).toBe(false);
    expect(branches.hasNode('0.0.0')).toBe(false);
    // The dataknobs path of an unchanged node is its old id.
    expect(branches.getDotPath(branches.currentNodeId)).toBe('0.1.0.0');
    await storage.close();
  });

  it('gives new nodes new ids that no old dot path can reach, and keeps working after reopening', async () => {
    await copyFixture();
    let storage = await SqlJsConversationStorage.open(file);
    const branches = await ConversationManager.resume('conv-branches', { llm, storage });
    await branches.switchToNode('');
    const added = await branches.addMessage({ role: 'user', content: 'A third question' });
    expect(isDotPath(added.nodeId)).toBe(false);
    expect(branches.getDotPath(added.nodeId)).toBe('2');
    // "2" was the id of a deleted branch: it must not come back as the new node.
    expect(branches.hasNode('2')).toBe(false);
    await storage.close();

    storage = await SqlJsConversationStorage.open(file);
    expect(storage.warnings).toEqual([]);
    const again = await ConversationManager.resume('conv-branches', { llm, storage });
    expect(again.currentNodeId).toBe(added.nodeId);
    expect(again.getNode('0.1.0.0').message.content).toContain('flush(buffer)');
    await storage.close();
  });

  it('keeps the pre-migration store beside the new one as a 1.x file with the journal folded in', async () => {
    await copyFixture();
    const storage = await SqlJsConversationStorage.open(file);
    await storage.close();
    const backup = await fs.readFile(file + LEGACY_BACKUP_SUFFIX);
    expect(await userVersion(backup)).toBe(1001);
    // 1.x goes straight to the current schema (2.0's conversion, then 2.1's file checkpoint tables).
    expect(await userVersion(await fs.readFile(file))).toBe(CURRENT_VERSION);
    const SQL = await initSqlJs();
    const db = new SQL.Database(backup);
    const titles = db.exec(`SELECT metadata FROM conversations WHERE id = 'conv-branches'`)[0].values[0][0];
    expect(JSON.parse(String(titles)).title).toBe('Review the SSE parser');
    expect(Number(db.exec('SELECT count(*) FROM nodes')[0].values[0][0])).toBe(Object.values(expected).reduce((n, c) => n + c.nodes.length, 0));
    db.close();
  });

  it('leaves a store that opens, old or new, when the process is killed at any instant of the migration', async () => {
    const run = (kill?: number) =>
      new Promise<{ opened?: number; code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', OPENER, file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let stderr = '';
        let scheduled = false;
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (kill !== undefined && !scheduled && out.includes('OPENING\n')) {
            scheduled = true;
            setTimeout(() => child.kill('SIGKILL'), kill);
          }
        });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => {
          const opened = /OPENED ([\d.]+)/.exec(out);
          resolve({ opened: opened ? Number(opened[1]) : undefined, code, stderr });
        });
      });

    // One undisturbed run measures how long opening (and migrating) takes in a child process.
    await copyFixture();
    const calm = await run();
    expect(calm.stderr).toBe('');
    const window = calm.opened as number;
    expect(window).toBeGreaterThan(0);

    const rounds = 8;
    const outcomes: string[] = [];
    for (let i = 0; i < rounds; i++) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(dir);
      await copyFixture();
      const result = await run(Math.round((window * (i + 0.5)) / rounds));
      const version = await userVersion(await fs.readFile(file));
      expect([1001, CURRENT_VERSION]).toContain(version);
      outcomes.push(`${result.opened === undefined ? 'killed' : 'finished'} at v${version}`);
      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      await expectEverythingKept(storage);
      await storage.close();
    }
    expect(outcomes).toHaveLength(rounds);
  }, 180_000);
});
