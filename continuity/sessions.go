package continuity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// OpenParams opens a conversation at SessionStart (startup or resume).
type OpenParams struct {
	Agent     string   `json:"agent"`
	SessionID string   `json:"sessionId"`
	Source    Source   `json:"source"`
	Project   string   `json:"project,omitempty"`
	Scope     string   `json:"scope,omitempty"`
	Selector  Selector `json:"selector,omitempty"`
	// BriefedMemories are the rows that survived the briefing's cut. Nil
	// means no briefing was delivered, so briefing_delivered_at stays unset;
	// an empty, non-nil slice means an empty briefing was delivered. On the
	// wire nil is absent and empty is [] (omitzero), so the two stay apart.
	BriefedMemories []BriefedMemory `json:"briefedMemories,omitzero"`

	// takeUp makes the open a compact's take-up of a conversation baton
	// never saw open (hooks installed mid-session): insert-only. No row:
	// insert it, at epoch 1, as a resume does. A row (a concurrent start
	// inserted it since the compact found none): change nothing and
	// answer it, not created, so the caller compacts it. It never starts
	// an activation: a take-up racing another, or a startup, cannot push
	// a conversation's first row past epoch 1.
	takeUp bool
}

// OpenResult is the row after an open.
type OpenResult struct {
	SessionRunID        uuid.UUID  `json:"sessionRunId"`
	ActivationEpoch     int        `json:"activationEpoch"`
	Source              Source     `json:"source"`
	Created             bool       `json:"created"`
	Reopened            bool       `json:"reopened"`
	OpenedAt            time.Time  `json:"openedAt"`
	LastSeenAt          time.Time  `json:"lastSeenAt"`
	BriefingDeliveredAt *time.Time `json:"briefingDeliveredAt,omitempty"`
}

// MaxStopExcerpts bounds the Stop excerpts read per conversation for
// degraded bottles: the newest are read.
const MaxStopExcerpts = 200

// ExcerptTrimEvery is how often a conversation's stored excerpts are cut
// back to its newest MaxStopExcerpts: on every ExcerptTrimEvery-th Stop
// past the bound rather than on each, so a Stop's heartbeat seldom
// deletes. A conversation whose every Stop carries an excerpt holds at
// most MaxStopExcerpts+ExcerptTrimEvery-1 of them between trims.
const ExcerptTrimEvery = 20

// MaxBriefedMemories bounds the briefed rows a session records.
const MaxBriefedMemories = 100

func (p *OpenParams) normalize(tenant string) (string, error) {
	tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
	f := ErrorFields(err)
	if f == nil {
		f = map[string]string{}
	}
	p.Agent, p.SessionID = agent, sid
	oneOf(f, "source", string(p.Source), string(SourceStartup), string(SourceResume))
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	checkSelector(f, "selector", p.Selector)
	// A copy: the topics are filtered here, and the caller's slice is the
	// caller's.
	p.BriefedMemories = checkBriefed(f, "", slices.Clone(p.BriefedMemories), textRule.take)
	return tenant, fieldsErr(f)
}

// checkSelector records why sel, a session's selector, breaks its bounds.
func checkSelector(f map[string]string, name string, sel Selector) {
	if len(sel) > MaxSelectorAxes {
		f[name] = "must have at most " + strconv.Itoa(MaxSelectorAxes) + " axes"
	}
	for k, v := range sel {
		if !checkText(f, name, k) || !checkText(f, name, v) {
			continue
		}
		if k == "" || utf8.RuneCountInString(k) > MaxFacetLen || utf8.RuneCountInString(v) > MaxFacetLen {
			f[name] = "keys must be 1-" + strconv.Itoa(MaxFacetLen) + " characters and values at most " + strconv.Itoa(MaxFacetLen)
		}
	}
}

// checkBriefed applies the rules of a session's briefed rows, named under
// prefix, to briefed (in place) and returns it: at most MaxBriefedMemories,
// each with an id, a topic privacy filtered as a memory's is, and a memory
// status.
func checkBriefed(f map[string]string, prefix string, briefed []BriefedMemory, text textCheck) []BriefedMemory {
	if len(briefed) > MaxBriefedMemories {
		f[prefix+"briefedMemories"] = "must hold at most " + strconv.Itoa(MaxBriefedMemories) + " rows"
	}
	for i, b := range briefed {
		name := prefix + "briefedMemories[" + strconv.Itoa(i) + "]"
		if b.ID == uuid.Nil {
			f[name+".id"] = "is required"
		}
		briefed[i].Topic = text(taskText, f, name+".topic", b.Topic)
		oneOf(f, name+".status", b.Status, statusNames...)
	}
	return briefed
}

