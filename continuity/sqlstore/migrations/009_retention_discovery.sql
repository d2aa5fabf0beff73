-- baton schema, version 9: the worker finds the tenants whose ledger lines
-- or prompts are past their retention, across tenants, as it finds lapsed
-- rows (migration 006): through a SECURITY DEFINER function that returns
-- tenant ids and nothing else. Each tenant is then pruned in transactions
-- of its own, through migration 008's functions.
-- postgres:begin
-- An owner that is not a superuser is let through these tables'
-- row-level security only while baton.discovery is on (as for
-- agent_sessions in 006).
DO $$
BEGIN
    EXECUTE format('CREATE POLICY worker_discovery ON ledger FOR SELECT TO %I USING (current_setting(''baton.discovery'', true) = ''on'')', current_user);
    EXECUTE format('CREATE POLICY worker_discovery ON user_prompts FOR SELECT TO %I USING (current_setting(''baton.discovery'', true) = ''on'')', current_user);
END
$$;
-- The tenants, after after_tenant in tenant order, that hold a ledger line
-- at before ledger_before or a prompt at before prompts_before.
CREATE FUNCTION baton_retention_due(ledger_before TIMESTAMPTZ, prompts_before TIMESTAMPTZ, after_tenant TEXT, due_limit INTEGER) RETURNS TABLE (user_id TEXT)
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    PERFORM baton_discovery_begin(due_limit);
    RETURN QUERY
        SELECT u.user_id FROM (
            SELECT l.user_id FROM ledger l WHERE l.at < ledger_before AND l.user_id > after_tenant
            UNION
            SELECT p.user_id FROM user_prompts p WHERE p.at < prompts_before AND p.user_id > after_tenant
        ) u ORDER BY u.user_id LIMIT due_limit;
    PERFORM set_config('baton.discovery', '', true);
END
$$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION baton_retention_due(TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INTEGER) SET search_path = %I, pg_temp', current_schema());
    REVOKE ALL ON FUNCTION baton_retention_due(TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INTEGER) FROM PUBLIC;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT EXECUTE ON FUNCTION baton_retention_due(TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INTEGER) TO baton_runtime;
    END IF;
END
$$;
-- postgres:end
