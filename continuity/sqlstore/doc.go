// Package sqlstore implements continuity.Store on bun, for SQLite (the
// embedded default, through driver/sqliteshim) and Postgres (pgdialect over
// pgx), from one set of embedded migrations run on open. A store that
// records a migration this build does not know (a newer baton's) is
// refused, conflict, before anything is applied.
//
// The SQLite driver is sqliteshim's choice at build time: the pure-Go
// modernc.org/sqlite by default, SQLite's C library (mattn/go-sqlite3)
// with -tags cgosqlite where cgo can build, which the baton binary's README
// build uses (a hook process is 3-4 ms faster on it). The store renders its
// connection settings for either, and the suite passes on both.
//
// Tenancy: every statement filters on user_id. On Postgres every table also
// has row-level security with FORCE, keyed on the per-transaction setting
// baton.tenant; because superusers and BYPASSRLS roles skip every policy, the
// store enters the non-superuser role baton_runtime (created by the
// migrations) with SET LOCAL ROLE whenever the connecting user is privileged.
// That role holds only what each table's writes need (migration 002): no
// DELETE anywhere, no UPDATE of the append-only tables. The one delete baton
// does, retention pruning of the ledger and the Stop excerpts, runs under its
// own grant: SECURITY DEFINER functions owned by the migrating user, bounded
// to the transaction's tenant and the keep count, that only the runtime role
// may execute; so does retention by age (migration 008). Erasing a tenant is
// not the runtime role's at all: EraseBatch calls baton_erase_batch as the
// connecting user, a function only its owner and the role baton_admin may
// execute. A non-privileged login should be a member of baton_runtime, not
// the tables' owner; one that erases tenants, of baton_admin as well. The
// worker finds its work across tenants the same way (migration 006):
// SECURITY DEFINER functions that return only (tenant, row id) pairs, after
// which each row is worked in its tenant's transaction.
//
// Open says what stops it from using Postgres (database or schema missing,
// authentication failed, server unreachable) with a code, never the
// password; every Tx method returns baton's codes itself.
//
// Concurrency: SQLite runs in WAL mode with a busy timeout and takes every
// write in an immediate transaction, so several hook processes can write one
// file; a transaction that still meets a busy database, a serialization
// failure or a deadlock is retried whole. Postgres writes run under Read
// Committed: they lock the rows they read (FOR UPDATE) and serialize
// per-project decisions, per-conversation prompt numbering and per-tenant
// record numbering with pg_advisory_xact_lock; a conversation's Stop
// excerpts are numbered under its session row's lock; every write
// transaction holds its tenant's write lock shared, which each erase batch
// takes exclusively. Its reads run read-only under Repeatable Read, one
// snapshot for all their statements, as SQLite's read transactions are.
// Snapshot (an export) is such a read that holds no lock a writer waits
// for, for as long as it lasts: a SQLite store of one connection opens a
// second for it.
//
// Files:
//
//	store.go       Open, the two dialects, transactions, retries, error translation
//	connect.go     reaching Postgres, and saying what is wrong when Open cannot
//	migrate.go     embedded migrations and their per-dialect expansion
//	schema.go      CreateSchema and DropSchema, for stores sharing one database
//	grants.go      the runtime role's grants, read and tried for storetest
//	models.go      bun models and their mapping to continuity types
//	tx.go          the continuity.Tx methods
//	doctor.go      the doctor's Tx reads: bounded aggregates, never content
//	export.go      the export's keyset pages, InsertPrompt, the retention prunes
//	erase.go       EraseBatch (baton_erase_batch on Postgres), TenantRows: over every table with a user_id
//	worker.go      the worker's discovery across tenants (Lapsed, CloserDue) and its claim (TrySessionByID, ClaimCloser)
//	workerbench/   go run ./continuity/sqlstore/workerbench: the worker sweeping 100k rows of 100 tenants on Postgres
//	schema.go      CreateSchema, DropSchema: Postgres schemas for tests or separated tenants
//	migrations/    the SQL, one source for both dialects
//	sqltest/       test stores: SQLite always, a fresh Postgres schema when a DSN is set
package sqlstore
