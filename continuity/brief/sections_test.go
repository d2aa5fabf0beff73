package brief_test

import (
	"slices"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity/brief"
	"github.com/batonhq/baton/continuity/memrule"
)

var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

const staleAfter = 14 * 24 * time.Hour

// admits reads a section's bounds the way a store's memory query does.
func admits(s brief.Section, kind memrule.Kind, status memrule.Status, updated time.Time, due *time.Time) bool {
	switch {
	case !slices.Contains(s.Kinds, kind), !slices.Contains(s.Statuses, status):
		return false
	case !s.UpdatedSince.IsZero() && updated.Before(s.UpdatedSince):
		return false
	case !s.UpdatedBefore.IsZero() && !updated.Before(s.UpdatedBefore):
		return false
	case !s.DueBefore.IsZero() && (due == nil || !due.Before(s.DueBefore)):
		return false
	case !s.NotDueBefore.IsZero() && due != nil && due.Before(s.NotDueBefore):
		return false
	}
	return true
}

// TestSections places a memory of every kind and status, updated and due
// on each side of every boundary, in the sections: at most one, and the
// one the precedence names (overdue, then stale, then the kind's own).
func TestSections(t *testing.T) {
	now := t0
	secs := brief.Sections(now, staleAfter)
	var names []string
	for _, s := range secs {
		names = append(names, s.Name)
	}
	wantOrder := []string{brief.SectionCommitments, brief.SectionBlockers, brief.SectionOverdue, brief.SectionStale, brief.SectionDecisions, brief.SectionPreferences}
	if !slices.Equal(names, wantOrder) {
		t.Fatalf("sections %v, want %v", names, wantOrder)
	}
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	updates := map[string]time.Time{
		"updated now":                        now,
		"updated exactly staleAfter ago":     now.Add(-staleAfter),
		"updated one ns before staleAfter":   now.Add(-staleAfter - time.Nanosecond),
		"updated in the future (clock skew)": now.Add(time.Hour),
	}
	dues := map[string]*time.Time{
		"no due date":    nil,
		"due one ns ago": at(-time.Nanosecond),
		"due now":        at(0),
		"due tomorrow":   at(24 * time.Hour),
	}
	for _, kind := range []memrule.Kind{memrule.Commitment, memrule.Blocker, memrule.Decision, memrule.Preference, memrule.Note} {
		for _, status := range []memrule.Status{memrule.Open, memrule.Resolved, memrule.Archived} {
			for un, updated := range updates {
				for dn, due := range dues {
					want := expected(kind, status, !updated.Before(now.Add(-staleAfter)), due != nil && due.Before(now))
					got := ""
					for _, s := range secs {
						if !admits(s, kind, status, updated, due) {
							continue
						}
						if got != "" {
							t.Errorf("%s %s, %s, %s: in %q and %q", status, kind, un, dn, got, s.Name)
						}
						got = s.Name
					}
					if got != want {
						t.Errorf("%s %s, %s, %s: section %q, want %q", status, kind, un, dn, got, want)
					}
				}
			}
		}
	}
}

// expected is the precedence written as a decision list.
func expected(kind memrule.Kind, status memrule.Status, current, overdue bool) string {
	tracked := kind == memrule.Commitment || kind == memrule.Blocker
	switch {
	case tracked && status == memrule.Open && overdue:
		return brief.SectionOverdue
	case tracked && status == memrule.Open && !current:
		return brief.SectionStale
	case kind == memrule.Commitment && status == memrule.Open:
		return brief.SectionCommitments
	case kind == memrule.Blocker && status == memrule.Open:
		return brief.SectionBlockers
	case kind == memrule.Decision && status != memrule.Archived:
		return brief.SectionDecisions
	case kind == memrule.Preference && status == memrule.Open:
		return brief.SectionPreferences
	}
	return ""
}