// Open opens a conversation by its natural key. What it does is
// lease.Activate's decision; Open reads the row and applies it:
//
//   - startup, no row: insert at epoch 1. Any existing row: the natural key
//     is the request token, so a startup carrying a different project,
//     scope or selector is conflict whatever the row's state (a recycled
//     conversation id collides instead of taking the row over). With the
//     same values: a live row is a retry that heartbeats and changes nothing
//     else; a closed or lapsed row starts a new activation: epoch+1, the
//     briefing fields restamped, the triage handshake back to idle (an
//     overflowed row stays overflowed) and the activation's Stop count and
//     start time restarted, so its first Stop cannot nudge on Stops or
//     time of the activation before (untriaged provenance still arms it).
//   - resume, no row: insert. Live: a new activation (epoch+1) and a
//     heartbeat. Closed or lapsed: reopen, epoch+1. Resume never compares
//     params and never restamps the briefing fields.
//
// Errors: invalid, conflict.
func (s *Service) Open(ctx context.Context, tenant string, p OpenParams) (OpenResult, error) {
	tenant, err := p.normalize(tenant)
	if err != nil {
		return OpenResult{}, err
	}
	for attempt := 1; ; attempt++ {
		res, err := s.open(ctx, tenant, p)
		if !errors.Is(err, errOpenRaced) {
			return res, err
		}
		if attempt == maxOpenAttempts {
			return OpenResult{}, &Error{Code: CodeInternal, Message: "the session row kept changing under the open", Err: err}
		}
	}
}

// errOpenRaced says a concurrent open inserted the row after this open's
// transaction read that there was none: the transaction holds the lock of
// the project it was asked for, not the row's. Taking the row's project
// lock then (after the row's lock) would invert the lock order, project
// then row, and deadlock against the opens that took them in order; the
// open runs again instead, in a new transaction that reads the row's
// project first. On SQLite writers never overlap, so it never happens.
var errOpenRaced = errors.New("continuity: a concurrent open inserted the session row")

// maxOpenAttempts bounds the opens one Open runs: a second finds the row
// (its project never changes), so only an erase racing it needs a third.
const maxOpenAttempts = 3

// open is one attempt of Open, in one transaction.
func (s *Service) open(ctx context.Context, tenant string, p OpenParams) (OpenResult, error) {
	var res OpenResult
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		// Opening changes the set of leased-open sessions an id-less write
		// attributes against, so it takes the same per-project lock: the
		// row's own project when the row exists (it never changes), the
		// requested one for an insert.
		project, err := tx.ProjectByKey(ctx, p.Agent, p.SessionID)
		switch ErrorCode(err) {
		case "":
		case CodeNotFound:
			project = p.Project
		default:
			return err
		}
		if err := tx.LockProject(ctx, project); err != nil {
			return err
		}
		row, err := tx.SessionByKey(ctx, p.Agent, p.SessionID)
		found := err == nil
		if !found && ErrorCode(err) != CodeNotFound {
			return err
		}
		a := lease.Activation{Source: p.Source.lease(), Found: found}
		if found {
			if row.Project != project {
				// Inserted by a concurrent open between the two reads,
				// under another project than the one locked.
				return errOpenRaced
			}
			if p.takeUp {
				res = openResult(row, false, false)
				return nil
			}
			a.State = s.state(row, now)
			a.SameValues = row.Project == p.Project && row.Scope == p.Scope && row.Selector.Equal(p.Selector)
		}
		action, event := lease.Activate(a), ""
		switch action {
		case lease.Insert:
			row = &Session{
				ID: s.newID(), Tenant: tenant, Agent: p.Agent, SessionID: p.SessionID,
				Source: p.Source, OpenedAt: now, LastSeenAt: now, ActivatedAt: now, ActivationEpoch: 1,
				TriageStatus: string(triage.Idle),
			}
			if p.Source == SourceStartup {
				stampBriefing(row, p, now)
			} else {
				row.Project, row.Scope, row.Selector = p.Project, p.Scope, p.Selector
			}
			if p.takeUp {
				// The selector a startup with these facets reads through,
				// so that a startup racing the take-up is its retry, not
				// the conflict of different values.
				row.Selector = selectorFor(BriefingParams{Project: p.Project, Scope: p.Scope})
			}
			if err := tx.InsertSession(ctx, row); err != nil {
				if ErrorCode(err) == CodeConflict {
					// A concurrent open inserted the row first: the next
					// attempt decides against it.
					return fmt.Errorf("%w: %w", errOpenRaced, err)
				}
				return err
			}
			ev := EventSessionStarted
			if p.Source == SourceResume {
				ev = EventSessionResumed
			}
			res = openResult(row, true, false)
			return tx.AppendLedger(ctx, s.ledgerKeep, s.entry(ev, now, row, map[string]string{"source": string(p.Source), "epoch": "1"}))
		case lease.Conflict:
			return &Error{Code: CodeConflict, Message: "a session with this key was opened with a different project, scope or selector"}
		case lease.Retry:
			row.LastSeenAt = lease.Floor(row.LastSeenAt, now)
		case lease.Restart:
			activate(row, now)
			row.Source = SourceStartup
			stampBriefing(row, p, now)
			if st := triage.Status(row.TriageStatus); st != triage.Overflowed {
				row.TriageStatus, row.TriageAttemptID = string(triage.Idle), uuid.Nil
			}
			event = EventSessionReopened
		case lease.Resume, lease.Reopen:
			activate(row, now)
			row.Source = SourceResume
			event = EventSessionResumed
		}
		reopened := action.Reopens()
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		res = openResult(row, false, reopened)
		if event == "" {
			return nil
		}
		return tx.AppendLedger(ctx, s.ledgerKeep, s.entry(event, now, row, map[string]string{
			"source": string(p.Source), "epoch": strconv.Itoa(row.ActivationEpoch), "reopened": strconv.FormatBool(reopened),
		}))
	})
	return res, err
}

