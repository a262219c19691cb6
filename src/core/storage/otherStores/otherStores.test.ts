import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqlJsConversationStorage } from '../sqlJsConversationStorage';
import { sampleConversation } from '../storageTestData';
import { distinctConversations, findOtherStores } from './findOtherStores';
import { mergeStoreInto } from './mergeStore';
import { STORE_IDS_CACHE_LIMIT, StoreIdsCache } from './storeIdsCache';
import { ARBOR_IDENTITY_FILE, sharedStoreDir, writeArborIdentity } from './workspaceIdentity';

/** A fresh temporary folder for each test of the enclosing block, removed after it; call the result inside a test or hook. */
function useTempFolder(prefix: string): () => string {
  let dir = '';
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

const EXT = 'arbor-dev.arbor';
const FILE = 'arbor.sqlite';

describe('findOtherStores over a real workspace-storage folder', () => {
  let tmp: string;
  let root: string;
  let project: string;
  let other: string;

  /** Makes `<root>/<id>` with its workspace.json and, when `conversations` is given, an Arbor store holding that many. */
  async function storage(id: string, workspaceJson: object | undefined, conversations?: number): Promise<string> {
    const dir = path.join(root, id);
    await fs.mkdir(path.join(dir, EXT), { recursive: true });
    if (workspaceJson) await fs.writeFile(path.join(dir, 'workspace.json'), JSON.stringify(workspaceJson));
    if (conversations !== undefined) {
      const store = await SqlJsConversationStorage.open(path.join(dir, EXT, FILE));
      for (let i = 0; i < conversations; i++) await store.saveConversation(sampleConversation(`${id}-c${i}`, 3));
      await store.close();
    }
    return path.join(dir, EXT);
  }

  const find = (currentStoreDir: string, folders: string[]) => findOtherStores({ storageRoot: root, currentStoreDir, folders, storeFile: FILE });

  const temp = useTempFolder('arbor-other-');
  beforeEach(async () => {
    tmp = temp();
    root = path.join(tmp, 'workspaceStorage');
    project = path.join(tmp, 'project');
    other = path.join(tmp, 'unrelated');
    await fs.mkdir(project);
    await fs.mkdir(other);
  });

  it('finds the folder-alone store from a multi-root workspace and never an unrelated folder’s', async () => {
    await storage('alone', { folder: pathToFileURL(project).href }, 2);
    await storage('unrelated', { folder: pathToFileURL(other).href }, 3);
    const wsFile = path.join(tmp, 'both.code-workspace');
    await fs.writeFile(wsFile, `{\n  // two folders\n  "folders": [{ "path": "project" }, { "path": "./other-one" },],\n}`);
    const current = await storage('multi', { workspace: pathToFileURL(wsFile).href }, 0);

    const found = await find(current, [project, path.join(tmp, 'other-one')]);
    expect(found.map((s) => s.storageId)).toEqual(['alone']);
    expect(found[0]).toMatchObject({ folders: [project], conversations: 2, path: path.join(root, 'alone', EXT, FILE) });
    expect(found[0].size).toBeGreaterThan(0);
    expect(found[0].lastUsed).toBeInstanceOf(Date);
  });

  it('finds a workspace file’s store (folders relative to the file) from the folder opened alone', async () => {
    const wsDir = path.join(tmp, 'ws');
    await fs.mkdir(wsDir);
    const wsFile = path.join(wsDir, 'team.code-workspace');
    await fs.writeFile(wsFile, JSON.stringify({ folders: [{ path: '../project' }, { path: other }] }));
    await storage('multi', { workspace: pathToFileURL(wsFile).href }, 4);
    const current = await storage('alone', { folder: pathToFileURL(project).href });

    const found = await find(current, [project]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ storageId: 'multi', folders: [project], workspaceFile: wsFile, conversations: 4 });
  });

  it('finds numbered siblings of the current storage (code-server’s -1) but not a sibling naming another folder', async () => {
    const current = await storage('abc123', { folder: pathToFileURL(project).href }, 1);
    await storage('abc123-1', undefined, 1);
    await storage('abc123-2', { folder: pathToFileURL(project).href }, 2);
    await storage('abc123-3', { folder: pathToFileURL(other).href }, 5);
    await storage('abc1234', undefined, 6);

    const found = await find(current, [project]);
    expect(found.map((s) => s.storageId).sort()).toEqual(['abc123-1', 'abc123-2']);
    const fromSibling = await find(path.join(root, 'abc123-1', EXT), [project]);
    expect(fromSibling.map((s) => s.storageId).sort()).toEqual(['abc123', 'abc123-2']);
  });

  it('matches by Arbor’s own record where the host wrote no workspace.json (VS Code in a browser), VS Code’s taking precedence', async () => {
    const current = await storage('multi-root-in-browser', undefined, 0);
    await writeArborIdentity(current, { folders: [project, other] });
    const alone = await storage('alone-in-browser', undefined, 2);
    await writeArborIdentity(alone, { folders: [project] });
    const unrelated = await storage('unrelated-in-browser', undefined, 3);
    await writeArborIdentity(unrelated, { folders: [path.join(tmp, 'elsewhere')] });
    // VS Code's own file says this one is of another folder, whatever Arbor's record says.
    const moved = await storage('vscode-says-other', { folder: pathToFileURL(path.join(tmp, 'elsewhere')).href }, 1);
    await writeArborIdentity(moved, { folders: [project] });

    const found = await find(current, [project, other]);
    expect(found.map((s) => s.storageId)).toEqual(['alone-in-browser']);
    expect(found[0]).toMatchObject({ folders: [project], conversations: 2, conversationIds: ['alone-in-browser-c0', 'alone-in-browser-c1'] });
  });

  it('writes its record only when it changed, whole, and ignores one that names no absolute folder', async () => {
    const dir = await storage('record', undefined, 1);
    await writeArborIdentity(dir, { folders: [project], workspaceFile: path.join(tmp, 'x.code-workspace') });
    const file = path.join(dir, ARBOR_IDENTITY_FILE);
    const first = await fs.stat(file);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ version: 1, folders: [project], workspaceFile: path.join(tmp, 'x.code-workspace') });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeArborIdentity(dir, { folders: [project], workspaceFile: path.join(tmp, 'x.code-workspace') });
    expect((await fs.stat(file)).mtimeMs).toBe(first.mtimeMs);
    expect((await fs.readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const current = await storage('now', { folder: pathToFileURL(project).href });
    await fs.writeFile(file, JSON.stringify({ version: 1, folders: ['relative/project'] }));
    // A sibling rule does not apply (the names are unrelated), and the record names nothing usable.
    expect(await find(current, [project])).toEqual([]);
  });

  it('counts a conversation kept by two stores once', async () => {
    const current = await storage('now', { folder: pathToFileURL(project).href });
    await storage('a', { folder: pathToFileURL(project).href }, 2);
    const b = await storage('b', { folder: pathToFileURL(project).href });
    const store = await SqlJsConversationStorage.open(path.join(b, FILE));
    await store.saveConversation(sampleConversation('a-c0', 3));
    await store.saveConversation(sampleConversation('b-only', 3));
    await store.close();
    const found = await find(current, [project]);
    expect(found.map((s) => s.conversations).sort()).toEqual([2, 2]);
    expect(distinctConversations(found)).toBe(3);
  });

  it('leaves out empty stores, storage folders without a store, and the current store', async () => {
    const current = await storage('now', { folder: pathToFileURL(project).href }, 3);
    await storage('empty', { folder: pathToFileURL(project).href }, 0);
    await storage('nostore', { folder: pathToFileURL(project).href });
    expect(await find(current, [project])).toEqual([]);
  });

  it('counts without writing: the found store’s files keep their bytes and no lock or checkpoint appears', async () => {
    const current = await storage('now', { folder: pathToFileURL(project).href });
    const dir = await storage('old', { folder: pathToFileURL(project).href }, 2);
    // Another window's write after its last checkpoint: a journal a writable open would fold in.
    const writer = await SqlJsConversationStorage.open(path.join(dir, FILE));
    await writer.saveConversation(sampleConversation('late', 2));
    const before = await snapshot(dir);
    expect(Object.keys(before)).toContain(FILE + '.arbor-journal');
    const found = await find(current, [project]);
    expect(found[0].conversations).toBe(3);
    expect(await snapshot(dir)).toEqual(before);
    await writer.close();
  });
});

