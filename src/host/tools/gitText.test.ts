import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFiles } from '../../core/index';
import { diffSections, filterDiff, formatCommits, unquoteGitPath } from './gitText';
import { WorkspaceAccess } from './workspaceAccess';

/** Runs git in `cwd` with no user or system configuration. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'core.quotepath=true', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

describe('filterDiff on a real repository', () => {
  let repo: string;
  const write = async (rel: string, text: string) => {
    await fs.mkdir(path.dirname(path.join(repo, rel)), { recursive: true });
    await fs.writeFile(path.join(repo, rel), text);
  };

  beforeEach(async () => {
    repo = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'arbor-gitdiff-')));
    git(repo, 'init', '-q');
    await write('src/a.ts', 'one\n-- a line that looks like a header\nthree\n');
    await write('.env', 'KEY=old\n');
    await write('build/keep.js', 'old build\n');
    await write('my file.txt', 'spaced old\n');
    await write('ä.txt', 'umlaut old\n');
    await write('old.txt', 'moved\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'first');
    // Tracked, then ignored: git still diffs it, the workspace rules leave it out.
    await write('.gitignore', 'build/\n');
    await write('src/a.ts', 'one\nthree\n');
    await write('.env', 'KEY=new-secret\n');
    await write('build/keep.js', 'new build\n');
    await write('my file.txt', 'spaced new\n');
    await write('ä.txt', 'umlaut new\n');
    git(repo, 'mv', 'old.txt', 'renamed.txt');
  });
  afterEach(async () => {
    await fs.rm(repo, { recursive: true, force: true });
  });

  const access = (folder = repo) => new WorkspaceAccess({ folders: () => [folder], files: nodeFiles });

  it('keeps the changes of allowed files and leaves out secret and ignored ones, naming them', async () => {
    const diff = git(repo, 'diff');
    expect(diff).toContain('KEY=new-secret');
    const a = access();
    const { text, leftOut } = await filterDiff(diff, repo, (abs) => a.skipReason(abs));
    expect(text).toContain('-- a line that looks like a header');
    expect(text).toContain('+spaced new');
    expect(text).toContain('+umlaut new');
    expect(text).not.toContain('KEY=');
    expect(text).not.toContain('new build');
    expect(leftOut.sort()).toEqual(['.env', 'build/keep.js']);
    expect(text.startsWith('diff --git')).toBe(true);
  });

  it('reads renames and paths written without the a/ b/ prefixes', async () => {
    const a = access();
    const staged = await filterDiff(git(repo, 'diff', '--cached'), repo, (abs) => a.skipReason(abs));
    expect(staged.text).toContain('rename to renamed.txt');
    expect(staged.leftOut).toEqual([]);
    const noPrefix = git(repo, '-c', 'diff.noprefix=true', 'diff');
    expect(noPrefix).toContain('diff --git .env .env');
    const filtered = await filterDiff(noPrefix, repo, (abs) => a.skipReason(abs));
    expect(filtered.text).toContain('+spaced new');
    expect(filtered.text).not.toContain('KEY=');
    expect(filtered.leftOut.sort()).toEqual(['.env', 'build/keep.js']);
  });

  it('leaves out files of the repository outside the workspace folder', async () => {
    const a = access(path.join(repo, 'src'));
    const { text, leftOut } = await filterDiff(git(repo, 'diff'), repo, (abs) => a.skipReason(abs));
    expect(text).toContain('diff --git a/src/a.ts b/src/a.ts');
    expect(text).not.toContain('spaced');
    expect(leftOut).toContain('my file.txt');
  });
});

describe('diffSections and unquoteGitPath', () => {
  it('splits a diff by file and decodes quoted paths', () => {
    expect(unquoteGitPath('"a/\\303\\244 \\"q\\".txt"')).toBe('a/ä "q".txt');
    expect(unquoteGitPath('a/plain.txt')).toBe('a/plain.txt');
    const sections = diffSections('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n--- not a path\n+y\ndiff --git "a/\\303\\244" "b/\\303\\244"\nBinary files differ\n');
    expect(sections).toHaveLength(2);
    expect(sections[0].paths).toEqual([['x'], ['x'], ['x'], ['x']]);
    expect(sections[1].paths).toEqual([['ä'], ['ä']]);
    // Without prefixes the header names the same path twice; a header that cannot be split leaves both readings.
    expect(diffSections('diff --git src/x src/x\n--- src/x\n+++ src/x\n')[0].paths).toEqual([['src/x'], ['src/x'], ['src/x'], ['src/x']]);
    expect(diffSections('diff --git a/one b/other two\nrename from one\nrename to other two\n')[0].paths).toEqual([['one'], ['other two']]);
  });
});

describe('formatCommits', () => {
  it('gives each commit its short hash, date and author, with the message indented and long ones cut', () => {
    const long = ['subject', '', ...Array.from({ length: 20 }, (_, i) => `line ${i}`)].join('\n');
    expect(
      formatCommits([
        { hash: '0123456789abcdef0123', message: 'Fix the thing\n\nBecause.\n', authorName: 'Ada', authorEmail: 'ada@example.com', authorDate: new Date('2024-05-01T10:00:00Z') },
        { hash: 'fedcba9876543210fedc', message: long },
      ]),
    ).toBe(
      [
        '0123456789ab 2024-05-01 Ada <ada@example.com>',
        '    Fix the thing',
        '',
        '    Because.',
        '',
        'fedcba987654',
        '    subject',
        '',
        ...Array.from({ length: 13 }, (_, i) => `    line ${i}`),
        '    [… 7 more lines]',
      ].join('\n'),
    );
  });
});
