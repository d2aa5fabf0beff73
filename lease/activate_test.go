package lease_test

import (
	"fmt"
	"testing"

	"github.com/batonhq/baton/lease"
)

// TestActivate pins every cell of the open matrix: two sources, no row or a
// row in each of the three states, with the same or different values.
func TestActivate(t *testing.T) {
	const (
		none     = -1 // no row under the key
		live     = lease.Live
		implicit = lease.ImplicitlyClosed
		explicit = lease.ExplicitlyClosed
	)
	startup, resume := lease.SourceStartup, lease.SourceResume
	tests := []struct {
		source lease.Source
		state  lease.State
		same   bool
		want   lease.Action
	}{
		{startup, none, true, lease.Insert},
		{startup, none, false, lease.Insert},
		{startup, live, true, lease.Retry},
		{startup, live, false, lease.Conflict},
		{startup, implicit, true, lease.Restart},
		{startup, implicit, false, lease.Conflict},
		{startup, explicit, true, lease.Restart},
		{startup, explicit, false, lease.Conflict},
		{resume, none, true, lease.Insert},
		{resume, none, false, lease.Insert},
		{resume, live, true, lease.Resume},
		{resume, live, false, lease.Resume},
		{resume, implicit, true, lease.Reopen},
		{resume, implicit, false, lease.Reopen},
		{resume, explicit, true, lease.Reopen},
		{resume, explicit, false, lease.Reopen},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		a := lease.Activation{Source: tt.source, Found: tt.state != none, SameValues: tt.same}
		row := "none"
		if a.Found {
			a.State, row = tt.state, tt.state.String()
		}
		name := fmt.Sprintf("%s/%s/same=%v", tt.source, row, tt.same)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			if got := lease.Activate(a); got != tt.want {
				t.Errorf("Activate(%+v) = %v, want %v", a, got, tt.want)
			}
		})
	}
	if len(seen) != 2*4*2 {
		t.Errorf("the table covers %d of the %d cells", len(seen), 2*4*2)
	}
}

// TestActivateIgnoresStateWithoutRow: with no row, whatever State holds is
// not read.
func TestActivateIgnoresStateWithoutRow(t *testing.T) {
	for _, src := range []lease.Source{lease.SourceStartup, lease.SourceResume} {
		for _, st := range []lease.State{lease.Live, lease.ImplicitlyClosed, lease.ExplicitlyClosed} {
			if got := lease.Activate(lease.Activation{Source: src, State: st}); got != lease.Insert {
				t.Errorf("Activate(%v, no row, %v) = %v, want insert", src, st, got)
			}
		}
	}
}

func TestActionFlags(t *testing.T) {
	tests := []struct {
		a                  lease.Action
		name               string
		activates, reopens bool
	}{
		{lease.Insert, "insert", false, false},
		{lease.Retry, "retry", false, false},
		{lease.Conflict, "conflict", false, false},
		{lease.Restart, "restart", true, true},
		{lease.Resume, "resume", true, false},
		{lease.Reopen, "reopen", true, true},
		{lease.Action(0), "Action(0)", false, false},
	}
	for _, tt := range tests {
		if got := tt.a.String(); got != tt.name {
			t.Errorf("String() = %q, want %q", got, tt.name)
		}
		if got := tt.a.Reopens(); got != tt.reopens {
			t.Errorf("%v.Reopens() = %v, want %v", tt.a, got, tt.reopens)
		}
	}
}

func TestSourceString(t *testing.T) {
	for src, want := range map[lease.Source]string{lease.SourceStartup: "startup", lease.SourceResume: "resume", lease.Source(9): "Source(9)"} {
		if got := src.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
