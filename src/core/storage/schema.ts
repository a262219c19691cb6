/**
 * The SQL schema of Arbor's conversation store and its migrations. The version lives in
 * `PRAGMA user_version` as `major * 1000 + minor`: a newer minor only adds things an older Arbor can
 * ignore, a newer major is refused.
 */
import type { Database } from 'sql.js';
import { StorageError } from '../errors';

/** A schema version; `major` changes break older readers, `minor` changes do not. */
export interface SchemaVersion {
  major: number;
  minor: number;
}

/** The version this code writes. */
export const CURRENT_SCHEMA: SchemaVersion = { major: 1, minor: 1 };

/** Encodes a version for `PRAGMA user_version`. */
export function encodeSchemaVersion(version: SchemaVersion): number {
  return version.major * 1000 + version.minor;
}

/** Decodes `PRAGMA user_version`. */
export function decodeSchemaVersion(value: number): SchemaVersion {
  return { major: Math.floor(value / 1000), minor: value % 1000 };
}

/** Formats a version for messages, e.g. "1.1". */
export function formatSchemaVersion(version: SchemaVersion): string {
  return `${version.major}.${version.minor}`;
}

/** Reads the stored version; 0.0 for a database without Arbor tables. */
export function readSchemaVersion(db: Database): SchemaVersion {
  const result = db.exec('PRAGMA user_version');
  return decodeSchemaVersion(Number(result[0]?.values[0]?.[0] ?? 0));
}

/** Schema 1.0: conversations, their nodes, and a key/value table for the store's own facts. */
export const SCHEMA_1_0 = `
CREATE TABLE conversations (
  id TEXT PRIMARY KEY NOT NULL,
  metadata TEXT NOT NULL,
  current_node_id TEXT NOT NULL,
  tombstones TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX conversations_created_at ON conversations (created_at);
CREATE INDEX conversations_updated_at ON conversations (updated_at);
CREATE TABLE nodes (
  conversation_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  parent_id TEXT,
  message TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  prompt_name TEXT,
  branch_name TEXT,
  metadata TEXT NOT NULL,
  PRIMARY KEY (conversation_id, node_id)
);
CREATE TABLE store_meta (
  key TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);
PRAGMA user_version = 1000;
`;

/** Lower-cased text of a stored message, for case-insensitive search across all branches. */
export function searchTextOf(messageJson: string): string {
  try {
    const message = JSON.parse(messageJson) as { content?: unknown };
    return typeof message.content === 'string' ? message.content.toLowerCase() : '';
  } catch {
    return '';
  }
}

/** One step from a version to the next; runs inside a transaction. */
interface Migration {
  from: SchemaVersion;
  to: SchemaVersion;
  run(db: Database): void;
}

/**
 * 1.0 → 1.1: adds `nodes.search_text`, the message content lower-cased by JavaScript, because
 * SQLite's `lower()` folds only ASCII and search must be case-insensitive in every language.
 */
const MIGRATIONS: Migration[] = [
  {
    from: { major: 1, minor: 0 },
    to: { major: 1, minor: 1 },
    run(db) {
      db.run(`ALTER TABLE nodes ADD COLUMN search_text TEXT NOT NULL DEFAULT ''`);
      const select = db.prepare('SELECT conversation_id, node_id, message FROM nodes');
      const update = db.prepare('UPDATE nodes SET search_text = ? WHERE conversation_id = ? AND node_id = ?');
      try {
        while (select.step()) {
          const [conversationId, nodeId, message] = select.get() as [string, string, string];
          update.run([searchTextOf(message), conversationId, nodeId]);
        }
      } finally {
        select.free();
        update.free();
      }
      db.run('PRAGMA user_version = 1001');
    },
  },
];

/**
 * Brings `db` to the current schema: creates it when empty, runs migrations when older, leaves a
 * newer minor alone and refuses a newer major. Returns true when anything was written.
 */
export function ensureSchema(db: Database, fileLabel: string): boolean {
  let version = readSchemaVersion(db);
  let changed = false;
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
    db.run('BEGIN');
    try {
      db.exec(SCHEMA_1_0);
      db.run('COMMIT');
    } catch (error) {
      db.run('ROLLBACK');
      throw error;
    }
    version = readSchemaVersion(db);
    changed = true;
  }
  for (const migration of MIGRATIONS) {
    if (version.major === migration.from.major && version.minor === migration.from.minor) {
      db.run('BEGIN');
      try {
        migration.run(db);
        db.run('COMMIT');
      } catch (error) {
        db.run('ROLLBACK');
        throw new StorageError(
          `Could not migrate ${fileLabel} from storage schema ${formatSchemaVersion(migration.from)} to ${formatSchemaVersion(migration.to)}: ${String(error)}. The file on disk was not changed.`,
          { cause: error },
        );
      }
      version = migration.to;
      changed = true;
    }
  }
  return changed;
}
