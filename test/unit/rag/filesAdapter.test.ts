import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, WorkspaceAccessError } from '../../../src/core/errors';
import { FilesAdapter, parseFileSpecs } from '../../../src/core/rag/filesAdapter';
import { makeTree } from './tempWorkspace';

const cleanup: string[] = [];
afterEach(async () => {
  for (const d of cleanup.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function workspace() {
  const outside = await makeTree({ 'stolen.ts': 'export const stolen = 1;\n' });
  const root = await makeTree({
    '.gitignore': 'dist/\n',
    'src/a.ts': 'line1\nline2\nline3\nline4\n',
    'src/b.ts': 'export const b = 2;\n',
    'src/deep/c.md': '# C\n',
    'dist/out.ts': 'built\n',
    '.git/config': '[remote "origin"]\n  url = https://user:token@example.com/repo.git\n',
    '.env': 'KEY=1\n',
    'keys/server.pem': 'secret\n',
    'logo.png': new Uint8Array([0x89, 0x50, 0, 0]),
  });
  cleanup.push(root, outside);
  await fs.symlink(path.join(outside, 'stolen.ts'), path.join(root, 'src/escape.ts'));
  await fs.symlink(path.join(root, '.env'), path.join(root, 'src/env-link.txt'));
  return { root, outside, adapter: new FilesAdapter({ folders: [root] }) };
}

describe('parseFileSpecs', () => {
  it('reads lists separated by commas or spaces, line ranges and quoted names', () => {
    expect(parseFileSpecs('src/a.ts, src/b.ts:10-20 "my file.ts" c.ts#L5-L7 d.ts:3')).toEqual([
      { pattern: 'src/a.ts' },
      { pattern: 'src/b.ts', startLine: 10, endLine: 20 },
      { pattern: 'my file.ts' },
      { pattern: 'c.ts', startLine: 5, endLine: 7 },
      { pattern: 'd.ts', startLine: 3, endLine: 3 },
    ]);
  });
});

describe('FilesAdapter', () => {
  it('returns a file whole, or by line range, with 1-based inclusive lines', async () => {
    const { adapter } = await workspace();
    expect(await adapter.search('src/a.ts', 5)).toEqual([
      { content: 'line1\nline2\nline3\nline4', score: 1, path: 'src/a.ts', startLine: 1, endLine: 4, metadata: expect.objectContaining({ language: 'typescript' }) },
    ]);
    const [r] = await adapter.search('src/a.ts:2-3', 5);
    expect(r).toMatchObject({ content: 'line2\nline3', startLine: 2, endLine: 3 });
    await expect(adapter.search('src/a.ts:9-12', 5)).rejects.toThrow(InvalidArgumentError);
  });

  it('expands globs inside the workspace, skipping ignored, secret and binary files, up to k', async () => {
    const { adapter } = await workspace();
    expect((await adapter.search('src/**/*.ts', 0)).map((r) => r.path)).toEqual(['src/a.ts', 'src/b.ts']);
    expect((await adapter.search('**/*', 0)).map((r) => r.path)).toEqual(['.gitignore', 'src/a.ts', 'src/b.ts', 'src/deep/c.md']);
    expect(await adapter.search('**/*.ts', 1)).toHaveLength(1);
    expect((await adapter.search('', 5, { paths: ['src/b.ts'] })).map((r) => r.path)).toEqual(['src/b.ts']);
  });

  it('refuses paths that leave the workspace', async () => {
    const { root, outside, adapter } = await workspace();
    await expect(adapter.search('../outside.ts', 5)).rejects.toThrow(WorkspaceAccessError);
    await expect(adapter.search('src/../../x.ts', 5)).rejects.toThrow(/climbs out of the workspace/);
    await expect(adapter.search(path.join(outside, 'stolen.ts'), 5)).rejects.toThrow(/outside the workspace folders/);
    await expect(adapter.search('src/escape.ts', 5)).rejects.toThrow(/symbolic link .* outside the workspace/);
    await expect(adapter.search('../**/*.ts', 5)).rejects.toThrow(WorkspaceAccessError);
    expect((await adapter.search(path.join(root, 'src/b.ts'), 5))[0].path).toBe('src/b.ts');
    expect((await adapter.search('src/**', 0)).map((r) => r.path)).not.toContain('src/escape.ts');
  });

  it('refuses secret files, even through a link, and never returns them from a glob', async () => {
    const { adapter } = await workspace();
    await expect(adapter.search('.env', 5)).rejects.toThrow(/looks like a secret/);
    await expect(adapter.search('keys/server.pem', 5)).rejects.toThrow(WorkspaceAccessError);
    await expect(adapter.search('src/env-link.txt', 5)).rejects.toThrow(/links to a secret file/);
    await expect(adapter.search('.git/config', 5)).rejects.toThrow(/inside .git/);
    const all = await adapter.search('**', 0);
    expect(all.map((r) => r.content).join('\n')).not.toMatch(/KEY=1|secret|token@/);
  });

  it('gives clear errors for missing and binary files', async () => {
    const { adapter } = await workspace();
    await expect(adapter.search('src/missing.ts', 5)).rejects.toThrow(/No file "src\/missing.ts" in the workspace folders/);
    await expect(adapter.search('logo.png', 5)).rejects.toThrow(/binary file/);
  });

  it('names files by folder in a multi-root workspace', async () => {
    const one = await makeTree({ 'x.ts': 'one\n' }, 'arbor-one-');
    const two = await makeTree({ 'x.ts': 'two\n' }, 'arbor-two-');
    cleanup.push(one, two);
    const adapter = new FilesAdapter({ folders: [one, two] });
    const [r] = await adapter.search(`${path.basename(two)}/x.ts`, 5);
    expect(r).toMatchObject({ content: 'two', path: `${path.basename(two)}/x.ts` });
  });
});
