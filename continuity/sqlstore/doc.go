// Package sqlstore implements continuity.Store on bun, for SQLite (the
// embedded default, through driver/sqliteshim) and Postgres (pgdialect over
// pgx), from one set of embedded migrations run on open.
//
// Tenancy: every statement filters on user_id. On Postgres every table also
// has row-level security with FORCE, keyed on the per-transaction setting
// baton.tenant; because superusers and BYPASSRLS roles skip every policy, the
// store enters the non-superuser role baton_runtime (created by the
// migrations) with SET LOCAL ROLE whenever the connecting user is privileged.
//
// Concurrency: SQLite runs in WAL mode with a busy timeout and takes every
// write in an immediate transaction, so several hook processes can write one
// file; a transaction that still meets a busy database, a serialization
// failure or a deadlock is retried whole. Postgres locks the rows a write
// transaction reads (FOR UPDATE) and serializes per-project decisions and
// per-conversation prompt numbering with pg_advisory_xact_lock.
//
// Files:
//
//	store.go       Open, the two dialects, transactions, retries, error translation
//	migrate.go     embedded migrations and their per-dialect expansion
//	models.go      bun models and their mapping to continuity types
//	tx.go          the continuity.Tx methods
//	schema.go      CreateSchema, DropSchema: Postgres schemas for tests or separated tenants
//	migrations/    the SQL, one source for both dialects
package sqlstore
