-- baton schema, version 11: one ledger trim per tenant at a time. Every
-- append trims the tenant's ledger to its newest lines; concurrent trims of
-- one tenant deleted overlapping rows in different orders and deadlocked
-- (Postgres broke each deadlock after deadlock_timeout, and the store
-- retried). A trim now first tries an advisory lock of the tenant (and
-- the schema) held to the end of its transaction; when another transaction
-- holds it, that one is trimming this tenant's ledger, and this trim
-- deletes nothing. The bound then holds again at the next append that
-- trims.
-- postgres:begin
CREATE OR REPLACE FUNCTION baton_trim_ledger(trim_keep INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_trim_tenant(trim_keep);
    deleted INTEGER;
BEGIN
    -- The key names the schema too: advisory locks are the database's,
    -- and another schema's store may hold a tenant of the same name.
    IF NOT pg_try_advisory_xact_lock(hashtextextended(format('baton_trim_ledger %I %s', current_schema(), tenant), 0)) THEN
        RETURN 0;
    END IF;
    DELETE FROM ledger
    WHERE user_id = tenant
      AND id < (SELECT id FROM ledger WHERE user_id = tenant ORDER BY id DESC OFFSET trim_keep - 1 LIMIT 1);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION baton_trim_ledger(INTEGER) SET search_path = %I, pg_temp', current_schema());
    REVOKE ALL ON FUNCTION baton_trim_ledger(INTEGER) FROM PUBLIC;
END
$$;
-- postgres:end
