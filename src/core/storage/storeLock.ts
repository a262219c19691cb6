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

/** What a lock folder says of its holder; undefined when it names none (yet). */
interface LockOwner {
  pid?: unknown;
  host?: unknown;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder named by the lock folder `dir` (or by a folder on its way in or out). */
async function readOwner(dir: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(dir, LOCK_OWNER), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function readOwnerSync(dir: string): LockOwner | undefined {
  try {
    return JSON.parse(nodeFs.readFileSync(path.join(dir, LOCK_OWNER), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/** Whether `owner` is a process of this machine that no longer runs (never this process). */
function isDeadOwner(owner: LockOwner | undefined): boolean {
  return owner !== undefined && owner.host === os.hostname() && typeof owner.pid === 'number' && owner.pid !== process.pid && !isAlive(owner.pid);
}

const isOurs = (owner: LockOwner | undefined) => owner?.pid === process.pid && owner?.host === os.hostname();

const goneName = (dir: string) => `${dir}${LOCK_GONE}${randomBytes(4).toString('hex')}`;

/** Where the one process removing a dead or stale lock says so (see `removeUnderTakeover`). */
export const LOCK_TAKEOVER = '.takeover';

/** A lock folder without an owner file older than this was left by a process killed as it took the lock. */
const OWNERLESS_GRACE_MS = 2000;

/** Removes a folder in one step (renamed aside, then deleted), so no one sees it half removed or empty. */
async function removeWhole(dir: string): Promise<boolean> {
  const gone = goneName(dir);
  try {
    await fs.rename(dir, gone);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  await fs.rm(gone, { recursive: true, force: true });
  return true;
}

/** Takes the takeover folder `mutex` (plain mkdir: one process wins); clears one its maker left. */
async function takeMutex(mutex: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.mkdir(mutex);
      await fs.writeFile(path.join(mutex, LOCK_OWNER), JSON.stringify({ pid: process.pid, host: os.hostname() }));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await fs.stat(mutex).catch(() => undefined);
      const owner = await readOwner(mutex);
      if (!stat || !(isDeadOwner(owner) || Date.now() - stat.mtimeMs > OWNERLESS_GRACE_MS)) return false;
      await removeWhole(mutex);
    }
  }
  return false;
}

/**
 * Removes the lock folder `dir` that `stillMeant` confirms is the dead or stale one the caller saw,
 * as the only process doing so: removals go one at a time through the takeover folder, and each
 * looks again under it, so a lock another process took meanwhile is never removed (the check and
 * the removal of two processes could otherwise interleave and leave two holders). A live holder's
 * lock cannot be replaced while the dead one is in place (the rename that takes a lock fails).
 */
async function removeUnderTakeover(dir: string, stillMeant: () => Promise<boolean>): Promise<'removed' | 'absent' | 'kept'> {
  const mutex = `${dir}${LOCK_TAKEOVER}`;
  if (!(await takeMutex(mutex))) return 'kept';
  try {
    if (!(await fs.stat(dir).catch(() => undefined))) return 'absent';
    if (!(await stillMeant())) return 'kept';
    return (await removeWhole(dir)) ? 'removed' : 'absent';
  } finally {
    await fs.rm(mutex, { recursive: true, force: true });
  }
}

/**
 * Node's fs for proper-lockfile (`stale`: its staleness threshold), except that the lock folder
 * appears whole and goes in one step, and proper-lockfile's removal of a stale lock never removes a
 * lock another process took since it looked.
 */
function lockFs(staleMs: number) {
  return {
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
    // A release (the lock is ours), or proper-lockfile removing a lock it saw stale.
    rmdir: (dir: string, callback: (error: NodeJS.ErrnoException | null) => void) => {
      const remove = async (): Promise<NodeJS.ErrnoException | null> => {
        if (isOurs(await readOwner(dir))) return (await removeWhole(dir)) ? null : Object.assign(new Error(`${dir} is gone`), { code: 'ENOENT' });
        const stillStale = async () => {
          const stat = await fs.stat(dir).catch(() => undefined);
          return stat !== undefined && stat.mtimeMs < Date.now() - staleMs;
        };
        const outcome = await removeUnderTakeover(dir, stillStale);
        if (outcome === 'removed') return null;
        if (outcome === 'absent') return Object.assign(new Error(`${dir} is gone`), { code: 'ENOENT' });
        return Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' });
      };
      remove().then(callback, (error: NodeJS.ErrnoException) => callback(error));
    },
    rmdirSync: (dir: string) => {
      // Only at exit, for a lock this process holds: leave it if it is not (it was taken over).
      if (!isOurs(readOwnerSync(dir))) return;
      const gone = goneName(dir);
      nodeFs.renameSync(dir, gone);
      nodeFs.rmSync(gone, { recursive: true, force: true });
    },
  };
}

/**
 * Removes the lock when the process that holds it ran on this machine and is gone (killed while
 * writing). A lock with no owner recorded yet, or from another machine, is left to go stale.
 */
async function removeLockOfDeadOwner(lockDir: string): Promise<boolean> {
  const owner = await readOwner(lockDir);
  if (!owner) {
    // Between taking the lock and naming itself a holder spends microseconds; an old ownerless lock is a leftover.
    const stat = await fs.stat(lockDir).catch(() => undefined);
    if (!stat || Date.now() - stat.mtimeMs < OWNERLESS_GRACE_MS) return false;
    const stillOwnerless = async () => {
      const again = await fs.stat(lockDir).catch(() => undefined);
      return again !== undefined && Date.now() - again.mtimeMs >= OWNERLESS_GRACE_MS && (await readOwner(lockDir)) === undefined;
    };
    return (await removeUnderTakeover(lockDir, stillOwnerless)) === 'removed';
  }
  if (!isDeadOwner(owner)) return false;
  // Only the dead holder's folder goes: another window may have taken the dead lock over meanwhile.
  const stillTheDeadOne = async () => {
    const found = await readOwner(lockDir);
    return found?.pid === owner.pid && found?.host === owner.host;
  };
  return (await removeUnderTakeover(lockDir, stillTheDeadOne)) === 'removed';
}

/** Folders on their way in or out of place older than this are leftovers, whoever made them. */
const LEFTOVER_MS = 60_000;

/**
 * Removes the lock folders that processes killed while taking or releasing the lock left beside it
 * (`<lock>.new-…`, `<lock>.gone-…`, `<lock>.takeover`): those whose maker is gone, those that never got an owner, and any
 * older than a minute. A live process's folder in flight is left to it. Returns how many it removed.
 */
export async function removeLeftoverLockFolders(lockPath: string): Promise<number> {
  const dir = path.dirname(lockPath);
  const prefixes = [`${path.basename(lockPath)}${LOCK_GONE}`, `${path.basename(lockPath)}${LOCK_NEW}`, `${path.basename(lockPath)}${LOCK_TAKEOVER}`];
  let removed = 0;
  for (const name of await fs.readdir(dir)) {
    if (!prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const target = path.join(dir, name);
    const stat = await fs.stat(target).catch(() => undefined);
    if (!stat) continue;
    const owner = await readOwner(target);
    const age = Date.now() - stat.mtimeMs;
    if (age > LEFTOVER_MS || isDeadOwner(owner) || (owner === undefined && age > OWNERLESS_GRACE_MS)) {
      await fs.rm(target, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
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
    fs: lockFs(stale),
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
