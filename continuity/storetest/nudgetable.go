package storetest

import (
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// nudgeStop is a Stop with the nudge on (BATON_STOP_NUDGE=1).
func nudgeStop(sid string, active bool) continuity.StopParams {
	p := stopOf(sid, "turn done")
	p.Nudge, p.StopHookActive = true, active
	return p
}

// scenarioNudgeActivations: the Stop nudge's debounce (MinStops Stops, or
// MinElapsed, or an untriaged provenance event) is counted per
// activation. Before each case the conversation's activation has every
// substance but provenance (more Stops than MinStops, more time than
// MinElapsed, none of them nudged); then an event either starts a new
// activation, whose first Stop must not nudge and whose MinStops-th does,
// or does not (a compact of a live row), and the next Stop nudges. A run
// that holds untriaged provenance (a write that resurrected it by its id,
// or one of an earlier activation) arms on that signal at the new
// activation's first Stop: the signal is a fact about the run, not a
// count of the activation.
func scenarioNudgeActivations(t *testing.T, h ScenarioHarness) {
	lp := lease.Default
	type then = func(s *scene, run uuid.UUID) *continuity.StopResult
	// ended, lapsed and swept leave s1 so before the event starts (and
	// returns nil) or stops (and returns the Stop's result).
	ended := func(s *scene) { s.end("s1"); s.clock.Advance(time.Minute) }
	lapsed := func(s *scene) { s.clock.Advance(lp.Lease) }
	swept := func(s *scene) {
		s.clock.Advance(lp.Lease + lp.SweepGrace + time.Minute)
		s.end("s1")
		s.clock.Advance(time.Second)
	}
	start := func(before func(*scene), src continuity.Source) then {
		return func(s *scene, _ uuid.UUID) *continuity.StopResult {
			before(s)
			s.start(s.a, startOf("s1", src, "baton"))
			return nil
		}
	}
	stop := func(before func(*scene)) then {
		return func(s *scene, _ uuid.UUID) *continuity.StopResult {
			before(s)
			r := s.stop(nudgeStop("s1", false))
			return &r
		}
	}
	live := func(*scene) {}
	for _, tc := range []struct {
		name string
		// then starts (or not) a new activation of s1; when its last
		// step was the first Stop after it, with the nudge on, it
		// returns that Stop's result.
		then       then
		activation bool // then began a new activation (epoch+1)
		signal     bool // then left untriaged provenance in it
	}{
		{"resume of a live row", start(live, continuity.SourceResume), true, false},
		{"startup of an explicitly closed row", start(ended, continuity.SourceStartup), true, false},
		{"resume of an explicitly closed row", start(ended, continuity.SourceResume), true, false},
		{"resume of a lapsed row", start(lapsed, continuity.SourceResume), true, false},
		{"compact resurrecting a lapsed row", start(lapsed, continuity.SourceCompact), true, false},
		{"clear resurrecting an explicitly closed row", start(ended, continuity.SourceClear), true, false},
		{"Stop resurrecting an explicitly closed row", stop(ended), true, false},
		{"Stop resurrecting a row lapsed at the expiry instant", stop(lapsed), true, false},
		{"Stop resurrecting a swept row", stop(swept), true, false},
		{"write by run id resurrecting a lapsed row", func(s *scene, run uuid.UUID) *continuity.StopResult {
			s.clock.Advance(lp.Lease)
			s.remember(s.a, continuity.KindDecision, "after the gap", "baton", run.String())
			return nil
		}, true, true},
		{"resume of a closed row whose earlier write no triage took", func(s *scene, run uuid.UUID) *continuity.StopResult {
			s.remember(s.a, continuity.KindDecision, "before the end", "baton", run.String())
			return start(ended, continuity.SourceResume)(s, run)
		}, true, true},
		{"compact of a live row", start(live, continuity.SourceCompact), false, false},
		{"Stop of a row one microsecond before its expiry", stop(func(s *scene) { s.clock.Advance(lp.Lease - time.Microsecond) }), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			run := s.startup("s1", "baton").SessionRunID
			for range triage.Default.MinStops + 2 {
				s.clock.Advance(triage.Default.MinElapsed / 2)
				s.stop(stopOf("s1", "turn done")) // the nudge off: counted, never armed
			}
			was := s.session(s.a, "s1")
			first := tc.then(s, run)
			if first == nil {
				s.clock.Advance(time.Second)
				r := s.stop(nudgeStop("s1", false))
				first = &r
			}
			v := s.session(s.a, "s1")
			if newActivation := v.ActivationEpoch == was.ActivationEpoch+1; newActivation != tc.activation {
				t.Fatalf("epoch %d after it (was %d), want a new activation %v", v.ActivationEpoch, was.ActivationEpoch, tc.activation)
			}
			if !tc.activation || tc.signal {
				if !first.Inject || first.Triage == nil || !first.Triage.Armed {
					t.Fatalf("first Stop = %+v, want it armed", first)
				}
				return
			}
			for i := 1; i < triage.Default.MinStops; i++ {
				if i > 1 {
					s.clock.Advance(time.Second)
					r := s.stop(nudgeStop("s1", false))
					first = &r
				}
				if first.Inject || first.Triage == nil || first.Triage.Declined != triage.ReasonDebounce {
					t.Fatalf("Stop %d of the new activation = %+v, want declined for debounce", i, first)
				}
			}
			s.clock.Advance(time.Second)
			if r := s.stop(nudgeStop("s1", false)); !r.Inject || r.Triage == nil || !r.Triage.Armed {
				t.Fatalf("Stop %d of the new activation = %+v, want it armed", triage.Default.MinStops, r)
			}
		})
	}

	// The elapsed arm counts from the activation's start, at its boundary:
	// one microsecond before MinElapsed is debounced, the instant itself
	// arms.
	for _, tc := range []struct {
		name  string
		after time.Duration
		armed bool
	}{
		{"one microsecond before MinElapsed", triage.Default.MinElapsed - time.Microsecond, false},
		{"at MinElapsed", triage.Default.MinElapsed, true},
	} {
		t.Run("reopened, first Stop "+tc.name, func(t *testing.T) {
			s := newScene(t, h)
			s.startup("s1", "baton")
			s.clock.Advance(2 * triage.Default.MinElapsed)
			s.end("s1")
			s.clock.Advance(time.Minute)
			s.start(s.a, startOf("s1", continuity.SourceResume, "baton"))
			s.clock.Advance(tc.after)
			r := s.stop(nudgeStop("s1", false))
			if r.Inject != tc.armed || r.Triage == nil || r.Triage.Armed != tc.armed {
				t.Fatalf("first Stop %v after the reopen = %+v, want armed %v", tc.after, r, tc.armed)
			}
		})
	}
}
