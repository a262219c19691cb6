/**
 * What the search for other workspaces' stores learned of each store it opened: the ids of its
 * conversations, valid while the store's database file and journal keep the size and modification
 * time they had then. Opening a store (wasm, whole file read, journal replayed) is what makes a search
 * slow where a folder has many storage folders; with this, a store is opened again only after it changed.
 *
 * Kept as one JSON file in the extension's global storage, shared by every window: it is written whole
 * to a temporary file and renamed over the old one, so a reader never sees half of it, and two windows
 * saving at once lose at most each other's new entries (which cost one more open, never a wrong list).
 * A file that cannot be read or parsed is treated as empty.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../files';

const VERSION = 1;
/** Entries kept at most (the most recently checked ones): a store's list is a few KB at most. */
export const STORE_IDS_CACHE_LIMIT = 500;
const SEEN_PRECISION_MS = 60 * 60 * 1000;

interface Entry {
  size: number;
  mtimeMs: number;
  ids: string[];
  /** When a search last found this store (ms since the epoch), to keep the newest within the limit. */
  seen: number;
}

export class StoreIdsCache {
  private dirty = false;

  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, Entry>,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  /** Reads the cache at `file`; a missing file is an empty cache, an unreadable one is logged and treated as empty. */
  static async load(file: string, logger?: Pick<Logger, 'warn'>): Promise<StoreIdsCache> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger?.warn(`Could not read the other stores' cache ${file}; it is rebuilt: ${String(error)}`);
      return new StoreIdsCache(file, new Map(), logger);
    }
    return new StoreIdsCache(file, parseEntries(text, file, logger), logger);
  }

  /** The ids recorded for `storePath`, when its files still have this size and time; undefined otherwise. */
  get(storePath: string, size: number, mtimeMs: number): string[] | undefined {
    const entry = this.entries.get(storePath);
    if (!entry || entry.size !== size || entry.mtimeMs !== mtimeMs) return undefined;
    // The time it was last found orders entries for the limit; an hour's precision spares a write per search.
    if (Date.now() - entry.seen > SEEN_PRECISION_MS) {
      entry.seen = Date.now();
      this.dirty = true;
    }
    return [...entry.ids];
  }

  /** Records the ids read from `storePath` when its files had this size and time. */
  set(storePath: string, size: number, mtimeMs: number, ids: readonly string[]): void {
    this.entries.set(storePath, { size, mtimeMs, ids: [...ids], seen: Date.now() });
    this.dirty = true;
  }

  /** Forgets every store under `root` (a workspace-storage root just listed) that is not in `present` (its files are gone). */
  pruneUnder(root: string, present: ReadonlySet<string>): void {
    const prefix = root.endsWith(path.sep) ? root : root + path.sep;
    for (const storePath of [...this.entries.keys()]) {
      if (storePath.startsWith(prefix) && !present.has(storePath)) {
        this.entries.delete(storePath);
        this.dirty = true;
      }
    }
  }

  /** Writes the cache when something changed, keeping the newest entries within the limit; a failure is logged, never thrown. */
  async save(): Promise<void> {
    if (!this.dirty) return;
    const kept = [...this.entries].sort((a, b) => b[1].seen - a[1].seen).slice(0, STORE_IDS_CACHE_LIMIT);
    const body = JSON.stringify({ version: VERSION, stores: Object.fromEntries(kept) });
    const temp = `${this.file}.${randomUUID()}.tmp`;
    try {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      await fs.writeFile(temp, body);
      await fs.rename(temp, this.file);
      this.dirty = false;
    } catch (error) {
      this.logger?.warn(`Could not save the other stores' cache ${this.file}: ${String(error)}`);
      await fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }
}

function parseEntries(text: string, file: string, logger?: Pick<Logger, 'warn'>): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  try {
    const parsed = JSON.parse(text) as { version?: unknown; stores?: unknown };
    if (parsed?.version !== VERSION || typeof parsed.stores !== 'object' || parsed.stores === null) throw new Error(`not a version ${VERSION} cache`);
    for (const [storePath, value] of Object.entries(parsed.stores as Record<string, unknown>)) {
      const entry = value as Partial<Entry>;
      const valid =
        typeof entry?.size === 'number' &&
        typeof entry.mtimeMs === 'number' &&
        typeof entry.seen === 'number' &&
        Array.isArray(entry.ids) &&
        entry.ids.every((id) => typeof id === 'string');
      if (valid) entries.set(storePath, entry as Entry);
    }
  } catch (error) {
    logger?.warn(`The other stores' cache ${file} is not readable (${error instanceof Error ? error.message : String(error)}); it is rebuilt.`);
    return new Map();
  }
  return entries;
}
