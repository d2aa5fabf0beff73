-- baton schema, version 10: a live conversation's heartbeat in one
-- statement of its own (Store.TouchLive), so a Stop costs the database one
-- round trip and one implicit transaction instead of BEGIN, the tenant
-- setting, the UPDATE, the excerpt INSERT and COMMIT.
-- postgres:begin
-- It is SECURITY INVOKER: it runs with the caller's rights. A privileged
-- caller (enter_role) drops to baton_runtime for the rest of the function,
-- exactly as a transaction of the store does, and the tenant is set the
-- same way, so row-level security confines every statement below as it
-- confines the store's own; the statements name the tenant too. The
-- function's search_path clause makes both settings end with the function.
--
-- The row is updated only when it is live (no closed_at, last seen after
-- live_after): last_seen_at floored to touch_now, the counts incremented,
-- the excerpt replaced unless it is NULL. Nothing is returned otherwise.
-- When it was, and excerpt_id is given, that Stop's excerpt is inserted
-- and, when the row's new stop count is above excerpt_keep and a multiple
-- of trim_every, only the conversation's newest excerpt_keep are kept.
CREATE FUNCTION baton_touch_live(
    enter_role BOOLEAN, touch_tenant TEXT, touch_agent TEXT, touch_session_id TEXT,
    touch_now TIMESTAMPTZ, live_after TIMESTAMPTZ,
    excerpt TEXT, stop_inc INTEGER, compact_inc INTEGER,
    excerpt_id UUID, excerpt_text TEXT, excerpt_truncated BOOLEAN, excerpt_keep INTEGER, trim_every INTEGER
) RETURNS SETOF agent_sessions
LANGUAGE plpgsql AS $$
DECLARE
    r agent_sessions;
BEGIN
    IF enter_role THEN
        PERFORM set_config('role', 'baton_runtime', true);
    END IF;
    PERFORM set_config('baton.tenant', touch_tenant, true);
    UPDATE agent_sessions SET
        last_seen_at = CASE WHEN last_seen_at < touch_now THEN touch_now ELSE last_seen_at END,
        stop_count = stop_count + stop_inc,
        activation_stops = activation_stops + stop_inc,
        compactions = compactions + compact_inc,
        last_message_excerpt = COALESCE(excerpt, last_message_excerpt)
    WHERE user_id = touch_tenant AND agent = touch_agent AND session_id = touch_session_id
      AND closed_at IS NULL AND last_seen_at > live_after
    RETURNING * INTO r;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF excerpt_id IS NOT NULL THEN
        INSERT INTO stop_excerpts (id, user_id, agent, session_id, text, truncated, at)
        VALUES (excerpt_id, touch_tenant, touch_agent, touch_session_id, excerpt_text, excerpt_truncated, touch_now);
        IF excerpt_keep > 0 AND trim_every > 0 AND r.stop_count > excerpt_keep AND r.stop_count % trim_every = 0 THEN
            PERFORM baton_trim_stop_excerpts(touch_agent, touch_session_id, excerpt_keep);
        END IF;
    END IF;
    RETURN NEXT r;
END
$$;
DO $$
DECLARE f TEXT := 'baton_touch_live(BOOLEAN, TEXT, TEXT, TEXT, TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INTEGER, INTEGER, UUID, TEXT, BOOLEAN, INTEGER, INTEGER)';
BEGIN
    EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO baton_runtime', f);
    END IF;
END
$$;
-- postgres:end
