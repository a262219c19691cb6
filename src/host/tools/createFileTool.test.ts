import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { createFileTool, prepareCreateFile } from './createFileTool';
import { nodeFileWriter, StaleFileError, textHash, writeChange, type EditToolEnv, type FileChangeRecord } from './fileChanges';

describe('create_file', () => {
  let w: ToolWorkspace;
  let env: EditToolEnv;
  beforeEach(async () => {
    w = await makeToolWorkspace();
    env = { ...w.env, writer: nodeFileWriter };
  });
  afterEach(async () => {
    await w.dispose();
  });

  const create = (input: Record<string, unknown>) => runTool(createFileTool(env), input);
  const read = (rel: string) => fs.readFile(path.join(w.ws, rel), 'utf8');

  it('creates a file and its folders, and records that there was no file before', async () => {
    const out = await create({ path: 'src/new/deep/c.ts', content: 'export const c = 3;\nexport const d = 4;\n' });
    expect(out).toMatchObject({ status: 'done', content: 'Created src/new/deep/c.ts (2 lines).', modifiedFiles: ['src/new/deep/c.ts'] });
    expect(await read('src/new/deep/c.ts')).toBe('export const c = 3;\nexport const d = 4;\n');
    const [record] = out.metadata!.fileChanges as FileChangeRecord[];
    expect(record).toMatchObject({ shown: 'src/new/deep/c.ts', before: null, beforeHash: null, afterHash: textHash('export const c = 3;\nexport const d = 4;\n'), added: 2, removed: 0 });
  });

  it('will not overwrite an existing file unless told to, and then keeps its line endings', async () => {
    const refused = await create({ path: 'src/a.ts', content: 'x\n' });
    expect(refused.status).toBe('failed');
    expect(refused.content).toMatch(/"src\/a.ts" already exists \(5 lines\)\. To change part of it use edit_file; to replace all of its content, call create_file again with overwrite: true\./);
    expect((await read('src/a.ts')).startsWith('export const one')).toBe(true);

    await fs.writeFile(path.join(w.ws, 'win.txt'), 'one\r\ntwo\r\n');
    const replaced = await create({ path: 'win.txt', content: 'one\nthree\n', overwrite: true });
    expect(replaced.content.split('\n')[0]).toBe('Replaced the content of win.txt: +1 -1 lines.');
    expect(replaced.content).toContain('-two\n+three');
    expect(await read('win.txt')).toBe('one\r\nthree\r\n');
    const same = await create({ path: 'win.txt', content: 'one\r\nthree\r\n', overwrite: true });
    expect(same.content).toBe('No change: win.txt already has this content. Nothing was written.');
  });

  it('does not overwrite a file that appeared after the change was computed', async () => {
    const prepared = await prepareCreateFile(env, { path: 'late.txt', content: 'mine\n' });
    expect(prepared.before).toBeUndefined();
    await fs.writeFile(path.join(w.ws, 'late.txt'), 'theirs\n');
    await expect(writeChange(env, prepared, 'Created.')).rejects.toBeInstanceOf(StaleFileError);
    await expect(writeChange(env, prepared, 'Created.')).rejects.toThrow(/was created by someone else while this call waited; nothing was written/);
    expect(await read('late.txt')).toBe('theirs\n');
  });

  it('shows a new file as a diff from nothing for approval, without writing it', async () => {
    const preview = await createFileTool(env).previewChange!({ path: 'docs/n.md', content: '# N\n' });
    expect(preview).toMatchObject({ shown: 'docs/n.md', before: undefined, after: '# N\n', diff: '--- /dev/null\n+++ b/docs/n.md\n@@ -0,0 +1,1 @@\n+# N', added: 1, removed: 0 });
    expect(await fs.stat(path.join(w.ws, 'docs')).catch(() => undefined)).toBeUndefined();
  });

  it('never creates secret files, and asks by name outside the workspace and for ignored paths', async () => {
    const offered = createFileTool(env);
    for (const p of ['config/.env.local', '.ssh/id_ed25519', 'deploy/prod.key', '.git/hooks/pre-commit']) {
      expect((await offered.checkCall!({ path: p, content: 'x' }))?.kind, p).toBe('deny');
      const out = await create({ path: p, content: 'x' });
      expect(out.status, p).toBe('failed');
      expect(await fs.stat(path.join(w.ws, p)).catch(() => undefined), p).toBeUndefined();
    }
    expect(await offered.checkCall!({ path: 'notes.log', content: '' })).toEqual({ kind: 'ask', reason: 'writes "notes.log" (which is ignored by .gitignore)' });
    const outside = path.join(w.root, 'made-outside.txt');
    expect(await offered.checkCall!({ path: outside, content: '' })).toEqual({ kind: 'ask', reason: `writes outside the workspace: ${outside}` });
    expect(await offered.checkCall!({ path: 'src/fresh.ts', content: '' })).toBeUndefined();
    const out = await create({ path: outside, content: 'out\n' });
    expect(out.content).toBe(`Created ${outside} (1 line, outside the workspace).`);
    expect(await fs.readFile(outside, 'utf8')).toBe('out\n');
  });
});
