-- baton schema, version 6: the cross-tenant worker (sweep and resolve-only
-- closer).
--
-- closer_next_at is when the closer may next take a closed row: stamped at
-- every close (lease.Policy.CloserDue: the close itself when explicit, the
-- lease expiry plus the sweep grace when implicit), pushed forward while a
-- claim is held and after each failed pass (20 minutes doubling to 4
-- hours; closer_failures counts the consecutive failures), and NULL when
-- there is nothing for the closer to do: the row is open, or its pass
-- finished. Rows already closed are due at their close.
ALTER TABLE agent_sessions ADD COLUMN closer_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_sessions ADD COLUMN closer_next_at {{time}} NULL;
UPDATE agent_sessions SET closer_next_at = closed_at WHERE closed_at IS NOT NULL;

-- The worker discovers work across tenants, so these two indexes cannot
-- lead with user_id as the request path's do; each is partial, holding only
-- the rows the worker may want.
CREATE INDEX agent_sessions_lapsed_idx ON agent_sessions (last_seen_at, id) WHERE closed_at IS NULL;
CREATE INDEX agent_sessions_closer_idx ON agent_sessions (closer_next_at, id) WHERE closer_next_at IS NOT NULL;

-- postgres:begin
-- Discovery without weakening row-level security. The runtime role still
-- sees only the tenant its transaction set; the worker finds its work
-- through two SECURITY DEFINER functions that return (tenant, row id)
-- pairs and nothing else, and then works each row in a transaction of that
-- row's tenant, under the policies every request obeys. The functions'
-- owner (the migrating user) bypasses row-level security when it is a
-- superuser; an owner that is not is let through by the policy below,
-- which applies to that role alone and only while baton.discovery is on,
-- a setting only these functions turn on, and off again before they
-- return.
DO $$
BEGIN
    EXECUTE format('CREATE POLICY worker_discovery ON agent_sessions FOR SELECT TO %I USING (current_setting(''baton.discovery'', true) = ''on'')', current_user);
END
$$;

-- What both discovery functions do first: bound the limit (1 to 10000,
-- continuity.MaxDiscover) and turn discovery on for the owner's policy.
CREATE FUNCTION baton_discovery_begin(discovery_limit INTEGER) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
    IF discovery_limit IS NULL OR discovery_limit < 1 OR discovery_limit > 10000 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'baton discovery: limit must be 1 to 10000';
    END IF;
    PERFORM set_config('baton.discovery', 'on', true);
END
$$;

-- The open rows last seen before lapsed_before (the sweep floor), oldest
-- first: the rows a sweep may close.
CREATE FUNCTION baton_lapsed(lapsed_before TIMESTAMPTZ, lapsed_limit INTEGER) RETURNS TABLE (user_id TEXT, id UUID)
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM baton_discovery_begin(lapsed_limit);
    RETURN QUERY
        SELECT s.user_id, s.id FROM agent_sessions s
        WHERE s.closed_at IS NULL AND s.last_seen_at < lapsed_before
        ORDER BY s.last_seen_at, s.id LIMIT lapsed_limit;
    PERFORM set_config('baton.discovery', '', true);
END
$$;

-- The closed rows whose closer is due at due_at, in due order, that are in
-- a status the closer may take (overflowed is terminal).
CREATE FUNCTION baton_closer_due(due_at TIMESTAMPTZ, due_limit INTEGER) RETURNS TABLE (user_id TEXT, id UUID)
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM baton_discovery_begin(due_limit);
    RETURN QUERY
        SELECT s.user_id, s.id FROM agent_sessions s
        WHERE s.closer_next_at IS NOT NULL AND s.closer_next_at <= due_at AND s.closed_at IS NOT NULL
          AND s.triage_status IN ('idle', 'pending', 'expired', 'completed')
        ORDER BY s.closer_next_at, s.id LIMIT due_limit;
    PERFORM set_config('baton.discovery', '', true);
END
$$;

DO $$
DECLARE f TEXT;
BEGIN
    FOREACH f IN ARRAY ARRAY['baton_discovery_begin(INTEGER)', 'baton_lapsed(TIMESTAMPTZ, INTEGER)', 'baton_closer_due(TIMESTAMPTZ, INTEGER)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT EXECUTE ON FUNCTION baton_lapsed(TIMESTAMPTZ, INTEGER) TO baton_runtime;
        GRANT EXECUTE ON FUNCTION baton_closer_due(TIMESTAMPTZ, INTEGER) TO baton_runtime;
    END IF;
END
$$;
-- postgres:end
