package continuity

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// StoreClock is implemented by a Store whose clock every process that
// opens it shares: the Service stamps and reads on it unless WithClock
// gives another. baton runs on many hosts against one store (replicas of a
// team server, every developer's hook), and a time one host stamped is
// compared with another's now by freshness, the lease and the doctor; on
// one clock, a host whose own clock runs hours ahead or behind neither
// writes a handover that reads as from the future nor one that reads as
// stale at once. Now is read often (every stamp): it must not touch the
// database.
type StoreClock interface {
	// Now is the store's clock as this process reads it.
	Now() time.Time
}

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
	// transaction rolls back and Write returns that error: a *Error as is,
	// any other as internal wrapping it (errors.Is still finds it).
	Write(ctx context.Context, tenant string, fn func(ctx context.Context, tx Tx) error) error
	// Read runs fn in one read-only transaction confined to tenant: a write
	// method called inside it fails as internal and changes nothing, and
	// every statement reads the same snapshot (on Postgres, Repeatable
	// Read), so a write committed while it runs is seen by none or all. A
	// tenant ValidateTenant refuses is invalid, as for Write.
	Read(ctx context.Context, tenant string, fn func(ctx context.Context, tx Tx) error) error
	// Snapshot is Read for a read that may last (an export, streaming the
	// tenant's rows to a reader as slow as it likes): one read-only
	// transaction, every statement reading the same snapshot, that holds
	// no lock a writer waits for, so writes of this process and of others
	// proceed while it runs (from fn itself too) and it sees none of
	// them. fn runs once: it is never retried, so it may have written
	// what it read before an error.
	Snapshot(ctx context.Context, tenant string, fn func(ctx context.Context, tx Tx) error) error
	// Close releases the store's connections; Write and Read then fail as
	// internal without running fn.
	Close() error
	// TouchLive applies a heartbeat to tenant's conversation row when the
	// row is live at t.Now (no closed_at, last seen strictly after
	// t.LiveAfter), in one transaction of its own: last_seen_at floored to
	// t.Now, the excerpt replaced when t.Excerpt is set, the Stop counts
	// (stop_count, activation_stops) incremented when t.Stop, compactions
	// when t.Compact, and t.StopExcerpt inserted (and the excerpts
	// trimmed, as SessionTouch says). It returns the row as updated, or nil
	// and no error, having changed nothing, when the tenant has no such
	// row or it is not live. A live row's heartbeat leaves the project's
	// leased-open set as it was, so it takes neither the project lock nor
	// a separate row read: on Postgres it is one statement (migration
	// 010's baton_touch_live) under the same role and tenant as Write's,
	// which concurrent touches of one tenant may share, each applied as if
	// alone (a touch that fails in a shared statement is tried alone). A
	// heartbeat that finds nil then takes both locks in a Write and
	// resurrects. A tenant ValidateTenant refuses is invalid.
	//
	// Errors: invalid (tenant), conflict (t.StopExcerpt's id exists),
	// internal.
	TouchLive(ctx context.Context, tenant string, t SessionTouch) (*Session, error)
	// EraseBatch deletes up to limit of tenant's rows, whichever of the
	// store's tables hold them (going on to the next table while the
	// limit is not spent), in one transaction of its own, and returns how
	// many it deleted: fewer than limit only when it deleted every row
	// the tenant owned, 0 once the tenant owns none anywhere. Calling it
	// until it returns fewer than limit erases the tenant; an erase
	// stopped between calls resumes where it stopped. No write of the
	// tenant overlaps a call (on SQLite the immediate transaction; on
	// Postgres a lock of the tenant every write transaction holds shared
	// and each call exclusively): a call that returns fewer than limit
	// left the tenant empty as of its commit, every write that committed
	// before it erased, and a write that commits after it is a new one.
	// An erase whose last call had to find the tenant empty with no row
	// to delete never ended while the tenant's writes kept coming: each
	// call found the rows written since the one before. It does not run
	// under the role Write and Read run under: on Postgres it needs a
	// grant the runtime role lacks (migration 008's baton_erase_batch),
	// and a connection without it gets forbidden. A tenant ValidateTenant
	// refuses, or a limit below 1, is invalid.
	EraseBatch(ctx context.Context, tenant string, limit int) (int, error)

	// Lapsed returns, across every tenant, up to limit (1 to MaxDiscover)
	// open rows (no closed_at) last seen before the instant, oldest first
	// (ties in id order): the rows a sweep may close. It runs outside any
	// tenant's transaction and returns only each row's tenant and id; the
	// worker then works each row in a transaction of its tenant. On
	// Postgres it calls a SECURITY DEFINER function, so the runtime role's
	// row-level security stays whole on every other path.
	//
	// Errors: invalid (limit), internal.
	Lapsed(ctx context.Context, before time.Time, limit int) ([]RowRef, error)
	// CloserDue returns, across every tenant, up to limit (1 to
	// MaxDiscover) closed rows whose CloserNextAt is at or before the
	// instant and whose triage status is idle, pending, expired or
	// completed, in CloserNextAt order (ties in id order): the rows the
	// closer may take. As Lapsed, it returns only tenants and ids.
	//
	// Errors: invalid (limit), internal.
	CloserDue(ctx context.Context, at time.Time, limit int) ([]RowRef, error)
	// RetentionDue returns, across every tenant, up to limit (1 to
	// MaxDiscover) tenants greater than after, in order, that hold a
	// ledger line at before ledgerBefore or a prompt at before
	// promptsBefore: the tenants the worker's retention pass prunes (with
	// Service.Prune, in each tenant's own transactions). As Lapsed, it
	// runs outside any tenant's transaction and returns only tenant ids.
	//
	// Errors: invalid (limit), internal.
	RetentionDue(ctx context.Context, ledgerBefore, promptsBefore time.Time, after string, limit int) ([]string, error)
}

