import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeToolWorkspace, runTool, type ToolWorkspace } from '../../../test/fixtures/toolWorkspace';
import { grepTool, lineExcerpt, ripgrepArgs, searchRoots } from './grepTool';
import { WorkspaceAccess } from './workspaceAccess';

describe('grep (the real /usr/bin/rg)', () => {
  let w: ToolWorkspace;
  beforeEach(async () => {
    w = await makeToolWorkspace();
  });
  afterEach(async () => {
    await w.dispose();
  });

  const grep = async (input: Record<string, unknown>, env = w.env) => {
    const out = await runTool(grepTool(env), input);
    expect(out.status, out.content).toBe('done');
    return out.content;
  };

  it('finds text in path order, ignoring case, and never in ignored, secret, node_modules or binary files', async () => {
    expect(await grep({ pattern: 'needle' })).toBe(
      [
        '5 matching lines for "needle" (text, ignoring case):',
        'README.md:3: A needle in the readme.',
        'src/a.ts:2: export const two = 2; // needle',
        'src/a.ts:4: export const Needle = 4;',
        'src/notes.md:1: Notes: the (needle) is here.',
        'src/sub/b.ts:2: console.log(one, "needle");',
      ].join('\n'),
    );
  });

  it('matches case when asked, and treats the pattern as text unless isRegexp is set', async () => {
    expect(await grep({ pattern: 'Needle', caseSensitive: true })).toBe('1 matching line for "Needle" (text, matching case):\nsrc/a.ts:4: export const Needle = 4;');
    expect(await grep({ pattern: '(needle)' })).toBe('1 matching line for "(needle)" (text, ignoring case):\nsrc/notes.md:1: Notes: the (needle) is here.');
    expect(await grep({ pattern: 'const t\\w+ = [23]', isRegexp: true })).toBe(
      '2 matching lines for "const t\\w+ = [23]" (regular expression, ignoring case):\nsrc/a.ts:2: export const two = 2; // needle\nsrc/a.ts:3: export const three = 3;',
    );
    expect(await grep({ pattern: 'const t\\w+ = [23]' })).toMatch(/^No matches for "const t\\w\+ = \[23\]" \(text, ignoring case\)\. Ignored, excluded, secret and binary files are not searched\.$/);
  });

  it('says what is wrong with a broken regular expression and how to search for it as text', async () => {
    const out = await runTool(grepTool(w.env), { pattern: 'needle(', isRegexp: true });
    expect(out.status).toBe('failed');
    expect(out.content).toMatch(/ripgrep could not search: .*regex parse error/s);
    expect(out.content).toMatch(/set isRegexp to false/);
  });

  it('limits the files by a glob, as list_files matches them', async () => {
    expect(await grep({ pattern: 'needle', glob: 'src/**/*.ts' })).toBe(
      '3 matching lines for "needle" (text, ignoring case, in files matching "src/**/*.ts"):\nsrc/a.ts:2: export const two = 2; // needle\nsrc/a.ts:4: export const Needle = 4;\nsrc/sub/b.ts:2: console.log(one, "needle");',
    );
    expect(await grep({ pattern: 'needle', glob: '*.md' })).toBe(
      '2 matching lines for "needle" (text, ignoring case, in files matching "*.md"):\nREADME.md:3: A needle in the readme.\nsrc/notes.md:1: Notes: the (needle) is here.',
    );
    expect(await grep({ pattern: 'needle', glob: 'build/**' })).toMatch(/^No matches/);
    const out = await runTool(grepTool(w.env), { pattern: 'outside', glob: '../*' });
    expect(out.status).toBe('failed');
    expect(out.content).toMatch(/leaves the workspace/);
  });

  it('leaves out what the workspace rules leave out even where rg would search: excludes and the secret list', async () => {
    const excluded = await grep({ pattern: 'needle' }, { ...w.env, exclude: () => ['src/sub/**'] });
    expect(excluded).not.toContain('src/sub/b.ts');
    expect(excluded).toContain('src/a.ts:2:');
    const mdSecret = await grep({ pattern: 'needle' }, { ...w.env, secretPatterns: ['*.md'] });
    expect(mdSecret).not.toContain('.md');
    // With the default list replaced, .env is no longer a secret, but it is still found only when allowed.
    expect(mdSecret).toContain('.env:1: API_KEY=needle');
    // A nested .gitignore counts too, with no git repository around (rg is told not to require one).
    await fs.writeFile(path.join(w.ws, 'src', '.gitignore'), 'notes.md\n');
    expect(await grep({ pattern: 'needle' })).not.toContain('notes.md');
  });

  it('stops at maxResults and says there are more', async () => {
    const out = await grep({ pattern: 'needle', maxResults: 2 });
    expect(out.split('\n')).toEqual([
      '2+ matching lines for "needle" (text, ignoring case):',
      'README.md:3: A needle in the readme.',
      'src/a.ts:2: export const two = 2; // needle',
      '[Stopped after 2 matches; there are more. Narrow the search with glob or a more specific pattern, or raise maxResults (at most 1000).]',
    ]);
  });

  it('searches every folder of a multi-root workspace and shows folder names', async () => {
    const lib = path.join(w.root, 'lib');
    await fs.mkdir(lib);
    await fs.writeFile(path.join(lib, 'x.ts'), 'lib needle\n');
    const env = { ...w.env, folders: () => [w.ws, lib] };
    const out = await grep({ pattern: 'needle', glob: '*.ts' }, env);
    expect(out).toContain('ws/src/a.ts:2:');
    expect(out.split('\n').at(-1)).toBe('lib/x.ts:1: lib needle');
    expect(await grep({ pattern: 'needle', glob: 'lib/**' }, env)).toBe('1 matching line for "needle" (text, ignoring case, in files matching "lib/**"):\nlib/x.ts:1: lib needle');
  });

  it('says grep is unavailable when rg cannot be started, and what to use instead', async () => {
    const out = await runTool(grepTool({ ...w.env, ripgrepPath: () => path.join(w.root, 'no-such-rg') }), { pattern: 'needle' });
    expect(out.status).toBe('failed');
    expect(out.content).toMatch(/grep is not available: ripgrep could not be started from ".*no-such-rg".*Use search_workspace/);
  });

  it('searches only below the fixed folder a glob starts with, or the nearest one that exists', async () => {
    const access = new WorkspaceAccess(w.env);
    const isDir = async (abs: string) => (await fs.stat(abs).catch(() => undefined))?.isDirectory() === true;
    expect(await searchRoots(access, undefined, isDir)).toEqual([w.ws]);
    expect(await searchRoots(access, '*.ts', isDir)).toEqual([w.ws]);
    expect(await searchRoots(access, 'src/sub/**/*.ts', isDir)).toEqual([path.join(w.ws, 'src', 'sub')]);
    expect(await searchRoots(access, 'src/a.ts', isDir)).toEqual([path.join(w.ws, 'src')]);
    expect(await searchRoots(access, 'src/nothing/*.ts', isDir)).toEqual([path.join(w.ws, 'src')]);
    expect(await searchRoots(access, '!src/**', isDir)).toEqual([w.ws]);
  });
});

describe('ripgrepArgs and lineExcerpt', () => {
  it('passes the pattern after --regexp, so a pattern that looks like an option is still a pattern, and skips tool folders and secrets', () => {
    const args = ripgrepArgs({ pattern: '--files' }, ['/w']);
    expect(args.slice(-4)).toEqual(['--regexp', '--files', '--', '/w']);
    expect(args).toContain('--fixed-strings');
    expect(args).toContain('!node_modules');
    expect(args).toContain('!.env');
    expect(args).toContain('!**/.ssh/**');
    expect(ripgrepArgs({ pattern: 'x', isRegexp: true, caseSensitive: true }, ['/w'])).not.toContain('--fixed-strings');
  });

  it('cuts a long line around its match', () => {
    const line = `${'a'.repeat(500)}MATCH${'b'.repeat(500)}`;
    const cut = lineExcerpt(line, 500);
    expect(cut).toContain('MATCH');
    expect(cut.startsWith('…')).toBe(true);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut.length).toBe(302);
    expect(lineExcerpt('short', 0)).toBe('short');
  });
});
