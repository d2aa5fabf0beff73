package continuity

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// EventParams is what every episode method carries: which harness sent
// which of its events, about which conversation. Provider and ProviderEvent
// are data (for example "claude-code" and "SessionStart"): the receipt
// names them in its fields, never in its event name.
type EventParams struct {
	Provider      string `json:"provider"`
	ProviderEvent string `json:"providerEvent"`
	Agent         string `json:"agent"`
	SessionID     string `json:"sessionId"`
	// LocalFailure says the part of this event that ran where the
	// transcript is (render, seal) failed before this call, in a safe
	// "code: message" form; it is recorded as the receipt's failure.
	LocalFailure string `json:"localFailure,omitempty"`

	// expects is the ledger event the event's work derives, when it
	// derives one (a checkpoint's or a handover's line): the receipt
	// names it so the doctor can tell a receipt no work answered.
	expects string
}

// MaxFailureLen bounds a failure reason a caller reports.
const MaxFailureLen = 500

func (e EventParams) receipt() ReceiptParams {
	return ReceiptParams{Provider: e.Provider, ProviderEvent: e.ProviderEvent, Agent: e.Agent, SessionID: e.SessionID, expects: e.expects}
}

// episode records the event's receipt, then runs work, then records the
// failure of the local half (when the caller reports one) and of work.
func (s *Service) episode(ctx context.Context, tenant string, ev EventParams, work func(ctx context.Context) error) (uuid.UUID, error) {
	f := map[string]string{}
	ev.LocalFailure = trimField(f, "localFailure", ev.LocalFailure, 0, MaxFailureLen)
	bad := fieldsErr(f)
	id, err := s.receive(ctx, tenant, ev.receipt(), func(ctx context.Context) error {
		// A malformed failure report is bad input like any other: refused
		// after the receipt, so the event still leaves its evidence.
		if bad != nil {
			return bad
		}
		return work(ctx)
	})
	if bad == nil && ev.LocalFailure != "" && id != uuid.Nil {
		// The failure names the event as its receipt does: trimmed.
		rp := ev.receipt()
		_, _ = rp.normalize(tenant) // the receipt was appended: rp is valid
		if lerr := s.appendFailure(ctx, tenant, rp, id, "local: "+ev.LocalFailure); lerr != nil && err == nil {
			err = lerr
		}
	}
	return id, err
}

// renamed returns err with the invalid fields that a composed step named in
// its own terms renamed as the episode's params name them, so the caller is
// told which of its fields is wrong.
func renamed(err error, rename func(field string) string) error {
	e := asError(err)
	if e == nil || e.Code != CodeInvalid || len(e.Fields) == 0 {
		return err
	}
	f := make(map[string]string, len(e.Fields))
	for k, v := range e.Fields {
		f[rename(k)] = v
	}
	return &Error{Code: e.Code, Message: e.Message, Fields: f, Err: e.Err}
}

// oneField renames one field.
func oneField(from, to string) func(string) string {
	return func(k string) string {
		if k == from {
			return to
		}
		return k
	}
}

// StartParams is a SessionStart.
type StartParams struct {
	EventParams
	Source  Source `json:"source"`
	Project string `json:"project,omitempty"`
	Scope   string `json:"scope,omitempty"`
	// BriefingBudget is the briefing text's character budget; 0 means the
	// policy's.
	BriefingBudget int `json:"briefingBudget,omitempty"`
}

// StartResult is everything an adapter needs to answer a SessionStart.
type StartResult struct {
	ReceiptID       uuid.UUID `json:"receiptId"`
	SessionRunID    uuid.UUID `json:"sessionRunId"`
	ActivationEpoch int       `json:"activationEpoch"`
	// Created, Reopened and Resurrected say what the activation did to
	// the row; Started says a clear found no row and opened one.
	Created     bool `json:"created,omitempty"`
	Reopened    bool `json:"reopened,omitempty"`
	Resurrected bool `json:"resurrected,omitempty"`
	Started     bool `json:"started,omitempty"`
	// Briefing is set on startup, on a clear that started a conversation,
	// and on a resume or compact that claimed no bottle marker.
	Briefing *Briefing `json:"briefing,omitempty"`
	// Handover is the newest handover of the project, on startup.
	Handover *Record `json:"handover,omitempty"`
	// Marker is the bottle marker a resume or compact claimed.
	Marker *bottle.Marker `json:"marker,omitempty"`
	// ArchiveBottle tells the local half to archive the conversation's
	// bottle (a clear): it is never injected again.
	ArchiveBottle bool `json:"archiveBottle,omitempty"`
}

