-- baton schema, version 10: live conversations' heartbeats in one
-- statement of their own (Store.TouchLive), so a Stop costs the database
-- one round trip and one implicit transaction instead of BEGIN, the tenant
-- setting, the UPDATE, the excerpt INSERT and COMMIT; concurrent heartbeats
-- of one tenant share one such statement.
-- postgres:begin
-- It is SECURITY INVOKER: it runs with the caller's rights. A privileged
-- caller (enter_role) drops to baton_runtime for the rest of the function,
-- exactly as a transaction of the store does, and the tenant is set the
-- same way, so row-level security confines every statement below as it
-- confines the store's own; the statements name the tenant too. The
-- function's search_path clause makes both settings end with the function.
--
-- Touch i is the i-th element of every array, applied in array order (the
-- caller sorts them, so concurrent calls lock rows in one order). Its row
-- is updated only when it is live (no closed_at, last seen after
-- live_after[i]): last_seen_at floored to touch_now[i], the counts
-- incremented, the excerpt replaced unless excerpt[i] is NULL, and the row
-- returned. When it was, and excerpt_id[i] is given, that Stop's excerpt
-- is inserted and, when the row's new stop count is above keep[i] and a
-- multiple of trim_every[i], only the conversation's newest keep[i] are
-- kept.
CREATE FUNCTION baton_touch_live(
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
        -- The row by its natural key, then by id: a plan the cached
        -- generic plan cannot trade for a range scan of the lapsed index
        -- (last_seen_at), which reads every open row of the table.
        WHERE id = (SELECT k.id FROM agent_sessions k
                    WHERE k.user_id = touch_tenant AND k.agent = agent_ids[i] AND k.session_id = session_ids[i])
          AND closed_at IS NULL AND last_seen_at > live_after[i]
        RETURNING * INTO r;
        CONTINUE WHEN NOT FOUND;
        IF excerpt_id[i] IS NOT NULL THEN
            INSERT INTO stop_excerpts (id, user_id, agent, session_id, text, truncated, at)
            VALUES (excerpt_id[i], touch_tenant, agent_ids[i], session_ids[i], excerpt_text[i], excerpt_truncated[i], touch_now[i]);
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
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO baton_runtime', f);
    END IF;
END
$$;
-- postgres:end
