/**
 * Loading sql.js and reading a store's database file: checks that the bytes are a whole SQLite
 * database before trusting them, and moves damaged files aside instead of overwriting them.
 */
import { promises as fs, type Stats } from 'node:fs';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { StorageError } from '../errors';

/**
 * Where the sql.js WebAssembly binary comes from. sql.js initialises once per process, so the first
 * store opened decides; later options are ignored.
 */
export interface SqlJsWasmOptions {
  /** Path of `sql-wasm.wasm`; the bundled extension ships it next to its bundle. */
  wasmPath?: string;
  /** The wasm bytes themselves, when the host has already read them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

const modules = new Map<string, Promise<SqlJsStatic>>();

function defaultWasmPath(): string | undefined {
  try {
    return require.resolve('sql.js/dist/sql-wasm.wasm');
  } catch {
    // Bundled without node_modules: sql.js then looks beside its own script.
    return undefined;
  }
}

/** Loads sql.js once per wasm source and reuses it for every store. */
export function loadSqlJs(options: SqlJsWasmOptions = {}): Promise<SqlJsStatic> {
  if (options.wasmBinary) {
    const binary = options.wasmBinary instanceof Uint8Array ? options.wasmBinary : new Uint8Array(options.wasmBinary);
    return initSqlJs({ wasmBinary: binary as unknown as ArrayBuffer });
  }
  const wasmPath = options.wasmPath ?? defaultWasmPath();
  const key = wasmPath ?? '';
  let loading = modules.get(key);
  if (!loading) {
    loading = initSqlJs(wasmPath ? { locateFile: () => wasmPath } : {}).catch((error: unknown) => {
      modules.delete(key);
      throw new StorageError(
        `Could not load the SQLite engine (sql.js) from ${wasmPath ?? 'its default location'}: ${String(error)}. ` +
          'Check that sql-wasm.wasm is installed next to the extension.',
        { cause: error },
      );
    });
    modules.set(key, loading);
  }
  return loading;
}

/** The outcome of reading a database file. */
export type DatabaseFileRead =
  | { kind: 'missing' }
  | { kind: 'ok'; db: Database; stat: Stats }
  /** SQLite opens it but its integrity check fails: `db` is open so that what is readable can be saved. */
  | { kind: 'damaged'; db: Database; reason: string }
  | { kind: 'corrupt'; reason: string };

/** Why SQLite's quick integrity check fails for `db`, or null when it passes. */
export function integrityProblem(db: Database): string | null {
  try {
    const rows = db.exec('PRAGMA quick_check')[0]?.values ?? [];
    const messages = rows.map((row) => String(row[0]));
    return messages.length === 1 && messages[0] === 'ok' ? null : `its integrity check fails (${messages.slice(0, 3).join('; ')})`;
  } catch (error) {
    return `its integrity check fails (${String(error)})`;
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Why `bytes` cannot be a complete SQLite database, or null when the header is consistent. */
function headerProblem(bytes: Uint8Array): string | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 100 || !buf.subarray(0, 16).equals(SQLITE_MAGIC)) {
    return 'it is not an SQLite database (the file header is wrong)';
  }
  const rawPageSize = buf.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const changeCounter = buf.readUInt32BE(24);
  const pageCount = buf.readUInt32BE(28);
  const validFor = buf.readUInt32BE(92);
  if (pageCount > 0 && changeCounter === validFor && pageCount * pageSize > buf.length) {
    return `it is truncated (${buf.length} bytes; its header says ${pageCount * pageSize})`;
  }
  return null;
}

/** Reads and opens a database file, telling a missing file from a damaged one. */
export async function readDatabaseFile(SQL: SqlJsStatic, filePath: string): Promise<DatabaseFileRead> {
  let bytes: Buffer;
  let stat: Stats;
  try {
    stat = await fs.stat(filePath);
    bytes = await fs.readFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { kind: 'missing' };
    }
    throw new StorageError(`Could not read the conversation store ${filePath}: ${String(error)}.`, { cause: error });
  }
  if (bytes.length === 0) {
    return { kind: 'corrupt', reason: 'it is empty' };
  }
  const problem = headerProblem(bytes);
  if (problem) {
    return { kind: 'corrupt', reason: problem };
  }
  let db: Database | undefined;
  try {
    db = new SQL.Database(bytes);
    db.exec('SELECT count(*) FROM sqlite_master');
    db.exec('PRAGMA user_version');
    const damage = integrityProblem(db);
    return damage ? { kind: 'damaged', db, reason: damage } : { kind: 'ok', db, stat };
  } catch (error) {
    db?.close();
    return { kind: 'corrupt', reason: `SQLite cannot read it (${String(error)})` };
  }
}

/** Renames a damaged file to `<file>.corrupt-<time>` (never overwriting) and returns the new name. */
export async function moveAside(filePath: string): Promise<string> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (let attempt = 0; ; attempt++) {
    const target = `${filePath}.corrupt-${stamp}${attempt ? `-${attempt}` : ''}`;
    try {
      await fs.link(filePath, target);
      await fs.unlink(filePath);
      return target;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        continue;
      }
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') {
        // No hard links here: fall back to a rename to a name checked to be free.
        try {
          await fs.access(target);
          continue;
        } catch {
          await fs.rename(filePath, target);
          return target;
        }
      }
      throw error;
    }
  }
}

/** The parts of a file's stat that change whenever it is rewritten or replaced. */
export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The identity of a file, or null when it does not exist. */
export async function fileIdentity(filePath: string): Promise<FileIdentity | null> {
  try {
    const stat = await fs.stat(filePath);
    return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw error;
  }
}

/** True when two identities describe the same unchanged file. */
export function sameIdentity(a: FileIdentity | null, b: FileIdentity | null): boolean {
  return a === b || (a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs);
}
