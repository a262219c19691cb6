/**
 * Schema 2.2 (images) against the release before it. A store written by the last 2.1 release
 * (test/fixtures/storeV2_1: a checkpoint plus a journal it never folded, file checkpoints in both) opens,
 * is upgraded in place, keeps every conversation and file checkpoint as that release loaded them, and
 * survives a kill at any instant of the upgrade. And the 2.1 release itself, taken from git, still reads
 * a 2.2 store, applies the image envelopes of the journal before folding it, and its deletes (which run
 * the 2.2 triggers stored in the file) never collect the bytes of an image it does not know about.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_SUFFIX, SqlJsConversationStorage, type ConversationState } from '../../../src/core/index';
import { CURRENT_SCHEMA } from '../../../src/core/storage/schema';
import { readJournal } from '../../../src/core/storage/journal';
import type { RecordedFileChange } from '../../../src/core/storage/storage';
import { startTsxChild } from '../../fixtures/lineChild';
import { makePng } from '../../fixtures/pngImages';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/storeV2_1');
const OPENER = path.join(ROOT, 'test/fixtures/storeOpener.ts');
/** Opens a store with an older engine, prints what it read, deletes a branch, adds a message, closes. */
const READER = path.join(ROOT, 'test/fixtures/schema20Reader.ts');
/** The last release of storage schema 2.1. */
const RELEASE_2_1 = '526b7f9';
const expected = JSON.parse(readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as Record<string, { state: ConversationState; fileChanges: Record<string, RecordedFileChange[]> }>;
const VERSION_2_1 = 2001;
const VERSION_2_2 = CURRENT_SCHEMA.major * 1000 + CURRENT_SCHEMA.minor;
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && Buffer.from(a).equals(Buffer.from(b));

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-store-v2-1-'));
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
  for (const [conversationId, { state, fileChanges }] of Object.entries(expected)) {
    expect(await storage.loadConversation(conversationId)).toEqual(state);
    expect(await storage.fileChangesByNode(conversationId)).toEqual(fileChanges);
  }
}

/** Adds a message with images under `parentId`; returns its id. */
async function addImages(storage: SqlJsConversationStorage, conversationId: string, parentId: string, content: string, images: Uint8Array[]): Promise<string> {
  const { addedNodes } = await storage.applyChange(conversationId, {
    addNodes: [{ parentId, message: { role: 'user', content }, timestamp: new Date().toISOString(), metadata: {} }],
    addImages: [images.map((bytes, i) => ({ bytes, name: `${content.split(' ')[0]}-${i}.png` }))],
    currentIsLastAdded: true,
    updatedAt: new Date().toISOString(),
  });
  return addedNodes[0].nodeId;
}

/** The engine of the 2.1 release, extracted from git once into .vscode-test (ignored by git, lint and vitest). */
function engine21(): string {
  const target = path.join(ROOT, '.vscode-test', `engine-${RELEASE_2_1}`);
  const index = path.join(target, 'src/core/index.ts');
  if (!existsSync(index)) {
    const archive = execFileSync('git', ['archive', '--format=tar', RELEASE_2_1, 'src/core'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('mkdir', ['-p', target]);
    execFileSync('tar', ['-x', '-C', target], { input: archive });
  }
  return index;
}

/** Whether git can give the 2.1 release here (a shallow clone cannot). */
function has21Release(): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${RELEASE_2_1}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`Skipped the test of the schema 2.1 release on a 2.2 store: commit ${RELEASE_2_1} is not in this clone's history (a shallow clone); fetch with full history to run it.`);
    return false;
  }
}

