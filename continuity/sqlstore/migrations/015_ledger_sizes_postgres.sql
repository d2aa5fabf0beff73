-- baton schema, version 15: on Postgres too, the ledger's trim reads a
-- tenant's count of lines instead of walking its newest ones.
--
-- 011's trim found its cut by reading the tenant's index from the newest
-- line back to the keep-th (5000 by default) on every append: half a
-- millisecond of the database's time when the visibility map covered those
-- pages, several when it did not, and the newest lines are the ones
-- vacuum has not reached yet. SQLite keeps a count row updated in the
-- appending transaction (migration 014); on Postgres that row would hold
-- its lock to the end of every appending transaction and queue a tenant's
-- writers on it. Here an append only inserts: triggers on ledger record
-- each statement's change of a tenant's lines as a row of
-- ledger_size_changes, in the transaction of the change, and the trim, one
-- per tenant at a time under 011's advisory lock, folds the changes it can
-- see into ledger_sizes and deletes the oldest lines past the bound, if
-- any, reading only those. A tenant's lines are its ledger_sizes count
-- plus its changes not yet folded, in every snapshot. A change another
-- transaction has not committed is folded, and its lines trimmed, by the
-- next trim after it commits, as 011's skipped trims left theirs.
--
-- Neither table carries a user_id: they are bookkeeping, not a tenant's
-- data, and only these SECURITY DEFINER functions touch them (the runtime
-- role holds no privilege on either). baton_erase_batch removes a
-- tenant's rows of both once its data is gone, so an erase leaves no
-- trace of the tenant.
-- postgres:begin
CREATE TABLE ledger_sizes (
    tenant TEXT PRIMARY KEY,
    lines  BIGINT NOT NULL
);
CREATE TABLE ledger_size_changes (
    tenant TEXT NOT NULL,
    lines  BIGINT NOT NULL
);
CREATE INDEX ledger_size_changes_tenant_idx ON ledger_size_changes (tenant);

CREATE FUNCTION baton_ledger_lines_added() RETURNS TRIGGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO ledger_size_changes (tenant, lines) SELECT user_id, count(*) FROM added GROUP BY user_id;
    RETURN NULL;
END
$$;
CREATE FUNCTION baton_ledger_lines_removed() RETURNS TRIGGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO ledger_size_changes (tenant, lines) SELECT user_id, -count(*) FROM removed GROUP BY user_id;
    RETURN NULL;
END
$$;
CREATE FUNCTION baton_ledger_lines_moved() RETURNS TRIGGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    INSERT INTO ledger_size_changes (tenant, lines)
    SELECT tenant, sum(lines) FROM (
        SELECT user_id AS tenant, count(*) AS lines FROM added GROUP BY user_id
        UNION ALL
        SELECT user_id, -count(*) FROM removed GROUP BY user_id
    ) c GROUP BY tenant HAVING sum(lines) <> 0;
    RETURN NULL;
END
$$;
CREATE FUNCTION baton_ledger_truncated() RETURNS TRIGGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    DELETE FROM ledger_size_changes;
    DELETE FROM ledger_sizes;
    RETURN NULL;
END
$$;
-- The triggers come first: creating them locks ledger against writes until
-- this migration commits, so the count below misses no line.
CREATE TRIGGER ledger_sizes_insert AFTER INSERT ON ledger
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION baton_ledger_lines_added();
CREATE TRIGGER ledger_sizes_delete AFTER DELETE ON ledger
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION baton_ledger_lines_removed();
CREATE TRIGGER ledger_sizes_update AFTER UPDATE ON ledger
    REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION baton_ledger_lines_moved();
CREATE TRIGGER ledger_sizes_truncate AFTER TRUNCATE ON ledger
    FOR EACH STATEMENT EXECUTE FUNCTION baton_ledger_truncated();
