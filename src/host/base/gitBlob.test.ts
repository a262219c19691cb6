import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitBlobId } from '../../core/index';
import { GitBlobError, readGitBlob } from './gitBlob';

/** The error a read failed with (the test fails if it succeeded). */
async function failure(read: Promise<string>): Promise<GitBlobError> {
  const outcome = await read.then(
    (text) => new Error(`expected a failure, read ${JSON.stringify(text)}`),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(GitBlobError);
  return outcome as GitBlobError;
}

/** A real repository with one committed prompt, and a folder outside any repository. */
describe('readGitBlob', () => {
  let root: string;
  let repo: string;
  let bare: string;
  const committed = 'Review {{code}} for bugs.\n';

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'arbor-gitblob-'));
    repo = path.join(root, 'repo');
    bare = path.join(root, 'plain');
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('mkdir', ['-p', bare]);
    await writeFile(path.join(repo, 'review.md'), committed);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    git('add', 'review.md');
    git('commit', '-qm', 'prompt');
    // The file changes after the commit, as a template edited since a message used it.
    await writeFile(path.join(repo, 'review.md'), 'Review {{code}} for bugs and style.\n');
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('reads the committed version by the blob id Arbor computes without git', async () => {
    const id = gitBlobId(new TextEncoder().encode(committed));
    expect(await readGitBlob(repo, { path: 'prompts/user/review.md', blobId: id })).toBe(committed);
  });

  it('says the version was never committed when the repository lacks the blob', async () => {
    const id = gitBlobId(new TextEncoder().encode('never committed\n'));
    const error = await failure(readGitBlob(repo, { path: 'prompts/user/review.md', blobId: id }));
    expect(error.reason).toBe('no-blob');
    expect(error.message).toContain(`Version ${id.slice(0, 7)} of prompts/user/review.md is not in the workspace's git repository`);
  });

  it('says the workspace is not a repository, and that git is missing, in so many words', async () => {
    const id = gitBlobId(new TextEncoder().encode(committed));
    const outside = await failure(readGitBlob(bare, { path: 'review.md', blobId: id }));
    // A temp folder may sit inside some repository on a developer's machine; here it does not.
    expect(outside.reason).toBe('no-repo');
    expect(outside.message).toContain('not a git repository');
    const noGit = await failure(readGitBlob(repo, { path: 'review.md', blobId: id }, path.join(root, 'no-such-git')));
    expect(noGit.reason).toBe('no-git');
    expect(noGit.message).toContain('Install git');
  });

  it('says a missing working folder is missing, not git', async () => {
    const id = gitBlobId(new TextEncoder().encode(committed));
    const error = await failure(readGitBlob(path.join(root, 'gone'), { path: 'review.md', blobId: id }));
    expect(error.reason).toBe('failed');
    expect(error.message).toContain('does not exist');
  });

  it('refuses an id that is not one, without running git', async () => {
    const error = await failure(readGitBlob(repo, { path: 'review.md', blobId: '--output=/tmp/x' }));
    expect(error.reason).toBe('no-blob');
    expect(error.message).toContain('does not record which version');
  });
});
