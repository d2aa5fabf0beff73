package continuity

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/batonhq/baton/continuity/brief"
	"github.com/batonhq/baton/continuity/freshness"
)

// BriefingPolicy bounds a briefing. Its values are declared once, in
// DefaultBriefingPolicy.
type BriefingPolicy struct {
	// PerSection caps the rows of each section; each section is read on its
	// own, so a full section never crowds another out.
	PerSection int
	// StaleAfter is how long an open commitment or blocker may go without
	// an update and still be current: updated exactly StaleAfter ago it is
	// current, any earlier it is listed as stale.
	StaleAfter time.Duration
	// Budget is the default character budget of the rendered text.
	Budget int
}

// DefaultBriefingPolicy is baton's briefing policy: about 2000 tokens of text.
var DefaultBriefingPolicy = BriefingPolicy{PerSection: 10, StaleAfter: 14 * 24 * time.Hour, Budget: 8000}

// MaxBriefingBudget caps a caller's budget.
const MaxBriefingBudget = 64000

// BriefingParams selects a briefing.
type BriefingParams struct {
	Project string `json:"project,omitempty"`
	Scope   string `json:"scope,omitempty"`
	// Budget is the rendered text's character budget; 0 means the policy's.
	Budget int `json:"budget,omitempty"`
	// Mode is the briefing's kind: BriefingFull, the full bounded live
	// state (commitments, blockers, overdue, stale, recent decisions,
	// preferences), the only one; "" means it.
	Mode string `json:"mode,omitempty"`
}

// BriefingFull is the full bounded live-state briefing every SessionStart
// startup delivers (the contract's mode=full).
const BriefingFull = "full"

// BriefingItem is one row of a briefing (brief renders it).
type BriefingItem = brief.Item

// Briefing is the live state shown at SessionStart. Items are every row the
// bounds admitted; Briefed are the rows whose text survived the budget cut,
// which is what a SessionStart open records.
type Briefing struct {
	GeneratedAt time.Time       `json:"generatedAt"`
	Selector    Selector        `json:"selector"`
	Items       []BriefingItem  `json:"items"`
	Briefed     []BriefedMemory `json:"briefed"`
	Text        string          `json:"text"`
	// Handover is the project's newest handover with its freshness, when
	// there is one. Its divergence is read against a working directory's
	// HEAD, so it is decided where the work tree is (Episodes), and the text
	// a SessionStart injects shows it after the briefing.
	Handover *HandoverView `json:"handover,omitempty"`
}

// HandoverView is a handover as a briefing shows it: the record and its
// freshness at the briefing's instant; History says it is shown as history
// (stale or invalid), its next action not quoted as current.
type HandoverView struct {
	Record    Record            `json:"record"`
	Freshness freshness.Reading `json:"freshness"`
	History   bool              `json:"history"`
}

// The briefing's sections, in the order they render (brief declares them
// and their precedence).
const (
	SectionCommitments = brief.SectionCommitments
	SectionBlockers    = brief.SectionBlockers
	SectionOverdue     = brief.SectionOverdue
	SectionStale       = brief.SectionStale
	SectionDecisions   = brief.SectionDecisions
	SectionPreferences = brief.SectionPreferences
)

// Briefing returns the tenant's bounded live state: open commitments,
// blockers, overdue and stale items, recent decisions and preferences, each
// section read on its own and capped, and the text rendered within the
// character budget.
//
// Errors: invalid.
func (s *Service) Briefing(ctx context.Context, tenant string, p BriefingParams) (Briefing, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	if p.Budget < 0 || p.Budget > MaxBriefingBudget {
		f["budget"] = fmt.Sprintf("must be between 0 and %d", MaxBriefingBudget)
	}
	if p.Mode = strings.TrimSpace(p.Mode); p.Mode != "" {
		oneOf(f, "mode", p.Mode, BriefingFull)
	}
	if err := fieldsErr(f); err != nil {
		return Briefing{}, err
	}
	pol := s.briefing
	if p.Budget == 0 {
		p.Budget = pol.Budget
	}
	now := s.clock()
	b := Briefing{GeneratedAt: now, Selector: selectorFor(p), Items: []BriefingItem{}, Briefed: []BriefedMemory{}}
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		for _, sec := range brief.Sections(now, pol.StaleAfter) {
			ms, err := tx.Memories(ctx, MemoryQuery{Kinds: sec.Kinds, Statuses: sec.Statuses, Project: p.Project, Scope: p.Scope,
				UpdatedBefore: sec.UpdatedBefore, UpdatedSince: sec.UpdatedSince, DueBefore: sec.DueBefore, NotDueBefore: sec.NotDueBefore,
				Limit: pol.PerSection})
			if err != nil {
				return err
			}
			for _, m := range ms {
				b.Items = append(b.Items, BriefingItem{ID: m.ID, Kind: m.Kind, Topic: m.Topic, Status: m.Status, Content: m.Content, Section: sec.Name, Due: m.Due})
			}
		}
		hs, err := tx.Records(ctx, RecordQuery{ByProject: true, Project: p.Project, Kinds: []RecordKind{RecordHandover}, Limit: 1})
		if err != nil || len(hs) == 0 {
			return err
		}
		r := s.freshness.Of(hs[0].CreatedAt, now)
		b.Handover = &HandoverView{Record: hs[0], Freshness: r, History: r.Label.History()}
		return nil
	})
	if err != nil {
		return Briefing{}, err
	}
	r := brief.Render(brief.Input{Project: p.Project, Items: b.Items, Budget: p.Budget})
	b.Text = r.Text
	for _, it := range b.Items[:r.Shown] {
		b.Briefed = append(b.Briefed, BriefedMemory{ID: it.ID, Topic: it.Topic, Status: string(it.Status)})
	}
	return b, nil
}

func selectorFor(p BriefingParams) Selector {
	sel := Selector{"kind": "all"}
	if p.Project != "" {
		sel["kind"], sel["project"] = "project", p.Project
	}
	if p.Scope != "" {
		sel["scope"] = p.Scope
	}
	return sel
}

// MaxOpenCommitments bounds the commitments one OpenCommitments read lists.
const MaxOpenCommitments = 500

// OpenCommitments lists the tenant's open commitments for a project (at
// most MaxOpenCommitments).
//
// Errors: invalid.
func (s *Service) OpenCommitments(ctx context.Context, tenant, project string) ([]Memory, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	project = facetText.take(f, "project", project)
	if err := fieldsErr(f); err != nil {
		return nil, err
	}
	var out []Memory
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		out, err = tx.Memories(ctx, MemoryQuery{Kinds: []MemoryKind{KindCommitment}, Statuses: []MemoryStatus{StatusOpen}, Project: project, Limit: MaxOpenCommitments})
		return err
	})
	return out, err
}

// Memory returns one memory.
//
// Errors: invalid, not_found.
func (s *Service) Memory(ctx context.Context, tenant, id string) (Memory, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	mid, err := parseMemoryID(id)
	if err != nil {
		f["id"] = "must be a UUID"
	}
	if err := fieldsErr(f); err != nil {
		return Memory{}, err
	}
	var m Memory
	err = s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		got, err := tx.MemoryByID(ctx, mid)
		if err == nil {
			m = *got
		}
		return err
	})
	return m, err
}
