package continuity

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// BottleStore binds the bottle package's storage interfaces (History,
// MarkerArmer, MarkerClaimer) to one agent of a tenant-bound API, so a
// Bottler renders and seals where the transcript is and keeps its marker and
// history wherever the API is: the local store or a team server.
type BottleStore struct {
	api   API
	agent string
}

var (
	_ bottle.History       = (*BottleStore)(nil)
	_ bottle.MarkerArmer   = (*BottleStore)(nil)
	_ bottle.MarkerClaimer = (*BottleStore)(nil)
)

// BottlesOf returns the bottle storage of one agent over api.
func BottlesOf(api API, agent string) *BottleStore { return &BottleStore{api: api, agent: agent} }

// Bottles returns the bottle storage of one tenant and agent of the service.
func (s *Service) Bottles(tenant, agent string) *BottleStore { return BottlesOf(s.For(tenant), agent) }

// ArmBottle implements bottle.MarkerArmer.
func (b *BottleStore) ArmBottle(ctx context.Context, m bottle.Marker) error {
	return b.api.ArmBottle(ctx, b.agent, m)
}

// ClaimBottle implements bottle.MarkerClaimer.
func (b *BottleStore) ClaimBottle(ctx context.Context, sessionID string) (bottle.Marker, bool, error) {
	return b.api.ClaimBottle(ctx, b.agent, sessionID)
}

// SessionHistory implements bottle.History.
func (b *BottleStore) SessionHistory(ctx context.Context, sessionID string) (bottle.Record, error) {
	return b.api.SessionHistory(ctx, b.agent, sessionID)
}

// RecordPrompt keeps a user prompt for degraded bottles (see
// Service.RecordPrompt).
func (b *BottleStore) RecordPrompt(ctx context.Context, sessionID, text string) error {
	_, err := b.api.RecordPrompt(ctx, b.agent, sessionID, text)
	return err
}

// bottleKey validates the tenant, the agent and the session id; fields holds
// the caller's own failures, if any, so one error names them all.
func bottleKey(tenant, agent, sessionID string, fields map[string]string) (string, string, error) {
	tenant, _, sid, err := sessionKey(tenant, agent, sessionID)
	f := map[string]string{}
	maps.Copy(f, ErrorFields(err))
	maps.Copy(f, fields)
	return tenant, sid, fieldsErr(f)
}

// ArmBottle arms the conversation's marker, replacing any earlier one. The
// mode is a rung a bottle is written on (full or reconstructed), the gap
// between 0 and MaxBottleGap, the path at most MaxPathLen characters.
//
// Errors: invalid.
func (s *Service) ArmBottle(ctx context.Context, tenant, agent string, m bottle.Marker) error {
	now := s.clock()
	bm, err := marker(tenant, agent, m, now)
	if err != nil {
		return err
	}
	return s.store.Write(ctx, bm.Tenant, func(ctx context.Context, tx Tx) error {
		return s.armIn(ctx, tx, bm, now)
	})
}

// marker validates m as ArmBottle takes it and returns the marker row it
// arms, armed at now when m names no instant.
//
// Errors: invalid.
func marker(tenant, agent string, m bottle.Marker, now time.Time) (BottleMarker, error) {
	f := map[string]string{}
	markerPathText.take(f, "path", m.Path)
	oneOf(f, "mode", string(m.Mode), string(bottle.ModeFull), string(bottle.ModeReconstructed))
	if m.Gap < 0 || m.Gap > MaxBottleGap {
		f["gap"] = "must be between 0 and " + strconv.Itoa(MaxBottleGap)
	}
	// The task is shown in the pointer a compacted session is given: a
	// caller's (a host's, a team server client's) is privacy filtered as
	// the bottler's own is.
	m.Task = recordText.take(f, "task", m.Task)
	if !m.ArmedAt.IsZero() && !inYears(m.ArmedAt) {
		f["armedAt"] = yearRule
	}
	tenant, sid, err := bottleKey(tenant, agent, m.SessionID, f)
	if err != nil {
		return BottleMarker{}, err
	}
	armedAt := m.ArmedAt
	if armedAt.IsZero() {
		armedAt = now
	}
	return BottleMarker{Tenant: tenant, Agent: agent, SessionID: sid, Path: m.Path, Mode: string(m.Mode), Gap: m.Gap,
		Task: m.Task, ArmedAt: armedAt}, nil
}

// armIn arms the validated marker m in tx and records it in the ledger at
// now.
func (s *Service) armIn(ctx context.Context, tx Tx, m BottleMarker, now time.Time) error {
	if err := tx.ArmBottle(ctx, m); err != nil {
		return err
	}
	return tx.AppendLedger(ctx, s.ledgerKeep, LedgerEntry{ID: s.newID(), Tenant: m.Tenant, Event: EventBottleArmed, At: now, Session: m.SessionID,
		Fields: map[string]string{"agent": m.Agent, "mode": m.Mode}})
}

