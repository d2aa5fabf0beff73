-- baton schema, version 1. One source for both dialects: {{uuid}}, {{time}},
-- {{json}} and {{bool}} expand per dialect, and blocks between
-- "-- postgres:begin" and "-- postgres:end" run on Postgres only.

CREATE TABLE agent_sessions (
    id                     {{uuid}} PRIMARY KEY,
    user_id                TEXT NOT NULL,
    agent                  TEXT NOT NULL,
    session_id             TEXT NOT NULL,
    source                 TEXT NOT NULL,
    project                TEXT NULL,
    scope                  TEXT NULL,
    selector               {{json}} NOT NULL,
    opened_at              {{time}} NOT NULL,
    closed_at              {{time}} NULL,
    last_seen_at           {{time}} NOT NULL,
    activation_epoch       INTEGER NOT NULL,
    stop_count             INTEGER NOT NULL DEFAULT 0,
    compactions            INTEGER NOT NULL DEFAULT 0,
    triage_status          TEXT NOT NULL DEFAULT 'idle',
    triage_attempt_id      {{uuid}} NULL,
    last_triaged_event_ids {{json}} NOT NULL,
    briefing_delivered_at  {{time}} NULL,
    briefed_memories       {{json}} NOT NULL,
    last_message_excerpt   TEXT NULL,
    UNIQUE (user_id, agent, session_id)
);
CREATE INDEX agent_sessions_open_idx ON agent_sessions (user_id, project, closed_at);

CREATE TABLE ledger (
    id      {{uuid}} PRIMARY KEY,
    user_id TEXT NOT NULL,
    event   TEXT NOT NULL,
    at      {{time}} NOT NULL,
    session TEXT NOT NULL,
    fields  {{json}} NOT NULL
);
CREATE INDEX ledger_tenant_idx ON ledger (user_id, id);

CREATE TABLE memories (
    id            {{uuid}} PRIMARY KEY,
    user_id       TEXT NOT NULL,
    kind          TEXT NOT NULL,
    topic         TEXT NOT NULL,
    content       TEXT NOT NULL,
    project       TEXT NULL,
    scope         TEXT NULL,
    status        TEXT NOT NULL,
    superseded_by {{uuid}} NULL,
    created_at    {{time}} NOT NULL,
    updated_at    {{time}} NOT NULL
);
CREATE INDEX memories_tenant_idx ON memories (user_id, status, kind, created_at);

CREATE TABLE memory_events (
    id             {{uuid}} PRIMARY KEY,
    user_id        TEXT NOT NULL,
    memory_id      {{uuid}} NOT NULL,
    event_kind     TEXT NOT NULL,
    actor_kind     TEXT NOT NULL,
    session_run_id {{uuid}} NULL,
    created_at     {{time}} NOT NULL
);
CREATE INDEX memory_events_session_idx ON memory_events (user_id, session_run_id, id);

CREATE TABLE session_bottles (
    user_id     TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    path        TEXT NOT NULL,
    mode        TEXT NOT NULL,
    gap         INTEGER NOT NULL,
    armed_at    {{time}} NOT NULL,
    consumed_at {{time}} NULL,
    PRIMARY KEY (user_id, session_id)
);

CREATE TABLE user_prompts (
    id         {{uuid}} PRIMARY KEY,
    user_id    TEXT NOT NULL,
    agent      TEXT NOT NULL,
    session_id TEXT NOT NULL,
    number     INTEGER NOT NULL,
    text       TEXT NOT NULL,
    truncated  {{bool}} NOT NULL,
    at         {{time}} NOT NULL
);
-- One number per prompt of a conversation: concurrent recorders conflict
-- instead of sharing a number.
CREATE UNIQUE INDEX user_prompts_number_idx ON user_prompts (user_id, agent, session_id, number);

CREATE TABLE stop_excerpts (
    id         {{uuid}} PRIMARY KEY,
    user_id    TEXT NOT NULL,
    agent      TEXT NOT NULL,
    session_id TEXT NOT NULL,
    text       TEXT NOT NULL,
    at         {{time}} NOT NULL
);
CREATE INDEX stop_excerpts_session_idx ON stop_excerpts (user_id, agent, session_id, id);

-- postgres:begin
DO $$
BEGIN
    CREATE ROLE baton_runtime NOLOGIN;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN NULL;
END
$$;

DO $$
DECLARE t TEXT;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO baton_runtime', current_schema());
        FOREACH t IN ARRAY ARRAY['agent_sessions','ledger','memories','memory_events','session_bottles','user_prompts','stop_excerpts'] LOOP
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO baton_runtime', t);
        END LOOP;
    END IF;
END
$$;

DO $$
DECLARE t TEXT;
BEGIN
    FOREACH t IN ARRAY ARRAY['agent_sessions','ledger','memories','memory_events','session_bottles','user_prompts','stop_excerpts'] LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY tenant_isolation ON %I USING (user_id = current_setting(''baton.tenant'', true)) WITH CHECK (user_id = current_setting(''baton.tenant'', true))', t);
    END LOOP;
END
$$;
-- postgres:end
