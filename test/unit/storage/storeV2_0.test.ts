/**
 * Schema 2.1 against the release before it. A store written by the last 2.0 release
 * (test/fixtures/storeV2_0: a checkpoint plus a journal it never folded) opens, is upgraded in place,
 * keeps every conversation as that release loaded it, and survives a kill at any instant of the
 * upgrade. And the 2.0 release itself, taken from git, still reads a 2.1 store, applies the file
 * checkpoints it finds in the journal instead of skipping them, so its checkpoint keeps them, and its
 * deletes remove the file checkpoints of what it deletes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationManager, JOURNAL_SUFFIX, SqlJsConversationStorage, type ConversationState, type LLMProvider } from '../../../src/core/index';
import { CURRENT_SCHEMA } from '../../../src/core/storage/schema';
import { readJournal } from '../../../src/core/storage/journal';
import { startTsxChild } from '../../fixtures/lineChild';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/storeV2_0');
const OPENER = path.join(ROOT, 'test/fixtures/storeOpener.ts');
const READER = path.join(ROOT, 'test/fixtures/schema20Reader.ts');
/** The last release of storage schema 2.0. */
const RELEASE_2_0 = 'c3fe769';
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Record<string, ConversationState>;
const llm = { name: 'none' } as unknown as LLMProvider;
const VERSION_2_0 = 2000;
const VERSION_2_1 = CURRENT_SCHEMA.major * 1000 + CURRENT_SCHEMA.minor;
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const bytes = (text: string) => new Uint8Array(Buffer.from(text));

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-store-v2-0-'));
  file = path.join(dir, 'arbor.sqlite');
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function copyFixture(): Promise<void> {
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite'), file);
  await fs.copyFile(path.join(FIXTURE, 'arbor.sqlite.arbor-journal'), file + JOURNAL_SUFFIX);
}

async function userVersion(target: string): Promise<number> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(await fs.readFile(target));
  try {
    return Number(db.exec('PRAGMA user_version')[0].values[0][0]);
  } finally {
    db.close();
  }
}

async function expectEverythingKept(storage: SqlJsConversationStorage): Promise<void> {
  expect((await storage.listConversations({ sortBy: 'conversationId' })).map((c) => c.conversationId)).toEqual(Object.keys(expected).sort());
  for (const [conversationId, state] of Object.entries(expected)) {
    expect(await storage.loadConversation(conversationId)).toEqual(state);
  }
}

/** The engine of the 2.0 release, extracted from git once into .vscode-test (ignored by git, lint and vitest). */
function engine20(): string {
  const target = path.join(ROOT, '.vscode-test', `engine-${RELEASE_2_0}`);
  const index = path.join(target, 'src/core/index.ts');
  if (!existsSync(index)) {
    let archive: Buffer;
    try {
      archive = execFileSync('git', ['archive', '--format=tar', RELEASE_2_0, 'src/core'], { cwd: ROOT, maxBuffer: 1 << 28 });
    } catch (error) {
      throw new Error(`This test runs the schema 2.0 release (commit ${RELEASE_2_0}) taken from git history; a shallow clone lacks it (fetch with full history): ${String(error)}`);
    }
    execFileSync('mkdir', ['-p', target]);
    execFileSync('tar', ['-x', '-C', target], { input: archive });
  }
  return index;
}

describe('a store written by the schema 2.0 release', () => {
  it('is upgraded to 2.1 in place on open and keeps every conversation, its late journal included', async () => {
    await copyFixture();
    expect(await userVersion(file)).toBe(VERSION_2_0);
    const storage = await SqlJsConversationStorage.open(file);
    expect(storage.warnings).toEqual([]);
    await expectEverythingKept(storage);
    expect(expected['conv-branches'].metadata.title).toBe('Review the SSE parser');
    // The upgrade was checkpointed at once: the file is 2.1 and the journal starts empty.
    expect(await userVersion(file)).toBe(VERSION_2_1);
    expect((await readJournal(file + JOURNAL_SUFFIX))?.entries).toEqual([]);

    const manager = await ConversationManager.resume('conv-branches', { llm, storage });
    const change = { path: 'src/sse.ts', before: bytes('old\n'), after: bytes('if (buffer) flush(buffer);\n') };
    await manager.recordFileChanges(manager.currentNodeId, [change]);
    await storage.close();

    const reopened = await SqlJsConversationStorage.open(file);
    expect(reopened.warnings).toEqual([]);
    await expectEverythingKept(reopened);
    expect((await reopened.filesStateAt('conv-branches', manager.currentNodeId)).map((s) => s.hash)).toEqual([sha(change.after)]);
    await reopened.close();
  });

  it('opens as 2.0 or 2.1, with nothing lost, when the process is killed at any instant of the upgrade', async () => {
    const run = (kill?: number) =>
      new Promise<{ opened?: number; stderr: string }>((resolve) => {
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
        child.on('exit', () => {
          const opened = /OPENED ([\d.]+)/.exec(out);
          resolve({ opened: opened ? Number(opened[1]) : undefined, stderr });
        });
      });
    await copyFixture();
    const calm = await run();
    expect(calm.stderr).toBe('');
    const window = calm.opened as number;
    expect(window).toBeGreaterThan(0);
    const seen = new Set<number>();
    const rounds = 6;
    for (let i = 0; i < rounds; i++) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(dir);
      await copyFixture();
      await run(Math.round((window * (i + 0.5)) / rounds));
      const version = await userVersion(file);
      expect([VERSION_2_0, VERSION_2_1]).toContain(version);
      seen.add(version);
      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      await expectEverythingKept(storage);
      await storage.close();
      expect(await userVersion(file)).toBe(VERSION_2_1);
    }
    expect(seen.size).toBeGreaterThan(0);
  }, 180_000);
});

