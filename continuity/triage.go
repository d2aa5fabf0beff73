package continuity

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// TriageParams addresses a conversation for the Stop handshake.
type TriageParams struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
}

// TriageBeginResult is begin's answer. AttemptID is set when armed, and on a
// pending decline (the in-flight attempt, so a finalizing Stop can complete
// it); otherwise it is uuid.Nil and absent on the wire.
type TriageBeginResult struct {
	SessionRunID uuid.UUID     `json:"sessionRunId"`
	Armed        bool          `json:"armed"`
	AttemptID    uuid.UUID     `json:"attemptId,omitzero"`
	TriageStatus triage.Status `json:"triageStatus"`
	Reason       triage.Reason `json:"reason,omitempty"`
}

// TriageBegin evaluates the entry rule and the debounce for the
// conversation and either arms a pending attempt (a fresh attempt id, the
// watermark stamped with the event ids visible now) or declines with a
// reason: not-live, overflowed, pending, no-signal or debounce.
//
// Errors: invalid, not_found.
func (s *Service) TriageBegin(ctx context.Context, tenant string, p TriageParams) (TriageBeginResult, error) {
	tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
	if err != nil {
		return TriageBeginResult{}, err
	}
	var res TriageBeginResult
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		row, tr, visible, err := s.triageRead(ctx, tx, agent, sid, now)
		if err != nil {
			return err
		}
		b := s.triage.Begin(tr, visible.triage(), s.newID(), now)
		res = TriageBeginResult{SessionRunID: row.ID, Armed: b.Armed, AttemptID: b.AttemptID, TriageStatus: b.Status, Reason: b.Reason}
		if !b.Changed {
			return nil
		}
		row.TriageStatus, row.TriagedEventIDs = string(b.Status), b.Watermark
		if b.Armed {
			row.TriageAttemptID = b.AttemptID
		}
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		fields := map[string]string{"status": string(b.Status), "visible": strconv.Itoa(len(visible.events))}
		event := EventTriageFinished
		if b.Armed {
			event = EventTriageArmed
			fields["attempt_id"] = b.AttemptID.String()
		}
		return tx.AppendLedger(ctx, s.ledgerKeep, s.entry(event, now, row, fields))
	})
	return res, err
}

// triageRead reads, inside the handshake's transaction, the locked session
// row, the part of it the triage rules read, and the run's event listing.
func (s *Service) triageRead(ctx context.Context, tx Tx, agent, sid string, now time.Time) (*Session, triage.Row, runListing, error) {
	row, err := tx.SessionByKey(ctx, agent, sid)
	if err != nil {
		return nil, triage.Row{}, runListing{}, err
	}
	visible, err := s.listing(ctx, tx, row.ID)
	if err != nil {
		return nil, triage.Row{}, runListing{}, err
	}
	st, err := triage.ParseStatus(row.TriageStatus)
	if err != nil {
		return nil, triage.Row{}, runListing{}, &Error{Code: CodeInternal, Message: "the session row has an unknown triage status", Err: err}
	}
	return row, triage.Row{
		Live: s.state(row, now) == lease.Live, Status: st, AttemptID: row.TriageAttemptID,
		Watermark: row.TriagedEventIDs, ActivationStops: row.ActivationStops, ActivatedAt: row.ActivatedAt,
	}, visible, nil
}

// TriageCompleteParams finalizes an attempt.
type TriageCompleteParams struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	AttemptID string `json:"attemptId"`
}

// TriageCompleteResult is complete's answer.
type TriageCompleteResult struct {
	SessionRunID    uuid.UUID     `json:"sessionRunId"`
	TriageStatus    triage.Status `json:"triageStatus"`
	EventCount      int           `json:"eventCount"`
	SinceBeginCount int           `json:"sinceBeginCount"`
	Truncated       bool          `json:"truncated"`
}

// TriageComplete finalizes the pending attempt named by AttemptID: the
// events since begin (a set difference against the begin stamp) decide
// completed or expired, the watermark becomes every visible id, and a
// truncated listing overflows the row for good.
//
// Errors: invalid, not_found, conflict (the row is not pending under this
// attempt id).
func (s *Service) TriageComplete(ctx context.Context, tenant string, p TriageCompleteParams) (TriageCompleteResult, error) {
	tenant, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
	f := ErrorFields(err)
	if f == nil {
		f = map[string]string{}
	}
	attempt, perr := uuid.Parse(strings.TrimSpace(p.AttemptID))
	if perr != nil || attempt == uuid.Nil {
		f["attemptId"] = "must be a UUID"
	}
	if err := fieldsErr(f); err != nil {
		return TriageCompleteResult{}, err
	}
	var res TriageCompleteResult
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		row, tr, visible, err := s.triageRead(ctx, tx, agent, sid, now)
		if err != nil {
			return err
		}
		c, err := s.triage.Complete(tr, attempt, visible.triage())
		if err != nil {
			return coded(err)
		}
		row.TriageStatus, row.TriagedEventIDs = string(c.Status), c.Watermark
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		res = TriageCompleteResult{SessionRunID: row.ID, TriageStatus: c.Status, EventCount: c.EventCount, SinceBeginCount: c.SinceBeginCount, Truncated: c.Truncated}
		return tx.AppendLedger(ctx, s.ledgerKeep, s.entry(EventTriageFinished, now, row, map[string]string{
			"status": string(c.Status), "since_begin": strconv.Itoa(c.SinceBeginCount), "attempt_id": attempt.String(),
		}))
	})
	return res, err
}

// DebriefParams selects the debrief prompt's facets. With Agent and
// SessionID the prompt lists that conversation's briefed rows.
type DebriefParams struct {
	Project   string `json:"project,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Agent     string `json:"agent,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// Debrief renders the debrief prompt (triage.Debrief, the one renderer) for
// a conversation.
//
// Errors: invalid, not_found (a named conversation the tenant does not have).
func (s *Service) Debrief(ctx context.Context, tenant string, p DebriefParams) (string, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	if (p.Agent == "") != (p.SessionID == "") {
		f["sessionId"] = "agent and sessionId go together"
	}
	if err := fieldsErr(f); err != nil {
		return "", err
	}
	var row *Session
	if p.SessionID != "" {
		_, agent, sid, err := sessionKey(tenant, p.Agent, p.SessionID)
		if err != nil {
			return "", err
		}
		err = s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
			var rerr error
			row, rerr = tx.SessionByKey(ctx, agent, sid)
			return rerr
		})
		if err != nil {
			return "", err
		}
	}
	return debrief(p, row), nil
}

// debrief renders the debrief p selects for the conversation whose row is
// row (nil when p names none).
func debrief(p DebriefParams, row *Session) string {
	in := triage.DebriefInput{Project: p.Project, Scope: p.Scope, Agent: p.Agent}
	if row != nil {
		in.SessionRunID = row.ID.String()
		if in.Project == "" {
			in.Project = row.Project
		}
		for _, b := range row.BriefedMemories {
			in.Briefed = append(in.Briefed, triage.BriefedMemory{ID: b.ID, Topic: b.Topic, Status: b.Status})
		}
	}
	return triage.Debrief(in)
}
