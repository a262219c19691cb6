/**
 * The `workspace` retrieval adapter: a BM25 index over the chunks of every allowed text file of the
 * workspace folders, kept up to date incrementally and saved to its own file, so reopening a
 * workspace re-reads only the files whose size or modification time changed.
 */
import { Emitter, type ArborEvent } from '../emitter';
import { SerialQueue } from '../serialQueue';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Disposable, WorkspaceFiles } from '../files';
import { nodeFiles } from '../nodeFiles';
import type { RagAdapter, RagResultItem } from './ragAdapter';
import { chunkText, splitLines } from './chunker';
import { FileRules, languageOf, looksBinary } from './fileRules';
import { StorageError } from '../errors';
import { readIndexFile, writeIndexFile } from './indexFile';
import { InvertedIndex } from './invertedIndex';
import { compileFilters, PathBoost } from './searchFilters';
import { tokenize } from './tokenizer';
import type { IndexProgress, IndexStats, IndexUpdateResult, WorkspaceIndexOptions } from './workspaceIndexTypes';
import { WorkspaceScanner, type ScannedFile } from './workspaceScanner';

export type { IndexProgress, IndexStats, IndexUpdateResult, WorkspaceIndexOptions } from './workspaceIndexTypes';

/** Bump when the tokenizer, chunker or file layout changes: older saved indexes are then rebuilt. */
const FORMAT_VERSION = 1;

/** A scanned file as indexed: its content hash and where its chunks sit in the inverted index. */
interface FileRecord extends ScannedFile {
  hash: string;
  first: number;
  count: number;
  binary: boolean;
}

type SavedRecord = [absPath: string, readPath: string, size: number, mtimeMs: number, hash: string, first: number, count: number, binary: 0 | 1];

interface Meta {
  format: number;
  files: SavedRecord[];
}

const decoder = new TextDecoder('utf-8');

function sha1(bytes: Uint8Array): string {
  return createHash('sha1').update(bytes).digest('hex');
}

/** BM25 retrieval over the workspace's own files; the `workspace` RAG adapter. */
export class WorkspaceIndex implements RagAdapter, Disposable {
  private readonly files: WorkspaceFiles;
  private readonly scanner: WorkspaceScanner;
  private readonly index = new InvertedIndex();
  private records: Array<FileRecord | undefined> = [];
  private byPath = new Map<string, number>();
  private pathBoost: PathBoost | undefined;
  private readonly maxFileBytes: number;
  private readonly progressEmitter = new Emitter<IndexProgress>();
  private readonly queue = new SerialQueue();
  private dirty = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  /** True once the index holds a whole scan: restored from its file or after an update finished. */
  private built = false;
  private inFlight: Promise<IndexUpdateResult> | undefined;

  private constructor(private readonly options: WorkspaceIndexOptions) {
    this.files = options.files ?? nodeFiles;
    this.maxFileBytes = options.maxFileBytes ?? 1_000_000;
    const rules = new FileRules({ exclude: options.exclude, include: options.include, secretPatterns: options.secretPatterns });
    this.scanner = new WorkspaceScanner(options.folders, this.files, rules, { gitignore: options.gitignore, logger: options.logger });
  }

  /**
   * Opens the index saved at `storagePath` (or an empty one when there is none, or it is corrupt
   * or unreadable, with a warning). Call `update()` next to bring it up to date with the folders.
   */
  static async open(options: WorkspaceIndexOptions): Promise<WorkspaceIndex> {
    const wi = new WorkspaceIndex(options);
    try {
      const saved = await readIndexFile<Meta>(options.storagePath);
      if (saved && saved.meta.format === FORMAT_VERSION) wi.restore(saved.meta, saved.snapshot);
      else if (saved) options.logger?.info(`The workspace index ${options.storagePath} is from another version; rebuilding it.`);
    } catch (err) {
      // Unreadable or corrupt: start empty; update() rebuilds and tries to save again.
      if (!(err instanceof StorageError)) throw err;
      options.logger?.warn(err.message);
      wi.dirty = true;
    }
    return wi;
  }

  private restore(meta: Meta, snapshot: Parameters<InvertedIndex['load']>[0]): void {
    this.index.load(snapshot);
    this.built = true;
    for (const [absPath, readPath, size, mtimeMs, hash, first, count, binary] of meta.files) {
      const loc = this.scanner.locate(absPath);
      // A file of a folder no longer open keeps its id until the next update() removes it.
      const id = this.records.length;
      this.records.push({ absPath, readPath: readPath || absPath, folder: loc?.folder ?? -1, relPath: loc?.relPath ?? absPath, size, mtimeMs, hash, first, count, binary: binary === 1 });
      this.byPath.set(absPath, id);
    }
  }

