import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceIndex, type WorkspaceIndexOptions } from '../../../src/core/rag/workspaceIndex';
import { contentReads, countingFiles, makeTree, memoryLogger, touchWrite, writeTree } from './tempWorkspace';

const cleanup: string[] = [];
const open: WorkspaceIndex[] = [];

afterEach(async () => {
  for (const wi of open.splice(0)) await wi.dispose();
  for (const d of cleanup.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function tree(files: Record<string, string | Uint8Array>): Promise<string> {
  const root = await makeTree(files);
  cleanup.push(root);
  return root;
}

async function openIndex(root: string, extra: Partial<WorkspaceIndexOptions> = {}): Promise<WorkspaceIndex> {
  const wi = await WorkspaceIndex.open({ folders: [root], storagePath: path.join(root, '..', `${path.basename(root)}.arbor-index`), saveDelayMs: 10, ...extra });
  open.push(wi);
  cleanup.push(path.join(root, '..', `${path.basename(root)}.arbor-index`));
  return wi;
}

describe('WorkspaceIndex coverage', () => {
  it('indexes text files only: honours root and nested .gitignore, excludes, tool folders, binaries, size and secrets', async () => {
    const outside = await tree({ 'outside.ts': 'export const leakedOutsideValue = 1;\n' });
    const root = await tree({
      '.gitignore': '*.log\nbuild/\n*.md\n',
      'src/main.ts': 'export function mainEntry() {\n  return 1;\n}\n',
      'app.log': 'log line\n',
      'build/out.js': 'compiled();\n',
      'README.md': '# ignored by *.md\n',
      'sub/.gitignore': 'local.txt\n!keep.md\n',
      'sub/local.txt': 'local only\n',
      'sub/keep.md': '# Kept\nre-included by a nested negation\n',
      'sub/code.py': 'def helper():\n    pass\n',
      'gen/generated.ts': 'export const generated = true;\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      '.git/config': '[core]\n',
      'image.bin': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]),
      'big.txt': 'x'.repeat(5000),
      '.env': 'API_KEY=sk-secret\n',
      '.env.local': 'API_KEY=sk-secret\n',
      'certs/server.pem': '-----BEGIN PRIVATE KEY-----\n',
      'deploy.key': 'secret\n',
      'id_rsa': 'secret\n',
      'id_ed25519.pub': 'ssh-ed25519 AAAA\n',
      'credentials.json': '{"token": "secret"}\n',
      '.npmrc': '//registry.npmjs.org/:_authToken=secret\n',
      'config/secrets.yaml': 'password: secret\n',
      'store.keystore': 'secret\n',
    });
    await fs.symlink(path.join(outside, 'outside.ts'), path.join(root, 'src/linkOut.ts'));
    await fs.symlink(outside, path.join(root, 'linkedDir'));
    await fs.symlink(path.join(root, 'src/main.ts'), path.join(root, 'src/linkIn.ts'));
    const wi = await openIndex(root, { exclude: { '**/gen': true, '**/off': false }, maxFileBytes: 4096 });
    const result = await wi.update();
    expect(wi.indexedPaths()).toEqual(['.gitignore', 'src/linkIn.ts', 'src/main.ts', 'sub/.gitignore', 'sub/code.py', 'sub/keep.md']);
    expect(wi.stats().binaryFiles).toBe(1);
    expect(result.added).toBe(7);
    expect(await wi.search('leakedOutsideValue', 5)).toEqual([]);
    expect(await wi.search('secret password token', 5)).toEqual([]);
  });

  it('never indexes its own file, works on an empty folder, and keeps working when the index cannot be saved', async () => {
    const root = await tree({ 'notes.txt': 'plain words here\n' });
    const logger = memoryLogger();
    const inside = await WorkspaceIndex.open({ folders: [root], storagePath: path.join(root, '.arbor', 'index.bin'), logger });
    open.push(inside);
    await inside.update();
    expect(await inside.update()).toMatchObject({ added: 0, unchanged: 1 });
    expect(inside.indexedPaths()).toEqual(['notes.txt']);

    const empty = await tree({});
    const e = await openIndex(empty);
    expect(await e.update()).toMatchObject({ added: 0 });
    await e.dispose();
    const e2 = await openIndex(empty);
    expect(e2.stats()).toMatchObject({ files: 0, chunks: 0 });
    expect(await e2.search('anything', 5)).toEqual([]);

    // A storage path under a regular file cannot be written: the update still indexes, and says why it could not save.
    const blocked = await WorkspaceIndex.open({ folders: [root], storagePath: path.join(root, 'notes.txt', 'index.bin'), logger });
    open.push(blocked);
    await blocked.update();
    expect(blocked.indexedPaths()).toEqual(['notes.txt']);
    expect((await blocked.search('plain words', 1))[0].path).toBe('notes.txt');
    expect(logger.warnings.join('\n')).toMatch(/Could not save the workspace index/);
  });

  it('include globs narrow the index', async () => {
    const root = await tree({ 'a.ts': 'alpha\n', 'b.py': 'alpha\n', 'docs/c.ts': 'alpha\n' });
    const wi = await openIndex(root, { include: ['**/*.ts'] });
    await wi.update();
    expect(wi.indexedPaths()).toEqual(['a.ts', 'docs/c.ts']);
  });
});

describe('WorkspaceIndex search', () => {
  it('ranks the chunk that holds the identifiers, with exact lines and content, and applies filters', async () => {
    const filler = Array.from({ length: 30 }, (_, i) => `  const unrelated${i} = compute(${i});`).join('\n');
    const root = await tree({
      'src/streaming.ts': `export function other() {\n${filler}\n}\n\nexport function parseSseLines(buffer: string) {\n  return buffer.split('\\n');\n}\n`,
      'src/util.ts': 'export const lines = 1;\n',
      'lib/parse.py': 'def parse_sse_lines(buffer):\n    return buffer\n',
    });
    const wi = await openIndex(root);
    await wi.update();
    const res = await wi.search('where are SSE lines parsed: parseSseLines', 3);
    expect(res[0].path).toBe('src/streaming.ts');
    expect(res[0].startLine).toBe(34);
    expect(res[0].endLine).toBe(36);
    expect(res[0].content).toBe("export function parseSseLines(buffer: string) {\n  return buffer.split('\\n');\n}");
    expect(res[0].metadata?.language).toBe('typescript');
    for (let i = 1; i < res.length; i++) expect(res[i].score).toBeLessThanOrEqual(res[i - 1].score);

    expect((await wi.search('parse sse lines', 5, { language: 'python' })).map((r) => r.path)).toEqual(['lib/parse.py']);
    expect((await wi.search('parse sse lines', 5, { exclude: 'src/**' })).map((r) => r.path)).toEqual(['lib/parse.py']);
    expect((await wi.search('parse sse lines', 5, { include: ['src/**'] })).every((r) => r.path!.startsWith('src/'))).toBe(true);
    expect(await wi.search('', 5)).toEqual([]);
    expect(await wi.search('nothingmatchesthis', 5)).toEqual([]);
  });

  it('re-indexes a result file that changed on disk before returning it, so lines and text agree', async () => {
    const root = await tree({ 'a.ts': 'export function targetFunction() {\n  return 1;\n}\n', 'b.ts': 'export const other = 2;\n' });
    const files = countingFiles();
    const wi = await openIndex(root, { files });
    await wi.update();
    await touchWrite(path.join(root, 'a.ts'), '// a new header line\n\n\nexport function targetFunction() {\n  return 2;\n}\n');
    files.reads.length = 0;
    const [r] = await wi.search('targetFunction', 1);
    expect(r).toMatchObject({ path: 'a.ts', startLine: 1, endLine: 6 });
    expect(r.content).toContain('return 2;');
    // The changed file is read once: re-indexing and the second ranking reuse those bytes.
    expect(contentReads(files.reads)).toEqual([path.join(root, 'a.ts')]);
    await fs.rm(path.join(root, 'a.ts'));
    expect(await wi.search('targetFunction', 1)).toEqual([]);
  });

  it('names results by folder in a multi-root workspace, and filters match that name', async () => {
    const one = await tree({ 'x.ts': 'export const sharedWord = 1;\n' });
    const two = await tree({ 'x.ts': 'export const sharedWord = 2;\n' });
    const wi = await openIndex(one, { folders: [one, two] });
    await wi.update();
    expect((await wi.search('sharedWord', 5)).map((r) => r.path).sort()).toEqual([`${path.basename(one)}/x.ts`, `${path.basename(two)}/x.ts`].sort());
    const [r, ...rest] = await wi.search('sharedWord', 5, { include: `${path.basename(two)}/**` });
    expect(rest).toEqual([]);
    expect(r).toMatchObject({ path: `${path.basename(two)}/x.ts`, content: 'export const sharedWord = 2;' });
  });

  it('boosts files whose path matches the query', async () => {
    const body = 'export function handle(input) {\n  return input;\n}\n';
    const root = await tree({ 'src/a.ts': body, 'src/webhooks.ts': body, 'src/z.ts': body });
    const wi = await openIndex(root);
    await wi.update();
    expect((await wi.search('handle webhooks input', 3))[0].path).toBe('src/webhooks.ts');
  });
});

describe('WorkspaceIndex before its first build', () => {
  it('a search on a new index waits for the first scan instead of answering from an empty index', async () => {
    const root = await tree({ 'src/cart.ts': 'export function applyDiscountCode(cart: Cart) {\n  return cart;\n}\n' });
    const wi = await openIndex(root);
    expect(wi.stats().files).toBe(0);
    const hits = await wi.search('apply discount code', 3);
    expect(hits[0]?.path).toBe('src/cart.ts');
  });

  it('a search during the background build waits for that build, not a second scan', async () => {
    const root = await tree({ 'a.ts': 'export const alphaValue = 1;\n', 'b.ts': 'export const betaValue = 2;\n' });
    const files = countingFiles();
    const listings: string[] = [];
    const wi = await openIndex(root, { files: { ...files, readDirectory: (p) => (listings.push(p), files.readDirectory(p)) } });
    const building = wi.update();
    const hits = await wi.search('beta value', 2);
    const result = await building;
    expect(result.added).toBe(2);
    expect(hits[0]?.path).toBe('b.ts');
    // One scan lists the folder once; a second scan would list it again.
    expect(listings.filter((p) => p === root)).toHaveLength(1);
  });
});

describe('WorkspaceIndex incremental updates and persistence', () => {
  async function project() {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`src/mod${i}.ts`] = `export function moduleFunction${i}() {\n  return ${i};\n}\n`;
    return tree(files);
  }

  it('re-reads only the changed file, drops deleted files, and picks up new ones', async () => {
    const root = await project();
    const files = countingFiles();
    const wi = await openIndex(root, { files });
    const first = await wi.update();
    expect(first).toMatchObject({ added: 12, changed: 0, removed: 0, unchanged: 0 });
    expect(contentReads(files.reads)).toHaveLength(12);

    files.reads.length = 0;
    expect(await wi.update()).toMatchObject({ added: 0, changed: 0, removed: 0, unchanged: 12 });
    expect(contentReads(files.reads)).toEqual([]);

    await touchWrite(path.join(root, 'src/mod3.ts'), 'export function renamedThing() {\n  return 3;\n}\n');
    files.reads.length = 0;
    expect(await wi.update()).toMatchObject({ added: 0, changed: 1, removed: 0, unchanged: 11 });
    expect(contentReads(files.reads)).toEqual([path.join(root, 'src/mod3.ts')]);
    expect((await wi.search('renamedThing', 5))[0].path).toBe('src/mod3.ts');
    // All lower case, the query is the single whole-identifier token: only the old mod3.ts had it.
    expect(await wi.search('modulefunction3', 20)).toEqual([]);

    await fs.rm(path.join(root, 'src/mod5.ts'));
    await writeTree(root, { 'src/extra.ts': 'export const brandNewSymbol = 1;\n' });
    expect(await wi.update()).toMatchObject({ added: 1, removed: 1, changed: 0 });
    expect(await wi.search('modulefunction5', 20)).toEqual([]);
    expect(await wi.search('modulefunction6', 20)).toHaveLength(1);
    expect((await wi.search('brandNewSymbol', 5))[0].path).toBe('src/extra.ts');
    expect(wi.stats().files).toBe(12);
  });

  it('a touched file with the same content is not re-indexed', async () => {
    const root = await project();
    const wi = await openIndex(root);
    await wi.update();
    const abs = path.join(root, 'src/mod1.ts');
    await touchWrite(abs, await fs.readFile(abs, 'utf8'));
    expect(await wi.update()).toMatchObject({ changed: 0, unchanged: 12 });
  });

  it('reopening from the saved file gives the same results without reading unchanged files', async () => {
    const root = await project();
    const wi = await openIndex(root);
    await wi.update();
    await touchWrite(path.join(root, 'src/mod2.ts'), 'export function moduleFunction2() {\n  return moduleFunction7();\n}\n');
    await wi.updateFile(path.join(root, 'src/mod2.ts'));
    await wi.removeFile(path.join(root, 'src/mod9.ts'));
    const before = await wi.search('moduleFunction7 return', 5);
    await wi.dispose();

    const files = countingFiles();
    const again = await openIndex(root, { files });
    expect(again.stats().files).toBe(11);
    expect(await again.search('moduleFunction7 return', 5)).toEqual(before);
    files.reads.length = 0;
    // mod9.ts still exists on disk, so a full scan brings it back; nothing else is read.
    expect(await again.update()).toMatchObject({ added: 1, unchanged: 11, changed: 0 });
    expect(contentReads(files.reads)).toEqual([path.join(root, 'src/mod9.ts')]);
  });

  it('updateFile re-indexes one file and ignores files the rules exclude; removeFile drops a folder', async () => {
    const root = await project();
    const wi = await openIndex(root, { exclude: ['dist'] });
    await wi.update();
    await touchWrite(path.join(root, 'src/mod0.ts'), 'export const watcherSawThis = 1;\n');
    expect(await wi.updateFile(path.join(root, 'src/mod0.ts'))).toMatchObject({ changed: 1 });
    expect((await wi.search('watcherSawThis', 1))[0]).toMatchObject({ path: 'src/mod0.ts', startLine: 1, endLine: 1 });

    await writeTree(root, { 'dist/out.ts': 'export const ignoredBuildOutput = 1;\n', '.env': 'SECRET_TOKEN=1\n' });
    expect(await wi.updateFile(path.join(root, 'dist/out.ts'))).toMatchObject({ added: 0 });
    expect(await wi.updateFile(path.join(root, '.env'))).toMatchObject({ added: 0 });
    expect(await wi.updateFile(path.join(os.tmpdir(), 'elsewhere.ts'))).toMatchObject({ added: 0 });
    expect(await wi.search('ignoredBuildOutput SECRET_TOKEN', 5)).toEqual([]);

    expect(await wi.removeFile(path.join(root, 'src'))).toMatchObject({ removed: 12 });
    expect(wi.stats()).toMatchObject({ files: 0, chunks: 0 });
  });

  it('updateFile honours nested .gitignore rules, and a changed .gitignore triggers a rescan', async () => {
    const root = await tree({ 'a/.gitignore': 'tmp/\n', 'a/keep.ts': 'export const kept = 1;\n' });
    const wi = await openIndex(root);
    await wi.update();
    await writeTree(root, { 'a/tmp/scratch.ts': 'export const scratchValue = 1;\n' });
    expect(await wi.updateFile(path.join(root, 'a/tmp/scratch.ts'))).toMatchObject({ added: 0 });
    await touchWrite(path.join(root, 'a/.gitignore'), 'other/\n');
    const r = await wi.updateFile(path.join(root, 'a/.gitignore'));
    expect(r).toMatchObject({ added: 1, changed: 1 });
    expect((await wi.search('scratchValue', 1))[0].path).toBe('a/tmp/scratch.ts');
  });

  it('a corrupt index file is discarded with a warning and rebuilt', async () => {
    const root = await project();
    const wi = await openIndex(root);
    await wi.update();
    const storagePath = wi.stats().storagePath;
    await wi.dispose();
    const bytes = await fs.readFile(storagePath);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    await fs.writeFile(storagePath, bytes);

    const logger = memoryLogger();
    const files = countingFiles();
    const again = await openIndex(root, { logger, files });
    expect(logger.warnings.join('\n')).toMatch(/unusable \(checksum mismatch\); it will be rebuilt/);
    expect(again.stats().files).toBe(0);
    expect(await again.update()).toMatchObject({ added: 12 });
    expect(contentReads(files.reads)).toHaveLength(12);
    expect((await again.search('moduleFunction4', 1))[0].path).toBe('src/mod4.ts');

    await fs.writeFile(storagePath, 'not an index');
    const third = await openIndex(root, { logger });
    expect(logger.warnings.at(-1)).toMatch(/not an Arbor index file/);
    expect(third.stats().files).toBe(0);
  });

  it('reports progress and stops on abort', async () => {
    const root = await project();
    const wi = await openIndex(root);
    const seen: number[] = [];
    wi.onProgress((p) => seen.push(p.done / p.total));
    await wi.update();
    expect(seen.at(-1)).toBe(1);
    expect(seen).toHaveLength(12);
    const ctl = new AbortController();
    ctl.abort();
    await expect(wi.update({ signal: ctl.signal })).rejects.toThrow();
  });
});
