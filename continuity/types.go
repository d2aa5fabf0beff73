package continuity

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/batonhq/baton/continuity/memrule"
	"github.com/google/uuid"
)

// Session is one conversation's row: the natural key (tenant, agent,
// session id), its lease and activation epoch, its triage handshake and its
// briefing bookkeeping. ID is the opaque sessionRunId that writes may carry,
// and is named so on the wire; the tenant never goes on the wire.
type Session struct {
	ID              uuid.UUID  `json:"sessionRunId"`
	Tenant          string     `json:"-"`
	Agent           string     `json:"agent"`
	SessionID       string     `json:"sessionId"`
	Source          Source     `json:"source"`
	Project         string     `json:"project,omitempty"`
	Scope           string     `json:"scope,omitempty"`
	Selector        Selector   `json:"selector,omitempty"`
	OpenedAt        time.Time  `json:"openedAt"`
	LastSeenAt      time.Time  `json:"lastSeenAt"`
	ClosedAt        *time.Time `json:"closedAt,omitempty"`
	ActivationEpoch int        `json:"activationEpoch"`
	// StopCount counts every Stop the conversation heartbeated.
	StopCount int `json:"stopCount"`
	// ActivatedAt is when the current activation began (the open, or the
	// last startup, resume or resurrection that bumped the epoch), and
	// ActivationStops counts the Stops since then: the triage debounce
	// reads these, so a reopened conversation's first Stop never nudges on
	// Stops or time of the activation before.
	ActivatedAt     time.Time `json:"activatedAt,omitzero"`
	ActivationStops int       `json:"activationStops"`
	// Compactions counts the compactions the conversation went through
	// since its last /clear under its id (a clear starts it over, and a
	// bottle shows the count as its legs).
	Compactions int `json:"compactions"`

	TriageStatus    string      `json:"triageStatus"`
	TriageAttemptID uuid.UUID   `json:"triageAttemptId,omitzero"`
	TriagedEventIDs []uuid.UUID `json:"triagedEventIds,omitempty"`

	// CloserNextAt is when the resolve-only closer may next take the closed
	// row: stamped at every close (lease.Policy.CloserDue), pushed forward
	// while a claim is held and after a failed pass, nil when the row is
	// open or its pass finished. CloserFailures counts consecutive failed
	// passes (the backoff, triage.CloserBackoff).
	CloserNextAt   *time.Time `json:"closerNextAt,omitempty"`
	CloserFailures int        `json:"closerFailures,omitempty"`

	BriefingDeliveredAt *time.Time      `json:"briefingDeliveredAt,omitempty"`
	BriefedMemories     []BriefedMemory `json:"briefedMemories,omitempty"`
	LastMessageExcerpt  string          `json:"lastMessageExcerpt,omitempty"`

	// ClearedThroughPrompt and ClearedThroughExcerpt mark where the last
	// /clear under the conversation's id fell in its history: the highest
	// prompt number and the id of the newest Stop excerpt recorded before
	// it (zero: none, or no clear). A clear starts the conversation over, so
	// SessionHistory, and the bottle reconstructed from it, leaves out
	// everything at or before them; the rows are kept.
	ClearedThroughPrompt  int       `json:"clearedThroughPrompt,omitempty"`
	ClearedThroughExcerpt uuid.UUID `json:"clearedThroughExcerpt,omitzero"`
}

// Source is how a SessionStart activated the conversation.
type Source string

// The SessionStart sources. Compact and clear are activations the service
// resolves with a heartbeat; only startup and resume are ever stored.
const (
	SourceStartup Source = "startup"
	SourceResume  Source = "resume"
	SourceCompact Source = "compact"
	SourceClear   Source = "clear"
)

// Selector is the effective briefing selector the agent read through (a kind
// and its axes). It compares canonically: key order never matters and a nil
// selector equals an empty one.
type Selector map[string]string

// Canonical returns the selector's canonical JSON form.
func (s Selector) Canonical() string {
	if len(s) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(map[string]string(s)) // map keys marshal sorted
	return string(b)
}

