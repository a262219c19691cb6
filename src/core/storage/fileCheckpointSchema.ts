/**
 * Schema 2.1: file checkpoints. For a node that changed files, one `file_changes` row per file with
 * the hashes of its content before and after the node; the contents themselves live once each in
 * `file_contents`, keyed by the sha-256 of their bytes, so a file edited ten times stores its distinct
 * versions only. A content is kept deflated when that makes it smaller (`compression` = 'deflate-raw',
 * NULL when stored as is): the whole store lives in memory and every checkpoint writes all of it.
 *
 * How a schema 2.0 Arbor stays safe with these tables. It reads a 2.1 store (a newer minor), ignores the
 * new tables, and still replays the journal and folds it into the database file at checkpoints. A journal
 * entry of a new kind would be skipped by it, and its next checkpoint would then drop the file rows that
 * only the journal held. So file checkpoints travel in the journal as an entry that 2.0 already applies:
 * a `change` whose `insertNodes` are envelopes, node rows with a reserved role that no message can have
 * (roles are checked on every write) and the root's id. The triggers below, stored in the database file
 * and run by SQLite itself whichever release writes, turn an envelope into its content or change row and
 * drop the node row (`RAISE(IGNORE)`). Every release thus applies the entry alike, live, on replay, in
 * another process catching up, and before it folds the journal. A database without these triggers (a
 * 2.0 salvage of a damaged file) refuses an envelope at once: its row would collide with the root's
 * `(conversation, 0)` key, so the entry fails as a whole and nothing half-applied or bogus is stored.
 *
 * The triggers also keep the rows consistent whoever deletes: removing a node (a deleted branch, a
 * deleted or replaced conversation) removes its file rows, and a content no row refers to any more is
 * removed with the last row that did, so garbage collection happens on delete, journaled with it.
 */

/** Role of an envelope that carries one file content (see the module comment). */
export const FILE_CONTENT_ENVELOPE = 'arbor:file-content';
/** Role of an envelope that carries one file change of a node. */
export const FILE_CHANGE_ENVELOPE = 'arbor:file-change';

/** Releases the contents an old row referred to when no row refers to them any more. */
function releaseContents(row: 'OLD'): string {
  return `DELETE FROM file_contents WHERE hash IN (${row}.before_hash, ${row}.after_hash)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE before_hash = file_contents.hash)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE after_hash = file_contents.hash);`;
}

const CHANGE = (field: string) => `json_extract(NEW.extra, '$.fileChange.${field}')`;
const CONTENT = (field: string) => `json_extract(NEW.extra, '$.fileContent.${field}')`;

/**
 * What schema 2.1 adds to 2.0, safe to run again (`IF NOT EXISTS`). `file_contents.size` is the size of
 * the content itself, whatever `data` holds. `file_changes.position` keeps the order in which a node's
 * files were first recorded; `added`/`removed` are its line counts, NULL when either side is binary.
 */
export const SCHEMA_2_1_ADDITIONS = `
CREATE TABLE IF NOT EXISTS file_contents (
  hash TEXT PRIMARY KEY NOT NULL,
  size INTEGER NOT NULL,
  compression TEXT,
  data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS file_changes (
  conversation INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  position INTEGER NOT NULL,
  before_hash TEXT,
  after_hash TEXT,
  added INTEGER,
  removed INTEGER,
  PRIMARY KEY (conversation, seq, path)
);
CREATE INDEX IF NOT EXISTS file_changes_before ON file_changes (before_hash);
CREATE INDEX IF NOT EXISTS file_changes_after ON file_changes (after_hash);

CREATE TRIGGER IF NOT EXISTS file_content_envelope BEFORE INSERT ON nodes WHEN NEW.role = '${FILE_CONTENT_ENVELOPE}' BEGIN
  INSERT OR IGNORE INTO file_contents (hash, size, compression, data) VALUES (
    ${CONTENT('hash')},
    ${CONTENT('size')},
    ${CONTENT('compression')},
    CASE ${CONTENT('encoding')} WHEN 'hex' THEN unhex(NEW.content) ELSE CAST(NEW.content AS BLOB) END
  );
  SELECT RAISE(IGNORE);
END;

CREATE TRIGGER IF NOT EXISTS file_change_envelope BEFORE INSERT ON nodes WHEN NEW.role = '${FILE_CHANGE_ENVELOPE}' BEGIN
  SELECT RAISE(ABORT, 'A file checkpoint refers to a file content that is not stored; the change was not applied.')
    WHERE (${CHANGE('before')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('before')}))
       OR (${CHANGE('after')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('after')}));
  INSERT INTO file_changes (conversation, seq, path, position, before_hash, after_hash, added, removed)
    SELECT NEW.conversation, ${CHANGE('seq')}, NEW.content, ${CHANGE('position')}, ${CHANGE('before')}, ${CHANGE('after')}, ${CHANGE('added')}, ${CHANGE('removed')}
    WHERE EXISTS (SELECT 1 FROM nodes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')})
    ON CONFLICT (conversation, seq, path) DO UPDATE SET
      before_hash = excluded.before_hash, after_hash = excluded.after_hash, added = excluded.added, removed = excluded.removed;
  DELETE FROM file_changes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')} AND path = NEW.content AND before_hash IS after_hash;
  DELETE FROM file_contents WHERE hash IN (${CHANGE('before')}, ${CHANGE('after')})
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE before_hash = file_contents.hash)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE after_hash = file_contents.hash);
  SELECT RAISE(IGNORE);
END;

CREATE TRIGGER IF NOT EXISTS file_changes_release_on_delete AFTER DELETE ON file_changes BEGIN
  ${releaseContents('OLD')}
END;
CREATE TRIGGER IF NOT EXISTS file_changes_release_on_update AFTER UPDATE OF before_hash, after_hash ON file_changes BEGIN
  ${releaseContents('OLD')}
END;
CREATE TRIGGER IF NOT EXISTS nodes_drop_file_changes AFTER DELETE ON nodes BEGIN
  DELETE FROM file_changes WHERE conversation = OLD.conversation AND seq = OLD.seq;
END;
CREATE TRIGGER IF NOT EXISTS conversations_drop_file_changes AFTER DELETE ON conversations BEGIN
  DELETE FROM file_changes WHERE conversation = OLD.key;
END;
`;
