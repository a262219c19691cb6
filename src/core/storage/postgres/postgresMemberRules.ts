/**
 * Migration 3 of the team store: the rules a member's own SQL cannot get round (issue 22). Migrations 1
 * and 2 keep other teams out; this one keeps the promises inside a team, against a member who connects
 * with `psql` and writes whatever their grants allow:
 *
 * - `nodes.author` and `conversations.created_by` are the role that inserted the row (set by insert
 *   triggers, whatever the client sends) and never change afterwards.
 * - A conversation's `team` can only be one of the writer's own team roles: a role, other than
 *   `arbor_users` itself and the writer's own login role, that is a member of `arbor_users` and of which
 *   the writer is a member (what `memberTeams` lists). Setting it to `arbor_users` would publish the
 *   conversation to every team. Reading follows the same rule, so a conversation published so before
 *   this migration is seen by its owner only (who may give it a team again).
 * - A node's parent is a node of the same conversation: a foreign key on (conversation, parent), so the
 *   check finds nothing in another conversation whether the key exists there or not (row-level security
 *   does not apply to foreign-key checks, so a key-only reference told which keys exist and hung rows
 *   under another team's messages).
 * - A file change's path is what the recorder (`checkPath` of `../fileCheckpoints.ts`) takes: relative,
 *   `/` between folders, no backslash, no drive letter, no empty, `.` or `..` segment (a NUL cannot be
 *   in a `text` at all). Restoring a checkpoint writes to that path.
 *
 * Rows already stored that break a rule are moved to `refused_rows` (the table's owner alone reads it:
 * the row as JSON, which rule, when) instead of failing the migration: nodes hung under another
 * conversation's node go with their subtree, and file changes with a path the recorder refuses go. The
 * contents they referred to are collected as usual when nothing else refers to them.
 */

/** The condition the file path in column `path` meets: the recorder's rule, in SQL (chr(92) is a backslash). */
export const relativePathCheck = (path: string): string => `${path} <> '' AND strpos(${path}, chr(92)) = 0 AND ${path} !~ '^[A-Za-z]:'
  AND strpos('/' || ${path} || '/', '//') = 0 AND strpos('/' || ${path} || '/', '/./') = 0 AND strpos('/' || ${path} || '/', '/../') = 0`;

/** Whether `team` is one of the current role's team roles (see the file's comment). */
const TEAM_OF_CALLER = (team: string) => `EXISTS (SELECT 1 FROM pg_roles r, pg_roles u
    WHERE r.rolname = ${team} AND u.rolname = 'arbor_users' AND r.oid <> u.oid AND r.rolname <> current_user
      AND pg_has_role(r.oid, u.oid, 'MEMBER') AND pg_has_role(current_user, r.oid, 'MEMBER'))`;

/** Migration 3: who wrote a row stays, teams are the writer's own, parents in the same conversation, paths relative. */
export const POSTGRES_MEMBER_RULES_MIGRATION = `
CREATE TABLE refused_rows (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  table_name text NOT NULL,
  rule text NOT NULL,
  row_data jsonb NOT NULL,
  refused_at timestamptz NOT NULL DEFAULT now()
);
-- No policy and no grant: only the owner (who bypasses row-level security) reads it.
ALTER TABLE refused_rows ENABLE ROW LEVEL SECURITY;

-- Who wrote a message, or created a conversation, is set once by the insert and never changes.
CREATE FUNCTION arbor_conversation_creator() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.created_by := current_user;
  RETURN NEW;
END $$;
CREATE TRIGGER conversations_creator BEFORE INSERT ON conversations FOR EACH ROW EXECUTE FUNCTION arbor_conversation_creator();

CREATE FUNCTION arbor_keep_author() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.author IS DISTINCT FROM OLD.author THEN
    RAISE EXCEPTION 'The author of a message is the role that wrote it and cannot change (from % to %).', OLD.author, NEW.author
      USING ERRCODE = 'insufficient_privilege', HINT = 'Write a new message instead: its author will be you.';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER nodes_author_kept BEFORE UPDATE ON nodes FOR EACH ROW EXECUTE FUNCTION arbor_keep_author();

CREATE FUNCTION arbor_keep_creator() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.created_by IS DISTINCT FROM OLD.created_by THEN
    RAISE EXCEPTION 'The creator of a conversation is the role that created it and cannot change (from % to %).', OLD.created_by, NEW.created_by
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER conversations_creator_kept BEFORE UPDATE ON conversations FOR EACH ROW EXECUTE FUNCTION arbor_keep_creator();

-- A conversation belongs to one of its writer's teams, and is seen by the members of that team.
ALTER POLICY team_members ON conversations USING (${TEAM_OF_CALLER('team')}) WITH CHECK (${TEAM_OF_CALLER('team')});
ALTER POLICY team_changes ON changes USING (${TEAM_OF_CALLER('team')});

-- A parent is a node of the same conversation. Nodes hung under another conversation's node go aside first.
WITH RECURSIVE refused(key) AS (
  SELECT n.key FROM nodes n JOIN nodes p ON p.key = n.parent WHERE p.conversation <> n.conversation
  UNION
  SELECT c.key FROM nodes c JOIN refused r ON c.parent = r.key
)
INSERT INTO refused_rows (table_name, rule, row_data)
  SELECT 'nodes', 'parent in another conversation (or under such a node)', to_jsonb(n) || jsonb_build_object('conversation_id', c.id)
  FROM nodes n JOIN refused USING (key) JOIN conversations c ON c.key = n.conversation;
DELETE FROM nodes n USING nodes p WHERE p.key = n.parent AND p.conversation <> n.conversation;
ALTER TABLE nodes ADD CONSTRAINT nodes_conversation_key UNIQUE (conversation, key);
ALTER TABLE nodes DROP CONSTRAINT nodes_parent_fkey;
ALTER TABLE nodes ADD CONSTRAINT nodes_parent_fkey FOREIGN KEY (conversation, parent) REFERENCES nodes (conversation, key) ON DELETE CASCADE;

-- A file change's path is one the recorder takes. Rows that are not go aside first.
INSERT INTO refused_rows (table_name, rule, row_data)
  SELECT 'file_changes', 'path not relative to the workspace', to_jsonb(f) || jsonb_build_object('conversation_id', c.id, 'node_seq', n.seq)
  FROM file_changes f JOIN nodes n ON n.key = f.node JOIN conversations c ON c.key = n.conversation
  WHERE NOT (${relativePathCheck('f.path')});
DELETE FROM file_changes WHERE NOT (${relativePathCheck('path')});
ALTER TABLE file_changes ADD CONSTRAINT file_changes_path_relative CHECK (${relativePathCheck('path')});
`;