// MaxDiscover bounds the rows one Lapsed or CloserDue call returns.
const MaxDiscover = 10000

// RowRef names one session row outside any tenant's transaction: its
// tenant and its run id, nothing else.
type RowRef struct {
	Tenant string
	ID     uuid.UUID
}

// CloserClaim is a closer's compare-and-set on a session row's triage
// attempt id, fenced at the activation epoch it observed.
type CloserClaim struct {
	// ID is the row's run id.
	ID uuid.UUID
	// Epoch, AttemptID and Status are what the closer observed: the claim
	// takes the row only if all three still hold and the row is closed.
	Epoch     int
	AttemptID uuid.UUID
	Status    string
	// Token is the claim's fresh attempt id; ClaimStatus is the triage
	// status the claim leaves (triage.ClaimStatus of Status: a pending
	// handshake retired to expired, in the same statement); Until is the
	// CloserNextAt the claim holds the row to, so no other worker takes it
	// before then.
	Token       uuid.UUID
	ClaimStatus string
	Until       time.Time
}

// Tx is one tenant-scoped transaction. No method can reach another tenant's
// rows: an id owned by another tenant behaves exactly like an unknown id,
// except that ids are unique across tenants (they are the service's
// UUIDv7s), so an insert reusing one conflicts. A row a method writes is the
// transaction's tenant's whatever its Tenant field says, and rows read back
// carry the tenant. Times are kept at microsecond precision and read back in
// UTC. A list method that finds nothing returns an empty, non-nil slice or
// map, never not_found; a limit below 1 means no limit.
//
// Every method returns baton's codes itself (conflict, not_found, ...), so
// code inside Write sees the codes its caller would. A failed statement
// still ends the transaction on Postgres: after an error, return it.
type Tx interface {
	// SessionByKey returns the session row for the natural key, closed or
	// not, locked for the rest of a write transaction; not_found when there
	// is none.
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
	// InsertSession inserts a new row; conflict when its natural key or its
	// id exists. The row reads back as written, except that a zero
	// ActivatedAt reads back as OpenedAt, an empty Selector or
	// TriagedEventIDs as nil, and BriefedMemories as nil when there is no
	// BriefingDeliveredAt and as a non-nil (maybe empty) list when there is.
	InsertSession(ctx context.Context, s *Session) error
	// UpdateSession writes every column of the row with s.ID but the id,
	// the natural key and the project, which never change after insert;
	// not_found when the tenant owns no such row.
	UpdateSession(ctx context.Context, s *Session) error
	// OpenSessions returns the rows with no closed_at for the project (""
	// matches rows with no project), in id order. Callers evaluate the
	// lease themselves.
	OpenSessions(ctx context.Context, project string) ([]Session, error)
	// StaleSessions returns up to limit rows with no closed_at whose
	// last_seen_at is before the instant, oldest first (ties in id order),
	// locked for the rest of a write transaction; on Postgres rows another
	// sweeper holds are skipped, so several replicas can sweep at once.
	StaleSessions(ctx context.Context, before time.Time, limit int) ([]Session, error)
	// TrySessionByID is SessionByID for a worker: a row another write
	// transaction holds locked is not_found at once instead of waited for
	// (FOR UPDATE SKIP LOCKED on Postgres; on SQLite the immediate
	// transaction already holds the only write lock).
	TrySessionByID(ctx context.Context, id uuid.UUID) (*Session, error)
	// ClaimCloser applies the claim in one conditional update and reports
	// whether it took the row: false (and no change) when the tenant has no
	// such closed row at the observed epoch, attempt id and status.
	ClaimCloser(ctx context.Context, c CloserClaim) (bool, error)
	// LockProject serializes decisions about one (tenant, project) until
	// the transaction ends: pg_advisory_xact_lock on Postgres; the
	// immediate transaction already serializes writers on SQLite. Taking a
	// lock the transaction holds returns at once; on Postgres another
	// project's or tenant's lock never waits for it.
	LockProject(ctx context.Context, project string) error
	// LockTenant waits for every other open write transaction of the
	// tenant to end and holds back its new ones until this one ends, so
	// what the transaction reads of the tenant after it holds at its
	// commit: on Postgres the tenant's write lock (which every write
	// transaction holds shared) taken exclusively; the immediate
	// transaction already serializes writers on SQLite. Two transactions
	// taking it at once may deadlock; the store runs one of them again,
	// as it does any transaction the database rolled back.
	LockTenant(ctx context.Context) error

	// AppendLedger appends entries and trims the tenant's ledger to its
	// keep newest lines by id; keep below 1 keeps every line, and no
	// entries is a no-op. conflict when an entry's id exists; nil Fields
	// read back empty.
	AppendLedger(ctx context.Context, keep int, entries ...LedgerEntry) error
	// Ledger returns the tenant's ledger lines in id order (append order,
	// the ids being UUIDv7s), oldest first, with ids greater than after
	// (uuid.Nil for the start; it need not be one of the tenant's lines),
	// at most limit.
	Ledger(ctx context.Context, after uuid.UUID, limit int) ([]LedgerEntry, error)
	// LedgerCounts returns how many of the lines kept each event name has.
	LedgerCounts(ctx context.Context) (map[string]int, error)

	// InsertMemory inserts a memory; conflict when its id exists.
	InsertMemory(ctx context.Context, m *Memory) error
	// MemoryByID returns the memory, locked for the rest of a write
	// transaction; not_found when the tenant owns none.
	MemoryByID(ctx context.Context, id uuid.UUID) (*Memory, error)
	// UpdateMemory writes the status, SupersededBy and UpdatedAt of the
	// memory with m.ID and nothing else (a revise supersedes a memory, it
	// never edits one); not_found when the tenant owns no such memory.
	UpdateMemory(ctx context.Context, m *Memory) error
	// Memories lists memories matching the query, newest first: by
	// created_at, then id, descending.
	Memories(ctx context.Context, q MemoryQuery) ([]Memory, error)
	// InsertMemoryEvents appends audit events; conflict when an event's id
	// exists, and no events is a no-op.
	InsertMemoryEvents(ctx context.Context, events ...MemoryEvent) error
	// RunEvents returns the events attributed to the run with ids greater
	// than after (uuid.Nil for the start), in id order, at most limit. The
	// nil run matches nothing: an unattributed event belongs to no run.
	RunEvents(ctx context.Context, run uuid.UUID, after uuid.UUID, limit int) ([]MemoryEvent, error)

	// ArmBottle upserts the conversation's bottle marker (m.Agent,
	// m.SessionID) as armed: every field is overwritten and consumed_at
	// cleared, so a claimed marker armed again can be claimed again.
	ArmBottle(ctx context.Context, m BottleMarker) error
	// ClaimBottle consumes the conversation's armed marker in one atomic
	// update, setting ConsumedAt to now, and returns it; not_found when no
	// armed marker exists (never armed, armed by another agent under the
	// same session id, or already claimed by a concurrent SessionStart).
	ClaimBottle(ctx context.Context, agent, sessionID string, now time.Time) (*BottleMarker, error)
	// BottleMarker returns the conversation's marker, armed or consumed;
	// not_found when there is none.
	BottleMarker(ctx context.Context, agent, sessionID string) (*BottleMarker, error)

	// AppendPrompt records a user prompt (already privacy filtered) as the
	// conversation's next one and sets p.Number: one more than the highest
	// number the conversation has, among its prompts and the turns its Stop
	// excerpts recorded (retention prunes prompts by age, not excerpts: a
	// conversation whose prompts were all pruned numbers on past the turns
	// its excerpts name, never under them again). It decides the number under a
	// per-conversation lock held to the end of the transaction
	// (pg_advisory_xact_lock on Postgres; the immediate transaction on
	// SQLite), so concurrent recorders neither share a number nor fail.
	// conflict when p.ID exists.
	AppendPrompt(ctx context.Context, p *Prompt) error
	// Prompts returns a conversation's prompts in number order.
	Prompts(ctx context.Context, agent, sessionID string) ([]Prompt, error)
	// LastPrompt returns a conversation's prompt of the highest number,
	// reading that one alone; ok is false when it has none.
	LastPrompt(ctx context.Context, agent, sessionID string) (p Prompt, ok bool, err error)
	// InsertStopExcerpt records the last assistant message seen at a Stop,
	// its PromptNumber as given (nil stays unrecorded), and keeps only the
	// conversation's newest keep excerpts in write order; keep below 1
	// keeps them all, as for AppendLedger. It numbers the excerpt (e.Seq,
	// unless given) after the conversation's newest, under the lock of the
	// conversation's session row held to the end of the transaction, so
	// concurrent writers neither share a number nor take them in the
	// opposite order of their commits. conflict when e.ID exists.
	InsertStopExcerpt(ctx context.Context, keep int, e *StopExcerpt) error
	// StopExcerpts returns a conversation's Stop excerpts in the order they
	// were written (Seq; the rows without one first, by id), oldest first.
	StopExcerpts(ctx context.Context, agent, sessionID string) ([]StopExcerpt, error)

	// InsertRecord appends a checkpoint or handover, numbering it (r.Seq,
	// unless given) after the tenant's newest under a per-tenant lock held
	// to the end of the transaction, as InsertStopExcerpt numbers
	// excerpts; conflict when its id exists. Records are never changed or
	// deleted.
	InsertRecord(ctx context.Context, r *Record) error
	// Records lists records matching the query, the last written first
	// (highest Seq; the rows without one after them, highest id first).
	Records(ctx context.Context, q RecordQuery) ([]Record, error)

	// The doctor's reads: bounded aggregates of what was written, never
	// content.

	// ProjectActivity returns, for at most limit projects (the row-less
	// project "" included), what the tenant's sessions and records say of
	// each, the projects with the newest activation first (ties by name).
	ProjectActivity(ctx context.Context, limit int) ([]ProjectActivity, error)
	// CountSessions counts the session rows matching q.
	CountSessions(ctx context.Context, q SessionCount) (int, error)
	// LedgerCountsSince is LedgerCounts over the lines kept whose At is at
	// or after since.
	LedgerCountsSince(ctx context.Context, since time.Time) (map[string]int, error)
	// LedgerEvents returns the lines kept with one of the event names whose
	// At is at or after since, newest (highest id) first, at most limit.
	// No names match nothing.
	LedgerEvents(ctx context.Context, events []string, since time.Time, limit int) ([]LedgerEntry, error)
	// ArmedBottles returns the markers still armed (never claimed since
	// they were last armed) whose ArmedAt is after after and not after
	// notAfter, oldest first (ties by agent, then session id), at most
	// limit.
	ArmedBottles(ctx context.Context, after, notAfter time.Time, limit int) ([]BottleMarker, error)
	// The keyset pages an export reads: each returns the tenant's rows with
	// ids greater than after (uuid.Nil for the start), in id order, at
	// most limit, read back as the single-row methods read them.

	// SessionsAfter pages the tenant's session rows, closed or not.
	SessionsAfter(ctx context.Context, after uuid.UUID, limit int) ([]Session, error)
	// MemoriesAfter pages the tenant's memories, of every status.
	MemoriesAfter(ctx context.Context, after uuid.UUID, limit int) ([]Memory, error)
	// MemoryEventsAfter pages the tenant's audit events, attributed or not.
	MemoryEventsAfter(ctx context.Context, after uuid.UUID, limit int) ([]MemoryEvent, error)
	// RecordsAfter pages the tenant's checkpoints and handovers.
	RecordsAfter(ctx context.Context, after uuid.UUID, limit int) ([]Record, error)
	// PromptsAfter pages the tenant's prompts, of every conversation.
	PromptsAfter(ctx context.Context, after uuid.UUID, limit int) ([]Prompt, error)
	// StopExcerptsAfter pages the tenant's Stop excerpts.
	StopExcerptsAfter(ctx context.Context, after uuid.UUID, limit int) ([]StopExcerpt, error)
	// BottleMarkersAfter pages the tenant's bottle markers, armed or
	// consumed, in (agent, session id) order after the key given ("", ""
	// for the start).
	BottleMarkersAfter(ctx context.Context, agent, sessionID string, limit int) ([]BottleMarker, error)

	// InsertPrompt inserts a prompt exactly as given, its Number included:
	// the write an import replays (AppendPrompt numbers a live one).
	// conflict when its id, or its number in its conversation, exists.
	InsertPrompt(ctx context.Context, p *Prompt) error

	// PruneLedger deletes up to limit of the tenant's ledger lines whose
	// At is before the instant, oldest id first, and returns how many it
	// deleted. Like the count trim of AppendLedger it runs under its own
	// grant on Postgres, never as a DELETE of the runtime role.
	PruneLedger(ctx context.Context, before time.Time, limit int) (int, error)
	// PrunePrompts is PruneLedger for the tenant's kept prompts, by At.
	PrunePrompts(ctx context.Context, before time.Time, limit int) (int, error)
	// Sessions lists the session rows matching q's ByProject, Project,
	// Agent and Before, newest (highest id) first, at most q.Limit; it
	// ignores q.States (the lease state is the service's rule). Rows are
	// not locked.
	Sessions(ctx context.Context, q SessionQuery) ([]Session, error)
	// SessionLedger is Ledger restricted to the lines whose session is
	// sessionID.
	SessionLedger(ctx context.Context, sessionID string, after uuid.UUID, limit int) ([]LedgerEntry, error)
}

