package continuity

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
)

// BottleStore binds the bottle package's storage interfaces (History,
// MarkerArmer, MarkerClaimer) to one tenant and agent of the service.
type BottleStore struct {
	svc    *Service
	tenant string
	agent  string
}

var (
	_ bottle.History       = (*BottleStore)(nil)
	_ bottle.MarkerArmer   = (*BottleStore)(nil)
	_ bottle.MarkerClaimer = (*BottleStore)(nil)
)

// Bottles returns the bottle storage of one tenant and agent.
func (s *Service) Bottles(tenant, agent string) *BottleStore {
	return &BottleStore{svc: s, tenant: strings.TrimSpace(tenant), agent: agent}
}

// check validates the tenant, the agent and the session id; fields holds
// the caller's own failures, if any, so one error names them all.
func (b *BottleStore) check(sessionID string, fields map[string]string) (string, error) {
	_, _, sid, err := sessionKey(b.tenant, b.agent, sessionID)
	f := map[string]string{}
	maps.Copy(f, ErrorFields(err))
	maps.Copy(f, fields)
	return sid, fieldsErr(f)
}

// ArmBottle arms the conversation's marker, replacing any earlier one. The
// mode is a rung a bottle is written on (full or reconstructed), the gap
// between 0 and MaxBottleGap, the path at most MaxPathLen characters.
//
// Errors: invalid.
func (b *BottleStore) ArmBottle(ctx context.Context, m bottle.Marker) error {
	f := map[string]string{}
	if strings.TrimSpace(m.Path) == "" {
		f["path"] = "is required"
	} else {
		checkLen(f, "path", m.Path, 1, MaxPathLen)
	}
	oneOf(f, "mode", string(m.Mode), string(bottle.ModeFull), string(bottle.ModeReconstructed))
	if m.Gap < 0 || m.Gap > MaxBottleGap {
		f["gap"] = "must be between 0 and " + strconv.Itoa(MaxBottleGap)
	}
	sid, err := b.check(m.SessionID, f)
	if err != nil {
		return err
	}
	now := b.svc.clock()
	armedAt := m.ArmedAt
	if armedAt.IsZero() {
		armedAt = now
	}
	return b.svc.store.Write(ctx, b.tenant, func(ctx context.Context, tx Tx) error {
		if err := tx.ArmBottle(ctx, BottleMarker{Tenant: b.tenant, Agent: b.agent, SessionID: sid, Path: m.Path, Mode: string(m.Mode), Gap: m.Gap, ArmedAt: armedAt}); err != nil {
			return err
		}
		return tx.AppendLedger(ctx, b.svc.ledgerKeep, LedgerEntry{ID: b.svc.newID(), Tenant: b.tenant, Event: EventBottleArmed, At: now, Session: sid,
			Fields: map[string]string{"agent": b.agent, "mode": string(m.Mode)}})
	})
}

// ClaimBottle consumes the conversation's armed marker in one atomic update:
// of two concurrent SessionStarts exactly one gets ok, and a marker another
// agent armed under the same session id is never this agent's.
//
// Errors: invalid.
func (b *BottleStore) ClaimBottle(ctx context.Context, sessionID string) (bottle.Marker, bool, error) {
	sid, err := b.check(sessionID, nil)
	if err != nil {
		return bottle.Marker{}, false, err
	}
	var got *BottleMarker
	err = b.svc.store.Write(ctx, b.tenant, func(ctx context.Context, tx Tx) error {
		now := b.svc.clock()
		m, err := tx.ClaimBottle(ctx, b.agent, sid, now)
		if ErrorCode(err) == CodeNotFound {
			got = nil
			return nil
		}
		if err != nil {
			return err
		}
		got = m
		return tx.AppendLedger(ctx, b.svc.ledgerKeep, LedgerEntry{ID: b.svc.newID(), Tenant: b.tenant, Event: EventBottleClaimed, At: now, Session: sid,
			Fields: map[string]string{"agent": b.agent}})
	})
	if err != nil || got == nil {
		return bottle.Marker{}, false, err
	}
	return bottle.Marker{SessionID: got.SessionID, Path: got.Path, Gap: got.Gap, Mode: bottle.Mode(got.Mode), ArmedAt: got.ArmedAt}, true, nil
}

// SessionHistory returns what the hook path recorded of the conversation:
// its prompts and Stop excerpts. An unknown conversation is an empty record.
//
// Errors: invalid.
func (b *BottleStore) SessionHistory(ctx context.Context, sessionID string) (bottle.Record, error) {
	sid, err := b.check(sessionID, nil)
	if err != nil {
		return bottle.Record{}, err
	}
	rec := bottle.Record{SessionID: sid}
	err = b.svc.store.Read(ctx, b.tenant, func(ctx context.Context, tx Tx) error {
		row, err := tx.SessionByKey(ctx, b.agent, sid)
		switch ErrorCode(err) {
		case "":
			rec.Project, rec.Started, rec.Compactions = row.Project, row.OpenedAt, row.Compactions
		case CodeNotFound:
		default:
			return err
		}
		prompts, err := tx.Prompts(ctx, b.agent, sid)
		if err != nil {
			return err
		}
		for _, p := range prompts {
			rec.Prompts = append(rec.Prompts, bottle.Prompt{Number: p.Number, Text: p.Text, Truncated: p.Truncated, Time: p.At})
		}
		excerpts, err := tx.StopExcerpts(ctx, b.agent, sid)
		if err != nil {
			return err
		}
		for _, e := range excerpts {
			rec.StopExcerpts = append(rec.StopExcerpts, bottle.StopExcerpt{PromptNumber: promptAt(prompts, e), Text: e.Text, Time: e.At})
		}
		return nil
	})
	return rec, err
}

// promptAt is the number of the last prompt submitted before the Stop.
func promptAt(ps []Prompt, e StopExcerpt) int {
	n := 0
	for _, p := range ps {
		if !p.At.After(e.At) {
			n = p.Number
		}
	}
	return n
}

// RecordPrompt keeps a user prompt for degraded bottles: privacy filtered,
// capped at bottle.MaxPromptChars with its truncated flag set. A prompt that
// is empty after filtering is not kept.
//
// Errors: invalid.
func (b *BottleStore) RecordPrompt(ctx context.Context, sessionID, text string) error {
	f := map[string]string{}
	checkText(f, "text", text)
	sid, err := b.check(sessionID, f)
	if err != nil {
		return err
	}
	text = strings.TrimSpace(Scrub(text))
	if text == "" {
		return nil
	}
	truncated := false
	if utf8.RuneCountInString(text) > bottle.MaxPromptChars {
		text, truncated = string([]rune(text)[:bottle.MaxPromptChars]), true
	}
	return b.svc.store.Write(ctx, b.tenant, func(ctx context.Context, tx Tx) error {
		return tx.AppendPrompt(ctx, &Prompt{ID: b.svc.newID(), Tenant: b.tenant, Agent: b.agent, SessionID: sid,
			Text: text, Truncated: truncated, At: b.svc.clock()})
	})
}
