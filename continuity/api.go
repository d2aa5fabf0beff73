package continuity

import (
	"context"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// API is baton's domain API for one tenant: everything an adapter calls.
// The tenant is bound when an implementation is made, never passed per
// call: Service.For binds it from the caller's authentication, the HTTP
// client from its API key. The hook CLI, the HTTP handler and the baton
// command are adapters over it, and the scenario suite
// (storetest.RunScenarios) runs through every implementation.
//
// Each hook event is one method (SessionStart, UserPrompt, Stop,
// PreCompact, SessionEnd) that records its receipt first and its failure
// after, so an adapter makes one call per event; Episodes runs the part
// of each event that reads the local transcript around that call.
//
// Errors: every method returns *Error values with baton's codes.
type API interface {
	// SessionStart answers a SessionStart of any source: startup
	// (briefing, open with the rows that survived the cut, the newest
	// handover), resume (reopen, claim the bottle marker, else a
	// briefing), compact (recover the run id, count the compaction, claim
	// the marker, else a briefing), clear (probe; the bottle is archived
	// and never injected, and what was recorded before it is left out of
	// the conversation's history). Errors: invalid, conflict, and what the
	// lifecycle step returns (the receipt and its failure are recorded).
	SessionStart(ctx context.Context, p StartParams) (StartResult, error)
	// UserPrompt records the privacy-filtered, bounded prompt for
	// reconstructed bottles.
	UserPrompt(ctx context.Context, p PromptParams) (PromptEventResult, error)
	// Stop heartbeats with the bounded last message, keeps the Stop
	// excerpt and, when p.Nudge is set, runs the triage handshake.
	// Errors: invalid, not_found (Stop never creates a row).
	Stop(ctx context.Context, p StopParams) (StopResult, error)
	// PreCompact arms the sealed bottle's marker and writes a checkpoint.
	PreCompact(ctx context.Context, p PreCompactParams) (PreCompactResult, error)
	// SessionEnd closes the conversation by natural key within p's budget
	// and writes a handover.
	SessionEnd(ctx context.Context, p EndParams) (EndResult, error)
	// RecordFailure records that the local half of an event whose receipt
	// an episode method already appended failed afterwards: not_found when
	// the tenant's ledger keeps no such receipt of that event.
	RecordFailure(ctx context.Context, p FailureParams) error

	// Open, Heartbeat, Close, Session: the lifecycle primitives the
	// episode methods compose (see the Service methods of the same name).
	Open(ctx context.Context, p OpenParams) (OpenResult, error)
	Heartbeat(ctx context.Context, p HeartbeatParams) (HeartbeatResult, error)
	Close(ctx context.Context, p CloseParams) (CloseResult, error)
	Session(ctx context.Context, agent, sessionID string) (SessionView, error)
	TriageBegin(ctx context.Context, p TriageParams) (TriageBeginResult, error)
	TriageComplete(ctx context.Context, p TriageCompleteParams) (TriageCompleteResult, error)
	Debrief(ctx context.Context, p DebriefParams) (string, error)

	// Remember, Revise, Resolve, Unresolve, Archive, Import, Memory: the
	// curated memory and its write-time provenance.
	Remember(ctx context.Context, p RememberParams) (WriteResult, error)
	Revise(ctx context.Context, id string, p ReviseParams) (WriteResult, error)
	Resolve(ctx context.Context, id string, p TransitionParams) (WriteResult, error)
	Unresolve(ctx context.Context, id string, p TransitionParams) (WriteResult, error)
	Archive(ctx context.Context, id string, p TransitionParams) (WriteResult, error)
	Import(ctx context.Context, p ImportParams, actor ActorKind) (WriteResult, error)
	Memory(ctx context.Context, id string) (Memory, error)
	Briefing(ctx context.Context, p BriefingParams) (Briefing, error)
	RunEvents(ctx context.Context, runID, cursor string, limit int) (provenance.Page, error)
	Records(ctx context.Context, q RecordQuery) ([]Record, error)

	// AppendReceipt and Ledger: the receipts ledger.
	AppendReceipt(ctx context.Context, p ReceiptParams) (uuid.UUID, error)
	Ledger(ctx context.Context, after uuid.UUID, limit int) ([]LedgerEntry, error)

	// ArmBottle, ClaimBottle, SessionHistory, RecordPrompt: the bottle's
	// marker and history, per agent (BottlesOf binds one agent for a
	// bottle.Bottler).
	ArmBottle(ctx context.Context, agent string, m bottle.Marker) error
	ClaimBottle(ctx context.Context, agent, sessionID string) (bottle.Marker, bool, error)
	SessionHistory(ctx context.Context, agent, sessionID string) (bottle.Record, error)
	RecordPrompt(ctx context.Context, agent, sessionID, text string) (PromptResult, error)

	// Doctor reports whether what lifecycle events derive is being
	// written (see Service.Doctor). Errors: internal.
	Doctor(ctx context.Context) (DoctorReport, error)
	// Sessions lists conversations with their lease state, newest first:
	// the status page's listing. Errors: invalid.
	Sessions(ctx context.Context, q SessionQuery) ([]SessionView, error)
	// SessionLedger reads the ledger lines of one session id, oldest
	// first: a conversation's timeline. Errors: invalid.
	SessionLedger(ctx context.Context, sessionID string, after uuid.UUID, limit int) ([]LedgerEntry, error)
}

// Local is the API of one tenant over a Service: the local implementation.
type Local struct {
	svc    *Service
	tenant string
}

var _ API = (*Local)(nil)

// For returns the API bound to tenant, which the caller's authentication
// decided. The tenant is validated on every call, as every input is.
func (s *Service) For(tenant string) *Local { return &Local{svc: s, tenant: tenant} }

// Tenant returns the tenant the API is bound to.
func (l *Local) Tenant() string { return l.tenant }

// SessionStart implements API.
func (l *Local) SessionStart(ctx context.Context, p StartParams) (StartResult, error) {
	return l.svc.SessionStart(ctx, l.tenant, p)
}

// UserPrompt implements API.
func (l *Local) UserPrompt(ctx context.Context, p PromptParams) (PromptEventResult, error) {
	return l.svc.UserPrompt(ctx, l.tenant, p)
}

// Stop implements API.
func (l *Local) Stop(ctx context.Context, p StopParams) (StopResult, error) {
	return l.svc.Stop(ctx, l.tenant, p)
}

// PreCompact implements API.
func (l *Local) PreCompact(ctx context.Context, p PreCompactParams) (PreCompactResult, error) {
	return l.svc.PreCompact(ctx, l.tenant, p)
}

// SessionEnd implements API.
func (l *Local) SessionEnd(ctx context.Context, p EndParams) (EndResult, error) {
	return l.svc.SessionEnd(ctx, l.tenant, p)
}

// RecordFailure implements API.
func (l *Local) RecordFailure(ctx context.Context, p FailureParams) error {
	return l.svc.RecordFailure(ctx, l.tenant, p)
}

// Open implements API.
func (l *Local) Open(ctx context.Context, p OpenParams) (OpenResult, error) {
	return l.svc.Open(ctx, l.tenant, p)
}

// Heartbeat implements API.
func (l *Local) Heartbeat(ctx context.Context, p HeartbeatParams) (HeartbeatResult, error) {
	return l.svc.Heartbeat(ctx, l.tenant, p)
}

// Close implements API.
func (l *Local) Close(ctx context.Context, p CloseParams) (CloseResult, error) {
	return l.svc.Close(ctx, l.tenant, p)
}

// Session implements API.
func (l *Local) Session(ctx context.Context, agent, sessionID string) (SessionView, error) {
	return l.svc.Session(ctx, l.tenant, agent, sessionID)
}

// TriageBegin implements API.
func (l *Local) TriageBegin(ctx context.Context, p TriageParams) (TriageBeginResult, error) {
	return l.svc.TriageBegin(ctx, l.tenant, p)
}

// TriageComplete implements API.
func (l *Local) TriageComplete(ctx context.Context, p TriageCompleteParams) (TriageCompleteResult, error) {
	return l.svc.TriageComplete(ctx, l.tenant, p)
}

// Debrief implements API.
func (l *Local) Debrief(ctx context.Context, p DebriefParams) (string, error) {
	return l.svc.Debrief(ctx, l.tenant, p)
}

// Remember implements API.
func (l *Local) Remember(ctx context.Context, p RememberParams) (WriteResult, error) {
	return l.svc.Remember(ctx, l.tenant, p)
}

// Revise implements API.
func (l *Local) Revise(ctx context.Context, id string, p ReviseParams) (WriteResult, error) {
	return l.svc.Revise(ctx, l.tenant, id, p)
}

// Resolve implements API.
func (l *Local) Resolve(ctx context.Context, id string, p TransitionParams) (WriteResult, error) {
	return l.svc.Resolve(ctx, l.tenant, id, p)
}

// Unresolve implements API.
func (l *Local) Unresolve(ctx context.Context, id string, p TransitionParams) (WriteResult, error) {
	return l.svc.Unresolve(ctx, l.tenant, id, p)
}

// Archive implements API.
func (l *Local) Archive(ctx context.Context, id string, p TransitionParams) (WriteResult, error) {
	return l.svc.Archive(ctx, l.tenant, id, p)
}

// Import implements API.
func (l *Local) Import(ctx context.Context, p ImportParams, actor ActorKind) (WriteResult, error) {
	return l.svc.Import(ctx, l.tenant, p, actor)
}

// Memory implements API.
func (l *Local) Memory(ctx context.Context, id string) (Memory, error) {
	return l.svc.Memory(ctx, l.tenant, id)
}

// Briefing implements API.
func (l *Local) Briefing(ctx context.Context, p BriefingParams) (Briefing, error) {
	return l.svc.Briefing(ctx, l.tenant, p)
}

// RunEvents implements API.
func (l *Local) RunEvents(ctx context.Context, runID, cursor string, limit int) (provenance.Page, error) {
	return l.svc.RunEvents(ctx, l.tenant, runID, cursor, limit)
}

// Records implements API.
func (l *Local) Records(ctx context.Context, q RecordQuery) ([]Record, error) {
	return l.svc.Records(ctx, l.tenant, q)
}

// AppendReceipt implements API.
func (l *Local) AppendReceipt(ctx context.Context, p ReceiptParams) (uuid.UUID, error) {
	return l.svc.AppendReceipt(ctx, l.tenant, p)
}

// Ledger implements API.
func (l *Local) Ledger(ctx context.Context, after uuid.UUID, limit int) ([]LedgerEntry, error) {
	return l.svc.Ledger(ctx, l.tenant, after, limit)
}

// ArmBottle implements API.
func (l *Local) ArmBottle(ctx context.Context, agent string, m bottle.Marker) error {
	return l.svc.ArmBottle(ctx, l.tenant, agent, m)
}

// ClaimBottle implements API.
func (l *Local) ClaimBottle(ctx context.Context, agent, sessionID string) (bottle.Marker, bool, error) {
	return l.svc.ClaimBottle(ctx, l.tenant, agent, sessionID)
}

// SessionHistory implements API.
func (l *Local) SessionHistory(ctx context.Context, agent, sessionID string) (bottle.Record, error) {
	return l.svc.SessionHistory(ctx, l.tenant, agent, sessionID)
}

// RecordPrompt implements API.
func (l *Local) RecordPrompt(ctx context.Context, agent, sessionID, text string) (PromptResult, error) {
	return l.svc.RecordPrompt(ctx, l.tenant, agent, sessionID, text)
}

// Doctor implements API.
func (l *Local) Doctor(ctx context.Context) (DoctorReport, error) {
	return l.svc.Doctor(ctx, l.tenant)
}