// Equal reports whether two selectors are canonically equal.
func (s Selector) Equal(o Selector) bool { return maps.Equal(s, o) }

// BriefedMemory is one row that survived a briefing's cut: what the agent was
// shown, so a debrief can name it.
type BriefedMemory struct {
	ID     uuid.UUID `json:"id"`
	Topic  string    `json:"topic"`
	Status string    `json:"status"`
}

// LedgerEntry is one line of the receipts ledger. Event, At, Tenant and
// Session are the envelope; Fields carries the rest and may not reuse an
// envelope key.
type LedgerEntry struct {
	ID      uuid.UUID         `json:"id"`
	Tenant  string            `json:"-"`
	Event   string            `json:"event"`
	At      time.Time         `json:"at"`
	Session string            `json:"session,omitempty"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// Ledger event names. Receipts name the provider's event in a field, never in
// the event name, so the vocabulary stays provider-neutral.
const (
	EventReceived         = "provider.event.received"
	EventFailed           = "provider.event.failed"
	EventSessionStarted   = "session.started"
	EventSessionReopened  = "session.reopened"
	EventSessionResumed   = "session.resumed"
	EventSessionResurrect = "session.resurrected"
	EventSessionClosed    = "session.closed"
	EventSessionSwept     = "session.swept"
	EventTriageArmed      = "triage.armed"
	EventTriageFinished   = "triage.finished"
	EventBottleArmed      = "bottle.armed"
	EventBottleClaimed    = "bottle.claimed"
	// EventBottleDisarmed is a marker a compaction that sealed nothing
	// consumed: no SessionStart claimed it.
	EventBottleDisarmed = "bottle.disarmed"
	// The closer's record of each pass: a claim, each commitment it
	// resolved, and how the pass ended (finished, failed and backed off, or
	// abandoned because the run was resurrected or claimed again).
	EventCloserClaimed   = "closer.claimed"
	EventCloserResolved  = "closer.resolved"
	EventCloserFinished  = "closer.finished"
	EventCloserFailed    = "closer.failed"
	EventCloserAbandoned = "closer.abandoned"
)

// envelopeKeys are the ledger envelope's own keys; a payload may not use them.
var envelopeKeys = []string{"event", "at", "tenant", "session"}

func isEnvelopeKey(k string) bool { return slices.Contains(envelopeKeys, k) }

// MemoryKind is the kind of a curated memory atom (memrule declares them).
type MemoryKind = memrule.Kind

// The memory kinds.
const (
	KindCommitment = memrule.Commitment
	KindDecision   = memrule.Decision
	KindPreference = memrule.Preference
	KindBlocker    = memrule.Blocker
	KindNote       = memrule.Note
)

// MemoryStatus is a memory's lifecycle status; memrule decides its
// transitions.
type MemoryStatus = memrule.Status

// The memory statuses.
const (
	StatusOpen     = memrule.Open
	StatusResolved = memrule.Resolved
	StatusArchived = memrule.Archived
)

// Memory is one curated atom.
type Memory struct {
	ID           uuid.UUID    `json:"id"`
	Tenant       string       `json:"-"`
	Kind         MemoryKind   `json:"kind"`
	Topic        string       `json:"topic"`
	Content      string       `json:"content"`
	Project      string       `json:"project,omitempty"`
	Scope        string       `json:"scope,omitempty"`
	Status       MemoryStatus `json:"status"`
	SupersededBy uuid.UUID    `json:"supersededBy,omitzero"`
	CreatedAt    time.Time    `json:"createdAt"`
	UpdatedAt    time.Time    `json:"updatedAt"`
	// Due is when an open commitment or blocker is due; nil when it has no
	// due date. Past it, the briefing lists the item as overdue.
	Due *time.Time `json:"due,omitempty"`
}

// EventKind is the kind of a memory audit event (memrule declares them).
type EventKind = memrule.Event

// The audit event kinds.
const (
	EventCreate    = memrule.Create
	EventSupersede = memrule.Supersede
	EventResolve   = memrule.Resolve
	EventUnresolve = memrule.Unresolve
	EventArchive   = memrule.Archive
	EventImport    = memrule.Import
)

// ActorKind names the transport that made a write. Session provenance is
// never an actor kind.
type ActorKind string

// The actor kinds.
const (
	ActorUserCLI ActorKind = "user_cli"
	ActorUserAPI ActorKind = "user_api"
	ActorWorker  ActorKind = "worker"
)

// MemoryEvent is one audit event. SessionRunID is the write-time provenance
// (uuid.Nil when the write was unattributed).
type MemoryEvent struct {
	ID           uuid.UUID `json:"id"`
	Tenant       string    `json:"-"`
	MemoryID     uuid.UUID `json:"memoryId"`
	Kind         EventKind `json:"eventKind"`
	ActorKind    ActorKind `json:"actorKind"`
	SessionRunID uuid.UUID `json:"sessionRunId,omitzero"`
	CreatedAt    time.Time `json:"createdAt"`
}

// MemoryQuery selects memories. Empty fields (a zero time included) match
// anything; Project and Scope, when set, match that facet or memories
// without one. The time bounds are half-open: "before" excludes the instant,
// "since" includes it, so a Before and a Since at one instant partition rows.
type MemoryQuery struct {
	Kinds    []MemoryKind
	Statuses []MemoryStatus
	Project  string
	Scope    string
	// UpdatedBefore matches memories last updated before the instant.
	UpdatedBefore time.Time
	// UpdatedSince matches memories last updated at or after the instant.
	UpdatedSince time.Time
	// DueBefore matches memories with a due date before the instant.
	DueBefore time.Time
	// NotDueBefore matches memories with no due date or one at or after
	// the instant: the complement of DueBefore.
	NotDueBefore time.Time
	Limit        int
}

// BottleMarker is the armed pointer to a conversation's bottle: SessionStart
// claims it exactly once and injects a pointer to Path. It is keyed by the
// conversation's natural key (tenant, agent, session id).
type BottleMarker struct {
	Tenant    string `json:"-"`
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Mode      string `json:"mode"`
	Gap       int    `json:"gap"`
	// Task is the conversation's one-line current task when it was sealed.
	Task       string     `json:"task,omitempty"`
	ArmedAt    time.Time  `json:"armedAt"`
	ConsumedAt *time.Time `json:"consumedAt,omitempty"`
}

// Prompt is one user prompt kept for degraded bottles, privacy filtered and
// capped; Truncated says the cap cut it.
type Prompt struct {
	ID        uuid.UUID `json:"id"`
	Tenant    string    `json:"-"`
	Agent     string    `json:"agent"`
	SessionID string    `json:"sessionId"`
	Number    int       `json:"number"`
	Text      string    `json:"text"`
	Truncated bool      `json:"truncated"`
	At        time.Time `json:"at"`
}

// StopExcerpt is the last assistant message a Stop carried, kept for degraded
// bottles.
type StopExcerpt struct {
	ID        uuid.UUID `json:"id"`
	Tenant    string    `json:"-"`
	Agent     string    `json:"agent"`
	SessionID string    `json:"sessionId"`
	Text      string    `json:"text"`
	// Truncated says the message was longer than MaxExcerptLen and Text
	// holds its first MaxExcerptLen characters.
	Truncated bool      `json:"truncated"`
	At        time.Time `json:"at"`
	// PromptNumber is the turn the Stop ended: the conversation's newest
	// prompt number when the excerpt was written (0 before any prompt),
	// which the store reads as it writes the excerpt. The turn is told by
	// the order of the writes, not by At, which a clock stepped back (or
	// another replica's) may stamp before the prompt's. Nil on a row
	// written before baton recorded it: such a row pairs by time.
	PromptNumber *int `json:"promptNumber,omitempty"`
	// Seq is the excerpt's place in the order its conversation's excerpts
	// were written (1 the first), which the store assigns as it inserts
	// the excerpt, whatever the clocks stamped (At) or the id says; an
	// insert given one keeps it (an import's replay). 0 on a row written
	// before baton numbered them: such rows order by id, before every
	// numbered one.
	Seq int `json:"seq,omitempty"`
}