  /** Listens to `update()` progress. */
  readonly onProgress: ArborEvent<IndexProgress> = this.progressEmitter.event;

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    return this.queue.run(fn);
  }

  /**
   * Scans the folders and indexes what changed: new files, files whose size or mtime differ (and
   * whose content hash then differs), removed files. Saves the index when anything changed.
   */
  update(options: { signal?: AbortSignal } = {}): Promise<IndexUpdateResult> {
    const run = this.serial(() => this.runUpdate(options));
    this.inFlight = run;
    const clear = () => {
      if (this.inFlight === run) this.inFlight = undefined;
    };
    run.then(() => {
      this.built = true;
      clear();
    }, clear);
    return run;
  }

  private runUpdate(options: { signal?: AbortSignal }): Promise<IndexUpdateResult> {
    return (async () => {
      const result: IndexUpdateResult = { added: 0, changed: 0, removed: 0, unchanged: 0, skipped: 0 };
      // The index's own file (and its temporary files) may sit inside a folder: never index them.
      const own = path.resolve(this.options.storagePath);
      const scanned = (await this.scanner.scan(options.signal)).filter((f) => f.absPath !== own && !f.absPath.startsWith(`${own}.`));
      const seen = new Set<string>();
      const total = scanned.length;
      let done = 0;
      const BATCH = 32;
      for (let i = 0; i < scanned.length; i += BATCH) {
        options.signal?.throwIfAborted();
        const batch = scanned.slice(i, i + BATCH);
        const reads = batch.map((f) => {
          seen.add(f.absPath);
          const id = this.byPath.get(f.absPath);
          const rec = id === undefined ? undefined : this.records[id];
          if (f.size > this.maxFileBytes) return undefined;
          if (rec && rec.size === f.size && rec.mtimeMs === f.mtimeMs && rec.readPath === f.readPath && rec.folder === f.folder) return undefined;
          return this.files.readFile(f.readPath).catch((err) => {
            this.options.logger?.warn(`Could not read ${f.absPath}; it is left out of the index: ${String(err)}`);
            return null;
          });
        });
        for (let j = 0; j < batch.length; j++) {
          const f = batch[j];
          const bytes = await reads[j];
          if (f.size > this.maxFileBytes) {
            if (this.removeRecord(f.absPath)) result.removed++;
            result.skipped++;
          } else if (bytes === undefined) {
            result.unchanged++;
          } else if (bytes === null) {
            if (this.removeRecord(f.absPath)) result.removed++;
          } else {
            const outcome = this.indexFile(f, bytes);
            result[outcome]++;
            if (outcome !== 'unchanged' && this.records[this.byPath.get(f.absPath)!]!.binary) result.skipped++;
          }
          done++;
          this.progressEmitter.fire({ done, total, path: f.absPath });
        }
      }
      for (const p of [...this.byPath.keys()]) {
        if (!seen.has(p) && this.removeRecord(p)) result.removed++;
      }
      if (this.dirty) {
        // The index works from memory without its file; a failed save is retried on the next change.
        await this.saveNow().catch((err) => this.options.logger?.error(err instanceof Error ? err.message : String(err)));
      }
      return result;
    })();
  }

  /** Indexes (or re-indexes) one file after a change event; rescans everything when a `.gitignore` changed. */
  updateFile(filePath: string): Promise<IndexUpdateResult> {
    const abs = path.resolve(filePath);
    if (path.basename(abs) === '.gitignore') {
      this.scanner.clearIgnoreCache();
      return this.update();
    }
    return this.reindexFile(abs);
  }

  /** `updateFile` without the `.gitignore` case; `known` is content the caller just read, used instead of reading it again. */
  private reindexFile(abs: string, known?: { readPath: string; bytes: Uint8Array }): Promise<IndexUpdateResult> {
    return this.serial(async () => {
      const result: IndexUpdateResult = { added: 0, changed: 0, removed: 0, unchanged: 0, skipped: 0 };
      const f = await this.scanner.check(abs);
      if (!f || f.size > this.maxFileBytes) {
        if (f) result.skipped++;
        if (this.removeRecord(abs)) result.removed++;
      } else {
        const bytes = known?.readPath === f.readPath ? known.bytes : await this.files.readFile(f.readPath).catch(() => null);
        if (bytes === null) {
          if (this.removeRecord(abs)) result.removed++;
        } else {
          result[this.indexFile(f, bytes)]++;
        }
      }
      this.scheduleSave();
      return result;
    });
  }

  /** Drops a deleted file, or every file below a deleted folder. */
  removeFile(filePath: string): Promise<IndexUpdateResult> {
    const abs = path.resolve(filePath);
    return this.serial(async () => {
      const result: IndexUpdateResult = { added: 0, changed: 0, removed: 0, unchanged: 0, skipped: 0 };
      const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
      for (const p of [...this.byPath.keys()]) {
        if ((p === abs || p.startsWith(prefix)) && this.removeRecord(p)) result.removed++;
      }
      this.scheduleSave();
      return result;
    });
  }

  private removeRecord(absPath: string): boolean {
    const id = this.byPath.get(absPath);
    if (id === undefined) return false;
    const rec = this.records[id]!;
    this.index.remove(rec.first, rec.count);
    this.records[id] = undefined;
    this.byPath.delete(absPath);
    this.pathBoost = undefined;
    this.dirty = true;
    return true;
  }

  private indexFile(f: ScannedFile, bytes: Uint8Array): 'added' | 'changed' | 'unchanged' {
    const hash = sha1(bytes);
    const id = this.byPath.get(f.absPath);
    const old = id === undefined ? undefined : this.records[id];
    this.dirty = true;
    if (old && old.hash === hash && old.folder === f.folder) {
      old.size = f.size;
      old.mtimeMs = f.mtimeMs;
      old.readPath = f.readPath;
      return 'unchanged';
    }
    const rec: FileRecord = { absPath: f.absPath, readPath: f.readPath, folder: f.folder, relPath: f.relPath, size: f.size, mtimeMs: f.mtimeMs, hash, first: this.index.chunkCount, count: 0, binary: looksBinary(bytes) };
    let fileId = id;
    if (old) this.index.remove(old.first, old.count);
    if (fileId === undefined) {
      fileId = this.records.length;
      this.records.push(rec);
      this.byPath.set(f.absPath, fileId);
    } else {
      this.records[fileId] = rec;
    }
    if (!rec.binary) {
      const chunks = chunkText(decoder.decode(bytes), { ...this.options.chunking, path: f.relPath });
      for (const c of chunks) this.index.add(fileId, c.startLine, c.endLine, c.text);
      rec.count = chunks.length;
    }
    // Path tokens change only when a file appears (a changed file keeps its id and path).
    if (!old) this.pathBoost = undefined;
    return old ? 'changed' : 'added';
  }

  /** Renumbers files and chunks densely and merges pending postings. */
  private compact(): void {
    const fileMap = new Int32Array(this.records.length).fill(-1);
    const records: FileRecord[] = [];
    for (let i = 0; i < this.records.length; i++) {
      const r = this.records[i];
      if (r) {
        fileMap[i] = records.length;
        records.push(r);
      }
    }
    const chunkMap = this.index.compact(fileMap);
    for (const r of records) if (r.count > 0) r.first = chunkMap[r.first];
    this.records = records;
    this.byPath = new Map(records.map((r, i) => [r.absPath, i]));
    this.pathBoost = undefined;
  }

  private scheduleSave(): void {
    if (!this.dirty || this.disposed) return;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save().catch((err) => this.options.logger?.error(String(err)));
    }, this.options.saveDelayMs ?? 30_000);
    (this.saveTimer as { unref?: () => void }).unref?.();
  }

  /** Writes the index to `storagePath` now (atomically) when anything changed since the last save. */
  save(): Promise<void> {
    return this.serial(() => this.saveNow());
  }

  private async saveNow(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
    }
    if (!this.dirty) return;
    this.compact();
    const files: SavedRecord[] = this.records.map((r) => [r!.absPath, r!.readPath === r!.absPath ? '' : r!.readPath, r!.size, r!.mtimeMs, r!.hash, r!.first, r!.count, r!.binary ? 1 : 0]);
    await writeIndexFile<Meta>(this.options.storagePath, { meta: { format: FORMAT_VERSION, files }, snapshot: this.index.snapshot() });
    this.dirty = false;
  }

  /** The path shown in results (see `WorkspaceScanner.shownPath`). */
  private displayPath(r: FileRecord): string {
    return this.scanner.shownPath(r.folder, r.relPath);
  }

  /**
   * The `k` best chunks for `query`, best first, with their text read from the files now.
   * `filters`: `include`/`exclude` (globs over the relative path) and `language` (VS Code
   * language ids), each a string or a list.
   */
  async search(query: string, k: number, filters?: Record<string, unknown>): Promise<RagResultItem[]> {
    // A search before the first scan has finished (the background build of a new workspace) waits
    // for it, rather than answering from a half-built or empty index.
    if (!this.built) await (this.inFlight ?? this.update()).catch(() => undefined);
    // Reads of this query by path: the retry after re-indexing a stale file reads no file again.
    const reads = new Map<string, Promise<Uint8Array | undefined>>();
    const read = (p: string) => {
      let r = reads.get(p);
      if (!r) reads.set(p, (r = this.files.readFile(p).then((b) => b, () => undefined)));
      return r;
    };
    for (let attempt = 0; ; attempt++) {
      // Records are taken now, before any await: a save meanwhile compacts and renumbers file ids.
      const ranked = this.rank(query, k, filters).map((h) => ({ ...h, rec: this.records[h.file]! }));
      // Each result's file is read now; one that changed since it was indexed is re-indexed and the
      // query ranked again, so line ranges always match the text returned.
      for (const { rec } of ranked) void read(rec.readPath);
      const texts = new Map<FileRecord, string[] | undefined>();
      const stale: Array<{ rec: FileRecord; bytes: Uint8Array | undefined }> = [];
      for (const { rec } of ranked) {
        if (texts.has(rec)) continue;
        let bytes = await read(rec.readPath);
        const fresh = !!bytes && sha1(bytes) === rec.hash;
        if (bytes && !fresh && attempt > 0) {
          // Re-indexed by another event since this query read it: read it again, as a new query would.
          reads.delete(rec.readPath);
          bytes = await read(rec.readPath);
        }
        if (!fresh) stale.push({ rec, bytes });
        texts.set(rec, bytes && splitLines(decoder.decode(bytes)));
      }
      if (stale.length > 0 && attempt === 0) {
        for (const { rec, bytes } of stale) {
          if (!bytes) reads.delete(rec.readPath);
          await this.reindexFile(rec.absPath, bytes && { readPath: rec.readPath, bytes });
        }
        continue;
      }
      const items: RagResultItem[] = [];
      for (const { rec, startLine, endLine, score } of ranked) {
        const all = texts.get(rec);
        if (!all) continue;
        items.push({
          content: all.slice(startLine - 1, endLine).join('\n'),
          score,
          path: this.displayPath(rec),
          startLine,
          endLine,
          metadata: { language: languageOf(rec.relPath), absolutePath: rec.absPath },
        });
      }
      return items;
    }
  }

  /** Ranking only, without reading any file: file ids, line ranges and scores. Used by `search` and benchmarks. */
  rank(query: string, k: number, filters?: Record<string, unknown>): Array<{ file: number; path: string; startLine: number; endLine: number; score: number }> {
    const tokens = tokenize(query);
    if (tokens.length === 0 || k <= 0) return [];
    this.pathBoost ??= new PathBoost(this.records.map((r) => r?.relPath), this.options.pathBoost ?? 1.5);
    const boost = this.pathBoost.boosts(tokens);
    const filter = compileFilters(filters);
    let allowed: Uint8Array | undefined;
    if (filter) {
      allowed = new Uint8Array(this.records.length);
      this.records.forEach((r, i) => {
        if (r && filter(r.relPath, this.displayPath(r))) allowed![i] = 1;
      });
    }
    const hits = this.index.search(tokens, k, { fileBoost: boost, allowedFiles: allowed });
    return hits.map((h) => {
      const file = this.index.fileOf(h.chunk);
      const [startLine, endLine] = this.index.linesOf(h.chunk);
      return { file, path: this.displayPath(this.records[file]!), startLine, endLine, score: h.score };
    });
  }

  /** Counts of what the index holds. */
  stats(): IndexStats {
    let files = 0;
    let binaryFiles = 0;
    for (const r of this.records) {
      if (!r) continue;
      if (r.binary) binaryFiles++;
      else files++;
    }
    return { files, binaryFiles, chunks: this.index.liveChunks, terms: this.index.termCount, postings: this.index.postingCount, storagePath: this.options.storagePath };
  }

  /** Relative paths (as shown in results) of the indexed text files, sorted. */
  indexedPaths(): string[] {
    return this.records.filter((r): r is FileRecord => !!r && !r.binary).map((r) => this.displayPath(r)).sort();
  }

  /** Stops pending work and saves unsaved changes (a failed save is logged, not thrown). */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.progressEmitter.dispose();
    await this.serial(() => this.saveNow()).catch((err) => this.options.logger?.error(err instanceof Error ? err.message : String(err)));
  }
}
