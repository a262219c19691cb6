/**
 * Migration 2 of the team store: file checkpoints and images of messages, with the sql.js store's
 * semantics (`fileCheckpointSchema.ts`, `nodeImageSchema.ts`) on PostgreSQL.
 *
 * - `file_contents`: each content once, keyed by the sha-256 of its bytes, which the server computes
 *   itself (people cannot insert here: they store contents through `arbor_store_contents`), so no one
 *   can put other bytes under a hash another team will refer to. PostgreSQL compresses large values
 *   on its own (TOAST), which is what the sql.js store's deflate does by hand.
 * - `file_changes`: one row per file a node changed (`position` keeps the order the node's files were
 *   first recorded; `added`/`removed` are line counts, NULL when a side is binary).
 * - `node_images`: one row per image of a node, in the order they were attached.
 *
 * Row-level security: a change or image row is visible when its node is (the nodes policy limits nodes
 * to the conversations of the role's teams); a content is readable only through a visible change or
 * image that refers to it, so a role cannot read another team's file by its hash. And a row may refer
 * only to a content its writer can read already or stored itself in the same transaction (it had the
 * bytes), so a role that learnt a hash cannot make a row of its own that refers to it.
 *
 * Garbage collection: when a change or image row goes (its node or conversation deleted, or a change
 * merged or undone), the contents it referred to that nothing refers to any more are deleted, by
 * triggers that run as the schema's owner. A writer holds a `FOR KEY SHARE` lock on every content it is
 * about to refer to (the function takes it; the foreign keys take it for rows copied by a fork), and the
 * collector locks a content `FOR UPDATE SKIP LOCKED` before it checks, in a later statement that sees
 * every committed reference, that nothing refers to it: a content is never deleted under a writer,
 * and two writers storing the same bytes at once both succeed (`ON CONFLICT DO NOTHING`). Only a
 * content stored and never referred to, or one whose last reference went while a writer that then
 * rolled back held it, outlives its use; the owner sweeps those with
 * `SELECT arbor_release_contents(ARRAY(SELECT hash FROM file_contents))`.
 *
 * This file imports nothing from `postgresSchema.ts` (which lists it among the migrations); the role
 * and channel names below are that file's `USERS_ROLE` and `CHANGES_CHANNEL`.
 */