describe('sharedStoreDir: the store stays in <id> when VS Code gave this window <id>-N', () => {
  const temp = useTempFolder('arbor-shared-');
  let root: string;
  beforeEach(() => {
    root = temp();
  });

  it('maps <id>-1 … <id>-9 to <id> where <id> exists, and leaves every other folder as it is', async () => {
    await fs.mkdir(path.join(root, '13985b5c'));
    expect(sharedStoreDir(path.join(root, '13985b5c', EXT))).toBe(path.join(root, '13985b5c', EXT));
    expect(sharedStoreDir(path.join(root, '13985b5c-1', EXT))).toBe(path.join(root, '13985b5c', EXT));
    expect(sharedStoreDir(path.join(root, '13985b5c-9', EXT))).toBe(path.join(root, '13985b5c', EXT));
    // VS Code numbers up to 9; a name that only looks numbered, or whose <id> is not there, keeps its own folder.
    expect(sharedStoreDir(path.join(root, '13985b5c-10', EXT))).toBe(path.join(root, '13985b5c-10', EXT));
    expect(sharedStoreDir(path.join(root, 'f00d-1', EXT))).toBe(path.join(root, 'f00d-1', EXT));
  });

  it('gives the two windows one store: what either writes, the other reads', async () => {
    await fs.mkdir(path.join(root, 'abc', EXT), { recursive: true });
    const first = await SqlJsConversationStorage.open(path.join(sharedStoreDir(path.join(root, 'abc', EXT)), FILE));
    const second = await SqlJsConversationStorage.open(path.join(sharedStoreDir(path.join(root, 'abc-1', EXT)), FILE));
    await first.saveConversation(sampleConversation('from-first', 2));
    await second.saveConversation(sampleConversation('from-second', 2));
    expect((await first.listConversations()).map((c) => c.conversationId).sort()).toEqual(['from-first', 'from-second']);
    expect((await second.listConversations()).map((c) => c.conversationId).sort()).toEqual(['from-first', 'from-second']);
    await first.close();
    await second.close();
    await expect(fs.readdir(path.join(root, 'abc-1'))).rejects.toThrow();
  });
});

