-- baton schema, version 16: an erase is not fooled by a row another
-- transaction updates while the erase deletes it.
--
-- baton_erase_batch (008, 015) picks a batch of a table's rows by ctid. A
-- row that a concurrent transaction updated (a heartbeat, a close) waits
-- for that transaction; when it commits, Read Committed re-checks the
-- row's new version, whose ctid is not the one picked, and the delete
-- skips it. A call that found such a table deleting nothing went on to the
-- next table, and the call that found every table so went on to return 0:
-- the erase reported itself complete with the row still there. Now a
-- table whose delete removed nothing is asked whether it still holds a row
-- of the tenant, and, while it does, its delete runs again (a statement
-- of its own, so with a snapshot that sees the new version).
-- postgres:begin
CREATE OR REPLACE FUNCTION baton_erase_batch(erase_tenant TEXT, erase_limit INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t       TEXT;
    deleted INTEGER;
    left_   BOOLEAN;
BEGIN
    IF erase_tenant IS NULL OR erase_tenant = '' THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'baton erase: the tenant is required';
    END IF;
    IF erase_limit IS NULL OR erase_limit < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'baton erase: the limit must be at least 1';
    END IF;
    -- An owner that is no superuser meets FORCE row-level security: the
    -- policies read the tenant from this transaction-local setting.
    PERFORM set_config('baton.tenant', erase_tenant, true);
    FOR t IN
        SELECT c.relname::text FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attname = 'user_id' AND NOT a.attisdropped
        ORDER BY 1
    LOOP
        LOOP
            EXECUTE format('DELETE FROM %I WHERE ctid IN (SELECT ctid FROM %I WHERE user_id = $1 LIMIT $2)', t, t)
                USING erase_tenant, erase_limit;
            GET DIAGNOSTICS deleted = ROW_COUNT;
            IF deleted > 0 THEN
                RETURN deleted;
            END IF;
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE user_id = $1)', t) INTO left_ USING erase_tenant;
            EXIT WHEN NOT left_;
        END LOOP;
    END LOOP;
    DELETE FROM ledger_size_changes WHERE tenant = erase_tenant;
    DELETE FROM ledger_sizes WHERE tenant = erase_tenant;
    RETURN 0;
END
$$;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION baton_erase_batch(TEXT, INTEGER) SET search_path = %I, pg_temp', current_schema());
    REVOKE ALL ON FUNCTION baton_erase_batch(TEXT, INTEGER) FROM PUBLIC;
END
$$;
-- postgres:end
