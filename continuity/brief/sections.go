package brief

import (
	"time"

	"github.com/batonhq/baton/continuity/memrule"
)

// The briefing's sections, in the order they render.
const (
	SectionCommitments = "Open commitments"
	SectionBlockers    = "Blockers"
	SectionOverdue     = "Overdue (past their due date)"
	SectionStale       = "Stale (not updated recently; re-check before acting)"
	SectionDecisions   = "Recent decisions"
	SectionPreferences = "Preferences"
)

// Section is one section of the briefing and the memories that fill it.
// Zero bounds match anything; the time bounds are half-open as a store's
// memory query reads them: "before" excludes the instant, "since" includes
// it, and NotDueBefore also matches a memory with no due date.
type Section struct {
	Name     string
	Kinds    []memrule.Kind
	Statuses []memrule.Status
	// UpdatedSince admits memories last updated at or after the instant,
	// UpdatedBefore those last updated before it.
	UpdatedSince, UpdatedBefore time.Time
	// DueBefore admits memories due before the instant, NotDueBefore those
	// with no due date or one at or after it.
	DueBefore, NotDueBefore time.Time
}

// Sections are the briefing's sections in render order at now. An open
// commitment or blocker lands in exactly one of four: overdue when its due
// date is before now; else stale when it was last updated more than
// staleAfter ago (exactly staleAfter ago is still current); else its kind's
// own section. Decisions show open and resolved; preferences open; notes
// and archived memories never.
func Sections(now time.Time, staleAfter time.Duration) []Section {
	tracked, open := []memrule.Kind{memrule.Commitment, memrule.Blocker}, []memrule.Status{memrule.Open}
	staleBefore := now.Add(-staleAfter)
	return []Section{
		{Name: SectionCommitments, Kinds: []memrule.Kind{memrule.Commitment}, Statuses: open, UpdatedSince: staleBefore, NotDueBefore: now},
		{Name: SectionBlockers, Kinds: []memrule.Kind{memrule.Blocker}, Statuses: open, UpdatedSince: staleBefore, NotDueBefore: now},
		{Name: SectionOverdue, Kinds: tracked, Statuses: open, DueBefore: now},
		{Name: SectionStale, Kinds: tracked, Statuses: open, UpdatedBefore: staleBefore, NotDueBefore: now},
		{Name: SectionDecisions, Kinds: []memrule.Kind{memrule.Decision}, Statuses: []memrule.Status{memrule.Open, memrule.Resolved}},
		{Name: SectionPreferences, Kinds: []memrule.Kind{memrule.Preference}, Statuses: open},
	}
}
