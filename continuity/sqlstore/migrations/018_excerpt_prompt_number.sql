-- baton schema, version 18: a Stop excerpt records the turn it ended.
--
-- A degraded bottle filed each excerpt under the last prompt whose time was
-- not after the excerpt's. A Stop stamped before its own prompt (the clock
-- stepped back between them, or two replicas of a team server disagree)
-- went to the turn before. prompt_number is the conversation's newest
-- prompt number when the excerpt is written (0 before any prompt), read in
-- the statement that inserts it: the order in which the two writes
-- committed, whatever their clocks said. A row written before this
-- migration has none (NULL) and is paired by time, as it always was.
ALTER TABLE stop_excerpts ADD COLUMN prompt_number INTEGER NULL;
-- postgres:begin
-- baton_touch_live of migration 010, with the excerpt's insert reading the
-- prompt number through user_prompts_number_idx. The agent_sessions update
-- is unchanged, so a live heartbeat stays a heap-only update (013).
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
            INSERT INTO stop_excerpts (id, user_id, agent, session_id, text, truncated, at, prompt_number)
            VALUES (excerpt_id[i], touch_tenant, agent_ids[i], session_ids[i], excerpt_text[i], excerpt_truncated[i], touch_now[i],
                    (SELECT COALESCE(MAX(p.number), 0) FROM user_prompts p
                     WHERE p.user_id = touch_tenant AND p.agent = agent_ids[i] AND p.session_id = session_ids[i]));
            IF keep[i] > 0 AND trim_every[i] > 0 AND r.stop_count > keep[i] AND r.stop_count % trim_every[i] = 0 THEN
                PERFORM baton_trim_stop_excerpts(agent_ids[i], session_ids[i], keep[i]);
            END IF;
        END IF;
        RETURN NEXT r;
    END LOOP;
END
$$;
DO $$
DECLARE f TEXT := 'baton_touch_live(BOOLEAN, TEXT, TEXT[], TEXT[], TIMESTAMPTZ[], TIMESTAMPTZ[], TEXT[], INTEGER[], INTEGER[], UUID[], TEXT[], BOOLEAN[], INTEGER[], INTEGER[])';
BEGIN
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
    EXECUTE format('ALTER FUNCTION %s SET enable_seqscan = off', f);
END
$$;
-- postgres:end
