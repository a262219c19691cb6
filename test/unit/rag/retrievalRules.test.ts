/**
 * One set of rules for every read that a model or a template drives: the index and the `files`
 * adapter leave out the same credential files, ignored files and tool folders; only a file the user
 * picked by hand may be read while ignored, and it is marked so. Symbolic link loops are typed errors.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SymlinkLoopError, WorkspaceAccessError } from '../../../src/core/errors';
import { FilesAdapter } from '../../../src/core/rag/filesAdapter';
import { WorkspaceIndex } from '../../../src/core/rag/workspaceIndex';
import { makeTree, memoryLogger } from './tempWorkspace';

const cleanup: string[] = [];
const open: WorkspaceIndex[] = [];
afterEach(async () => {
  for (const wi of open.splice(0)) await wi.dispose();
  for (const d of cleanup.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTree(files);
  cleanup.push(root, `${root}.arbor-index`);
  return root;
}

async function indexOf(root: string, logger = memoryLogger()): Promise<WorkspaceIndex> {
  const wi = await WorkspaceIndex.open({ folders: [root], storagePath: `${root}.arbor-index`, saveDelayMs: 10, logger });
  open.push(wi);
  await wi.update();
  return wi;
}

const CREDENTIAL_FILES = ['.envrc', 'infra/prod.tfvars', 'infra/dev.auto.tfvars', '.docker/config.json', '.kube/config', 'home/.kube/config'];

describe('credential files', () => {
  it('are neither indexed nor returned by the files adapter', async () => {
    const root = await tree({
      'src/app.ts': 'export const app = 1;\n',
      '.envrc': 'export AWS_SECRET_ACCESS_KEY=envrcsecret\n',
      'infra/prod.tfvars': 'db_password = "tfvarssecret"\n',
      'infra/dev.auto.tfvars': 'token = "autotfvarssecret"\n',
      '.docker/config.json': '{"auths": {"registry.example": {"auth": "dockersecret"}}}\n',
      '.kube/config': 'users:\n- user:\n    token: kubesecret\n',
      'home/.kube/config': 'users:\n- user:\n    token: kubesecret\n',
    });
    const wi = await indexOf(root);
    expect(wi.indexedPaths()).toEqual(['src/app.ts']);
    const adapter = new FilesAdapter({ folders: [root] });
    for (const p of CREDENTIAL_FILES) {
      await expect(adapter.search(p, 5), p).rejects.toThrow(WorkspaceAccessError);
      await expect(adapter.search(p, 5, undefined, { userPicked: true }), p).rejects.toThrow(WorkspaceAccessError);
    }
    expect((await adapter.search('**', 0)).map((r) => r.path)).toEqual(['src/app.ts']);
  });
});

describe('files adapter reads driven by a prompt', () => {
  async function workspace() {
    const root = await tree({
      '.gitignore': 'dist/\n*.log\n',
      'src/a.ts': 'export const a = 1;\n',
      'dist/bundle.js': 'bundled();\n',
      'debug.log': 'log line\n',
      'node_modules/pkg/index.js': 'module.exports = 1;\n',
      'gen/out.ts': 'generated();\n',
      'big.txt': 'x'.repeat(2000),
    });
    return { root, adapter: new FilesAdapter({ folders: [root], exclude: { 'gen/**': true }, maxFileBytes: 1000 }) };
  }

  it('honour .gitignore, excludes, node_modules and the size limit, with the reason in the error', async () => {
    const { adapter } = await workspace();
    await expect(adapter.search('dist/bundle.js', 5)).rejects.toThrow(/dist\/bundle\.js.*\.gitignore/);
    await expect(adapter.search('debug.log', 5)).rejects.toThrow(WorkspaceAccessError);
    await expect(adapter.search('node_modules/pkg/index.js', 5)).rejects.toThrow(/node_modules/);
    await expect(adapter.search('gen/out.ts', 5)).rejects.toThrow(/excluded/);
    await expect(adapter.search('big.txt', 5)).rejects.toThrow(/1000-byte limit/);
    expect(await adapter.search('node_modules/**/*.js', 0)).toEqual([]);
    const [a] = await adapter.search('src/a.ts', 5);
    expect(a.metadata?.ignored).toBeUndefined();
  });

  it('read an ignored file only when the user picked it, and mark it ignored; never a secret', async () => {
    const { root, adapter } = await workspace();
    await fs.writeFile(path.join(root, '.env'), 'KEY=1\n');
    const [d] = await adapter.search('dist/bundle.js', 5, undefined, { userPicked: true });
    expect(d).toMatchObject({ content: 'bundled();', path: 'dist/bundle.js', metadata: { ignored: true } });
    const [n] = await adapter.search('node_modules/pkg/index.js', 5, undefined, { userPicked: true });
    expect(n.metadata?.ignored).toBe(true);
    const [a] = await adapter.search('src/a.ts', 5, undefined, { userPicked: true });
    expect(a.metadata?.ignored).toBeUndefined();
    await expect(adapter.search('.env', 5, undefined, { userPicked: true })).rejects.toThrow(/looks like a secret/);
    await expect(adapter.search('big.txt', 5, undefined, { userPicked: true })).rejects.toThrow(/byte limit/);
  });

  it('cannot be told by a prompt filter that a path was picked by hand', async () => {
    const { adapter } = await workspace();
    await expect(adapter.search('dist/bundle.js', 5, { userPicked: true, paths: ['dist/bundle.js'] })).rejects.toThrow(WorkspaceAccessError);
  });
});

describe('a symbolic link loop', () => {
  async function loopWorkspace() {
    const root = await tree({ 'src/a.ts': 'export const a = 1;\n' });
    await fs.symlink(path.join(root, 'loop-b'), path.join(root, 'loop-a'));
    await fs.symlink(path.join(root, 'loop-a'), path.join(root, 'loop-b'));
    await fs.symlink('self.ts', path.join(root, 'src/self.ts'));
    return root;
  }

  it('is skipped by the index with a warning naming it', async () => {
    const root = await loopWorkspace();
    const logger = memoryLogger();
    const wi = await indexOf(root, logger);
    expect(wi.indexedPaths()).toEqual(['src/a.ts']);
    expect(logger.warnings.join('\n')).toMatch(/loop-a.*symbolic link loop/);
    expect(logger.warnings.join('\n')).toMatch(/src\/self\.ts.*symbolic link loop/);
    expect((await wi.updateFile(path.join(root, 'loop-a'))).added).toBe(0);
  });

  it('is a typed error from the files adapter, naming the path', async () => {
    const root = await loopWorkspace();
    const adapter = new FilesAdapter({ folders: [root] });
    const err = await adapter.search('loop-a', 5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SymlinkLoopError);
    expect((err as SymlinkLoopError).path).toBe(path.join(root, 'loop-a'));
    expect((err as Error).message).toMatch(/loop-a/);
    await expect(adapter.search('src/self.ts', 5, undefined, { userPicked: true })).rejects.toThrow(SymlinkLoopError);
    expect((await adapter.search('**', 0)).map((r) => r.path)).toEqual(['src/a.ts']);
  });
});