-- Every tenant's lines. An owner that is no superuser meets FORCE
-- row-level security, which would show it no tenant's lines outside a
-- tenant's setting: the count reads them with FORCE lifted, inside this
-- transaction (which holds ledger locked until it commits).
ALTER TABLE ledger NO FORCE ROW LEVEL SECURITY;
INSERT INTO ledger_sizes (tenant, lines) SELECT user_id, count(*) FROM ledger GROUP BY user_id;
ALTER TABLE ledger FORCE ROW LEVEL SECURITY;

-- The trim: fold the tenant's changes this transaction sees into its
-- count, then delete its oldest lines past the bound (their delete is a
-- change of its own, folded by the next trim). 011's advisory lock makes
-- the trims of one tenant take turns, and a trim that finds another under
-- way leaves the bound to the next.
CREATE OR REPLACE FUNCTION baton_trim_ledger(trim_keep INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    for_tenant TEXT := baton_trim_tenant(trim_keep);
    lines_now  BIGINT;
    deleted    INTEGER;
BEGIN
    -- The key names the schema too: advisory locks are the database's,
    -- and another schema's store may hold a tenant of the same name.
    IF NOT pg_try_advisory_xact_lock(hashtextextended(format('baton_trim_ledger %I %s', current_schema(), for_tenant), 0)) THEN
        RETURN 0;
    END IF;
    WITH folded AS (
        DELETE FROM ledger_size_changes c WHERE c.tenant = for_tenant RETURNING c.lines
    )
    INSERT INTO ledger_sizes AS s (tenant, lines)
    SELECT for_tenant, coalesce(sum(folded.lines), 0) FROM folded
    ON CONFLICT (tenant) DO UPDATE SET lines = s.lines + excluded.lines
    RETURNING s.lines INTO lines_now;
    IF lines_now <= trim_keep THEN
        RETURN 0;
    END IF;
    -- The tenant's oldest ids first, then each line by its primary key:
    -- with the tenant in the DELETE's own condition, a plan made while the
    -- table's statistics were young scans the tenant's every line for them.
    DELETE FROM ledger
    WHERE id = ANY (ARRAY(SELECT id FROM ledger WHERE user_id = for_tenant ORDER BY id LIMIT lines_now - trim_keep));
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

-- Erasure (008) as before; the call that finds none of the tenant's rows
-- left in any table with a user_id also deletes its count and changes,
-- which are not rows of the tenant's (nor counted as erased): a change row
-- is one statement's, so a tenant has few (each trim folds them, each
-- erase batch of ledger lines adds one).
CREATE OR REPLACE FUNCTION baton_erase_batch(erase_tenant TEXT, erase_limit INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t       TEXT;
    deleted INTEGER;
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
        EXECUTE format('DELETE FROM %I WHERE ctid IN (SELECT ctid FROM %I WHERE user_id = $1 LIMIT $2)', t, t)
            USING erase_tenant, erase_limit;
        GET DIAGNOSTICS deleted = ROW_COUNT;
        IF deleted > 0 THEN
            RETURN deleted;
        END IF;
    END LOOP;
    DELETE FROM ledger_size_changes WHERE tenant = erase_tenant;
    DELETE FROM ledger_sizes WHERE tenant = erase_tenant;
    RETURN 0;
END
$$;

DO $$
DECLARE f TEXT;
BEGIN
    FOREACH f IN ARRAY ARRAY['baton_ledger_lines_added()', 'baton_ledger_lines_removed()', 'baton_ledger_lines_moved()',
                             'baton_ledger_truncated()', 'baton_trim_ledger(INTEGER)', 'baton_erase_batch(TEXT, INTEGER)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
-- The trim's statements reach their rows by keys, the oldest lines in the
-- tenant's index order; its plans are cached per connection, and a plan
-- made while the statistics said the tenant had a handful of lines would
-- read and sort every one of them, as the walk this migration replaces did.
ALTER FUNCTION baton_trim_ledger(INTEGER) SET enable_seqscan = off;
ALTER FUNCTION baton_trim_ledger(INTEGER) SET enable_bitmapscan = off;
ALTER FUNCTION baton_trim_ledger(INTEGER) SET enable_sort = off;
-- postgres:end
