package memrule_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/batonhq/baton/continuity/memrule"
)

var (
	kinds    = []memrule.Kind{memrule.Commitment, memrule.Decision, memrule.Preference, memrule.Blocker, memrule.Note}
	statuses = []memrule.Status{memrule.Open, memrule.Resolved, memrule.Archived}
)

// TestTransition pins every transition event against every status.
func TestTransition(t *testing.T) {
	const refused = memrule.Status("")
	tests := []struct {
		ev   memrule.Event
		from memrule.Status
		want memrule.Status
		msg  string
	}{
		{memrule.Resolve, memrule.Open, memrule.Resolved, ""},
		{memrule.Resolve, memrule.Resolved, refused, "cannot resolve a memory that is resolved"},
		{memrule.Resolve, memrule.Archived, refused, "cannot resolve a memory that is archived"},
		{memrule.Unresolve, memrule.Open, refused, "cannot unresolve a memory that is open"},
		{memrule.Unresolve, memrule.Resolved, memrule.Open, ""},
		{memrule.Unresolve, memrule.Archived, refused, "cannot unresolve a memory that is archived"},
		{memrule.Archive, memrule.Open, memrule.Archived, ""},
		{memrule.Archive, memrule.Resolved, memrule.Archived, ""},
		{memrule.Archive, memrule.Archived, refused, "cannot archive a memory that is archived"},
		{memrule.Resolve, memrule.Status("bogus"), refused, "cannot resolve a memory that is bogus"},
	}
	for _, tt := range tests {
		t.Run(string(tt.ev)+"/"+string(tt.from), func(t *testing.T) {
			got, err := memrule.Transition(tt.ev, tt.from)
			if got != tt.want {
				t.Errorf("Transition = %q, want %q", got, tt.want)
			}
			var se *memrule.StatusError
			switch {
			case tt.msg == "" && err != nil:
				t.Errorf("Transition error = %v, want none", err)
			case tt.msg != "" && !errors.As(err, &se):
				t.Errorf("Transition error = %v, want a *StatusError", err)
			case tt.msg != "" && (err.Error() != tt.msg || se.Status != tt.from || se.Change != string(tt.ev)):
				t.Errorf("Transition error = %+v (%q), want %q", se, err, tt.msg)
			}
		})
	}
}

func TestTransitionRefusesOtherEvents(t *testing.T) {
	for _, ev := range []memrule.Event{memrule.Create, memrule.Supersede, memrule.Import, "bogus"} {
		for _, st := range statuses {
			if got, err := memrule.Transition(ev, st); got != "" || !errors.Is(err, memrule.ErrNotTransition) {
				t.Errorf("Transition(%q, %q) = %q, %v; want ErrNotTransition", ev, st, got, err)
			}
		}
	}
}

// TestRevise pins every pair of kinds against every status: only an open
// memory is revised; the successor is open with a create, the predecessor
// archived with a supersede, and a commitment revised into another kind is
// demoted with an archive after it.
func TestRevise(t *testing.T) {
	for _, prev := range kinds {
		for _, next := range kinds {
			for _, st := range statuses {
				r, err := memrule.Revise(prev, next, st)
				if st != memrule.Open {
					var se *memrule.StatusError
					want := "only an open memory can be revised; this one is " + string(st)
					if !errors.As(err, &se) || se.Change != memrule.ChangeRevise || err.Error() != want {
						t.Errorf("Revise(%s, %s, %s) error = %v, want %q", prev, next, st, err, want)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Revise(%s, %s, open) = %v", prev, next, err)
				}
				wantPrev := []memrule.Event{memrule.Supersede}
				if prev == memrule.Commitment && next != memrule.Commitment {
					wantPrev = append(wantPrev, memrule.Archive)
				}
				if r.Next != memrule.Open || !slices.Equal(r.NextEvents, []memrule.Event{memrule.Create}) ||
					r.Prev != memrule.Archived || !slices.Equal(r.PrevEvents, wantPrev) {
					t.Errorf("Revise(%s, %s, open) = %+v, want successor open [create], predecessor archived %v", prev, next, r, wantPrev)
				}
			}
		}
	}
}

// TestReviseDemotion names the carry and demote cases on their own.
func TestReviseDemotion(t *testing.T) {
	tests := []struct {
		prev, next memrule.Kind
		demoted    bool
	}{
		{memrule.Commitment, memrule.Commitment, false},
		{memrule.Commitment, memrule.Note, true},
		{memrule.Commitment, memrule.Blocker, true},
		{memrule.Blocker, memrule.Commitment, false},
		{memrule.Decision, memrule.Note, false},
	}
	for _, tt := range tests {
		r, err := memrule.Revise(tt.prev, tt.next, memrule.Open)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(r.PrevEvents, memrule.Archive); got != tt.demoted {
			t.Errorf("Revise(%s → %s) demoted = %v, want %v", tt.prev, tt.next, got, tt.demoted)
		}
	}
}