// lease is the source as the lease's open matrix names it; normalize admits
// only startup and resume to an open.
func (src Source) lease() lease.Source {
	if src == SourceResume {
		return lease.SourceResume
	}
	return lease.SourceStartup
}

// activate starts a new activation of the row: it clears closed_at, bumps
// the epoch (the closer's fence), floors last_seen_at, and restarts the
// per-activation Stop count and start time the triage debounce reads.
func activate(row *Session, now time.Time) {
	row.ClosedAt = nil
	row.ActivationEpoch++
	row.LastSeenAt = lease.Floor(row.LastSeenAt, now)
	row.ActivatedAt = now
	row.ActivationStops = 0
	// A live row has nothing for the closer; its next close stamps it anew.
	row.CloserNextAt, row.CloserFailures = nil, 0
}

// closeRow stamps closed_at at now and when the closer may take the row.
func (s *Service) closeRow(row *Session, now time.Time) {
	t := now
	row.ClosedAt = &t
	due, _ := s.lease.CloserDue(lease.Row{LastSeenAt: row.LastSeenAt, ClosedAt: row.ClosedAt})
	row.CloserNextAt, row.CloserFailures = &due, 0
}

// lockSession takes, in the one order every lifecycle write uses, the
// project lock of the row with the natural key and then the row itself.
// A heartbeat may resurrect and a close may end the row, which changes the
// set of leased-open sessions an id-less write attributes against: holding
// the project lock serializes that with the attach decision.
func lockSession(ctx context.Context, tx Tx, agent, sid string) (*Session, error) {
	project, err := tx.ProjectByKey(ctx, agent, sid)
	if err != nil {
		return nil, err
	}
	if err := tx.LockProject(ctx, project); err != nil {
		return nil, err
	}
	return tx.SessionByKey(ctx, agent, sid)
}

func stampBriefing(row *Session, p OpenParams, now time.Time) {
	row.Project, row.Scope, row.Selector = p.Project, p.Scope, p.Selector
	if p.BriefedMemories == nil {
		row.BriefingDeliveredAt = nil
		row.BriefedMemories = nil
		return
	}
	t := now
	row.BriefingDeliveredAt = &t
	row.BriefedMemories = append([]BriefedMemory{}, p.BriefedMemories...)
}

func openResult(row *Session, created, reopened bool) OpenResult {
	return OpenResult{
		SessionRunID: row.ID, ActivationEpoch: row.ActivationEpoch, Source: row.Source,
		Created: created, Reopened: reopened, OpenedAt: row.OpenedAt, LastSeenAt: row.LastSeenAt,
		BriefingDeliveredAt: row.BriefingDeliveredAt,
	}
}

