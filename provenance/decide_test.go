package provenance_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
)

var (
	runA = uuid.MustParse("01950000-0000-7000-8000-00000000000a")
	runB = uuid.MustParse("01950000-0000-7000-8000-00000000000b")
	runC = uuid.MustParse("01950000-0000-7000-8000-00000000000c")
)

func id(u uuid.UUID) *uuid.UUID { return &u }

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		in   provenance.Input
		want provenance.Decision
	}{
		// a carried run id
		{"foreign or unknown run id", provenance.Input{RunID: id(runA)},
			provenance.Decision{Action: provenance.Forbidden}},
		{"foreign run id ignores candidates", provenance.Input{RunID: id(runA), Candidates: []uuid.UUID{runA}},
			provenance.Decision{Action: provenance.Forbidden}},
		{"row read for a different id", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runB, State: lease.Live}},
			provenance.Decision{Action: provenance.Forbidden}},
		{"nil run id, no row", provenance.Input{RunID: id(uuid.Nil)},
			provenance.Decision{Action: provenance.Forbidden}},
		{"live run", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.Live}},
			provenance.Decision{Action: provenance.Attach, RunID: runA}},
		{"live run ignores candidates", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.Live}, Candidates: []uuid.UUID{runB}},
			provenance.Decision{Action: provenance.Attach, RunID: runA}},
		{"implicitly closed run", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.ImplicitlyClosed}},
			provenance.Decision{Action: provenance.ResurrectAndAttach, RunID: runA}},
		{"explicitly closed run", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.ExplicitlyClosed}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"explicitly closed run with one candidate", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.ExplicitlyClosed}, Candidates: []uuid.UUID{runB}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"unknown lease state never fails the write", provenance.Input{RunID: id(runA), Run: &provenance.Run{ID: runA, State: lease.State(9)}},
			provenance.Decision{Action: provenance.Unattributed}},

		// no run id: the single-open-session floor
		{"no id, no candidates", provenance.Input{},
			provenance.Decision{Action: provenance.Unattributed}},
		{"no id, empty candidates", provenance.Input{Candidates: []uuid.UUID{}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"no id, exactly one candidate", provenance.Input{Candidates: []uuid.UUID{runB}},
			provenance.Decision{Action: provenance.Attach, RunID: runB}},
		{"no id, two candidates", provenance.Input{Candidates: []uuid.UUID{runB, runC}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"no id, three candidates", provenance.Input{Candidates: []uuid.UUID{runA, runB, runC}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"no id, the one candidate is nil", provenance.Input{Candidates: []uuid.UUID{uuid.Nil}},
			provenance.Decision{Action: provenance.Unattributed}},
		{"no id, a stray row is ignored", provenance.Input{Run: &provenance.Run{ID: runA, State: lease.Live}},
			provenance.Decision{Action: provenance.Unattributed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := provenance.Decide(tt.in); got != tt.want {
				t.Errorf("Decide = {%v %v}, want {%v %v}", got.Action, got.RunID, tt.want.Action, tt.want.RunID)
			}
		})
	}
}

func TestForbiddenIsTheZeroAction(t *testing.T) {
	var d provenance.Decision
	if d.Action != provenance.Forbidden {
		t.Errorf("zero Action = %v, want forbidden (fail closed)", d.Action)
	}
}

func TestActionString(t *testing.T) {
	tests := []struct {
		a    provenance.Action
		want string
	}{
		{provenance.Forbidden, "forbidden"},
		{provenance.Unattributed, "unattributed"},
		{provenance.Attach, "attach"},
		{provenance.ResurrectAndAttach, "resurrect_and_attach"},
		{provenance.Action(42), "Action(42)"},
	}
	for _, tt := range tests {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("Action(%d).String() = %q, want %q", int(tt.a), got, tt.want)
		}
	}
}
