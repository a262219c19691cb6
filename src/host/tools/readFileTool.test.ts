import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { cutLines, readFileTool } from './readFileTool';

describe('read_file', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  const read = (input: Record<string, unknown>, env = w.env) => runTool(readFileTool(env), input);

  it('reads a whole file under a header with its path and line count, or a 1-based inclusive range of it', async () => {
    const whole = await read({ path: 'src/a.ts' });
    expect(whole.status).toBe('done');
    expect(whole.content).toBe(`src/a.ts (all 5 lines):\n${(await fs.readFile(path.join(w.ws, 'src/a.ts'), 'utf8')).trimEnd()}`);
    const part = await read({ path: 'src/a.ts', startLine: 2, endLine: 3 });
    expect(part.content).toBe('src/a.ts (lines 2-3 of 5):\nexport const two = 2; // needle\nexport const three = 3;');
    // An end past the last line stops at it; an absolute path inside the workspace is shown relative.
    const tail = await read({ path: path.join(w.ws, 'src/a.ts'), startLine: 4, endLine: 99 });
    expect(tail.content).toBe('src/a.ts (lines 4-5 of 5):\nexport const Needle = 4;\nexport const five = 5;');
  });

  it('says what is wrong with a range the file does not have, so the model can ask again', async () => {
    const past = await read({ path: 'src/a.ts', startLine: 9 });
    expect(past.status).toBe('failed');
    expect(past.content).toMatch(/has 5 lines, so it has no line 9/);
    expect((await read({ path: 'src/a.ts', startLine: 3, endLine: 2 })).content).toMatch(/endLine \(2\) is before startLine \(3\)/);
    expect((await read({ path: 'src/a.ts', startLine: 0 })).content).toMatch(/startLine/);
    expect((await read({ path: 'src/missing.ts' })).content).toMatch(/No file "src\/missing.ts".*list_files/);
    expect((await read({ path: 'src' })).content).toMatch(/is a folder, not a file/);
  });

  it('refuses ignored, excluded, tool-folder, secret and binary files, saying why', async () => {
    const cases: Array<[string, RegExp]> = [
      ['build/out.js', /ignored by \.gitignore/],
      ['debug.log', /ignored by \.gitignore/],
      ['.env', /looks like a secrets file/],
      ['keys/server.pem', /looks like a secrets file/],
      ['node_modules/pkg/index.js', /node_modules/],
      ['.git/config', /node_modules, \.git/],
      ['image.png', /binary file/],
    ];
    for (const [p, why] of cases) {
      const out = await read({ path: p });
      expect(out.status, p).toBe('failed');
      expect(out.content, p).toMatch(why);
      expect(out.content, p).not.toContain('needle');
    }
    const excluded = await read({ path: 'src/notes.md' }, { ...w.env, exclude: () => ['src/*.md'] });
    expect(excluded.content).toMatch(/excluded by the arbor\.rag\.exclude setting/);
  });

  it('names the absolute path of a path outside the workspace for approval, reads it when run, and still refuses a secret there', async () => {
    const offered = readFileTool(w.env);
    expect(offered.outsideWorkspace!({ path: '../outside.txt' })).toBe(path.join(w.root, 'outside.txt'));
    expect(offered.outsideWorkspace!({ path: path.join(w.root, 'outside.txt') })).toBe(path.join(w.root, 'outside.txt'));
    expect(offered.outsideWorkspace!({ path: 'src/../../outside.txt' })).toBe(path.join(w.root, 'outside.txt'));
    expect(offered.outsideWorkspace!({ path: 'src/a.ts' })).toBeUndefined();
    expect(offered.outsideWorkspace!({ path: 'src/../README.md' })).toBeUndefined();
    expect(offered.outsideWorkspace!({ path: path.join(w.ws, 'README.md') })).toBeUndefined();

    const outside = await read({ path: '../outside.txt', startLine: 2 });
    expect(outside.content).toBe(`${path.join(w.root, 'outside.txt')} (lines 2-2 of 2, outside the workspace):\noutside two`);
    expect(offered.outsideWorkspace!({ path: '../.env' })).toBe(path.join(w.root, '.env'));
    const secret = await read({ path: '../.env' });
    expect(secret.status).toBe('failed');
    expect(secret.content).toMatch(/secrets file/);
    expect(secret.content).not.toContain('needle');
  });

  it('refuses the credentials of command-line tools outside the workspace, approved or not, however the path is spelled', async () => {
    const files: Record<string, string> = {
      '.config/gh/hosts.yml': 'github.com:\n  oauth_token: gho_needle\n',
      '.netrc': 'machine example.com login me password needle\n',
      '.config/gcloud/credentials.db': 'needle',
      '.bash_history': 'export TOKEN=needle\n',
      'code-server/User/globalStorage/state.vscdb': 'needle',
      '.mozilla/firefox/p.default/logins.json': '{"needle":1}',
    };
    for (const [rel, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(w.root, rel)), { recursive: true });
      await fs.writeFile(path.join(w.root, rel), text);
    }
    for (const rel of [...Object.keys(files), '.NETRC', '.netrc.', '.Config/GH/hosts.yml']) {
      const out = await read({ path: path.join(w.root, rel) });
      expect(out.status, rel).toBe('failed');
      expect(out.content, rel).toMatch(/secrets file/);
      expect(out.content, rel).not.toContain('needle');
    }
  });

  it('refuses a link inside the workspace that leads out of it (naming the target to ask for) or to a secret', async () => {
    await fs.symlink(path.join(w.root, 'outside.txt'), path.join(w.ws, 'out-link.txt'));
    await fs.symlink(path.join(w.ws, '.env'), path.join(w.ws, 'env-link.txt'));
    const out = await read({ path: 'out-link.txt' });
    expect(out.content).toMatch(/symbolic link that leads outside the workspace folders \(to .*outside\.txt\); read the file it points to by its absolute path/);
    const env = await read({ path: 'env-link.txt' });
    expect(env.content).toMatch(/links to a secret/);
    expect(env.content).not.toContain('needle');
    // A link from outside into a secret inside is refused too, though the outside read was approved.
    await fs.symlink(path.join(w.ws, '.env'), path.join(w.root, 'innocent.txt'));
    expect((await read({ path: '../innocent.txt' })).content).toMatch(/secrets file/);
  });

  it('asks every time for an outside path that is a link out of its own folder, naming where it leads, so a folder grant cannot reach further', async () => {
    const offered = readFileTool(w.env);
    await fs.mkdir(path.join(w.root, 'data', 'sub'), { recursive: true });
    await fs.mkdir(path.join(w.root, 'private'), { recursive: true });
    await fs.writeFile(path.join(w.root, 'data', 'a.csv'), 'a\n');
    await fs.writeFile(path.join(w.root, 'private', 'diary.txt'), 'dear diary\n');
    await fs.symlink(path.join(w.root, 'private', 'diary.txt'), path.join(w.root, 'data', 'link.txt'));
    await fs.symlink(path.join(w.root, 'data', 'a.csv'), path.join(w.root, 'data', 'sub', 'near.csv'));
    const link = await offered.checkCall!({ path: path.join(w.root, 'data', 'link.txt') });
    expect(link).toMatchObject({ kind: 'ask', once: true });
    expect(link?.reason).toContain(path.join(w.root, 'private', 'diary.txt'));
    // A plain file, and a link that stays in the folder the grant covers, are left to the grants.
    expect(await offered.checkCall!({ path: path.join(w.root, 'data', 'a.csv') })).toBeUndefined();
    expect(await offered.checkCall!({ path: path.join(w.root, 'data', 'sub', 'near.csv') })).toMatchObject({ kind: 'ask', once: true });
    expect(await offered.checkCall!({ path: 'src/a.ts' })).toBeUndefined();
    expect(await offered.checkCall!({ path: path.join(w.root, 'data', 'missing.csv') })).toBeUndefined();
  });

  it('reads a path that starts with a folder name in a multi-root workspace from that folder', async () => {
    const second = path.join(w.root, 'lib');
    await fs.mkdir(second);
    await fs.writeFile(path.join(second, 'a.ts'), 'lib a\n');
    const env = { ...w.env, folders: () => [w.ws, second] };
    expect((await read({ path: 'lib/a.ts' }, env)).content).toBe('lib/a.ts (all 1 lines):\nlib a');
    expect((await read({ path: 'ws/src/a.ts', startLine: 1, endLine: 1 }, env)).content).toBe('ws/src/a.ts (lines 1-1 of 5):\nexport const one = 1;');
    // Not named by folder: each folder is tried in order, each by its own rules.
    expect((await read({ path: 'a.ts' }, env)).content).toBe('lib/a.ts (all 1 lines):\nlib a');
    await fs.mkdir(path.join(second, 'build'));
    await fs.writeFile(path.join(second, 'build', 'lib.js'), 'built in lib\n');
    expect((await read({ path: 'build/lib.js' }, env)).content).toBe('lib/build/lib.js (all 1 lines):\nbuilt in lib');
    expect((await read({ path: 'build/out.js' }, env)).content).toMatch(/"ws\/build\/out.js" is ignored by \.gitignore/);
  });

  it('keeps the head and tail of a long file and names the lines left out and how to read them', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`);
    await fs.writeFile(path.join(w.ws, 'long.txt'), lines.join('\n'));
    const out = (await read({ path: 'long.txt' })).content;
    expect(out.split('\n')[0]).toBe('long.txt (all 5000 lines):');
    expect(out).toContain('\nline 1\n');
    expect(out).toContain('\nline 1000\n');
    expect(out).not.toContain('\nline 1001\n');
    expect(out).toContain('\nline 4001\n');
    expect(out.endsWith('\nline 5000')).toBe(true);
    expect(out).toContain('[… lines 1001-4000 (3000 lines) left out to keep this short; read them in ranges of at most 2000 lines (startLine 1001, endLine 3000, and so on) …]');
    const range = (await read({ path: 'long.txt', startLine: 1001, endLine: 3000 })).content;
    expect(range.split('\n')).toHaveLength(2001);
    expect(range.endsWith('\nline 3000')).toBe(true);
  });

  it('refuses a file larger than it reads, pointing to grep', async () => {
    const out = await read({ path: 'src/a.ts' }, { ...w.env, maxReadBytes: 10 });
    expect(out.content).toMatch(/more than read_file reads \(10\); find the lines you need with grep/);
  });
});

describe('cutLines', () => {
  it('returns lines within both budgets as they are', () => {
    expect(cutLines(['a', 'b'], 1, 10, 100)).toBe('a\nb');
  });

  it('cuts by characters too, and cuts very long lines so some of each end still shows', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `${i + 11}`.padEnd(5000, 'x'));
    const out = cutLines(lines, 11, 2000, 10_000);
    expect(out.length).toBeLessThan(11_000);
    expect(out.startsWith('11xxx')).toBe(true);
    expect(out).toMatch(/more characters on this line/);
    expect(out).toMatch(/\[… lines 13-28 \(16 lines\) left out to keep this short; read them with startLine 13 and endLine 28 …\]/);
    expect(out.split('\n').at(-1)!.startsWith('30xxx')).toBe(true);
  });
});