// HeartbeatParams refreshes a conversation's lease, typically at every Stop.
type HeartbeatParams struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	// LastMessageExcerpt, when set, replaces the bounded excerpt of the
	// last assistant message. A message longer than MaxExcerptLen
	// characters is cut to its first MaxExcerptLen and flagged truncated:
	// the heartbeat it rides on is never refused for its length.
	LastMessageExcerpt *string `json:"lastMessageExcerpt,omitempty"`
	// Stop counts this heartbeat as a Stop.
	Stop bool `json:"stop,omitempty"`
}

// HeartbeatResult is the row after a heartbeat.
type HeartbeatResult struct {
	SessionRunID    uuid.UUID `json:"sessionRunId"`
	ActivationEpoch int       `json:"activationEpoch"`
	LastSeenAt      time.Time `json:"lastSeenAt"`
	Resurrected     bool      `json:"resurrected"`
	// ExcerptTruncated says the excerpt was cut at MaxExcerptLen.
	ExcerptTruncated bool `json:"excerptTruncated,omitempty"`
}

// Heartbeat floors last_seen_at to now, records the excerpt and counts a
// Stop. A closed or lapsed row is resurrected: closed_at cleared, epoch+1.
// Heartbeat never creates a row.
//
// Errors: invalid, not_found.
func (s *Service) Heartbeat(ctx context.Context, tenant string, p HeartbeatParams) (HeartbeatResult, error) {
	return s.heartbeat(ctx, tenant, p, false)
}

// excerpt privacy-filters a last assistant message and cuts it to
// MaxExcerptLen characters, reporting whether it cut.
func excerpt(text string) (string, bool) {
	return excerptText.keep(text)
}

func (s *Service) heartbeat(ctx context.Context, tenant string, p HeartbeatParams, compact bool) (HeartbeatResult, error) {
	tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
	f := ErrorFields(err)
	if f == nil {
		f = map[string]string{}
	}
	if p.LastMessageExcerpt != nil {
		// Its length is bounded by cutting it; its encoding is checked.
		checkText(f, "lastMessageExcerpt", *p.LastMessageExcerpt)
	}
	if err := fieldsErr(f); err != nil {
		return HeartbeatResult{}, err
	}
	var text *string
	truncated := false
	if p.LastMessageExcerpt != nil {
		var cut string
		cut, truncated = excerpt(*p.LastMessageExcerpt)
		text = &cut
	}
	// Each Stop's excerpt is kept for degraded bottles; only a Stop with
	// a non-empty one inserts it.
	newExcerpt := func(at time.Time) *StopExcerpt {
		if !p.Stop || text == nil || *text == "" {
			return nil
		}
		return &StopExcerpt{ID: s.newID(), Tenant: tenant, Agent: agent, SessionID: sid, Text: *text, Truncated: truncated, At: at}
	}
	// A live row's heartbeat is one statement of its own and takes no
	// project lock: it leaves the project's leased-open set as it was.
	now := s.clock()
	touch := SessionTouch{Agent: agent, SessionID: sid, Now: now, LiveAfter: s.lease.LiveAfter(now),
		Excerpt: text, Stop: p.Stop, Compact: compact, StopExcerpt: newExcerpt(now),
		KeepExcerpts: MaxStopExcerpts, TrimEvery: ExcerptTrimEvery}
	row, err := s.store.TouchLive(ctx, tenant, touch)
	if err != nil {
		return HeartbeatResult{}, err
	}
	if row != nil {
		return HeartbeatResult{SessionRunID: row.ID, ActivationEpoch: row.ActivationEpoch, LastSeenAt: row.LastSeenAt,
			ExcerptTruncated: truncated}, nil
	}
	// Closed, lapsed or absent: the project lock, then the row, and the
	// heartbeat resurrects it.
	var res HeartbeatResult
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		row, err := lockSession(ctx, tx, agent, sid)
		if err != nil {
			return err
		}
		resurrected := true
		if s.state(row, now) == lease.Live {
			// Made live since the touch by another writer (a concurrent
			// resurrection or resume): floor it, as a live heartbeat does.
			resurrected = false
			row.LastSeenAt = lease.Floor(row.LastSeenAt, now)
		} else {
			activate(row, now)
		}
		if text != nil {
			row.LastMessageExcerpt = *text
		}
		if p.Stop {
			row.StopCount++
			row.ActivationStops++
		}
		if compact {
			row.Compactions++
		}
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		if e := newExcerpt(now); e != nil {
			// The turn the Stop ended, as TouchLive reads it: the newest
			// prompt written before it, whatever the clocks stamped.
			last, _, err := tx.LastPrompt(ctx, agent, sid)
			if err != nil {
				return err
			}
			e.PromptNumber = &last.Number
			if err := tx.InsertStopExcerpt(ctx, touch.ExcerptKeep(row.StopCount), e); err != nil {
				return err
			}
		}
		res = HeartbeatResult{SessionRunID: row.ID, ActivationEpoch: row.ActivationEpoch, LastSeenAt: row.LastSeenAt,
			Resurrected: resurrected, ExcerptTruncated: truncated}
		if !resurrected {
			return nil
		}
		return tx.AppendLedger(ctx, s.ledgerKeep, s.entry(EventSessionResurrect, now, row, map[string]string{
			"epoch": strconv.Itoa(row.ActivationEpoch), "by": "heartbeat",
		}))
	})
	return res, err
}