// SessionStart implements API for tenant.
func (s *Service) SessionStart(ctx context.Context, tenant string, p StartParams) (StartResult, error) {
	var res StartResult
	open := OpenParams{Agent: p.Agent, SessionID: p.SessionID, Source: p.Source, Project: p.Project, Scope: p.Scope}
	id, err := s.episode(ctx, tenant, p.EventParams, func(ctx context.Context) error {
		// Input is checked after the receipt: a malformed event still
		// leaves the evidence that it arrived, and its failure.
		f := map[string]string{}
		oneOf(f, "source", string(p.Source), string(SourceStartup), string(SourceResume), string(SourceCompact), string(SourceClear))
		if p.BriefingBudget < 0 || p.BriefingBudget > MaxBriefingBudget {
			f["briefingBudget"] = "must be between 0 and " + strconv.Itoa(MaxBriefingBudget)
		}
		if err := fieldsErr(f); err != nil {
			return err
		}
		switch p.Source {
		case SourceStartup, SourceClear:
			// A failed briefing does not skip the open: the open goes ahead
			// with briefedMemories omitted (no briefing was delivered).
			b, berr := s.Briefing(ctx, tenant, BriefingParams{Project: p.Project, Scope: p.Scope, Budget: p.BriefingBudget})
			if berr == nil {
				open.Selector, open.BriefedMemories = b.Selector, b.Briefed
			}
			if p.Source == SourceStartup {
				r, err := s.Open(ctx, tenant, open)
				if err != nil {
					return err
				}
				res.SessionRunID, res.ActivationEpoch, res.Created, res.Reopened = r.SessionRunID, r.ActivationEpoch, r.Created, r.Reopened
			} else {
				c, err := s.Clear(ctx, tenant, open)
				if err != nil {
					return err
				}
				res.SessionRunID, res.ActivationEpoch, res.Started, res.Resurrected, res.ArchiveBottle = c.SessionRunID, c.ActivationEpoch, c.Started, c.Resurrected, true
				// A clear means forget: the bottle is archived, its marker
				// consumed so that no later activation injects it, and the
				// history recorded so far left out of every later bottle.
				if err := s.forgetHistory(ctx, tenant, p.Agent, p.SessionID); err != nil {
					return err
				}
			}
			if berr != nil {
				return berr
			}
			if p.Source == SourceStartup || res.Started {
				res.Briefing = &b
				if b.Handover != nil {
					h := b.Handover.Record
					res.Handover = &h
				}
			}
			return nil
		case SourceResume:
			r, err := s.Open(ctx, tenant, open)
			if err != nil {
				return err
			}
			res.SessionRunID, res.ActivationEpoch, res.Created, res.Reopened = r.SessionRunID, r.ActivationEpoch, r.Created, r.Reopened
		default: // compact: not an open, a heartbeat that recovers the run id
			hb := HeartbeatParams{Agent: p.Agent, SessionID: p.SessionID}
			h, err := s.Compact(ctx, tenant, hb)
			if ErrorCode(err) == CodeNotFound {
				// A conversation baton never saw open (hooks installed
				// mid-session) is taken up: its row inserted at epoch 1,
				// or, when a concurrent start inserted it first, compacted
				// as this event would have compacted it had it found it.
				open.Source, open.takeUp = SourceResume, true
				r, oerr := s.Open(ctx, tenant, open)
				if oerr != nil {
					return oerr
				}
				if r.Created {
					h, err = HeartbeatResult{SessionRunID: r.SessionRunID, ActivationEpoch: r.ActivationEpoch}, nil
					res.Created = true
				} else {
					h, err = s.Compact(ctx, tenant, hb)
				}
			}
			if err != nil {
				return err
			}
			res.SessionRunID, res.ActivationEpoch, res.Resurrected = h.SessionRunID, h.ActivationEpoch, h.Resurrected
		}
		m, ok, err := s.ClaimBottle(ctx, tenant, p.Agent, p.SessionID)
		if err != nil {
			return err
		}
		if ok {
			res.Marker = &m
			return nil
		}
		b, err := s.Briefing(ctx, tenant, BriefingParams{Project: p.Project, Scope: p.Scope, Budget: p.BriefingBudget})
		if err != nil {
			return err
		}
		res.Briefing = &b
		return nil
	})
	res.ReceiptID = id
	return res, err
}