/** Migration 2: file contents, file changes, images of messages, their policies and collection. */
export const POSTGRES_FILES_MIGRATION = `
CREATE TABLE file_contents (
  hash text PRIMARY KEY,
  size bigint NOT NULL,
  bytes bytea NOT NULL
);

CREATE TABLE file_changes (
  node bigint NOT NULL REFERENCES nodes (key) ON DELETE CASCADE,
  position integer NOT NULL,
  path text NOT NULL,
  before_hash text REFERENCES file_contents (hash),
  after_hash text REFERENCES file_contents (hash),
  added integer,
  removed integer,
  PRIMARY KEY (node, path),
  CHECK (before_hash IS DISTINCT FROM after_hash)
);
CREATE INDEX file_changes_before ON file_changes (before_hash);
CREATE INDEX file_changes_after ON file_changes (after_hash);

CREATE TABLE node_images (
  node bigint NOT NULL REFERENCES nodes (key) ON DELETE CASCADE,
  position integer NOT NULL,
  hash text NOT NULL REFERENCES file_contents (hash),
  mime text NOT NULL,
  name text NOT NULL,
  width integer,
  height integer,
  PRIMARY KEY (node, position)
);
CREATE INDEX node_images_hash ON node_images (hash);

-- Which contents each running transaction stored itself (it had their bytes): it may refer to them.
-- Rows of finished transactions are useless and removed as new ones come. People have no rights here.
CREATE UNLOGGED TABLE content_claims (
  xact xid8 NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (xact, hash)
);

-- Stores contents (the server hashes them) and locks each against collection until the caller's
-- transaction ends: a content collected between the insert and the lock is inserted again. The
-- transaction may then refer to them (content_claims), whoever stored them first.
CREATE FUNCTION arbor_store_contents(contents bytea[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  hashes text[] := ARRAY(SELECT encode(sha256(b), 'hex') FROM unnest(contents) b);
  wanted integer := (SELECT count(DISTINCT h) FROM unnest(hashes) h);
  held integer;
BEGIN
  FOR attempt IN 1..10 LOOP
    INSERT INTO file_contents (hash, size, bytes)
      SELECT DISTINCT ON (h) h, octet_length(b), b FROM unnest(hashes, contents) AS x(h, b) ORDER BY h
      ON CONFLICT (hash) DO NOTHING;
    SELECT count(*) INTO held FROM (SELECT 1 FROM file_contents WHERE hash = ANY (hashes) ORDER BY hash FOR KEY SHARE) l;
    IF held = wanted THEN
      INSERT INTO content_claims (xact, hash) SELECT DISTINCT pg_current_xact_id(), h FROM unnest(hashes) h ON CONFLICT DO NOTHING;
      DELETE FROM content_claims WHERE ctid = ANY (ARRAY(
        SELECT ctid FROM content_claims WHERE xact < pg_snapshot_xmin(pg_current_snapshot()) FOR UPDATE SKIP LOCKED));
      RETURN;
    END IF;
  END LOOP;
  RAISE EXCEPTION 'Could not store file contents: they were collected as fast as they were stored. Try again.';
END $$;
REVOKE ALL ON FUNCTION arbor_store_contents(bytea[]) FROM PUBLIC;

-- Deletes those of hashes that nothing refers to; skips a content a writer holds (it will refer to it).
CREATE FUNCTION arbor_release_contents(hashes text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  locked text[];
BEGIN
  locked := ARRAY(SELECT hash FROM file_contents c WHERE hash = ANY (hashes)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE before_hash = c.hash)
    AND NOT EXISTS (SELECT 1 FROM file_changes WHERE after_hash = c.hash)
    AND NOT EXISTS (SELECT 1 FROM node_images WHERE hash = c.hash)
    ORDER BY hash FOR UPDATE SKIP LOCKED);
  IF cardinality(locked) = 0 THEN RETURN; END IF;
  -- A new statement, a new snapshot (in READ COMMITTED): every reference committed before the lock
  -- was taken is seen. In a transaction with an older snapshot (REPEATABLE READ), a reference committed
  -- since makes the foreign key refuse the delete: the contents stay, and the caller's delete succeeds.
  BEGIN
    DELETE FROM file_contents c WHERE hash = ANY (locked)
      AND NOT EXISTS (SELECT 1 FROM file_changes WHERE before_hash = c.hash)
      AND NOT EXISTS (SELECT 1 FROM file_changes WHERE after_hash = c.hash)
      AND NOT EXISTS (SELECT 1 FROM node_images WHERE hash = c.hash);
  EXCEPTION WHEN foreign_key_violation THEN
    NULL;
  END;
END $$;
REVOKE ALL ON FUNCTION arbor_release_contents(text[]) FROM PUBLIC;

CREATE FUNCTION arbor_file_changes_released() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
  PERFORM arbor_release_contents(ARRAY(SELECT before_hash FROM released WHERE before_hash IS NOT NULL UNION SELECT after_hash FROM released WHERE after_hash IS NOT NULL));
  RETURN NULL;
END $$;
CREATE TRIGGER file_changes_deleted AFTER DELETE ON file_changes REFERENCING OLD TABLE AS released FOR EACH STATEMENT EXECUTE FUNCTION arbor_file_changes_released();
CREATE TRIGGER file_changes_updated AFTER UPDATE ON file_changes REFERENCING OLD TABLE AS released FOR EACH STATEMENT EXECUTE FUNCTION arbor_file_changes_released();

CREATE FUNCTION arbor_node_images_released() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
BEGIN
  PERFORM arbor_release_contents(ARRAY(SELECT DISTINCT hash FROM released));
  RETURN NULL;
END $$;
CREATE TRIGGER node_images_deleted AFTER DELETE ON node_images REFERENCING OLD TABLE AS released FOR EACH STATEMENT EXECUTE FUNCTION arbor_node_images_released();
CREATE TRIGGER node_images_updated AFTER UPDATE ON node_images REFERENCING OLD TABLE AS released FOR EACH STATEMENT EXECUTE FUNCTION arbor_node_images_released();

-- Recording file changes is a change of the conversation for the feed (rows deleted with their node
-- are noted by the nodes trigger; their node is gone by now, so the join finds nothing).
CREATE FUNCTION arbor_file_changes_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  r record;
  change_id bigint;
BEGIN
  FOR r IN SELECT DISTINCT c.id, c.team FROM changed_rows t JOIN nodes n ON n.key = t.node JOIN conversations c ON c.key = n.conversation LOOP
    INSERT INTO changes (conversation_id, team) VALUES (r.id, r.team) RETURNING id INTO change_id;
    PERFORM pg_notify('arbor_changes', change_id::text);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER file_changes_inserted_feed AFTER INSERT ON file_changes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_file_changes_changed();
CREATE TRIGGER file_changes_updated_feed AFTER UPDATE ON file_changes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_file_changes_changed();
CREATE TRIGGER file_changes_deleted_feed AFTER DELETE ON file_changes REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_file_changes_changed();

-- Whether this transaction stored the content itself (see arbor_store_contents).
CREATE FUNCTION arbor_content_claimed(content_hash text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
  SELECT EXISTS (SELECT 1 FROM content_claims WHERE xact = pg_current_xact_id() AND hash = content_hash)
$$;
REVOKE ALL ON FUNCTION arbor_content_claimed(text) FROM PUBLIC;

-- A row may refer only to a content its writer can already read (through a visible row: a fork, a
-- merge) or stored itself in this transaction; otherwise a role that learnt another team's hash could
-- refer to it and read the bytes. Runs as the writer, so its policies decide what it can read. The
-- error is the same whether the content exists or not (nothing to learn from it).
CREATE FUNCTION arbor_check_references() RETURNS trigger LANGUAGE plpgsql SET search_path = pg_catalog, public AS $$
DECLARE
  refs text[];
  kept text[] := '{}';
  h text;
BEGIN
  IF TG_TABLE_NAME = 'node_images' THEN
    refs := ARRAY[NEW.hash];
    IF TG_OP = 'UPDATE' THEN kept := ARRAY[OLD.hash]; END IF;
  ELSE
    refs := ARRAY[NEW.before_hash, NEW.after_hash];
    IF TG_OP = 'UPDATE' THEN kept := ARRAY[OLD.before_hash, OLD.after_hash]; END IF;
  END IF;
  FOREACH h IN ARRAY refs LOOP
    -- A reference the row had already is checked when it was made.
    CONTINUE WHEN h IS NULL OR h = ANY (kept);
    IF NOT arbor_content_claimed(h) AND NOT EXISTS (SELECT 1 FROM file_contents WHERE hash = h) THEN
      RAISE EXCEPTION 'A % row refers to the file content %, which this role neither stored in this transaction nor can read: store its bytes first (arbor_store_contents).', TG_TABLE_NAME, h
        USING ERRCODE = 'foreign_key_violation';
    END IF;
  END LOOP;
  RETURN NEW;
END $$;

CREATE TRIGGER file_changes_references BEFORE INSERT OR UPDATE ON file_changes FOR EACH ROW EXECUTE FUNCTION arbor_check_references();
CREATE TRIGGER node_images_references BEFORE INSERT OR UPDATE ON node_images FOR EACH ROW EXECUTE FUNCTION arbor_check_references();

ALTER TABLE file_changes ENABLE ROW LEVEL SECURITY;
CREATE POLICY of_visible_nodes ON file_changes USING (EXISTS (SELECT 1 FROM nodes n WHERE n.key = file_changes.node)) WITH CHECK (EXISTS (SELECT 1 FROM nodes n WHERE n.key = file_changes.node));

ALTER TABLE node_images ENABLE ROW LEVEL SECURITY;
CREATE POLICY of_visible_nodes ON node_images USING (EXISTS (SELECT 1 FROM nodes n WHERE n.key = node_images.node)) WITH CHECK (EXISTS (SELECT 1 FROM nodes n WHERE n.key = node_images.node));

ALTER TABLE file_contents ENABLE ROW LEVEL SECURITY;
CREATE POLICY referred_to_by_visible_rows ON file_contents FOR SELECT USING (
  EXISTS (SELECT 1 FROM file_changes f WHERE f.before_hash = file_contents.hash)
  OR EXISTS (SELECT 1 FROM file_changes f WHERE f.after_hash = file_contents.hash)
  OR EXISTS (SELECT 1 FROM node_images i WHERE i.hash = file_contents.hash)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON file_changes, node_images TO arbor_users;
GRANT SELECT ON file_contents TO arbor_users;
GRANT EXECUTE ON FUNCTION arbor_store_contents(bytea[]), arbor_content_claimed(text) TO arbor_users;
`;

/**
 * The team store's migration for the workspace folder of a file change (sql.js schema 2.3,
 * `fileFolderSchema.ts`): the folder's name, NULL for changes recorded before (unknown), so Restore
 * puts a file back into the folder it was changed in. The check refuses what the recorder refuses
 * (`checkFolderName`): a teammate's SQL cannot make the folder a path. Kept its own step, so it can be
 * ordered among the other migrations.
 */
export const POSTGRES_FILE_FOLDERS_MIGRATION = `
ALTER TABLE file_changes ADD COLUMN folder text
  CONSTRAINT file_changes_folder_is_a_name CHECK (folder IS NULL OR (folder <> '' AND folder NOT IN ('.', '..') AND strpos(folder, '/') = 0 AND strpos(folder, chr(92)) = 0));
`;