// CloseParams closes a conversation at SessionEnd.
type CloseParams struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
}

// CloseResult is the row after a close.
type CloseResult struct {
	SessionRunID    uuid.UUID `json:"sessionRunId"`
	ActivationEpoch int       `json:"activationEpoch"`
	ClosedAt        time.Time `json:"closedAt"`
	AlreadyClosed   bool      `json:"alreadyClosed"`
}

// Close stamps closed_at = now by natural key. It never touches
// last_seen_at or the epoch, and never clears the excerpt; a second close
// answers AlreadyClosed with the first close's time.
//
// Errors: invalid, not_found.
func (s *Service) Close(ctx context.Context, tenant string, p CloseParams) (CloseResult, error) {
	tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
	if err != nil {
		return CloseResult{}, err
	}
	var res CloseResult
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		_, res, err = s.closeIn(ctx, tx, agent, sid, s.clock())
		return err
	})
	return res, err
}

// closeIn is Close inside tx: it locks the row (project, then row) and
// holds it until tx ends, and returns the row as closed.
func (s *Service) closeIn(ctx context.Context, tx Tx, agent, sid string, now time.Time) (*Session, CloseResult, error) {
	row, err := lockSession(ctx, tx, agent, sid)
	if err != nil {
		return nil, CloseResult{}, err
	}
	if row.ClosedAt != nil {
		return row, CloseResult{SessionRunID: row.ID, ActivationEpoch: row.ActivationEpoch, ClosedAt: *row.ClosedAt, AlreadyClosed: true}, nil
	}
	s.closeRow(row, now)
	if err := tx.UpdateSession(ctx, row); err != nil {
		return nil, CloseResult{}, err
	}
	res := CloseResult{SessionRunID: row.ID, ActivationEpoch: row.ActivationEpoch, ClosedAt: now}
	return row, res, tx.AppendLedger(ctx, s.ledgerKeep, s.entry(EventSessionClosed, now, row, map[string]string{
		"epoch": strconv.Itoa(row.ActivationEpoch), "explicit": strconv.FormatBool(s.lease.ExplicitlyClosed(lease.Row{LastSeenAt: row.LastSeenAt, ClosedAt: row.ClosedAt})),
	}))
}

// Compact recovers the sessionRunId after a compaction: a heartbeat, so the
// epoch is unchanged on a live row and the briefing fields are untouched. It
// also counts the compaction, which a bottle shows as its legs.
//
// Errors: invalid, not_found.
func (s *Service) Compact(ctx context.Context, tenant string, p HeartbeatParams) (HeartbeatResult, error) {
	return s.heartbeat(ctx, tenant, p, true)
}

// ClearResult is the outcome of a /clear activation.
type ClearResult struct {
	SessionRunID    uuid.UUID `json:"sessionRunId"`
	ActivationEpoch int       `json:"activationEpoch"`
	// Started says the probe found no row, so the clear opened one as a
	// startup.
	Started bool `json:"started"`
	// Resurrected says the probe found the row closed or lapsed and
	// resurrected it (epoch+1).
	Resurrected bool `json:"resurrected,omitempty"`
}