// ClaimBottle consumes the conversation's armed marker in one atomic update:
// of two concurrent SessionStarts exactly one gets ok, and a marker another
// agent armed under the same session id is never this agent's.
//
// Errors: invalid.
func (s *Service) ClaimBottle(ctx context.Context, tenant, agent, sessionID string) (bottle.Marker, bool, error) {
	tenant, sid, err := bottleKey(tenant, agent, sessionID, nil)
	if err != nil {
		return bottle.Marker{}, false, err
	}
	got, err := s.consume(ctx, tenant, agent, sid, EventBottleClaimed)
	if err != nil || got == nil {
		return bottle.Marker{}, false, err
	}
	return got.bottleMarker(), true, nil
}

// consume consumes the conversation's armed marker in one transaction and
// records it as event; nil when none is armed.
func (s *Service) consume(ctx context.Context, tenant, agent, sid, event string) (*BottleMarker, error) {
	var got *BottleMarker
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		got, err = s.consumeIn(ctx, tx, agent, sid, event, s.clock())
		return err
	})
	return got, err
}

// consumeIn is consume inside tx, at now.
func (s *Service) consumeIn(ctx context.Context, tx Tx, agent, sid, event string, now time.Time) (*BottleMarker, error) {
	m, err := tx.ClaimBottle(ctx, agent, sid, now)
	if ErrorCode(err) == CodeNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return m, tx.AppendLedger(ctx, s.ledgerKeep, LedgerEntry{ID: s.newID(), Tenant: m.Tenant, Event: event, At: now, Session: sid,
		Fields: map[string]string{"agent": agent}})
}

// forgetHistory is what a clear does to the conversation's bottle records,
// in one transaction: it consumes the armed marker and marks everything
// recorded so far (the newest prompt and Stop excerpt) as before the clear,
// so SessionHistory leaves it out. The rows are kept. The marker is taken
// before the row, the order PreCompact takes them in.
func (s *Service) forgetHistory(ctx context.Context, tenant, agent, sessionID string) error {
	tenant, sid, err := bottleKey(tenant, agent, sessionID, nil)
	if err != nil {
		return err
	}
	return s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		if _, err := s.consumeIn(ctx, tx, agent, sid, EventBottleClaimed, s.clock()); err != nil {
			return err
		}
		row, err := tx.SessionByKey(ctx, agent, sid)
		if err != nil {
			return err
		}
		last, _, err := tx.LastPrompt(ctx, agent, sid)
		if err != nil {
			return err
		}
		excerpts, err := tx.StopExcerpts(ctx, agent, sid)
		if err != nil {
			return err
		}
		row.ClearedThroughPrompt = max(row.ClearedThroughPrompt, last.Number)
		if n := len(excerpts); n > 0 {
			row.ClearedThroughExcerpt = excerpts[n-1].ID
		}
		// The conversation after the clear has gone through no compaction
		// yet: a bottle of it has one leg.
		row.Compactions = 0
		return tx.UpdateSession(ctx, row)
	})
}

// sinceClear returns the excerpts (in the order they were written, as
// StopExcerpts reads them) recorded after the clear whose newest earlier
// excerpt is cleared (uuid.Nil: none): those after it. Not its id's order,
// which is the writing clock's. An excerpt the store no longer holds was
// trimmed, and a trim drops the oldest first: every excerpt left came
// after it.
func sinceClear(excerpts []StopExcerpt, cleared uuid.UUID) []StopExcerpt {
	i := slices.IndexFunc(excerpts, func(e StopExcerpt) bool { return e.ID == cleared })
	return excerpts[i+1:]
}

func (m *BottleMarker) bottleMarker() bottle.Marker {
	return bottle.Marker{SessionID: m.SessionID, Path: m.Path, Gap: m.Gap, Mode: bottle.Mode(m.Mode), Task: m.Task, ArmedAt: m.ArmedAt}
}

