-- baton schema, version 2: the runtime role holds what each table's writes
-- need and no more (Postgres only; SQLite has no roles).
--
--   agent_sessions   SELECT, INSERT, UPDATE   close is an update, never a DELETE
--   memories         SELECT, INSERT, UPDATE   resolve, archive and revise are updates
--   memory_events    SELECT, INSERT           provenance is append-only
--   session_bottles  SELECT, INSERT, UPDATE   arm upserts, claim updates
--   user_prompts     SELECT, INSERT
--   stop_excerpts    SELECT, INSERT           trimmed by baton_trim_stop_excerpts
--   ledger           SELECT, INSERT           trimmed by baton_trim_ledger
--
-- Retention pruning is the only delete baton does, and it runs under its own
-- grant: two SECURITY DEFINER functions owned by the migrating user, which
-- the runtime role may EXECUTE and nobody else may. Each deletes only rows of
-- the tenant the transaction set (baton.tenant), and only those beyond the
-- keep count it is given (baton_trim_tenant checks both): the role can bound
-- a table but cannot empty it, reach another tenant, or pick the rows that
-- go. The functions filter on user_id themselves because an owner that is a
-- superuser skips row-level security, and their search_path is pinned to
-- the schema they were created in, so a caller's cannot redirect them.
--
-- A login role that runs baton without being privileged should be a member
-- of baton_runtime (CREATE ROLE app LOGIN IN ROLE baton_runtime), not the
-- tables' owner: an owner holds every privilege whatever is granted here.

-- postgres:begin
-- The bounds both trims share: the transaction's tenant, and a keep count
-- that leaves at least one row. It raises rather than let a trim run
-- unbounded.
CREATE FUNCTION baton_trim_tenant(trim_keep INTEGER) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    tenant TEXT := current_setting('baton.tenant', true);
BEGIN
    IF tenant IS NULL OR tenant = '' THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'baton retention trim: baton.tenant is not set';
    END IF;
    IF trim_keep IS NULL OR trim_keep < 1 THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'baton retention trim: keep must be at least 1';
    END IF;
    RETURN tenant;
END
$$;

-- Drop every ledger line of the tenant older than its keep-th newest.
CREATE FUNCTION baton_trim_ledger(trim_keep INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_trim_tenant(trim_keep);
    deleted INTEGER;
BEGIN
    DELETE FROM ledger
    WHERE user_id = tenant
      AND id < (SELECT id FROM ledger WHERE user_id = tenant ORDER BY id DESC OFFSET trim_keep - 1 LIMIT 1);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

-- Drop every Stop excerpt of one conversation older than its keep-th newest.
CREATE FUNCTION baton_trim_stop_excerpts(trim_agent TEXT, trim_session_id TEXT, trim_keep INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_trim_tenant(trim_keep);
    deleted INTEGER;
BEGIN
    DELETE FROM stop_excerpts
    WHERE user_id = tenant AND agent = trim_agent AND session_id = trim_session_id
      AND id < (SELECT id FROM stop_excerpts
                WHERE user_id = tenant AND agent = trim_agent AND session_id = trim_session_id
                ORDER BY id DESC OFFSET trim_keep - 1 LIMIT 1);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

-- Pin each function's search_path to this schema, and let no one but the
-- grants below call them.
DO $$
DECLARE f TEXT;
BEGIN
    FOREACH f IN ARRAY ARRAY['baton_trim_tenant(INTEGER)', 'baton_trim_ledger(INTEGER)', 'baton_trim_stop_excerpts(TEXT, TEXT, INTEGER)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;

-- Migration 001 granted SELECT, INSERT, UPDATE, DELETE on every table; the
-- role is missing only when the migrating user could not create it, and then
-- the store refuses to run as a privileged user anyway.
DO $$
DECLARE g RECORD;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        RETURN;
    END IF;
    FOR g IN SELECT * FROM (VALUES
        ('agent_sessions',  'SELECT, INSERT, UPDATE'),
        ('memories',        'SELECT, INSERT, UPDATE'),
        ('memory_events',   'SELECT, INSERT'),
        ('session_bottles', 'SELECT, INSERT, UPDATE'),
        ('user_prompts',    'SELECT, INSERT'),
        ('stop_excerpts',   'SELECT, INSERT'),
        ('ledger',          'SELECT, INSERT')
    ) AS v(tbl, privileges) LOOP
        EXECUTE format('REVOKE ALL ON %I FROM baton_runtime', g.tbl);
        EXECUTE format('GRANT %s ON %I TO baton_runtime', g.privileges, g.tbl);
    END LOOP;
    GRANT EXECUTE ON FUNCTION baton_trim_ledger(INTEGER) TO baton_runtime;
    GRANT EXECUTE ON FUNCTION baton_trim_stop_excerpts(TEXT, TEXT, INTEGER) TO baton_runtime;
END
$$;
-- postgres:end
