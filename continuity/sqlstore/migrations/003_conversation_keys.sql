-- baton schema, version 3: conversation keys, and memories' due dates.
--
-- Everything kept per conversation is keyed by its natural key (user_id,
-- agent, session_id); session_bottles was keyed by (user_id, session_id)
-- alone, so one harness could claim a marker another armed under the same
-- session id. SQLite cannot alter a primary key, so the table is recreated
-- on both dialects. Markers armed before this migration are dropped: they are
-- transient pointers to a bottle, the bottle files themselves stay on disk,
-- and the conversation's next seal arms a marker again.

DROP TABLE session_bottles;

CREATE TABLE session_bottles (
    user_id     TEXT NOT NULL,
    agent       TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    path        TEXT NOT NULL,
    mode        TEXT NOT NULL,
    gap         INTEGER NOT NULL,
    armed_at    {{time}} NOT NULL,
    consumed_at {{time}} NULL,
    PRIMARY KEY (user_id, agent, session_id)
);

-- An optional due date on memories: an open commitment or blocker past it is
-- overdue. The indexes serve the briefing's per-section reads (overdue by
-- due_at, stale and current by updated_at), each led by user_id.
ALTER TABLE memories ADD COLUMN due_at {{time}} NULL;
CREATE INDEX memories_due_idx ON memories (user_id, status, kind, due_at);
CREATE INDEX memories_updated_idx ON memories (user_id, status, kind, updated_at);

-- postgres:begin
-- The recreated table gets 001's tenancy back: row-level security with
-- FORCE, and the runtime role may read, arm and claim markers (an update),
-- never delete them.
ALTER TABLE session_bottles ENABLE ROW LEVEL SECURITY;
ALTER TABLE session_bottles FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON session_bottles
    USING (user_id = current_setting('baton.tenant', true))
    WITH CHECK (user_id = current_setting('baton.tenant', true));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT SELECT, INSERT, UPDATE ON session_bottles TO baton_runtime;
    END IF;
END
$$;
-- postgres:end
