/**
 * The cross-process lock of a store: proper-lockfile's lock folder, which names its holder (pid and
 * host) from the instant it exists, so a lock left by a process killed while holding it is taken
 * over at once instead of waiting for it to go stale.
 */
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { StorageError } from '../errors';

/** The file inside the lock folder that names the process holding it. */
const LOCK_OWNER = 'owner.json';

/** Where a released lock folder goes on its way out (a rename frees the lock in one step, owner file and all). */
export const LOCK_GONE = '.gone-';
/** Where a lock folder is made, owner file included, before it is renamed into place. */
export const LOCK_NEW = '.new-';

/**
 * Node's fs for proper-lockfile, except that removing the lock folder renames it away first and then
 * deletes it with the owner file in it, so no instant leaves a lock without its owner.
 */
const LOCK_FS = {
  ...nodeFs,
  // The lock folder appears with its owner file already in it (made aside, then renamed into place),
  // so no instant shows a lock whose holder cannot be told; a held lock still fails with EEXIST.
  mkdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const made = `${dir}${LOCK_NEW}${randomBytes(4).toString('hex')}`;
    const undo = (error: NodeJS.ErrnoException) => nodeFs.rm(made, { recursive: true, force: true }, () => callback(error));
    nodeFs.mkdir(made, (error) => {
      if (error) return callback(error);
      nodeFs.writeFile(path.join(made, LOCK_OWNER), JSON.stringify({ pid: process.pid, host: os.hostname() }), (writeError) => {
        if (writeError) return undo(writeError);
        nodeFs.rename(made, dir, (renameError) => {
          if (!renameError) return callback(null);
          undo(renameError.code === 'ENOTEMPTY' || renameError.code === 'EISDIR' ? Object.assign(renameError, { code: 'EEXIST' }) : renameError);
        });
      });
    });
  },
  rmdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const gone = `${dir}${LOCK_GONE}${randomBytes(4).toString('hex')}`;
    nodeFs.rename(dir, gone, (error) => {
      if (error) return callback(error);
      nodeFs.rm(gone, { recursive: true, force: true }, () => callback(null));
    });
  },
  rmdirSync: (dir: string) => {
    const gone = `${dir}${LOCK_GONE}${randomBytes(4).toString('hex')}`;
    nodeFs.renameSync(dir, gone);
    nodeFs.rmSync(gone, { recursive: true, force: true });
  },
};

/** A lock folder without an owner file older than this was left by a process killed as it took the lock. */
const OWNERLESS_GRACE_MS = 2000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the lock when the process that holds it ran on this machine and is gone (killed while
 * writing). A lock with no owner recorded yet, or from another machine, is left to go stale.
 */
async function removeLockOfDeadOwner(lockDir: string): Promise<boolean> {
  const read = async () => {
    try {
      return JSON.parse(await fs.readFile(path.join(lockDir, LOCK_OWNER), 'utf8')) as { pid?: unknown; host?: unknown };
    } catch {
      return undefined;
    }
  };
  const owner = await read();
  if (!owner) {
    // Between taking the lock and naming itself a holder spends microseconds; an old ownerless lock is a leftover.
    const stat = await fs.stat(lockDir).catch(() => undefined);
    if (!stat || Date.now() - stat.mtimeMs < OWNERLESS_GRACE_MS || (await read())) return false;
    await fs.rm(lockDir, { recursive: true, force: true });
    return true;
  }
  if (owner.host !== os.hostname() || typeof owner.pid !== 'number' || owner.pid === process.pid || isAlive(owner.pid)) return false;
  // Look again just before removing: another window may have taken the dead lock over meanwhile.
  const again = await read();
  if (again?.pid !== owner.pid) return false;
  await fs.rm(lockDir, { recursive: true, force: true });
  return true;
}

/** Runs `task` holding the lock of the store whose files are `files`. */
export async function withStoreLock<T>(
  files: { db: string; lock: string },
  options: { lockStaleMs?: number; lockWaitMs?: number },
  warn: (message: string) => void,
  task: () => Promise<T>,
): Promise<T> {
  const stale = Math.max(2000, options.lockStaleMs ?? 10_000);
  const waitMs = options.lockWaitMs ?? 30_000;
  const lockOptions = {
    realpath: false,
    lockfilePath: files.lock,
    stale,
    update: Math.floor(stale / 2),
    fs: LOCK_FS,
    onCompromised: (error: Error) => warn(`The lock on ${files.db} was lost: ${String(error)}`),
  };
  let release: () => Promise<void>;
  try {
    try {
      release = await lockfile.lock(files.db, { ...lockOptions, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      // Held: by a live window (wait for it), or by one that died holding it (take it over at once).
      if (await removeLockOfDeadOwner(files.lock)) warn(`Took over the lock on ${files.db} left by an Arbor process that is no longer running.`);
      release = await lockfile.lock(files.db, { ...lockOptions, retries: { retries: Math.ceil(waitMs / 50), factor: 1.3, minTimeout: 2, maxTimeout: 50 } });
    }
  } catch (error) {
    throw new StorageError(
      `Could not lock the conversation store ${files.db} within ${waitMs} ms: ${String(error)}. ` +
        `Another Arbor window may be busy with it; if none is, delete ${files.lock} and try again.`,
      { cause: error },
    );
  }
  try {
    return await task();
  } finally {
    await release().catch(() => undefined);
  }
}
