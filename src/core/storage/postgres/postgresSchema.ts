/**
 * The team store's schema on PostgreSQL (see the README's "Team store" and
 * `shared/research/team-storage.md` for why it is shaped so):
 *
 * - `conversations`: one row each, keyed by a surrogate `key`; `id` is the conversation id the API
 *   shows; `team` is the database role (a group role) whose members may see it; `next_seq` hands out
 *   node ids (`formatNodeId(seq)`) under the row's lock.
 * - `nodes`: one row per node, never rewritten whole. `parent` links to the parent's row; `position` is
 *   the node's place among its siblings, taken from the parent's `next_child` counter with
 *   `UPDATE … RETURNING` (a row lock), so two writers adding under one parent at once both succeed with
 *   distinct positions. `author` is the database role that wrote it (set by a trigger, whatever the
 *   client sends).
 * - `reader_positions`: where each person is in each conversation (the current node), one row per
 *   (conversation, role), so two people reading different branches never move each other.
 * - `changes`: a row per change of a conversation or its nodes, written by triggers; a `NOTIFY` on
 *   channel `arbor_changes` carries the change's id only, and listeners catch up with a query on `id >
 *   last seen` (notifications are not replayed after a lost connection).
 * - Row-level security on every table keys on `current_user` and its role memberships, never on a value
 *   the client sets: a role sees the conversations of the teams it is a member of, and what belongs to
 *   them. The tables' owner (the administrator who ran the migrations) and superusers bypass the
 *   policies, so people must connect as their own roles, never as the owner.
 *
 * Migrations are numbered; `arbor_schema.version` is the last applied. Each runs in one transaction.
 */
import { POSTGRES_FILE_FOLDERS_MIGRATION, POSTGRES_FILES_MIGRATION } from './postgresFilesSchema';
import { POSTGRES_MEMBER_RULES_MIGRATION } from './postgresMemberRules';

/** The channel of change notifications (payload: the `changes.id`, as text). */
export const CHANGES_CHANNEL = 'arbor_changes';

/** The roles that may use the store get their table rights through this group role (see the README). */
export const USERS_ROLE = 'arbor_users';

/** Whether the current role is a member of the team role `team` (false when no such role exists). */
const MEMBER_OF = (team: string) => `EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = ${team} AND pg_has_role(current_user, r.oid, 'MEMBER'))`;

/** The conversation `conv` (a key) is visible: its own row passes the conversations policy. */
const VISIBLE = (conv: string) => `EXISTS (SELECT 1 FROM conversations c WHERE c.key = ${conv})`;