// PromptParams is a user prompt submission.
type PromptParams struct {
	EventParams
	Prompt string `json:"prompt"`
}

// PromptEventResult is what UserPrompt kept.
type PromptEventResult struct {
	ReceiptID uuid.UUID    `json:"receiptId"`
	Prompt    PromptResult `json:"prompt"`
	// SkippedDebrief says the prompt was the debrief a Stop injected for
	// the conversation's pending triage attempt, sent back as the
	// continued turn's prompt: not the person's, so it was not recorded.
	SkippedDebrief bool `json:"skippedDebrief,omitempty"`
}

// UserPrompt implements API for tenant. A harness that continues a turn a
// Stop blocked may send the block's reason as the next turn's prompt
// (Gemini CLI's BeforeAgent after an AfterAgent deny): while the attempt
// that injected it is pending, that debrief is not recorded as the
// person's prompt, so the handover's objective stays the person's. The
// receipt is kept either way.
func (s *Service) UserPrompt(ctx context.Context, tenant string, p PromptParams) (PromptEventResult, error) {
	var res PromptEventResult
	id, err := s.episode(ctx, tenant, p.EventParams, func(ctx context.Context) error {
		var err error
		res.Prompt, res.SkippedDebrief, err = s.keepPrompt(ctx, tenant, p.Agent, p.SessionID, p.Prompt, true)
		return renamed(err, oneField("text", "prompt"))
	})
	res.ReceiptID = id
	return res, err
}

// StopParams is a Stop.
type StopParams struct {
	EventParams
	// LastMessage is the last assistant message, when the harness sent it.
	LastMessage *string `json:"lastMessage,omitempty"`
	// StopHookActive says the harness is continuing a turn a Stop hook
	// blocked: such a Stop never injects; it finalizes the pending attempt.
	StopHookActive bool `json:"stopHookActive,omitempty"`
	// Nudge enables the triage handshake (BATON_STOP_NUDGE=1).
	Nudge bool `json:"nudge,omitempty"`
}

