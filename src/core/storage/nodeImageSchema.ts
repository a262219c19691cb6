/**
 * Schema 2.2: images in messages. One `node_images` row per image of a node, in the order the user
 * attached them (`position`), with its type, file name and pixel size; the bytes live once each in the
 * `file_contents` table of 2.1, keyed by their sha-256, so the same image pasted into ten messages is
 * stored once. Images are kept as they are (`compression` NULL): PNG, JPEG, GIF and WebP are compressed
 * already.
 *
 * How older releases stay safe is the same as for file checkpoints (see `fileCheckpointSchema.ts`):
 * image rows travel in the journal as envelopes, node rows with a reserved role inside a `change` or
 * `save` entry that every release applies, and the triggers below, stored in the database file, turn
 * them into rows and drop the node row. A content travels in the 2.1 content envelope.
 *
 * What 2.2 must change in 2.1: a content is now referred to by file changes or by images, so the 2.1
 * triggers that collect unreferenced contents are replaced by ones that look at both tables. Because
 * triggers live in the database file, a 2.1 release writing a 2.2 store runs these, and never removes
 * the bytes of an image it does not know about.
 */
import { FILE_CHANGE_ENVELOPE } from './fileCheckpointSchema';

/** Role of an envelope that carries one image of a node. */
export const NODE_IMAGE_ENVELOPE = 'arbor:node-image';

/** A content is still used when a file change or an image refers to it (also used by the 2.3 trigger). */
export const UNREFERENCED = `NOT EXISTS (SELECT 1 FROM file_changes WHERE before_hash = file_contents.hash)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE after_hash = file_contents.hash)
    AND NOT EXISTS (SELECT 1 FROM node_images WHERE hash = file_contents.hash)`;

const CHANGE = (field: string) => `json_extract(NEW.extra, '$.fileChange.${field}')`;
const IMAGE = (field: string) => `json_extract(NEW.extra, '$.nodeImage.${field}')`;

/**
 * What schema 2.2 adds to 2.1, safe to run again. The three 2.1 triggers that collect contents are
 * dropped and created again with the wider test; the rest of 2.1 stays as it was.
 */
export const SCHEMA_2_2_ADDITIONS = `
CREATE TABLE IF NOT EXISTS node_images (
  conversation INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  position INTEGER NOT NULL,
  hash TEXT NOT NULL,
  mime TEXT NOT NULL,
  name TEXT NOT NULL,
  width INTEGER,
  height INTEGER,
  PRIMARY KEY (conversation, seq, position)
);
CREATE INDEX IF NOT EXISTS node_images_hash ON node_images (hash);

CREATE TRIGGER IF NOT EXISTS node_image_envelope BEFORE INSERT ON nodes WHEN NEW.role = '${NODE_IMAGE_ENVELOPE}' BEGIN
  SELECT RAISE(ABORT, 'An image of a message refers to bytes that are not stored; the change was not applied.')
    WHERE NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${IMAGE('hash')});
  INSERT OR REPLACE INTO node_images (conversation, seq, position, hash, mime, name, width, height)
    SELECT NEW.conversation, ${IMAGE('seq')}, ${IMAGE('position')}, ${IMAGE('hash')}, ${IMAGE('mime')}, NEW.content, ${IMAGE('width')}, ${IMAGE('height')}
    WHERE EXISTS (SELECT 1 FROM nodes WHERE conversation = NEW.conversation AND seq = ${IMAGE('seq')});
  DELETE FROM file_contents WHERE hash = ${IMAGE('hash')} AND ${UNREFERENCED};
  SELECT RAISE(IGNORE);
END;

CREATE TRIGGER IF NOT EXISTS node_images_release_on_delete AFTER DELETE ON node_images BEGIN
  DELETE FROM file_contents WHERE hash = OLD.hash AND ${UNREFERENCED};
END;
CREATE TRIGGER IF NOT EXISTS node_images_release_on_update AFTER UPDATE OF hash ON node_images BEGIN
  DELETE FROM file_contents WHERE hash = OLD.hash AND ${UNREFERENCED};
END;
CREATE TRIGGER IF NOT EXISTS nodes_drop_node_images AFTER DELETE ON nodes BEGIN
  DELETE FROM node_images WHERE conversation = OLD.conversation AND seq = OLD.seq;
END;
CREATE TRIGGER IF NOT EXISTS conversations_drop_node_images AFTER DELETE ON conversations BEGIN
  DELETE FROM node_images WHERE conversation = OLD.key;
END;

DROP TRIGGER IF EXISTS file_changes_release_on_delete;
CREATE TRIGGER file_changes_release_on_delete AFTER DELETE ON file_changes BEGIN
  DELETE FROM file_contents WHERE hash IN (OLD.before_hash, OLD.after_hash) AND ${UNREFERENCED};
END;
DROP TRIGGER IF EXISTS file_changes_release_on_update;
CREATE TRIGGER file_changes_release_on_update AFTER UPDATE OF before_hash, after_hash ON file_changes BEGIN
  DELETE FROM file_contents WHERE hash IN (OLD.before_hash, OLD.after_hash) AND ${UNREFERENCED};
END;
DROP TRIGGER IF EXISTS file_change_envelope;
CREATE TRIGGER file_change_envelope BEFORE INSERT ON nodes WHEN NEW.role = '${FILE_CHANGE_ENVELOPE}' BEGIN
  SELECT RAISE(ABORT, 'A file checkpoint refers to a file content that is not stored; the change was not applied.')
    WHERE (${CHANGE('before')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('before')}))
       OR (${CHANGE('after')} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = ${CHANGE('after')}));
  INSERT INTO file_changes (conversation, seq, path, position, before_hash, after_hash, added, removed)
    SELECT NEW.conversation, ${CHANGE('seq')}, NEW.content, ${CHANGE('position')}, ${CHANGE('before')}, ${CHANGE('after')}, ${CHANGE('added')}, ${CHANGE('removed')}
    WHERE EXISTS (SELECT 1 FROM nodes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')})
    ON CONFLICT (conversation, seq, path) DO UPDATE SET
      before_hash = excluded.before_hash, after_hash = excluded.after_hash, added = excluded.added, removed = excluded.removed;
  DELETE FROM file_changes WHERE conversation = NEW.conversation AND seq = ${CHANGE('seq')} AND path = NEW.content AND before_hash IS after_hash;
  DELETE FROM file_contents WHERE hash IN (${CHANGE('before')}, ${CHANGE('after')}) AND ${UNREFERENCED};
  SELECT RAISE(IGNORE);
END;
`;
