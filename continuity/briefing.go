package continuity

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Briefer produces the SessionStart briefing. The Service implements it over
// the built-in memory store; a host with its own memory will implement it
// instead, for the planned hook adapter (nothing in the tree takes a Briefer
// yet).
type Briefer interface {
	// Briefing returns the tenant's bounded live state for a selector.
	Briefing(ctx context.Context, tenant string, p BriefingParams) (Briefing, error)
}

// Commitments is the part of a memory store the planned closer needs: list
// open commitments, resolve one. The Service implements it; a host with its
// own memory will implement it instead (nothing in the tree takes one yet;
// the debrief lists a session's briefed rows, not this).
type Commitments interface {
	// OpenCommitments lists the open commitments for a project (and those
	// with no project).
	OpenCommitments(ctx context.Context, tenant, project string) ([]Memory, error)
	// Resolve marks a memory resolved.
	Resolve(ctx context.Context, tenant, id string, p TransitionParams) (WriteResult, error)
}

var (
	_ Briefer     = (*Service)(nil)
	_ Commitments = (*Service)(nil)
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
}

// BriefingItem is one row of a briefing.
type BriefingItem struct {
	ID      uuid.UUID    `json:"id"`
	Kind    MemoryKind   `json:"kind"`
	Topic   string       `json:"topic"`
	Status  MemoryStatus `json:"status"`
	Content string       `json:"content"`
	Section string       `json:"section"`
	Due     *time.Time   `json:"due,omitempty"`
}

// Briefing is the live state shown at SessionStart. Items are every row the
// bounds admitted; Briefed are the rows whose text survived the budget cut,
// which is what a SessionStart open records.
type Briefing struct {
	GeneratedAt time.Time       `json:"generatedAt"`
	Selector    Selector        `json:"selector"`
	Items       []BriefingItem  `json:"items"`
	Briefed     []BriefedMemory `json:"briefed"`
	Text        string          `json:"text"`
}

// The briefing's sections, in the order they render.
const (
	SectionCommitments = "Open commitments"
	SectionBlockers    = "Blockers"
	SectionOverdue     = "Overdue (past their due date)"
	SectionStale       = "Stale (not updated recently; re-check before acting)"
	SectionDecisions   = "Recent decisions"
	SectionPreferences = "Preferences"
)

// briefingSection is one section of the briefing and the query that fills it.
type briefingSection struct {
	name string
	q    MemoryQuery
}

// briefingSections are the sections in render order. An open commitment or
// blocker lands in exactly one of four: overdue when its due date is before
// now; else stale when it was last updated more than StaleAfter ago; else
// its kind's own section.
func briefingSections(now time.Time, staleAfter time.Duration) []briefingSection {
	tracked, open := []MemoryKind{KindCommitment, KindBlocker}, []MemoryStatus{StatusOpen}
	staleBefore := now.Add(-staleAfter)
	return []briefingSection{
		{SectionCommitments, MemoryQuery{Kinds: []MemoryKind{KindCommitment}, Statuses: open, UpdatedSince: staleBefore, NotDueBefore: now}},
		{SectionBlockers, MemoryQuery{Kinds: []MemoryKind{KindBlocker}, Statuses: open, UpdatedSince: staleBefore, NotDueBefore: now}},
		{SectionOverdue, MemoryQuery{Kinds: tracked, Statuses: open, DueBefore: now}},
		{SectionStale, MemoryQuery{Kinds: tracked, Statuses: open, UpdatedBefore: staleBefore, NotDueBefore: now}},
		{SectionDecisions, MemoryQuery{Kinds: []MemoryKind{KindDecision}, Statuses: []MemoryStatus{StatusOpen, StatusResolved}}},
		{SectionPreferences, MemoryQuery{Kinds: []MemoryKind{KindPreference}, Statuses: open}},
	}
}

// Briefing returns the tenant's bounded live state: open commitments,
// blockers, overdue and stale items, recent decisions and preferences, each
// section read on its own and capped, and the text rendered within the
// character budget.
//
// Errors: invalid.
func (s *Service) Briefing(ctx context.Context, tenant string, p BriefingParams) (Briefing, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	p.Project = trimField(f, "project", p.Project, 0, MaxFacetLen)
	p.Scope = trimField(f, "scope", p.Scope, 0, MaxFacetLen)
	if p.Budget < 0 || p.Budget > MaxBriefingBudget {
		f["budget"] = fmt.Sprintf("must be between 0 and %d", MaxBriefingBudget)
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
		for _, sec := range briefingSections(now, pol.StaleAfter) {
			q := sec.q
			q.Project, q.Scope, q.Limit = p.Project, p.Scope, pol.PerSection
			ms, err := tx.Memories(ctx, q)
			if err != nil {
				return err
			}
			for _, m := range ms {
				b.Items = append(b.Items, BriefingItem{ID: m.ID, Kind: m.Kind, Topic: m.Topic, Status: m.Status, Content: m.Content, Section: sec.name, Due: m.Due})
			}
		}
		return nil
	})
	if err != nil {
		return Briefing{}, err
	}
	b.Text, b.Briefed = renderBriefing(b, p.Budget, now)
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

// renderBriefing renders the items in order and cuts at the budget: a row
// either renders whole or not at all, and the cut is a prefix, so the rows
// that survived are exactly the ones the agent saw.
func renderBriefing(b Briefing, budget int, now time.Time) (string, []BriefedMemory) {
	var out strings.Builder
	used := 0
	write := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if used+n > budget {
			return false
		}
		out.WriteString(s)
		used += n
		return true
	}
	header := "# baton briefing\n"
	if p := b.Selector["project"]; p != "" {
		header = "# baton briefing — project " + p + "\n"
	}
	if !write(header) {
		return "", []BriefedMemory{}
	}
	survived := []BriefedMemory{}
	if len(b.Items) == 0 {
		write("\nNo open commitments, blockers, decisions or preferences are recorded.\n")
		return out.String(), survived
	}
	section := ""
	for i, it := range b.Items {
		var chunk strings.Builder
		if it.Section != section {
			chunk.WriteString("\n## " + it.Section + "\n")
		}
		fmt.Fprintf(&chunk, "- %s [%s] %s", oneLine(it.Topic), it.Kind, oneLine(it.Content))
		if it.Due != nil {
			chunk.WriteString(" (due " + it.Due.UTC().Format("2006-01-02 15:04 UTC") + ")")
		}
		chunk.WriteString("\n")
		if !write(chunk.String()) {
			write(fmt.Sprintf("\n(%d more rows cut at the briefing's budget)\n", len(b.Items)-i))
			break
		}
		section = it.Section
		survived = append(survived, BriefedMemory{ID: it.ID, Topic: it.Topic, Status: string(it.Status)})
	}
	return out.String(), survived
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// OpenCommitments lists the tenant's open commitments for a project.
//
// Errors: invalid.
func (s *Service) OpenCommitments(ctx context.Context, tenant, project string) ([]Memory, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	project = trimField(f, "project", project, 0, MaxFacetLen)
	if err := fieldsErr(f); err != nil {
		return nil, err
	}
	var out []Memory
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		out, err = tx.Memories(ctx, MemoryQuery{Kinds: []MemoryKind{KindCommitment}, Statuses: []MemoryStatus{StatusOpen}, Project: project, Limit: 500})
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