// SessionHistory returns what the hook path recorded of the conversation:
// its prompts and Stop excerpts since its last clear. An unknown
// conversation is an empty record.
//
// Errors: invalid.
func (s *Service) SessionHistory(ctx context.Context, tenant, agent, sessionID string) (bottle.Record, error) {
	tenant, sid, err := bottleKey(tenant, agent, sessionID, nil)
	if err != nil {
		return bottle.Record{}, err
	}
	rec := bottle.Record{SessionID: sid}
	err = s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		row, err := tx.SessionByKey(ctx, agent, sid)
		switch ErrorCode(err) {
		case "":
			rec.Project, rec.Started, rec.Compactions = row.Project, row.OpenedAt, row.Compactions
		case CodeNotFound:
		default:
			return err
		}
		prompts, err := tx.Prompts(ctx, agent, sid)
		if err != nil {
			return err
		}
		// What was recorded before the conversation's last clear is not
		// its history any more (forgetHistory).
		var cleared Session
		if row != nil {
			cleared = *row
		}
		prompts = slices.DeleteFunc(prompts, func(p Prompt) bool { return p.Number <= cleared.ClearedThroughPrompt })
		for _, p := range prompts {
			rec.Prompts = append(rec.Prompts, bottle.Prompt{Number: p.Number, Text: p.Text, Truncated: p.Truncated, Time: p.At})
		}
		excerpts, err := tx.StopExcerpts(ctx, agent, sid)
		if err != nil {
			return err
		}
		excerpts = sinceClear(excerpts, cleared.ClearedThroughExcerpt)
		// Between trims a conversation may hold a few more than the
		// bound (ExcerptTrimEvery): the newest are read.
		excerpts = excerpts[max(0, len(excerpts)-MaxStopExcerpts):]
		for _, e := range excerpts {
			rec.StopExcerpts = append(rec.StopExcerpts, bottle.StopExcerpt{PromptNumber: promptOf(prompts, e), Text: e.Text, Time: e.At, Seq: e.Seq})
		}
		if cleared.ClearedThroughPrompt > 0 || cleared.ClearedThroughExcerpt != uuid.Nil {
			// The conversation a clear started over began at the clear,
			// which the row does not keep: the first of what was recorded
			// since is when it is known to have begun (none: unknown),
			// never the open of the conversation before it.
			rec.Started = firstRecorded(rec)
		}
		return nil
	})
	return rec, err
}

// firstRecorded returns the earliest time of the record's prompts and Stop
// excerpts, zero when it holds none.
func firstRecorded(rec bottle.Record) time.Time {
	var first time.Time
	see := func(at time.Time) {
		if !at.IsZero() && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	for _, p := range rec.Prompts {
		see(p.Time)
	}
	for _, e := range rec.StopExcerpts {
		see(e.Time)
	}
	return first
}

// promptOf is the turn a Stop ended: the prompt number its excerpt
// recorded when written. An excerpt written before baton recorded it
// (migration 018, or an import of export version 1) goes to the last
// prompt not stamped after it, so a Stop stamped before its own prompt by
// a clock stepped back is filed under the turn before, as it always was.
func promptOf(ps []Prompt, e StopExcerpt) int {
	if e.PromptNumber != nil {
		return *e.PromptNumber
	}
	n := 0
	for _, p := range ps {
		if !p.At.After(e.At) {
			n = p.Number
		}
	}
	return n
}

// PromptResult is what RecordPrompt kept.
type PromptResult struct {
	// Kept says a prompt was recorded (a prompt empty after filtering is
	// not); Number is its position in the conversation.
	Kept      bool `json:"kept"`
	Number    int  `json:"number,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
}

// RecordPrompt keeps a user prompt for degraded bottles: privacy filtered,
// capped at bottle.MaxPromptChars with its truncated flag set. A prompt that
// is empty after filtering is not kept.
//
// Errors: invalid.
func (s *Service) RecordPrompt(ctx context.Context, tenant, agent, sessionID, text string) (PromptResult, error) {
	r, _, err := s.keepPrompt(ctx, tenant, agent, sessionID, text, false)
	return r, err
}

// keepPrompt is RecordPrompt; with unlessEcho, in the same transaction, it
// keeps nothing and reports echo when the prompt is the debrief the
// conversation's pending triage attempt injected (triage.Echoes).
func (s *Service) keepPrompt(ctx context.Context, tenant, agent, sessionID, text string, unlessEcho bool) (_ PromptResult, echo bool, _ error) {
	f := map[string]string{}
	checkText(f, "text", text)
	tenant, sid, err := bottleKey(tenant, agent, sessionID, f)
	if err != nil {
		return PromptResult{}, false, err
	}
	sent := text
	text, truncated := promptText.keep(text)
	if text == "" {
		return PromptResult{}, false, nil
	}
	p := Prompt{ID: s.newID(), Tenant: tenant, Agent: agent, SessionID: sid, Text: text, Truncated: truncated, At: s.clock()}
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		if unlessEcho {
			row, err := tx.SessionByKey(ctx, agent, sid)
			switch {
			case ErrorCode(err) == CodeNotFound:
			case err != nil:
				return err
			case triage.Status(row.TriageStatus) == triage.Pending:
				// Stop renders the debrief it injects from these params:
				// the same text, rendered again from the same row.
				if echo = triage.Echoes(sent, debrief(DebriefParams{Agent: agent, SessionID: sid}, row)); echo {
					return nil
				}
			}
		}
		return tx.AppendPrompt(ctx, &p)
	})
	if err != nil || echo {
		return PromptResult{}, echo, err
	}
	return PromptResult{Kept: true, Number: p.Number, Truncated: truncated}, false, nil
}