// Clear resolves a /clear against the store: a heartbeat probe; not_found
// makes it a startup open, found ends it there (the probe already returned
// the run id and floored the lease). Any other error is returned as is and
// must not be guessed as a startup.
//
// Errors: invalid, conflict, internal.
func (s *Service) Clear(ctx context.Context, tenant string, p OpenParams) (ClearResult, error) {
	// The whole input is checked before the probe: a probe that finds the
	// row ends the clear, and must not let the rest of a bad input pass.
	p.Source = SourceStartup
	if _, err := p.normalize(tenant); err != nil {
		return ClearResult{}, err
	}
	hb, err := s.Heartbeat(ctx, tenant, HeartbeatParams{Agent: p.Agent, SessionID: p.SessionID})
	if err == nil {
		return ClearResult{SessionRunID: hb.SessionRunID, ActivationEpoch: hb.ActivationEpoch, Resurrected: hb.Resurrected}, nil
	}
	if ErrorCode(err) != CodeNotFound {
		return ClearResult{}, err
	}
	op, err := s.Open(ctx, tenant, p)
	if err != nil {
		return ClearResult{}, err
	}
	return ClearResult{SessionRunID: op.SessionRunID, ActivationEpoch: op.ActivationEpoch, Started: true}, nil
}

// SessionView is a read-only snapshot of a row and its lease state. On the
// wire the row's fields and "state" (the state's name) share one object.
type SessionView struct {
	Session
	State lease.State `json:"state"`
}

// Session returns the row for the natural key and its lease state at now.
//
// Errors: invalid, not_found.
func (s *Service) Session(ctx context.Context, tenant, agent, sessionID string) (SessionView, error) {
	tenant, agent, sessionID, err := sessionKey(tenant, agent, sessionID)
	if err != nil {
		return SessionView{}, err
	}
	var v SessionView
	err = s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		row, err := tx.SessionByKey(ctx, agent, sessionID)
		if err != nil {
			return err
		}
		v = SessionView{Session: *row, State: s.state(row, s.clock())}
		return nil
	})
	return v, err
}

// ParseMemoryStatus parses a memory status.
func ParseMemoryStatus(s string) (MemoryStatus, error) {
	if slices.Contains(memrule.Statuses, MemoryStatus(s)) {
		return MemoryStatus(s), nil
	}
	return "", errors.New("unknown status " + strconv.Quote(strings.TrimSpace(s)))
}

// MaxSweep bounds the rows one Sweep call closes.
const MaxSweep = 500

// SweepResult lists the runs a sweep closed.
type SweepResult struct {
	Swept []uuid.UUID `json:"swept"`
}

// Sweep stamps closed_at on the tenant's rows whose lease lapsed more than
// the sweep grace ago (lease.Policy.Sweepable), at most limit rows (1 to
// MaxSweep).
// It changes no attribution: implicit close is already evaluated on every
// read and write, and a swept row still resurrects, because its closed_at
// lands outside the explicit-close window. What a sweep adds is a stamped
// close that a closer or the doctor can find.
//
// Errors: invalid.
func (s *Service) Sweep(ctx context.Context, tenant string, limit int) (SweepResult, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	if limit < 1 || limit > MaxSweep {
		f["limit"] = "must be between 1 and " + strconv.Itoa(MaxSweep)
	}
	if err := fieldsErr(f); err != nil {
		return SweepResult{}, err
	}
	res := SweepResult{Swept: []uuid.UUID{}}
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		res.Swept = res.Swept[:0]
		rows, err := tx.StaleSessions(ctx, s.lease.SweepFloor(now), limit)
		if err != nil {
			return err
		}
		var lines []LedgerEntry
		for i := range rows {
			row := &rows[i]
			if !s.lease.Sweepable(lease.Row{LastSeenAt: row.LastSeenAt, ClosedAt: row.ClosedAt}, now) {
				continue
			}
			s.closeRow(row, now)
			if err := tx.UpdateSession(ctx, row); err != nil {
				return err
			}
			lines = append(lines, s.entry(EventSessionSwept, now, row, map[string]string{
				"epoch": strconv.Itoa(row.ActivationEpoch),
			}))
			res.Swept = append(res.Swept, row.ID)
		}
		// One append (and one retention trim) for the whole batch.
		return tx.AppendLedger(ctx, s.ledgerKeep, lines...)
	})
	if err != nil {
		// Rolled back: none of the rows the transaction closed was swept.
		return SweepResult{Swept: []uuid.UUID{}}, err
	}
	return res, nil
}