/** Whether git can give the 2.0 release here (a shallow clone cannot). */
function has20Release(): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${RELEASE_2_0}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`Skipped the test of the schema 2.0 release on a 2.1 store: commit ${RELEASE_2_0} is not in this clone's history (a shallow clone); fetch with full history to run it.`);
    return false;
  }
}

describe('the schema 2.0 release on a 2.1 store', () => {
  it.skipIf(!has20Release())('reads every conversation, applies the file checkpoints of the journal before folding it, and its deletes remove theirs', async () => {
    const engine = engine20();
    const storage = await SqlJsConversationStorage.open(file);
    const manager = await ConversationManager.create({ llm, storage, conversationId: 'code', systemPrompt: 'You edit code.' });
    const v = [0, 1, 2, 3].map((i) => bytes(`export const version = ${i};\n`));
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0xff]);
    const ask = await manager.addMessage({ role: 'user', content: 'Bump the version' });
    const first = await manager.addMessage({ role: 'assistant', content: 'Done.' });
    await manager.recordFileChanges(first.nodeId, [{ path: 'src/version.ts', before: v[0], after: v[1] }]);
    await storage.checkpoint();
    // From here on, the file checkpoints are in the journal only.
    const second = await manager.addMessage({ role: 'assistant', content: 'Bumped again, with a logo.' });
    await manager.recordFileChanges(second.nodeId, [{ path: 'src/version.ts', before: v[1], after: v[2] }, { path: 'logo.png', before: null, after: png }]);
    await manager.branchFrom(second.nodeId);
    const doomed = await manager.addMessage({ role: 'assistant', content: 'A branch the old release deletes.' });
    await manager.recordFileChanges(doomed.nodeId, [{ path: 'src/version.ts', before: v[1], after: v[3] }]);
    await ConversationManager.create({ llm, storage, conversationId: 'other' });
    const before = await storage.loadConversation('code');
    const keptChanges = { [first.nodeId]: await manager.getFileChanges(first.nodeId), [second.nodeId]: await manager.getFileChanges(second.nodeId) };

    const old = startTsxChild(READER, [engine, file, 'code', doomed.nodeId], ROOT);
    expect(await old.exited).toBe(0);
    expect(old.stderr.join('')).toBe('');
    const read = JSON.parse((old.lines.find((line) => line.startsWith('READ ')) as string).slice(5)) as { warnings: string[]; ids: string[]; state: ConversationState };
    // It sees the conversations exactly as 2.1 does: no envelope ever shows up as a message.
    expect(read).toEqual({ warnings: [], ids: ['code', 'other'], state: before });
    expect(old.lines).toContain('WARNINGS []');
    const added = (old.lines.find((line) => line.startsWith('ADDED ')) as string).slice(6);
    // Its close folded the journal into the file, still 2.1.
    expect((await readJournal(file + JOURNAL_SUFFIX))?.entries).toEqual([]);
    expect(await userVersion(file)).toBe(VERSION_2_1);

    expect(await storage.poll()).toContain('code');
    const after = await storage.loadConversation('code');
    expect(after?.nodes.map((n) => n.nodeId)).toEqual([...(before?.nodes ?? []).map((n) => n.nodeId).filter((id) => id !== doomed.nodeId), added]);
    expect(await storage.fileChangesByNode('code')).toEqual(keptChanges);
    expect(Buffer.from((await storage.fileContent(sha(png))) as Uint8Array).equals(Buffer.from(png))).toBe(true);
    // The deleted branch's change went with it, and the content only it used with that.
    expect(await storage.fileContent(sha(v[3]))).toBeNull();
    expect(await storage.filesStateAt('code', second.nodeId)).toEqual([
      { path: 'logo.png', hash: sha(png), nodeId: second.nodeId, originalHash: null },
      { path: 'src/version.ts', hash: sha(v[2]), nodeId: second.nodeId, originalHash: sha(v[0]) },
    ]);
    await storage.close();
    expect(ask.nodeId).not.toBe('');
  }, 120_000);
});
