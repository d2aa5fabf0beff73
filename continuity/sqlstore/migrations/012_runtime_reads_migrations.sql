-- baton schema, version 12: a login role that is a member of baton_runtime
-- (CREATE ROLE app LOGIN IN ROLE baton_runtime, the way 002 recommends to
-- run baton without privilege) may read which migrations are applied. Open
-- reads baton_schema_migrations before anything else, and without this
-- grant such a role took the migrating path and was refused.
-- postgres:begin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'baton_runtime') THEN
        GRANT SELECT ON baton_schema_migrations TO baton_runtime;
    END IF;
END
$$;
-- postgres:end