describe('a store written by the schema 2.1 release', () => {
  it('is upgraded to 2.2 in place on open, keeps every conversation and file checkpoint, then stores images', async () => {
    await copyFixture();
    expect(await userVersion(file)).toBe(VERSION_2_1);
    const storage = await SqlJsConversationStorage.open(file);
    expect(storage.warnings).toEqual([]);
    await expectEverythingKept(storage);
    expect(await userVersion(file)).toBe(VERSION_2_2);
    expect((await readJournal(file + JOURNAL_SUFFIX))?.entries).toEqual([]);

    // The upgraded triggers: a deleted file change no longer takes bytes an image uses.
    const logoHash = expected['conv-files'].fileChanges.n3.find((c) => c.path === 'media/logo.bin')?.after?.hash as string;
    const logo = (await storage.fileContent(logoHash)) as Uint8Array;
    const red = makePng(20, 10, 3);
    const node = await addImages(storage, 'conv-files', 'n1', 'look at this', [red]);
    await storage.recordFileChanges('conv-files', node, [{ path: 'media/red.png', before: null, after: red }]);
    await storage.recordFileChanges('conv-files', node, [{ path: 'media/red.png', before: null, after: logo }]);
    expect(same(await storage.fileContent(sha(red)), red)).toBe(true);
    await storage.close();

    const reopened = await SqlJsConversationStorage.open(file);
    expect(reopened.warnings).toEqual([]);
    expect(await reopened.nodeImages('conv-files', node)).toEqual([{ hash: sha(red), mime: 'image/png', name: 'look-0.png', size: red.length, width: 20, height: 10 }]);
    await reopened.close();
  });

  it('opens as 2.1 or 2.2, with nothing lost, when the process is killed at any instant of the upgrade', async () => {
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
    const rounds = 6;
    for (let i = 0; i < rounds; i++) {
      await fs.rm(dir, { recursive: true, force: true });
      await fs.mkdir(dir);
      await copyFixture();
      await run(Math.round((window * (i + 0.5)) / rounds));
      expect([VERSION_2_1, VERSION_2_2]).toContain(await userVersion(file));
      const storage = await SqlJsConversationStorage.open(file, { lockStaleMs: 2000 });
      await expectEverythingKept(storage);
      await storage.close();
      expect(await userVersion(file)).toBe(VERSION_2_2);
    }
  }, 180_000);
});

describe('the schema 2.1 release on a 2.2 store', () => {
  it.skipIf(!has21Release())('reads every conversation, applies the images of the journal before folding it, and its deletes keep bytes images use', async () => {
    const engine = engine21();
    const storage = await SqlJsConversationStorage.open(file);
    await storage.saveConversation({ conversationId: 'pics', nodes: [{ nodeId: '', parentId: null, position: 0, message: { role: 'system', content: '' }, timestamp: 't', metadata: {} }], currentNodeId: '', metadata: {}, createdAt: 't', updatedAt: 't' });
    const [red, blue, green] = [makePng(4, 4, 1), makePng(5, 5, 2), makePng(6, 6, 3)];
    const first = await addImages(storage, 'pics', '', 'first', [red]);
    await storage.checkpoint();
    // From here on, the images are in the journal only.
    const second = await addImages(storage, 'pics', first, 'second', [red, blue]);
    const doomed = await addImages(storage, 'pics', first, 'doomed', [green]);
    // The doomed branch also changed a file to the bytes of `blue`: deleting it must keep them for `second`.
    await storage.recordFileChanges('pics', doomed, [{ path: 'blue.png', before: null, after: blue }]);
    await storage.forkConversation('pics', 'pics-fork', { upToNodeId: second });
    const before = await storage.loadConversation('pics');
    const keptImages = { [first]: await storage.nodeImages('pics', first), [second]: await storage.nodeImages('pics', second) };
    const forkImages = await storage.imagesByNode('pics-fork');

    const old = startTsxChild(READER, [engine, file, 'pics', doomed], ROOT);
    expect(await old.exited).toBe(0);
    expect(old.stderr.join('')).toBe('');
    const read = JSON.parse((old.lines.find((line) => line.startsWith('READ ')) as string).slice(5)) as { warnings: string[]; ids: string[]; state: ConversationState };
    // It sees the conversations as 2.2 does: no envelope ever shows up as a message.
    expect(read).toEqual({ warnings: [], ids: ['pics', 'pics-fork'], state: before });
    expect(old.lines).toContain('WARNINGS []');
    const added = (old.lines.find((line) => line.startsWith('ADDED ')) as string).slice(6);
    // Its close folded the journal into the file, still 2.2.
    expect((await readJournal(file + JOURNAL_SUFFIX))?.entries).toEqual([]);
    expect(await userVersion(file)).toBe(VERSION_2_2);

    expect(await storage.poll()).toContain('pics');
    const after = await storage.loadConversation('pics');
    expect(after?.nodes.map((n) => n.nodeId)).toEqual([...(before?.nodes ?? []).map((n) => n.nodeId).filter((id) => id !== doomed), added]);
    expect(await storage.imagesByNode('pics')).toEqual(keptImages);
    expect(await storage.imagesByNode('pics-fork')).toEqual(forkImages);
    expect(same(await storage.fileContent(sha(blue)), blue)).toBe(true);
    expect(same(await storage.fileContent(sha(red)), red)).toBe(true);
    expect(await storage.fileContent(sha(green))).toBeNull();
    await storage.close();
  }, 120_000);
});
