import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { editFileTool, prepareEditFile } from './editFileTool';
import { nodeFileWriter, StaleFileError, textHash, writeChange, type EditToolEnv, type FileChangeRecord } from './fileChanges';

const A_TS = 'export const one = 1;\nexport const two = 2; // needle\nexport const three = 3;\nexport const Needle = 4;\nexport const five = 5;\n';

describe('edit_file', () => {
  let w: ToolWorkspace;
  let env: EditToolEnv;
  beforeEach(async () => {
    w = await makeToolWorkspace();
    env = { ...w.env, writer: nodeFileWriter };
  });
  afterEach(async () => {
    await w.dispose();
  });

  const edit = (input: Record<string, unknown>) => runTool(editFileTool(env), input);
  const read = (rel: string) => fs.readFile(path.join(w.ws, rel), 'utf8');

  it('writes the edits, says what changed with the diff, and records the file before and after for checkpoints', async () => {
    const out = await edit({ path: 'src/a.ts', edits: [{ search: 'export const three = 3;', replace: 'export const three = 3;\nexport const threeAndAHalf = 3.5;' }] });
    expect(out.status).toBe('done');
    const after = A_TS.replace('export const three = 3;\n', 'export const three = 3;\nexport const threeAndAHalf = 3.5;\n');
    expect(await read('src/a.ts')).toBe(after);
    expect(out.content.split('\n')[0]).toBe('Edited src/a.ts: the edit was applied, +1 -0 lines.');
    expect(out.content).toContain('--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,5 +1,6 @@');
    expect(out.content).toContain('\n+export const threeAndAHalf = 3.5;\n');
    expect(out.modifiedFiles).toEqual(['src/a.ts']);
    const [record] = out.metadata!.fileChanges as FileChangeRecord[];
    expect(record).toEqual({
      path: path.join(w.ws, 'src/a.ts'),
      shown: 'src/a.ts',
      before: A_TS,
      after,
      beforeHash: textHash(A_TS),
      afterHash: textHash(after),
      added: 1,
      removed: 0,
      saved: true,
    });
    expect(record.beforeHash).not.toBe(record.afterHash);
  });

  it('applies a whitespace-tolerant match and tells the model to check the diff', async () => {
    const out = await edit({
      path: 'src/a.ts',
      edits: [
        { search: 'export const one = 1;', replace: 'export const one = 1.0;' },
        { search: '  export const  two = 2; // needle\n  export const three = 3;', replace: '  export const two = 22;' },
      ],
    });
    expect(out.status).toBe('done');
    expect(out.content).toMatch(/^Edited src\/a.ts: all 2 edits were applied, \+2 -3 lines\.\nEdit 2 did not match exactly; it matched ignoring whitespace, and its replacement was re-indented to fit the file \(now lines 2-2\)\./);
    expect((await read('src/a.ts')).split('\n').slice(0, 3)).toEqual(['export const one = 1.0;', 'export const two = 22;', 'export const Needle = 4;']);
  });

  it('fails an ambiguous or missing search text, writing nothing', async () => {
    await fs.writeFile(path.join(w.ws, 'src/dup.ts'), 'let x = 1;\nlet y = 2;\nlet x = 1;\n');
    const ambiguous = await edit({ path: 'src/dup.ts', edits: [{ search: 'let x = 1;', replace: 'let x = 9;' }] });
    expect(ambiguous.status).toBe('failed');
    expect(ambiguous.content).toMatch(/occurs 2 times in src\/dup.ts \(at lines 1, 3\)\. Add a few lines/);
    const missing = await edit({ path: 'src/a.ts', edits: [{ search: 'export const one = 1;', replace: 'X' }, { search: 'export const six = 6;', replace: '' }] });
    expect(missing.status).toBe('failed');
    expect(missing.content).toMatch(/Edit 2 of 2: the search text was not found in src\/a.ts.*read it again with read_file.*No change was written\./s);
    expect(await read('src/dup.ts')).toBe('let x = 1;\nlet y = 2;\nlet x = 1;\n');
    expect(await read('src/a.ts')).toBe(A_TS);
  });

  it('fails a stale search text, and never writes a change over text that changed after it was computed', async () => {
    const prepared = await prepareEditFile(env, { path: 'src/a.ts', edits: [{ search: 'export const five = 5;', replace: 'export const five = 55;' }] });
    // The user edits the file while the card waits.
    await fs.writeFile(path.join(w.ws, 'src/a.ts'), A_TS.replace('five = 5', 'five = 50'));
    await expect(writeChange(env, prepared, 'Edited.')).rejects.toBeInstanceOf(StaleFileError);
    await expect(writeChange(env, prepared, 'Edited.')).rejects.toThrow(/changed while this call waited .* Read it again with read_file/);
    expect(await read('src/a.ts')).toBe(A_TS.replace('five = 5', 'five = 50'));
    // Run now, the same call finds its search text gone and says to read again.
    const out = await edit({ path: 'src/a.ts', edits: [{ search: 'export const five = 5;', replace: 'export const five = 55;' }] });
    expect(out.content).toMatch(/The file may have changed since you read it: read it again/);
  });

  it('computes the change for the approval card without writing', async () => {
    const offered = editFileTool(env);
    const preview = await offered.previewChange!({ path: 'src/a.ts', edits: [{ search: 'two = 2', replace: 'two = 2.0' }] });
    expect(preview).toMatchObject({ path: path.join(w.ws, 'src/a.ts'), shown: 'src/a.ts', before: A_TS, added: 1, removed: 1 });
    expect(preview.diff).toContain('-export const two = 2; // needle\n+export const two = 2.0; // needle');
    expect(preview.askReason).toBeUndefined();
    expect(await read('src/a.ts')).toBe(A_TS);
    await expect(offered.previewChange!({ path: 'src/a.ts', edits: [{ search: 'nope', replace: '' }] })).rejects.toThrow(/not found in src\/a.ts/);
  });

  it('refuses secret files and .git always, and asks by name for ignored files and paths outside the workspace', async () => {
    const offered = editFileTool(env);
    for (const p of ['.env', 'keys/server.pem', '.git/config', '../.env']) {
      const verdict = await offered.checkCall!({ path: p, edits: [{ search: 'needle', replace: 'x' }] });
      expect(verdict?.kind, p).toBe('deny');
      const out = await edit({ path: p, edits: [{ search: 'needle', replace: 'x' }] });
      expect(out.status, p).toBe('failed');
      expect(out.content, p).toMatch(/never writes? it, even with approval/);
    }
    expect(await read('.env')).toBe('API_KEY=needle\n');
    expect(await fs.readFile(path.join(w.root, '.env'), 'utf8')).toBe('OUTSIDE_SECRET=needle\n');

    expect(await offered.checkCall!({ path: 'src/a.ts', edits: [] })).toBeUndefined();
    expect(await offered.checkCall!({ path: 'build/out.js' })).toEqual({ kind: 'ask', reason: 'writes "build/out.js" (which is ignored by .gitignore)' });
    expect(await offered.checkCall!({ path: 'node_modules/pkg/index.js' })).toEqual({ kind: 'ask', reason: 'writes "node_modules/pkg/index.js" (which is inside node_modules or another tool folder)' });
    const outside = path.join(w.root, 'outside.txt');
    expect(offered.outsideWorkspace!({ path: '../outside.txt' })).toBe(outside);
    expect(await offered.checkCall!({ path: '../outside.txt' })).toEqual({ kind: 'ask', reason: `writes outside the workspace: ${outside}` });

    // Once the user allowed it (the approval layer asked), the call writes there.
    const ignored = await edit({ path: 'build/out.js', edits: [{ search: 'var needle = 1;', replace: 'var needle = 2;' }] });
    expect(ignored.status).toBe('done');
    expect(await read('build/out.js')).toBe('var needle = 2;\n');
    const out = await edit({ path: '../outside.txt', edits: [{ search: 'outside two', replace: 'outside 2' }] });
    expect(out.content.split('\n')[0]).toBe(`Edited ${outside} (outside the workspace): the edit was applied, +1 -1 lines.`);
    expect(await fs.readFile(outside, 'utf8')).toBe('outside one\noutside 2\n');
  });

  it('keeps CRLF line endings and a missing final line break', async () => {
    await fs.writeFile(path.join(w.ws, 'win.txt'), 'alpha\r\nbeta\r\ngamma\r\n');
    await fs.writeFile(path.join(w.ws, 'bare.txt'), 'first\nlast');
    expect((await edit({ path: 'win.txt', edits: [{ search: 'beta\ngamma', replace: 'BETA\ngamma\ndelta' }] })).status).toBe('done');
    expect(await read('win.txt')).toBe('alpha\r\nBETA\r\ngamma\r\ndelta\r\n');
    expect((await edit({ path: 'bare.txt', edits: [{ search: 'last', replace: 'final' }] })).status).toBe('done');
    expect(await read('bare.txt')).toBe('first\nfinal');
  });

  it('says what is wrong with a missing file, a folder, a binary file, a file not in UTF-8 and an edit that changes nothing', async () => {
    const cases: Array<[string, RegExp]> = [
      ['src/missing.ts', /No file "src\/missing.ts"\. Check the path \(list_files finds files\), or make a new file with create_file\./],
      ['src', /"src" is a folder, not a file/],
      ['image.png', /"image.png" is a binary file/],
    ];
    await fs.writeFile(path.join(w.ws, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    cases.push(['latin1.txt', /"latin1.txt" is not UTF-8 text/]);
    for (const [p, why] of cases) {
      const out = await edit({ path: p, edits: [{ search: 'x', replace: 'y' }] });
      expect(out.status, p).toBe('failed');
      expect(out.content, p).toMatch(why);
    }
    const same = await edit({ path: 'src/a.ts', edits: [{ search: 'one = 1', replace: 'one = 1' }] });
    expect(same).toMatchObject({ status: 'done', content: 'No change: the edits leave src/a.ts as it was (each replace text equals what it replaces). Nothing was written.' });
    expect(same.modifiedFiles).toBeUndefined();
  });

  it('refuses a link inside the workspace that leads out of it, or to a secret', async () => {
    await fs.symlink(path.join(w.root, 'outside.txt'), path.join(w.ws, 'out-link.txt'));
    await fs.symlink(path.join(w.ws, '.env'), path.join(w.ws, 'env-link.txt'));
    await fs.symlink(w.root, path.join(w.ws, 'up'));
    const input = { edits: [{ search: 'outside two', replace: 'changed' }] };
    const out = await edit({ path: 'out-link.txt', ...input });
    expect(out.content).toMatch(/"out-link.txt" is a symbolic link \(or lies below one\) that leads outside the workspace, to .*outside\.txt; write that path instead/);
    expect((await edit({ path: 'up/outside.txt', ...input })).content).toMatch(/leads outside the workspace/);
    expect((await edit({ path: 'env-link.txt', edits: [{ search: 'needle', replace: 'x' }] })).content).toMatch(/"\.env" looks like a secrets file/);
    expect(await fs.readFile(path.join(w.root, 'outside.txt'), 'utf8')).toBe('outside one\noutside two\n');
    expect(await read('.env')).toBe('API_KEY=needle\n');
  });
});
