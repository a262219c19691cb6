import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { listFilesTool, pathMatcher } from './listFilesTool';

describe('list_files', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  const list = async (input: Record<string, unknown>, env = w.env) => {
    const out = await runTool(listFilesTool(env), input);
    expect(out.status, out.content).toBe('done');
    return out.content;
  };

  it('lists every file the workspace rules allow, sorted, and never an ignored, secret or node_modules file', async () => {
    expect(await list({})).toBe(['6 files in the workspace:', '.gitignore', 'README.md', 'image.png', 'src/a.ts', 'src/notes.md', 'src/sub/b.ts'].join('\n'));
    const excluded = await list({}, { ...w.env, exclude: () => ['src/sub'] });
    expect(excluded).not.toContain('src/sub/b.ts');
    expect(excluded).toContain('src/a.ts');
  });

  it('matches globs from the folder root, file-name patterns at any depth, and plain folder paths', async () => {
    expect(await list({ glob: 'src/**/*.ts' })).toBe('2 files matching "src/**/*.ts":\nsrc/a.ts\nsrc/sub/b.ts');
    expect(await list({ glob: '*.md' })).toBe('2 files matching "*.md":\nREADME.md\nsrc/notes.md');
    expect(await list({ glob: 'src/sub' })).toBe('1 file matching "src/sub":\nsrc/sub/b.ts');
    expect(await list({ glob: 'src/' })).toContain('src/notes.md');
    expect(await list({ glob: '*.log' })).toBe('No files matching "*.log" (ignored, excluded and secret files are not listed).');
    expect(await list({ glob: '**/*.pem' })).toMatch(/^No files/);
  });

  it('caps the list and says how many more there are', async () => {
    await fs.mkdir(path.join(w.ws, 'many'));
    for (let i = 0; i < 30; i++) await fs.writeFile(path.join(w.ws, 'many', `f${String(i).padStart(2, '0')}.txt`), '');
    const out = await list({ glob: 'many/**', maxResults: 10 });
    const lines = out.split('\n');
    expect(lines[0]).toBe('30 files matching "many/**"; the first 10 by path:');
    expect(lines.slice(1, 11)).toEqual(Array.from({ length: 10 }, (_, i) => `many/f${String(i).padStart(2, '0')}.txt`));
    expect(lines[11]).toBe('[… 20 more not shown; narrow the glob or raise maxResults (at most 5000).]');
    const refused = await runTool(listFilesTool(w.env), { maxResults: 10_000 });
    expect(refused.status).toBe('failed');
  });

  it('refuses a glob that climbs out of the workspace', async () => {
    const out = await runTool(listFilesTool(w.env), { glob: '../*' });
    expect(out.status).toBe('failed');
    expect(out.content).toMatch(/leaves the workspace; write it relative to a workspace folder/);
    expect(out.content).not.toContain('outside.txt');
  });

  it('shows folder names in a multi-root workspace and matches globs that start with one', async () => {
    const lib = path.join(w.root, 'lib');
    await fs.mkdir(lib);
    await fs.writeFile(path.join(lib, 'x.ts'), '');
    const env = { ...w.env, folders: () => [w.ws, lib] };
    expect(await list({ glob: '*.ts' }, env)).toBe('3 files matching "*.ts":\nlib/x.ts\nws/src/a.ts\nws/src/sub/b.ts');
    expect(await list({ glob: 'lib/**' }, env)).toBe('1 file matching "lib/**":\nlib/x.ts');
  });
});

describe('pathMatcher', () => {
  it('anchors patterns with a slash, matches names at any depth without one, and takes a plain path as a folder', () => {
    expect(pathMatcher('src/*.ts')('src/a.ts')).toBe(true);
    expect(pathMatcher('src/*.ts')('lib/src/a.ts')).toBe(false);
    expect(pathMatcher('*.ts')('lib/src/a.ts')).toBe(true);
    expect(pathMatcher('./docs')('docs/a/b.md')).toBe(true);
    expect(pathMatcher('docs')('documents/a.md')).toBe(false);
    expect(() => pathMatcher('/etc/*')).toThrow(/leaves the workspace/);
    expect(() => pathMatcher('src/../../x')).toThrow(/leaves the workspace/);
  });

  it("refuses a model's glob of many * runs, which would take minutes to say no to one long name", () => {
    // On the code before, the matcher was built and '*a…*b' against 60 `a`s ran for minutes.
    expect(() => pathMatcher('*a*a*a*a*a*a*a*a*a*a*b')).toThrow(/^The glob "\*a\*a.*" has 11 wildcards \(\* or \*\*\); at most 3 are read.*use a simpler glob\.$/);
    expect(pathMatcher('src/**/test/**/*.ts')('src/a/test/b/c.ts')).toBe(true);
  });
});