// StopResult is everything an adapter needs to answer a Stop.
type StopResult struct {
	ReceiptID        uuid.UUID `json:"receiptId"`
	SessionRunID     uuid.UUID `json:"sessionRunId"`
	ActivationEpoch  int       `json:"activationEpoch"`
	Resurrected      bool      `json:"resurrected,omitempty"`
	ExcerptTruncated bool      `json:"excerptTruncated,omitempty"`
	// Inject says to continue the turn with Reason (the debrief prompt):
	// an armed triage attempt.
	Inject bool   `json:"inject,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Triage is the handshake's outcome when the nudge is enabled.
	Triage *StopTriage `json:"triage,omitempty"`
}

// StopTriage is what a Stop did to the triage handshake.
type StopTriage struct {
	Status    triage.Status `json:"status"`
	Armed     bool          `json:"armed,omitempty"`
	Completed bool          `json:"completed,omitempty"`
	Declined  triage.Reason `json:"declined,omitempty"`
	AttemptID uuid.UUID     `json:"attemptId,omitzero"`
}

// Stop implements API for tenant. The heartbeat is the unconditional half;
// the handshake is additive on top of it: a Stop carrying stop_hook_active
// completes the pending attempt and never injects, and a pending decline
// (the continuation whose stop_hook_active was lost) completes it too, so
// an attempt injects at most once. Of Stops racing to finalize one
// attempt, one does; the others find it finalized under them and report
// the row's status.
func (s *Service) Stop(ctx context.Context, tenant string, p StopParams) (StopResult, error) {
	var res StopResult
	id, err := s.episode(ctx, tenant, p.EventParams, func(ctx context.Context) error {
		h, err := s.Heartbeat(ctx, tenant, HeartbeatParams{Agent: p.Agent, SessionID: p.SessionID, LastMessageExcerpt: p.LastMessage, Stop: true})
		if err != nil {
			return renamed(err, oneField("lastMessageExcerpt", "lastMessage"))
		}
		res.SessionRunID, res.ActivationEpoch, res.Resurrected, res.ExcerptTruncated = h.SessionRunID, h.ActivationEpoch, h.Resurrected, h.ExcerptTruncated
		if !p.Nudge {
			return nil
		}
		key := TriageParams{Agent: p.Agent, SessionID: p.SessionID}
		// read reports the row's triage status and returns the row.
		read := func() (SessionView, error) {
			v, err := s.Session(ctx, tenant, p.Agent, p.SessionID)
			if err == nil {
				res.Triage = &StopTriage{Status: triage.Status(v.TriageStatus)}
			}
			return v, err
		}
		complete := func(attempt uuid.UUID) error {
			c, err := s.TriageComplete(ctx, tenant, TriageCompleteParams{Agent: p.Agent, SessionID: p.SessionID, AttemptID: attempt.String()})
			if errors.Is(err, triage.ErrConflict) {
				// Another Stop that read the attempt pending too finalized
				// it first: nothing is left for this one to finalize, and
				// it reports what the row says now.
				_, err = read()
				return err
			}
			if err != nil {
				return err
			}
			res.Triage = &StopTriage{Status: c.TriageStatus, Completed: true, AttemptID: attempt}
			return nil
		}
		if p.StopHookActive {
			v, err := read()
			if err != nil {
				return err
			}
			if triage.Status(v.TriageStatus) == triage.Pending {
				return complete(v.TriageAttemptID)
			}
			return nil
		}
		b, err := s.TriageBegin(ctx, tenant, key)
		if err != nil {
			return err
		}
		switch {
		case b.Armed:
			text, err := s.Debrief(ctx, tenant, DebriefParams{Agent: p.Agent, SessionID: p.SessionID})
			if err != nil {
				return err
			}
			res.Inject, res.Reason = true, text
			res.Triage = &StopTriage{Status: b.TriageStatus, Armed: true, AttemptID: b.AttemptID}
		case b.Reason == triage.ReasonPending:
			return complete(b.AttemptID)
		default:
			res.Triage = &StopTriage{Status: b.TriageStatus, Declined: b.Reason}
		}
		return nil
	})
	res.ReceiptID = id
	return res, err
}

// PreCompactParams is a PreCompact.
type PreCompactParams struct {
	EventParams
	// Trigger is the harness's trigger (manual or auto).
	Trigger string `json:"trigger,omitempty"`
	// Sealed is the marker of the bottle the local half sealed; nil when
	// nothing was sealed.
	Sealed *bottle.Marker `json:"sealed,omitempty"`
	// Provisional marks a PreCompact sent before the harness decides
	// whether to compact (HookEvent.Provisional): it seals nothing and
	// leaves the marker of an earlier seal as it is.
	Provisional bool `json:"provisional,omitempty"`
	// Episode is what the checkpoint says; empty fields are derived.
	Episode Episode `json:"episode,omitzero"`
}

// PreCompactResult is what a PreCompact wrote.
type PreCompactResult struct {
	ReceiptID  uuid.UUID `json:"receiptId"`
	Armed      bool      `json:"armed,omitempty"`
	Checkpoint Record    `json:"checkpoint"`
}

// MaxReasonLen bounds a harness's trigger or reason, in characters.
const MaxReasonLen = 64

// PreCompact implements API for tenant: arm the sealed bottle's marker,
// then write a checkpoint that snapshots the conversation's excerpt.
func (s *Service) PreCompact(ctx context.Context, tenant string, p PreCompactParams) (PreCompactResult, error) {
	var res PreCompactResult
	p.expects = recordEvent(RecordCheckpoint)
	id, err := s.episode(ctx, tenant, p.EventParams, func(ctx context.Context) error {
		f := map[string]string{}
		p.Trigger = reasonText.take(f, "trigger", p.Trigger)
		p.Episode.normalize(f, "episode.")
		if p.Sealed != nil && strings.TrimSpace(p.Sealed.SessionID) != strings.TrimSpace(p.SessionID) {
			// The event's conversation is the one whose marker it arms.
			f["sealed.sessionId"] = "must be the event's sessionId"
		}
		if p.Sealed != nil && p.Provisional {
			// A provisional PreCompact seals nothing: a marker beside it
			// would arm a compaction the harness has not decided on.
			f["provisional"] = "must be false when a bottle was sealed"
		}
		if err := fieldsErr(f); err != nil {
			return err
		}
		var arm *BottleMarker
		if p.Sealed != nil {
			m, err := marker(tenant, p.Agent, *p.Sealed, s.clock())
			if err != nil {
				return renamed(err, func(k string) string {
					switch k {
					case "tenant", "agent", "sessionId":
						return k
					}
					return "sealed." + k
				})
			}
			arm = &m
			if p.Episode.BottlePath == "" {
				p.Episode.BottlePath = p.Sealed.Path
			}
		}
		tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
		if err != nil {
			return err
		}
		// The marker and the checkpoint are one transaction; a marker is
		// kept even for a conversation this store has not seen (hooks
		// installed mid-session), whose compact SessionStart takes it up
		// and claims the pointer, while the checkpoint fails not_found.
		var unseen error
		err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
			now := s.clock()
			switch {
			case arm != nil:
				if err := s.armIn(ctx, tx, *arm, now); err != nil {
					return err
				}
				res.Armed = true
			case !p.Provisional:
				// A compaction that sealed nothing (its seal failed, or
				// no bottle is kept): a marker an earlier seal left armed
				// (its compaction reached no SessionStart) names a bottle
				// that is not this compaction's record, and is disarmed,
				// so the compact SessionStart renders on demand instead.
				if _, err := s.consumeIn(ctx, tx, agent, sid, EventBottleDisarmed, now); err != nil {
					return err
				}
			}
			row, err := tx.SessionByKey(ctx, agent, sid)
			if ErrorCode(err) == CodeNotFound {
				unseen = err
				return nil
			}
			if err != nil {
				return err
			}
			res.Checkpoint, err = s.writeRecord(ctx, tx, row, RecordCheckpoint, p.Episode, p.Trigger, now, false)
			return err
		})
		if err != nil {
			res.Armed = false
			return err
		}
		return unseen
	})
	res.ReceiptID = id
	return res, err
}

// record writes a checkpoint or handover for the conversation.
func (s *Service) record(ctx context.Context, tenant, agent, sid string, kind RecordKind, e Episode, reason string, dedupe bool) (Record, error) {
	tenant, agent, sid, err := sessionKey(tenant, agent, sid)
	if err != nil {
		return Record{}, err
	}
	var r Record
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		row, err := tx.SessionByKey(ctx, agent, sid)
		if err != nil {
			return err
		}
		r, err = s.writeRecord(ctx, tx, row, kind, e, reason, s.clock(), dedupe)
		return err
	})
	return r, err
}

// EndParams is a SessionEnd.
type EndParams struct {
	EventParams
	// Reason is the harness's reason (clear, logout, exit, ...).
	Reason string `json:"reason,omitempty"`
	// BudgetMillis bounds the close and the handover: SessionEnd runs
	// while the harness is terminating (Claude Code allows 1.5 s by
	// default, Codex 1 s). 0 means DefaultEndBudget; at most MaxEndBudget.
	BudgetMillis int `json:"budgetMs,omitempty"`
	// Episode is what the handover says; empty fields are derived.
	Episode Episode `json:"episode,omitzero"`
}

// SessionEnd budgets, declared once.
const (
	DefaultEndBudget = 1500 * time.Millisecond
	MaxEndBudget     = 60 * time.Second
)

// EndResult is what a SessionEnd did.
type EndResult struct {
	ReceiptID uuid.UUID   `json:"receiptId"`
	Close     CloseResult `json:"close"`
	Handover  Record      `json:"handover"`
}

// SessionEnd implements API for tenant: close by natural key and write the
// handover, within the budget, in one transaction. The row's lock, taken
// by the close, is held until the handover is written, so however many
// deliveries of one SessionEnd race (Gemini CLI sends it up to three times
// within 70 ms) one of them closes the row and the others, finding it
// closed, find that close's handover too and write no second one. The
// price: a handover that fails (the budget spent, say) rolls the close
// back with it, and the row is left to lapse on its lease.
func (s *Service) SessionEnd(ctx context.Context, tenant string, p EndParams) (EndResult, error) {
	var res EndResult
	p.expects = recordEvent(RecordHandover)
	id, err := s.episode(ctx, tenant, p.EventParams, func(ctx context.Context) error {
		f := map[string]string{}
		p.Reason = reasonText.take(f, "reason", p.Reason)
		p.Episode.normalize(f, "episode.")
		if p.BudgetMillis < 0 || time.Duration(p.BudgetMillis)*time.Millisecond > MaxEndBudget {
			f["budgetMs"] = "must be between 0 and " + strconv.Itoa(int(MaxEndBudget/time.Millisecond))
		}
		if err := fieldsErr(f); err != nil {
			return err
		}
		budget := DefaultEndBudget
		if p.BudgetMillis > 0 {
			budget = time.Duration(p.BudgetMillis) * time.Millisecond
		}
		tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		return s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
			now := s.clock()
			row, c, err := s.closeIn(ctx, tx, agent, sid, now)
			if err != nil {
				return err
			}
			// A repeated delivery of one SessionEnd (the row already
			// closed, the same handover) writes no second record.
			h, err := s.writeRecord(ctx, tx, row, RecordHandover, p.Episode, p.Reason, now, c.AlreadyClosed)
			if err != nil {
				return err
			}
			res.Close, res.Handover = c, h
			return nil
		})
	})
	res.ReceiptID = id
	return res, err
}

// FailureParams reports that the local half of an event failed after the
// episode method that recorded its receipt returned.
type FailureParams struct {
	EventParams
	ReceiptID string `json:"receiptId"`
	Reason    string `json:"reason"`
}

// RecordFailure implements API for tenant: the failure of the local half of
// the event whose receipt, kept in the tenant's ledger, is p.ReceiptID.
//
// Errors: invalid; not_found when no such receipt of that event is kept (a
// made-up id, another tenant's, another event's, or one the ledger's
// retention dropped).
func (s *Service) RecordFailure(ctx context.Context, tenant string, p FailureParams) error {
	rp := p.receipt()
	t, err := rp.normalize(tenant)
	f := ErrorFields(err)
	if f == nil {
		f = map[string]string{}
	}
	receipt, perr := uuid.Parse(strings.TrimSpace(p.ReceiptID))
	if perr != nil || receipt == uuid.Nil {
		f["receiptId"] = "must be a UUID"
	}
	p.Reason = trimField(f, "reason", p.Reason, 1, MaxFailureLen)
	if p.LocalFailure != "" {
		f["localFailure"] = "must be empty: the reason is the failure"
	}
	if err := fieldsErr(f); err != nil {
		return err
	}
	if err := s.store.Read(ctx, t, func(ctx context.Context, tx Tx) error {
		es, err := tx.Ledger(ctx, justBefore(receipt), 1)
		if err != nil {
			return err
		}
		if len(es) == 0 || es[0].ID != receipt || !isReceiptOf(es[0], rp) {
			return Errorf(CodeNotFound, "no receipt %s of this event is kept", receipt)
		}
		return nil
	}); err != nil {
		return err
	}
	return s.appendFailure(ctx, t, rp, receipt, "local: "+p.Reason)
}

// justBefore is the id that orders immediately before id, so a ledger read
// after it starts at id.
func justBefore(id uuid.UUID) uuid.UUID {
	for i := len(id) - 1; i >= 0; i-- {
		id[i]--
		if id[i] != 0xff {
			break
		}
	}
	return id
}

// isReceiptOf reports whether e is the receipt of the event p describes.
func isReceiptOf(e LedgerEntry, p ReceiptParams) bool {
	return e.Event == EventReceived && e.Session == p.SessionID && e.Fields["provider"] == p.Provider &&
		e.Fields["provider_event"] == p.ProviderEvent && e.Fields["agent"] == p.Agent
}