// SessionTouch is a live conversation's heartbeat (Store.TouchLive).
type SessionTouch struct {
	Agent     string
	SessionID string
	// Now is the heartbeat's instant; LiveAfter is lease.Policy.LiveAfter
	// of it.
	Now       time.Time
	LiveAfter time.Time
	// Excerpt, when set, replaces the last message excerpt.
	Excerpt *string
	Stop    bool
	Compact bool
	// StopExcerpt, when set, is inserted when the row was live, as the
	// conversation's newest Stop excerpt; its tenant, agent and session
	// are the touch's, its At is Now, and its PromptNumber the
	// conversation's newest prompt number (0 before any prompt), read by
	// the statement or transaction that inserts it (migration 018), as its
	// Seq is numbered after the conversation's newest (migration 019).
	StopExcerpt *StopExcerpt
	// KeepExcerpts and TrimEvery bound the conversation's excerpts after
	// that insert: every excerpt older than the newest
	// ExcerptKeep(the row's new StopCount) is deleted, when that is above 0.
	KeepExcerpts int
	TrimEvery    int
}

// ExcerptKeep is the keep count InsertStopExcerpt takes for a Stop that
// brought the conversation's stop count to stops, under the touch's bound:
// KeepExcerpts when a trim is due, else 0 (no trim). Migration 010's
// baton_touch_live applies the same rule in SQL.
func (t SessionTouch) ExcerptKeep(stops int) int {
	if t.KeepExcerpts > 0 && t.TrimEvery > 0 && stops > t.KeepExcerpts && stops%t.TrimEvery == 0 {
		return t.KeepExcerpts
	}
	return 0
}