describe('the search with its ids cache (a JSON file shared by windows)', () => {
  let tmp: string;
  let root: string;
  let project: string;
  let cacheFile: string;
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };

  const temp = useTempFolder('arbor-other-cache-');
  beforeEach(async () => {
    tmp = temp();
    root = path.join(tmp, 'workspaceStorage');
    project = path.join(tmp, 'project');
    cacheFile = path.join(tmp, 'global', 'other-stores-cache.json');
    await fs.mkdir(project);
    warnings.length = 0;
  });

  async function storage(id: string, conversations: number): Promise<string> {
    const dir = path.join(root, id, EXT);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(root, id, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(project).href }));
    const store = await SqlJsConversationStorage.open(path.join(dir, FILE));
    for (let i = 0; i < conversations; i++) await store.saveConversation(sampleConversation(`${id}-c${i}`, 3));
    await store.close();
    return path.join(dir, FILE);
  }
  const find = (withCache = true) =>
    findOtherStores({ storageRoot: root, currentStoreDir: path.join(root, 'now', EXT), folders: [project], storeFile: FILE, logger, ...(withCache ? { idsCacheFile: cacheFile } : {}) });

  it('does not open a store again while its size and time are unchanged, and reads it again once it changed', async () => {
    const file = await storage('old', 2);
    // A whole-millisecond time, so it can be put back exactly after the bytes are replaced below.
    const time = new Date(Date.UTC(2026, 10, 1, 12, 0, 0, 123));
    await fs.utimes(file, time, time);
    expect((await find()).map((s) => s.conversationIds)).toEqual([['old-c0', 'old-c1']]);
    expect(JSON.parse(await fs.readFile(cacheFile, 'utf8')).stores[file]).toMatchObject({ ids: ['old-c0', 'old-c1'] });

    // The same size and time over bytes that are no database: only the cache can still name the ids.
    const size = (await fs.stat(file)).size;
    await fs.writeFile(file, Buffer.alloc(size, 0x5a));
    await fs.utimes(file, time, time);
    expect((await find()).map((s) => s.conversationIds)).toEqual([['old-c0', 'old-c1']]);
    expect(warnings).toEqual([]);
    // Without the cache the store is opened, cannot be read, and is left out (logged).
    expect(await find(false)).toEqual([]);
    expect(warnings.join('\n')).toContain(file);

    // A store that changed (another window wrote to it) is read again.
    await fs.rm(file);
    await storage('old', 3);
    expect((await find()).map((s) => s.conversations)).toEqual([3]);
    expect(JSON.parse(await fs.readFile(cacheFile, 'utf8')).stores[file].ids).toHaveLength(3);
  });

  it('forgets a store whose files are gone, and rebuilds a damaged cache file', async () => {
    const kept = await storage('kept', 1);
    const gone = await storage('gone', 2);
    await find();
    expect(Object.keys(JSON.parse(await fs.readFile(cacheFile, 'utf8')).stores).sort()).toEqual([gone, kept].sort());
    await fs.rm(path.join(root, 'gone'), { recursive: true });
    await find();
    expect(Object.keys(JSON.parse(await fs.readFile(cacheFile, 'utf8')).stores)).toEqual([kept]);

    await fs.writeFile(cacheFile, '{"version": 1, "stores": {"trunc');
    expect((await find()).map((s) => s.conversations)).toEqual([1]);
    expect(warnings.join('\n')).toContain('rebuilt');
    expect(Object.keys(JSON.parse(await fs.readFile(cacheFile, 'utf8')).stores)).toEqual([kept]);
    expect((await fs.readdir(path.dirname(cacheFile))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps the most recently found stores within its limit, and drops entries of another shape', async () => {
    const cache = await StoreIdsCache.load(cacheFile);
    // Each one found a millisecond after the one before: the first is the one left out.
    let now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => ++now);
    for (let i = 0; i <= STORE_IDS_CACHE_LIMIT; i++) cache.set(`/s/${i}`, i, i, [`c${i}`]);
    clock.mockRestore();
    await cache.save();
    const stored = JSON.parse(await fs.readFile(cacheFile, 'utf8'));
    expect(Object.keys(stored.stores)).toHaveLength(STORE_IDS_CACHE_LIMIT);
    expect(stored.stores['/s/0']).toBeUndefined();
    stored.stores['/s/odd'] = { size: 1, mtimeMs: 1, ids: [7], seen: 1 };
    await fs.writeFile(cacheFile, JSON.stringify(stored));
    const again = await StoreIdsCache.load(cacheFile);
    expect(again.get('/s/odd', 1, 1)).toBeUndefined();
    expect(again.get(`/s/${STORE_IDS_CACHE_LIMIT}`, STORE_IDS_CACHE_LIMIT, STORE_IDS_CACHE_LIMIT)).toEqual([`c${STORE_IDS_CACHE_LIMIT}`]);
    expect(again.get('/s/1', 1, 2)).toBeUndefined();
  });
});

