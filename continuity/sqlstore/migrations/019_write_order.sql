-- baton schema, version 19: the order rows were written in, for the rows
-- read newest first.
--
-- Stop excerpts and continuity records were ordered by their UUIDv7 ids,
-- whose time is the writing process's clock: a hook process or a team
-- server's replica whose clock is behind (or stepped back) wrote a row that
-- sorted before older ones. The newest 200 excerpts a trim keeps could then
-- drop the one just written, two Stops of a turn read in the wrong order,
-- and a handover written last lose the briefing's "newest" to an older one.
-- seq is the order of the writes instead, assigned by the statement that
-- inserts the row from the rows already committed, under a lock held to
-- the end of the transaction, so two writers never share a number nor take
-- them in the opposite order of their commits: per conversation for a
-- conversation's excerpts (the conversation's agent_sessions row, which
-- every Stop updates or locks first), per tenant for records (an advisory
-- lock on Postgres; the immediate transaction on SQLite). The rows written
-- before this migration are numbered here in id order, the order they were
-- kept in until now.
ALTER TABLE stop_excerpts ADD COLUMN seq INTEGER NULL;
ALTER TABLE continuity_records ADD COLUMN seq INTEGER NULL;
-- postgres:begin
-- Forced row-level security binds the tables' owner, this migration's user:
-- lifted for the numbering, in this migration's transaction.
ALTER TABLE stop_excerpts NO FORCE ROW LEVEL SECURITY;
ALTER TABLE continuity_records NO FORCE ROW LEVEL SECURITY;
-- postgres:end
UPDATE stop_excerpts SET seq = n.seq
FROM (SELECT id, row_number() OVER (PARTITION BY user_id, agent, session_id ORDER BY id) AS seq FROM stop_excerpts) AS n
WHERE stop_excerpts.id = n.id;
UPDATE continuity_records SET seq = n.seq
FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY id) AS seq FROM continuity_records) AS n
WHERE continuity_records.id = n.id;
-- Unique: a number is one row's, whatever writes it (an import's included).
CREATE UNIQUE INDEX stop_excerpts_seq_idx ON stop_excerpts (user_id, agent, session_id, seq);
CREATE UNIQUE INDEX continuity_records_seq_idx ON continuity_records (user_id, seq);
CREATE INDEX continuity_records_project_seq_idx ON continuity_records (user_id, project, kind, seq);
CREATE INDEX continuity_records_session_seq_idx ON continuity_records (user_id, agent, session_id, seq);
-- postgres:begin
ALTER TABLE stop_excerpts FORCE ROW LEVEL SECURITY;
ALTER TABLE continuity_records FORCE ROW LEVEL SECURITY;

-- baton_touch_live of migration 018, with the excerpt's insert numbering it
-- after the conversation's newest. The agent_sessions update before it
-- holds the row's lock to the commit, and a statement of a function reads
-- what committed before it, so a concurrent Stop of the conversation
-- numbers after this one or before it, never alike. The update is
-- unchanged, so a live heartbeat stays a heap-only update (013).
-- CREATE OR REPLACE keeps the grants and resets the function's settings:
-- 010's search_path and 013's enable_seqscan are set again below.
CREATE OR REPLACE FUNCTION baton_touch_live(
    enter_role BOOLEAN, touch_tenant TEXT, agent_ids TEXT[], session_ids TEXT[],
    touch_now TIMESTAMPTZ[], live_after TIMESTAMPTZ[],
    excerpt TEXT[], stop_inc INTEGER[], compact_inc INTEGER[],
    excerpt_id UUID[], excerpt_text TEXT[], excerpt_truncated BOOLEAN[], keep INTEGER[], trim_every INTEGER[]
) RETURNS SETOF agent_sessions
LANGUAGE plpgsql AS $$
DECLARE
    r agent_sessions;
    i INTEGER;
BEGIN
    IF enter_role THEN
        PERFORM set_config('role', 'baton_runtime', true);
    END IF;
    PERFORM set_config('baton.tenant', touch_tenant, true);
    FOR i IN 1 .. coalesce(array_length(session_ids, 1), 0) LOOP
        UPDATE agent_sessions SET
            last_seen_at = CASE WHEN last_seen_at < touch_now[i] THEN touch_now[i] ELSE last_seen_at END,
            stop_count = stop_count + stop_inc[i],
            activation_stops = activation_stops + stop_inc[i],
            compactions = compactions + compact_inc[i],
            last_message_excerpt = COALESCE(excerpt[i], last_message_excerpt)
        WHERE id = (SELECT k.id FROM agent_sessions k
                    WHERE k.user_id = touch_tenant AND k.agent = agent_ids[i] AND k.session_id = session_ids[i])
          AND closed_at IS NULL AND last_seen_at > live_after[i]
        RETURNING * INTO r;
        CONTINUE WHEN NOT FOUND;
        IF excerpt_id[i] IS NOT NULL THEN
            INSERT INTO stop_excerpts (id, user_id, agent, session_id, text, truncated, at, prompt_number, seq)
            VALUES (excerpt_id[i], touch_tenant, agent_ids[i], session_ids[i], excerpt_text[i], excerpt_truncated[i], touch_now[i],
                    (SELECT COALESCE(MAX(p.number), 0) FROM user_prompts p
                     WHERE p.user_id = touch_tenant AND p.agent = agent_ids[i] AND p.session_id = session_ids[i]),
                    (SELECT COALESCE(MAX(e.seq), 0) + 1 FROM stop_excerpts e
                     WHERE e.user_id = touch_tenant AND e.agent = agent_ids[i] AND e.session_id = session_ids[i]));
            IF keep[i] > 0 AND trim_every[i] > 0 AND r.stop_count > keep[i] AND r.stop_count % trim_every[i] = 0 THEN
                PERFORM baton_trim_stop_excerpts(agent_ids[i], session_ids[i], keep[i]);
            END IF;
        END IF;
        RETURN NEXT r;
    END LOOP;
END
$$;

-- baton_trim_stop_excerpts of migration 002, keeping the conversation's
-- newest trim_keep excerpts in the order they were written.
CREATE OR REPLACE FUNCTION baton_trim_stop_excerpts(trim_agent TEXT, trim_session_id TEXT, trim_keep INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_trim_tenant(trim_keep);
    deleted INTEGER;
BEGIN
    DELETE FROM stop_excerpts
    WHERE user_id = tenant AND agent = trim_agent AND session_id = trim_session_id
      AND seq < (SELECT seq FROM stop_excerpts
                 WHERE user_id = tenant AND agent = trim_agent AND session_id = trim_session_id
                 ORDER BY seq DESC OFFSET trim_keep - 1 LIMIT 1);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;
DO $$
DECLARE f TEXT := 'baton_touch_live(BOOLEAN, TEXT, TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ[], TEXT[], INTEGER[], INTEGER[], UUID[], TEXT[], BOOLEAN[], INTEGER[], INTEGER[])';
BEGIN
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
    EXECUTE format('ALTER FUNCTION %s SET enable_seqscan = off', f);
    EXECUTE format('ALTER FUNCTION baton_trim_stop_excerpts(TEXT, TEXT, INTEGER) SET search_path = %I, pg_temp', current_schema());
END
$$;
-- postgres:end
