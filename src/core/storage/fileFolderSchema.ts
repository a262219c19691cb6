/**
 * Schema 2.3: a file change records the workspace folder it was made in (`file_changes.folder`, the
 * folder's name; NULL when unknown, as for every change recorded before 2.3). Without it a change
 * made in folder B of a multi-root workspace was restored into folder A, and a conversation from
 * another project put its files into whichever folder was open.
 *
 * How older releases stay safe: the column is added with no default and may be NULL, so a 2.2 release
 * (which selects its columns by name) reads a 2.3 store as before. The change envelope carries the
 * folder in its JSON, and the trigger that turns an envelope into a row is replaced by one that stores
 * it; the trigger lives in the database file, so a 2.2 release writing a 2.3 store runs it too, and its
 * envelopes without a folder leave a merged row's folder as it was (`coalesce`).
 */
import { FILE_CHANGE_ENVELOPE } from './fileCheckpointSchema';
import { UNREFERENCED } from './nodeImageSchema';

const CHANGE = (field: string) => `json_extract(NEW.extra, '$.fileChange.${field}')`;

/** What schema 2.3 adds to 2.2; run once (the version says whether it ran: `ADD COLUMN` is not repeatable). */
export const SCHEMA_2_3_ADDITIONS = `
ALTER TABLE file_changes ADD COLUMN folder TEXT;
DROP TRIGGER IF EXISTS file_change_envelope;
CREATE TRIGGER file_change_envelope BEFORE INSERT ON nodes WHEN NEW.role = '${FILE_CHANGE_ENVELOPE}' BEGIN
  SELECT RAISE(ABORT, 'A file checkpoint refers to a file content that is not stored; the change was not applied.')
    WHERE (${CHANGE('before')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('before')}))
       OR (${CHANGE('after')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('after')}));
  INSERT INTO file_changes (conversation, seq, path, position, before_hash, after_hash, added, removed, folder)
    SELECT NEW.conversation, ${CHANGE('seq')}, NEW.content, ${CHANGE('position')}, ${CHANGE('before')}, ${CHANGE('after')}, ${CHANGE('added')}, ${CHANGE('removed')}, ${CHANGE('folder')}
    WHERE EXISTS (SELECT 1 FROM nodes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')})
    ON CONFLICT (conversation, seq, path) DO UPDATE SET
      before_hash = excluded.before_hash, after_hash = excluded.after_hash, added = excluded.added, removed = excluded.removed,
      folder = coalesce(excluded.folder, file_changes.folder);
  DELETE FROM file_changes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')} AND path = NEW.content AND before_hash IS after_hash;
  DELETE FROM file_contents WHERE hash IN (${CHANGE('before')}, ${CHANGE('after')}) AND ${UNREFERENCED};
  SELECT RAISE(IGNORE);
END;
`;