describe('mergeStoreInto with real sql.js file stores', () => {
  const temp = useTempFolder('arbor-merge-');
  let dir: string;
  beforeEach(() => {
    dir = temp();
  });

  it('copies every conversation once under its id, twice duplicates nothing, and leaves the source’s bytes alone', async () => {
    const sourcePath = path.join(dir, 'old', FILE);
    const writer = await SqlJsConversationStorage.open(sourcePath);
    for (let i = 0; i < 3; i++) await writer.saveConversation(sampleConversation(`old-${i}`, 4));
    await writer.close();
    const sourceBytes = await snapshot(path.dirname(sourcePath));

    const target = await SqlJsConversationStorage.open(path.join(dir, 'new', FILE));
    await target.saveConversation(sampleConversation('old-1', 2));
    await target.saveConversation(sampleConversation('mine', 2));

    const source = await SqlJsConversationStorage.open(sourcePath, { readOnly: true });
    const first = await mergeStoreInto(source, target);
    expect(first.copied.sort()).toEqual(['old-0', 'old-2']);
    expect(first.skipped).toEqual([{ conversationId: 'old-1', reason: 'exists' }]);
    const second = await mergeStoreInto(source, target);
    expect(second.copied).toEqual([]);
    expect(second.skipped).toHaveLength(3);
    await source.close();

    expect((await target.listConversations()).map((c) => c.conversationId).sort()).toEqual(['mine', 'old-0', 'old-1', 'old-2']);
    expect((await target.loadConversation('old-0'))?.nodes).toHaveLength(4);
    // The target's own old-1 was not overwritten.
    expect((await target.loadConversation('old-1'))?.nodes).toHaveLength(2);
    await target.close();
    expect(await snapshot(path.dirname(sourcePath))).toEqual(sourceBytes);
  });
});

/** Every file of `dir` with its bytes (base64), to compare before and after. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of await fs.readdir(dir)) {
    const file = path.join(dir, name);
    if ((await fs.stat(file)).isFile()) result[name] = (await fs.readFile(file)).toString('base64');
  }
  return result;
}
