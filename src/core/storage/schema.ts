/**
 * The SQL schema of Arbor's conversation store. The version lives in `PRAGMA user_version` as
 * `major * 1000 + minor`: a newer minor only adds things an older Arbor can ignore, a newer major is
 * refused. Stores of schema 1.x are migrated by `legacyV1.ts`, stores of 2.0 are upgraded in place by
 * `upgradeSchema` (see `JournaledDatabase.reload`).
 */
import type { Database } from 'sql.js';
import { StorageError } from '../errors';
import { SCHEMA_2_1_ADDITIONS } from './fileCheckpointSchema';
import { SCHEMA_2_3_ADDITIONS } from './fileFolderSchema';
import { SCHEMA_2_2_ADDITIONS } from './nodeImageSchema';

/** A schema version; `major` changes break older readers, `minor` changes do not. */
export interface SchemaVersion {
  major: number;
  minor: number;
}

/**
 * The version this code writes: 2.1 adds file checkpoints (`fileCheckpointSchema.ts`) to 2.0, 2.2
 * images in messages (`nodeImageSchema.ts`), 2.3 the workspace folder of a file change
 * (`fileFolderSchema.ts`).
 */
export const CURRENT_SCHEMA: SchemaVersion = { major: 2, minor: 3 };

/** Encodes a version for `PRAGMA user_version`. */
export function encodeSchemaVersion(version: SchemaVersion): number {
  return version.major * 1000 + version.minor;
}

/** Decodes `PRAGMA user_version`. */
export function decodeSchemaVersion(value: number): SchemaVersion {
  return { major: Math.floor(value / 1000), minor: value % 1000 };
}

/** Formats a version for messages, e.g. "2.0". */
export function formatSchemaVersion(version: SchemaVersion): string {
  return `${version.major}.${version.minor}`;
}

/** Reads the stored version; 0.0 for a database without Arbor tables. */
export function readSchemaVersion(db: Database): SchemaVersion {
  const result = db.exec('PRAGMA user_version');
  return decodeSchemaVersion(Number(result[0]?.values[0]?.[0] ?? 0));
}

/**
 * Schema 2.0. A conversation has a compact integer `key`; a node is keyed by its conversation's key
 * and `seq`, the conversation's node counter when it was added (its API id is `formatNodeId(seq)`),
 * and points at its parent by the parent's `seq`, so a row's size never depends on its depth.
 * `position` orders siblings by creation. The message is split into `role`, `content` and `extra`
 * (its other fields as JSON, NULL when it has none); `metadata` is NULL when empty.
 */
export const SCHEMA_2_0 = `
CREATE TABLE conversations (
  key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  metadata TEXT NOT NULL,
  current_seq INTEGER NOT NULL,
  next_seq INTEGER NOT NULL,
  legacy_id_limit INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX conversations_created_at ON conversations (created_at);
CREATE INDEX conversations_updated_at ON conversations (updated_at);
CREATE TABLE nodes (
  conversation INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  parent INTEGER,
  position INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  extra TEXT,
  timestamp TEXT NOT NULL,
  prompt_name TEXT,
  branch_name TEXT,
  metadata TEXT,
  PRIMARY KEY (conversation, seq)
);
CREATE INDEX nodes_children ON nodes (conversation, parent, position);
CREATE TABLE IF NOT EXISTS store_meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);
PRAGMA user_version = 2000;
`;

/**
 * Refuses a store this code cannot read: a newer major, or an SQLite file that is not an Arbor store.
 * Returns the stored version.
 */
export function checkSchemaReadable(db: Database, fileLabel: string): SchemaVersion {
  const version = readSchemaVersion(db);
  if (version.major > CURRENT_SCHEMA.major) {
    throw new StorageError(
      `${fileLabel} was written by a newer Arbor (storage schema ${formatSchemaVersion(version)}; this version reads ${CURRENT_SCHEMA.major}.x). ` +
        'It was left untouched: update Arbor to open it, or point Arbor at another storage file.',
    );
  }
  if (version.major === 0) {
    const tables = db.exec(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`);
    if (Number(tables[0]?.values[0]?.[0] ?? 0) > 0) {
      throw new StorageError(`${fileLabel} is an SQLite database but not an Arbor store. It was left untouched; choose another storage file.`);
    }
  }
  return version;
}

/** Creates the current schema in an empty database. */
export function createSchema(db: Database): void {
  db.run('BEGIN');
  try {
    db.exec(SCHEMA_2_0);
    db.exec(SCHEMA_2_1_ADDITIONS);
    db.exec(SCHEMA_2_2_ADDITIONS);
    db.exec(SCHEMA_2_3_ADDITIONS);
    db.run(`PRAGMA user_version = ${encodeSchemaVersion(CURRENT_SCHEMA)}`);
    db.run('COMMIT');
  } catch (error) {
    db.run('ROLLBACK');
    throw error;
  }
}

/**
 * Brings a schema 2.0, 2.1 or 2.2 database up to the current minor: adds the tables, columns and
 * triggers 2.1, 2.2 and 2.3 bring (2.2 replaces the 2.1 triggers that collect contents, 2.3 the one that
 * stores a file change) and sets the version. Nothing stored changes (old file changes have no folder),
 * and a 2.0, 2.1 or 2.2 Arbor still opens the result. Runs in the
 * caller's transaction when there is one. Returns whether anything was done (false for a store of
 * the current minor or newer).
 */
export function upgradeSchema(db: Database): boolean {
  const version = readSchemaVersion(db);
  if (version.major !== CURRENT_SCHEMA.major || version.minor >= CURRENT_SCHEMA.minor) return false;
  if (version.minor < 1) db.exec(SCHEMA_2_1_ADDITIONS);
  if (version.minor < 2) db.exec(SCHEMA_2_2_ADDITIONS);
  db.exec(SCHEMA_2_3_ADDITIONS);
  db.run(`PRAGMA user_version = ${encodeSchemaVersion(CURRENT_SCHEMA)}`);
  return true;
}