/** Migration 1: conversations, nodes, reader positions, the change feed, and their policies. */
const MIGRATION_1 = `
CREATE TABLE conversations (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  team name NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  next_seq bigint NOT NULL DEFAULT 1,
  current_seq bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  created_by name NOT NULL DEFAULT current_user
);
CREATE INDEX conversations_updated ON conversations (updated_at DESC, key DESC);
CREATE INDEX conversations_team ON conversations (team);

CREATE TABLE nodes (
  key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  conversation bigint NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
  seq bigint NOT NULL,
  parent bigint REFERENCES nodes (key) ON DELETE CASCADE,
  position integer NOT NULL,
  next_child integer NOT NULL DEFAULT 0,
  role text NOT NULL,
  content text NOT NULL,
  message jsonb NOT NULL DEFAULT '{}'::jsonb,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  prompt_name text,
  branch_name text,
  created_at timestamptz NOT NULL,
  author name NOT NULL DEFAULT current_user,
  UNIQUE (conversation, seq)
);
CREATE UNIQUE INDEX nodes_sibling_position ON nodes (conversation, parent, position) NULLS NOT DISTINCT;
CREATE INDEX nodes_parent ON nodes (parent);
CREATE INDEX nodes_metadata ON nodes USING gin (metadata jsonb_path_ops);

CREATE TABLE reader_positions (
  conversation bigint NOT NULL REFERENCES conversations (key) ON DELETE CASCADE,
  reader name NOT NULL DEFAULT current_user,
  seq bigint NOT NULL,
  PRIMARY KEY (conversation, reader)
);

CREATE TABLE changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  conversation_id text NOT NULL,
  team name NOT NULL,
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX changes_at ON changes (at);

-- Who wrote a node is the role that inserted it, never what the client put in the row.
CREATE FUNCTION arbor_node_author() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.author := current_user;
  RETURN NEW;
END $$;
CREATE TRIGGER nodes_author BEFORE INSERT ON nodes FOR EACH ROW EXECUTE FUNCTION arbor_node_author();

-- A change of a conversation or of its nodes: a row in changes, and a notification carrying its id.
-- The trigger functions run as the schema's owner (SECURITY DEFINER): people cannot write changes rows
-- themselves, and a trigger function cannot be called other than as a trigger.
CREATE FUNCTION arbor_conversation_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  change_id bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO changes (conversation_id, team) VALUES (OLD.id, OLD.team) RETURNING id INTO change_id;
  ELSE
    INSERT INTO changes (conversation_id, team) VALUES (NEW.id, NEW.team) RETURNING id INTO change_id;
  END IF;
  PERFORM pg_notify('${CHANGES_CHANNEL}', change_id::text);
  RETURN NULL;
END $$;
CREATE TRIGGER conversations_changed AFTER INSERT OR UPDATE OR DELETE ON conversations FOR EACH ROW EXECUTE FUNCTION arbor_conversation_changed();

-- Once per statement and conversation, however many nodes it wrote (a whole conversation saved at once
-- is one change). Nodes deleted with their conversation are noted by the conversation's own trigger.
CREATE FUNCTION arbor_nodes_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  r record;
  change_id bigint;
BEGIN
  FOR r IN SELECT DISTINCT c.id, c.team FROM changed_rows t JOIN conversations c ON c.key = t.conversation LOOP
    INSERT INTO changes (conversation_id, team) VALUES (r.id, r.team) RETURNING id INTO change_id;
    PERFORM pg_notify('${CHANGES_CHANNEL}', change_id::text);
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER nodes_inserted AFTER INSERT ON nodes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_nodes_changed();
CREATE TRIGGER nodes_updated AFTER UPDATE ON nodes REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_nodes_changed();
CREATE TRIGGER nodes_deleted AFTER DELETE ON nodes REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION arbor_nodes_changed();

ALTER TABLE conversations ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_members ON conversations USING (${MEMBER_OF('team')}) WITH CHECK (${MEMBER_OF('team')});

ALTER TABLE nodes ENABLE ROW LEVEL SECURITY;
CREATE POLICY of_visible_conversations ON nodes USING (${VISIBLE('conversation')}) WITH CHECK (${VISIBLE('conversation')});

ALTER TABLE reader_positions ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_positions ON reader_positions USING (reader = current_user AND ${VISIBLE('conversation')}) WITH CHECK (reader = current_user AND ${VISIBLE('conversation')});

ALTER TABLE changes ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_changes ON changes FOR SELECT USING (${MEMBER_OF('team')});

DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${USERS_ROLE}') THEN CREATE ROLE ${USERS_ROLE} NOLOGIN; END IF;
END $$;
GRANT SELECT, INSERT, UPDATE, DELETE ON conversations, nodes, reader_positions TO ${USERS_ROLE};
GRANT SELECT ON changes TO ${USERS_ROLE};
`;

/** The migrations, in order: index 0 is migration 1. */
export const POSTGRES_MIGRATIONS: readonly string[] = [MIGRATION_1, POSTGRES_FILES_MIGRATION, POSTGRES_MEMBER_RULES_MIGRATION, POSTGRES_FILE_FOLDERS_MIGRATION];

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

/** Creates the version table when missing (run before reading the version). */
export const VERSION_TABLE = `
CREATE TABLE IF NOT EXISTS arbor_schema (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version integer NOT NULL
);
`;
