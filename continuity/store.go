package continuity

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Store is baton's storage. It offers transactions scoped to one tenant; the
// Service sequences rules inside them, so every multi-row decision runs in one
// transaction. continuity/sqlstore implements it on SQLite and Postgres, and
// continuity/storetest is the one suite every implementation must pass.
//
// Errors: methods return *Error values with baton's codes. A driver error the
// store cannot classify is internal; a busy or locked database is retried
// inside the store and never reaches the caller as such.
type Store interface {
	// Write runs fn in one read-write transaction whose every statement is
	// confined to tenant. A tenant ValidateTenant refuses is invalid naming
	// the tenant, and fn does not run. On SQLite it is an immediate
	// transaction; on Postgres the tenant is a per-transaction setting the
	// row-level security policies read. If fn returns an error the
	// transaction rolls back and Write returns that error.
	Write(ctx context.Context, tenant string, fn func(ctx context.Context, tx Tx) error) error
	// Read runs fn in one read-only view confined to tenant; a tenant
	// ValidateTenant refuses is invalid, as for Write.
	Read(ctx context.Context, tenant string, fn func(ctx context.Context, tx Tx) error) error
	// Close releases the store's connections.
	Close() error
}

// Tx is one tenant-scoped transaction. No method can reach another tenant's
// rows: an id owned by another tenant behaves exactly like an unknown id.
// Every method returns baton's codes itself (conflict, not_found, ...), so
// code inside Write sees the codes its caller would. A failed statement
// still ends the transaction on Postgres: after an error, return it.
type Tx interface {
	// SessionByKey returns the session row for the natural key, locked for
	// the rest of a write transaction; not_found when there is none.
	SessionByKey(ctx context.Context, agent, sessionID string) (*Session, error)
	// SessionByID returns the session row with the run id, locked for the
	// rest of a write transaction; not_found when the tenant owns none.
	SessionByID(ctx context.Context, id uuid.UUID) (*Session, error)
	// ProjectByKey returns the project of the row with the natural key
	// without locking it ("" for none); not_found when there is no row. A
	// row's project never changes after insert, so a write reads it first
	// and takes LockProject before the row lock: every write that can
	// change the set of leased-open sessions of a project takes the two
	// locks in that order.
	ProjectByKey(ctx context.Context, agent, sessionID string) (string, error)
	// ProjectByID is ProjectByKey for a run id.
	ProjectByID(ctx context.Context, id uuid.UUID) (string, error)
	// InsertSession inserts a new row; conflict when the natural key exists.
	InsertSession(ctx context.Context, s *Session) error
	// UpdateSession writes every mutable column of the row with s.ID;
	// not_found when the tenant owns no such row.
	UpdateSession(ctx context.Context, s *Session) error
	// OpenSessions returns the rows with no closed_at for the project (""
	// matches rows with no project). Callers evaluate the lease themselves.
	OpenSessions(ctx context.Context, project string) ([]Session, error)
	// StaleSessions returns up to limit rows with no closed_at whose
	// last_seen_at is before the instant, oldest first, locked for the rest
	// of a write transaction; on Postgres rows another sweeper holds are
	// skipped, so several replicas can sweep at once.
	StaleSessions(ctx context.Context, before time.Time, limit int) ([]Session, error)
	// LockProject serializes decisions about one (tenant, project) until
	// the transaction ends: pg_advisory_xact_lock on Postgres; the
	// immediate transaction already serializes writers on SQLite.
	LockProject(ctx context.Context, project string) error

	// AppendLedger appends entries and trims the tenant's ledger to keep
	// lines, dropping the oldest.
	AppendLedger(ctx context.Context, keep int, entries ...LedgerEntry) error
	// Ledger returns the tenant's ledger lines in append order, oldest
	// first, after the entry id after (uuid.Nil for the start), at most
	// limit.
	Ledger(ctx context.Context, after uuid.UUID, limit int) ([]LedgerEntry, error)
	// LedgerCounts returns how many lines each event name has.
	LedgerCounts(ctx context.Context) (map[string]int, error)

	// InsertMemory inserts a memory; conflict when its id exists.
	InsertMemory(ctx context.Context, m *Memory) error
	// MemoryByID returns the memory, locked for the rest of a write
	// transaction; not_found when the tenant owns none.
	MemoryByID(ctx context.Context, id uuid.UUID) (*Memory, error)
	// UpdateMemory writes the mutable columns of the memory with m.ID.
	UpdateMemory(ctx context.Context, m *Memory) error
	// Memories lists memories matching the query, newest first.
	Memories(ctx context.Context, q MemoryQuery) ([]Memory, error)
	// InsertMemoryEvents appends audit events.
	InsertMemoryEvents(ctx context.Context, events ...MemoryEvent) error
	// RunEvents returns the events attributed to the run with ids greater
	// than after (uuid.Nil for the start), in id order, at most limit.
	RunEvents(ctx context.Context, run uuid.UUID, after uuid.UUID, limit int) ([]MemoryEvent, error)

	// ArmBottle upserts the conversation's bottle marker (m.Agent,
	// m.SessionID) as armed.
	ArmBottle(ctx context.Context, m BottleMarker) error
	// ClaimBottle consumes the conversation's armed marker in one atomic
	// update and returns it; not_found when no armed marker exists (never
	// armed, armed by another agent under the same session id, or already
	// claimed by a concurrent SessionStart).
	ClaimBottle(ctx context.Context, agent, sessionID string, now time.Time) (*BottleMarker, error)
	// BottleMarker returns the conversation's marker, armed or consumed;
	// not_found when there is none.
	BottleMarker(ctx context.Context, agent, sessionID string) (*BottleMarker, error)

	// AppendPrompt records a user prompt (already privacy filtered) as the
	// conversation's next one and sets p.Number: one more than the highest
	// number the conversation has. It decides the number under a
	// per-conversation lock held to the end of the transaction
	// (pg_advisory_xact_lock on Postgres; the immediate transaction on
	// SQLite), so concurrent recorders neither share a number nor fail.
	AppendPrompt(ctx context.Context, p *Prompt) error
	// Prompts returns a conversation's prompts in order.
	Prompts(ctx context.Context, agent, sessionID string) ([]Prompt, error)
	// InsertStopExcerpt records the last assistant message seen at a Stop
	// and keeps only the conversation's newest keep excerpts.
	InsertStopExcerpt(ctx context.Context, keep int, e *StopExcerpt) error
	// StopExcerpts returns a conversation's Stop excerpts in order.
	StopExcerpts(ctx context.Context, agent, sessionID string) ([]StopExcerpt, error)

	// InsertRecord appends a checkpoint or handover; conflict when its id
	// exists. Records are never changed or deleted.
	InsertRecord(ctx context.Context, r *Record) error
	// Records lists records matching the query, newest (highest id) first.
	Records(ctx context.Context, q RecordQuery) ([]Record, error)
}
