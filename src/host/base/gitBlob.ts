/**
 * Reads an old version of a file out of git by its blob id (`git cat-file blob <id>`, the bytes `-p` prints for a blob), so a prompt
 * message can be compared with the template version that rendered it. Node only (no `vscode`), tested
 * against a real repository.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Why the text of a blob could not be read, in words a person can act on. */
export class GitBlobError extends Error {
  constructor(
    message: string,
    /** `no-git`: git is not installed; `no-repo`: the folder is not in a repository; `no-blob`: the repository lacks the blob. */
    readonly reason: 'no-git' | 'no-repo' | 'no-blob' | 'failed',
  ) {
    super(message);
    this.name = 'GitBlobError';
  }
}

/** What the blob is, for the error messages: the file it was a version of. */
export interface BlobSource {
  /** Path shown in messages, e.g. `prompts/user/review.md`. */
  path: string;
  blobId: string;
}

const BLOB_ID = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;

/** The text of blob `source.blobId` from the repository that holds `cwd`; a `GitBlobError` says why not. */
export function readGitBlob(cwd: string, source: BlobSource, gitPath = 'git'): Promise<string> {
  const short = source.blobId.slice(0, 7);
  if (!BLOB_ID.test(source.blobId)) {
    return Promise.reject(new GitBlobError(`The message does not record which version of ${source.path} rendered it, so there is no old version to compare.`, 'no-blob'));
  }
  if (!existsSync(cwd)) {
    // Node reports a missing working folder as a missing git (ENOENT): say which it is.
    return Promise.reject(new GitBlobError(`The folder ${cwd} does not exist, so git cannot read version ${short} of ${source.path} there.`, 'failed'));
  }
  return new Promise((resolve, reject) => {
    // `cat-file blob` prints the bytes as stored (what `-p` prints for a blob); the id was checked above, so it cannot pass as an option.
    const child = spawn(gitPath, ['cat-file', 'blob', source.blobId], { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new GitBlobError(`Git was not found, so Arbor cannot read version ${short} of ${source.path}. Install git (or put it on PATH) and try again.`, 'no-git')
          : new GitBlobError(`Could not run git to read version ${short} of ${source.path}: ${error.message}`, 'failed'),
      );
    });
    child.on('close', (code) => {
      if (code === 0) {
        resolve(Buffer.concat(out).toString('utf8'));
        return;
      }
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (/not a git repository/i.test(stderr)) {
        reject(new GitBlobError(`The workspace is not a git repository, so version ${short} of ${source.path} cannot be read. Keep prompts in git to compare versions.`, 'no-repo'));
      } else if (/not a valid object name|bad file|could not get object info|fatal: git cat-file/i.test(stderr)) {
        reject(
          new GitBlobError(
            `Version ${short} of ${source.path} is not in the workspace's git repository: it was never committed or staged. Commit prompt files to compare versions later.`,
            'no-blob',
          ),
        );
      } else {
        reject(new GitBlobError(`git could not read version ${short} of ${source.path}: ${stderr || `exit code ${code}`}`, 'failed'));
      }
    });
  });
}
