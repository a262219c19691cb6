import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FilesAdapter, nodeFiles, WorkspaceAccessError } from '../../core/index';
import { MAX_ATTACHMENT_BYTES, WorkspaceFileReader } from './workspaceFileReader';

describe('WorkspaceFileReader', () => {
  let root: string;
  let ws: string;
  let reader: WorkspaceFileReader;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-reader-'));
    ws = path.join(root, 'ws');
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.writeFile(path.join(ws, 'src', 'a.ts'), 'one\ntwo\nthree\nfour\n');
    await fs.writeFile(path.join(root, 'secret.txt'), 'outside');
    await fs.symlink(path.join(root, 'secret.txt'), path.join(ws, 'link.txt'));
    reader = new WorkspaceFileReader(nodeFiles, () => [ws], () => new FilesAdapter({ folders: [ws], files: nodeFiles }));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('reads attached files whole or by line range, and keeps selection text as given', async () => {
    const out = await reader.resolveAttachments([
      { kind: 'file', path: 'src/a.ts', startLine: 2, endLine: 3 },
      { kind: 'file', path: 'src/a.ts' },
      { kind: 'selection', path: 'src/a.ts', startLine: 1, endLine: 1, text: 'edited in the editor' },
    ]);
    expect(out.map((a) => a.text)).toEqual(['two\nthree', 'one\ntwo\nthree\nfour\n', 'edited in the editor']);
  });

  it('names the language of a picked file by its name, and keeps a language given with the attachment', async () => {
    const named = new WorkspaceFileReader(nodeFiles, () => [ws], () => new FilesAdapter({ folders: [ws], files: nodeFiles }), (p) => (p.endsWith('.ts') ? 'typescript' : undefined));
    const out = await named.resolveAttachments([
      { kind: 'file', path: 'src/a.ts' },
      { kind: 'selection', path: 'src/a.ts', startLine: 1, endLine: 1, language: 'typescriptreact', text: 'x' },
    ]);
    expect(out.map((a) => a.language)).toEqual(['typescript', 'typescriptreact']);
    // Without a table (the default) a picked file carries no language, as before.
    expect((await reader.resolveAttachments([{ kind: 'file', path: 'src/a.ts' }]))[0].language).toBeUndefined();
  });

  it('refuses paths that leave the workspace, also through a symbolic link', async () => {
    await expect(reader.readText('../secret.txt')).rejects.toThrow(WorkspaceAccessError);
    await expect(reader.readText(path.join(root, 'secret.txt'))).rejects.toThrow(/not inside the workspace/);
    await expect(reader.readText('link.txt')).rejects.toThrow(/links outside the workspace/);
  });

  it('refuses secret files picked by hand, which would otherwise go to a model', async () => {
    await fs.writeFile(path.join(ws, '.env'), 'DB_PASSWORD=hunter2');
    await fs.mkdir(path.join(ws, 'deploy'));
    await fs.writeFile(path.join(ws, 'deploy', 'prod.tfvars'), 'token = "x"');
    await expect(reader.resolveAttachments([{ kind: 'file', path: '.env' }])).rejects.toThrow(/looks like a secrets file/);
    await expect(reader.readText('deploy/prod.tfvars')).rejects.toThrow(WorkspaceAccessError);
    // A link inside the workspace to a secret, and .git's own files, are refused the same way.
    await fs.symlink(path.join(ws, '.env'), path.join(ws, 'notes.txt'));
    await expect(reader.readText('notes.txt')).rejects.toThrow(/links to a secret file/);
    await fs.mkdir(path.join(ws, '.git'));
    await fs.writeFile(path.join(ws, '.git', 'config'), '[remote "origin"]\n\turl = https://user:token@example.com/r.git\n');
    await expect(reader.readText('.git/config')).rejects.toThrow(/inside \.git/);
    // A selection the user copied out of such a file is theirs to send: it is not read from disk.
    const [sel] = await reader.resolveAttachments([{ kind: 'selection', path: '.env', startLine: 1, endLine: 1, text: 'DB_HOST=db' }]);
    expect(sel.text).toBe('DB_HOST=db');
  });

  it('marks a file the workspace rules leave out, read because the user picked it', async () => {
    await fs.writeFile(path.join(ws, '.gitignore'), 'build/\n');
    await fs.mkdir(path.join(ws, 'build'));
    await fs.writeFile(path.join(ws, 'build', 'out.js'), 'compiled');
    const [built, source] = await reader.resolveAttachments([
      { kind: 'file', path: 'build/out.js' },
      { kind: 'file', path: 'src/a.ts' },
    ]);
    expect(built).toMatchObject({ path: 'build/out.js', ignored: true, text: 'compiled' });
    expect(source.ignored).toBeUndefined();
  });

  it('cuts a very large file with a note instead of sending all of it', async () => {
    await fs.writeFile(path.join(ws, 'big.txt'), 'x'.repeat(MAX_ATTACHMENT_BYTES + 10));
    const text = await reader.readText('big.txt');
    expect(text.startsWith('x'.repeat(100))).toBe(true);
    expect(text.endsWith(`[… cut at ${MAX_ATTACHMENT_BYTES} bytes]`)).toBe(true);
  });
});
