package storetest

import (
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
)

// scenarioActivations: a SessionStart says what its activation did to the
// row, for every source and every state the row can be in (no row
// included), as the lifecycle table has it: the epoch it left and exactly
// one of Created, Reopened, Resurrected and Started, or none when the row
// went on as it was (a retried startup, a compact or a clear of a live
// row) or a resume began a new activation of a live one.
func scenarioActivations(t *testing.T, h ScenarioHarness) {
	type flags struct{ created, reopened, resurrected, started bool }
	for _, tc := range []struct {
		source continuity.Source
		state  string // live, closed (a SessionEnd), lapsed (the lease ran out)
		epoch  int
		want   flags
	}{
		{continuity.SourceStartup, "none", 1, flags{created: true}},
		{continuity.SourceResume, "none", 1, flags{created: true}},
		// A conversation first seen at a compaction (hooks installed
		// mid-session) is taken up, as a resume of it would be.
		{continuity.SourceCompact, "none", 1, flags{created: true}},
		{continuity.SourceClear, "none", 1, flags{started: true}},
		{continuity.SourceStartup, "live", 1, flags{}},
		{continuity.SourceStartup, "closed", 2, flags{reopened: true}},
		{continuity.SourceStartup, "lapsed", 2, flags{reopened: true}},
		{continuity.SourceResume, "live", 2, flags{}},
		{continuity.SourceResume, "closed", 2, flags{reopened: true}},
		{continuity.SourceResume, "lapsed", 2, flags{reopened: true}},
		{continuity.SourceCompact, "live", 1, flags{}},
		{continuity.SourceCompact, "closed", 2, flags{resurrected: true}},
		{continuity.SourceCompact, "lapsed", 2, flags{resurrected: true}},
		{continuity.SourceClear, "live", 1, flags{}},
		{continuity.SourceClear, "closed", 2, flags{resurrected: true}},
		{continuity.SourceClear, "lapsed", 2, flags{resurrected: true}},
	} {
		t.Run(string(tc.source)+"/"+tc.state, func(t *testing.T) {
			s := newScene(t, h)
			var first continuity.StartResult
			if tc.state != "none" {
				first = s.startup("s1", "baton")
			}
			switch tc.state {
			case "closed":
				s.clock.Advance(time.Minute)
				s.end("s1")
			case "lapsed":
				s.clock.Advance(lease.Default.Lease)
			}
			s.clock.Advance(time.Second)
			r := s.start(s.a, startOf("s1", tc.source, "baton"))
			got := flags{r.Created, r.Reopened, r.Resurrected, r.Started}
			if tc.state == "none" {
				first.SessionRunID = s.session(s.a, "s1").ID
			}
			if r.SessionRunID != first.SessionRunID || r.ActivationEpoch != tc.epoch || got != tc.want {
				t.Errorf("%s of a %s row = run %v epoch %d %+v, want run %v epoch %d %+v",
					tc.source, tc.state, r.SessionRunID, r.ActivationEpoch, got, first.SessionRunID, tc.epoch, tc.want)
			}
			if v := s.session(s.a, "s1"); v.ActivationEpoch != tc.epoch || v.ClosedAt != nil {
				t.Errorf("the row after it: epoch %d, closed at %v; want epoch %d, open", v.ActivationEpoch, v.ClosedAt, tc.epoch)
			}
		})
	}
}
