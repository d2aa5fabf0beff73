-- baton schema, version 5: continuity records (checkpoints and handovers),
-- and the task a bottle marker names.
--
-- A checkpoint is written at every PreCompact and a handover at every
-- SessionEnd, for every episode, whether or not a task is open: an
-- episode's lifecycle never depends on task state (episode-lifecycle ADR).
-- task is an optional relation; NULL reads as "none". Records are
-- append-only: the runtime role may read and insert them, never change or
-- delete them.
CREATE TABLE continuity_records (
    id             {{uuid}} PRIMARY KEY,
    user_id        TEXT NOT NULL,
    kind           TEXT NOT NULL,
    agent          TEXT NOT NULL,
    session_id     TEXT NOT NULL,
    session_run_id {{uuid}} NOT NULL,
    project        TEXT NULL,
    task           TEXT NULL,
    objective      TEXT NOT NULL,
    state          TEXT NOT NULL,
    next_action    TEXT NOT NULL,
    git_commit     TEXT NULL,
    git_branch     TEXT NULL,
    bottle_path    TEXT NULL,
    reason         TEXT NULL,
    created_at     {{time}} NOT NULL
);
CREATE INDEX continuity_records_project_idx ON continuity_records (user_id, project, kind, id);
CREATE INDEX continuity_records_session_idx ON continuity_records (user_id, agent, session_id, id);

-- The current task is known when a bottle is sealed; kept on the marker, the
-- pointer can be rendered wherever the marker is claimed.
ALTER TABLE session_bottles ADD COLUMN task TEXT NULL;

-- postgres:begin
ALTER TABLE continuity_records ENABLE ROW LEVEL SECURITY;
ALTER TABLE continuity_records FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON continuity_records
    USING (user_id = current_setting('baton.tenant', true))
    WITH CHECK (user_id = current_setting('baton.tenant', true));

DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT SELECT, INSERT ON continuity_records TO baton_runtime;
    END IF;
END
$$;
-- postgres:end
