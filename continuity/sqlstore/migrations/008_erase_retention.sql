-- baton schema, version 8: erasure of a tenant, and retention by age
-- (Postgres only; on SQLite the store deletes directly, having no roles).
--
-- Erasure runs under a grant the runtime role does not hold: the function
-- baton_erase_batch, SECURITY DEFINER, executable by the role baton_admin
-- (and by its owner, the migrating user) and by no one else. The request
-- path runs as baton_runtime and so can never erase a tenant; `baton
-- forget` and the admin HTTP route connect as a login that is a member of
-- baton_admin, or as the owner. Each call deletes at most erase_limit of
-- one tenant's rows, from the first table (by name) still holding some,
-- and returns how many: calling it until it returns 0 erases the tenant,
-- and an erase stopped between calls resumes. The tables are read from the
-- catalog (every table of this schema with a user_id column), so a table a
-- later migration adds is erased without this function changing.
--
-- Retention by age prunes the ledger and the kept prompts through two
-- SECURITY DEFINER functions the runtime role may EXECUTE, as the trims of
-- 002: each deletes only rows of the transaction's tenant (baton.tenant)
-- older than the instant it is given, at most prune_limit of them (NULL:
-- no bound), oldest id first.

-- postgres:begin
DO $$
BEGIN
    CREATE ROLE baton_admin NOLOGIN;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN NULL;
END
$$;

CREATE FUNCTION baton_erase_batch(erase_tenant TEXT, erase_limit INTEGER) RETURNS INTEGER
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
    RETURN 0;
END
$$;

-- The tenant a prune is bounded to: the transaction's.
CREATE FUNCTION baton_prune_tenant(prune_before TIMESTAMPTZ) RETURNS TEXT
LANGUAGE plpgsql AS $$
DECLARE
    tenant TEXT := current_setting('baton.tenant', true);
BEGIN
    IF tenant IS NULL OR tenant = '' THEN
        RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'baton retention prune: baton.tenant is not set';
    END IF;
    IF prune_before IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'baton retention prune: the instant is required';
    END IF;
    RETURN tenant;
END
$$;

CREATE FUNCTION baton_prune_ledger(prune_before TIMESTAMPTZ, prune_limit INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_prune_tenant(prune_before);
    deleted INTEGER;
BEGIN
    DELETE FROM ledger
    WHERE user_id = tenant
      AND id IN (SELECT id FROM ledger WHERE user_id = tenant AND at < prune_before ORDER BY id LIMIT prune_limit);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

CREATE FUNCTION baton_prune_user_prompts(prune_before TIMESTAMPTZ, prune_limit INTEGER) RETURNS INTEGER
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    tenant  TEXT := baton_prune_tenant(prune_before);
    deleted INTEGER;
BEGIN
    DELETE FROM user_prompts
    WHERE user_id = tenant
      AND id IN (SELECT id FROM user_prompts WHERE user_id = tenant AND at < prune_before ORDER BY id LIMIT prune_limit);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END
$$;

DO $$
DECLARE f TEXT;
BEGIN
    FOREACH f IN ARRAY ARRAY['baton_erase_batch(TEXT, INTEGER)', 'baton_prune_tenant(TIMESTAMPTZ)',
                             'baton_prune_ledger(TIMESTAMPTZ, INTEGER)', 'baton_prune_user_prompts(TIMESTAMPTZ, INTEGER)'] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_temp', f, current_schema());
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT EXECUTE ON FUNCTION baton_prune_ledger(TIMESTAMPTZ, INTEGER) TO baton_runtime;
        GRANT EXECUTE ON FUNCTION baton_prune_user_prompts(TIMESTAMPTZ, INTEGER) TO baton_runtime;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_admin') THEN
        EXECUTE format('GRANT USAGE ON SCHEMA %I TO baton_admin', current_schema());
        GRANT EXECUTE ON FUNCTION baton_erase_batch(TEXT, INTEGER) TO baton_admin;
    END IF;
END
$$;
-- postgres:end
