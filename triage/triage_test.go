package triage_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
)

// ev returns a deterministic UUIDv7-shaped event id whose bytes sort by n.
func ev(n int) uuid.UUID {
	var u uuid.UUID
	u[4], u[5] = byte(n>>8), byte(n)
	u[6] = 0x70 // version 7
	u[8] = 0x80 // RFC 4122 variant
	u[15] = byte(n)
	return u
}

func evs(ns ...int) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ns))
	for _, n := range ns {
		out = append(out, ev(n))
	}
	return out
}

func list(ns ...int) triage.Listing { return triage.Listing{IDs: evs(ns...)} }

var (
	opened  = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	early   = opened.Add(time.Minute) // well inside MinElapsed
	old     = uuid.MustParse("0195d1b2-0000-7000-8000-00000000a001")
	fresh   = uuid.MustParse("0195d1b2-0000-7000-8000-00000000a002")
	fresher = uuid.MustParse("0195d1b2-0000-7000-8000-00000000a003")
)

// row returns a live row with the given status and watermark and no debounce
// substance (one Stop, opened one minute before early).
func row(s triage.Status, wm ...int) triage.Row {
	r := triage.Row{Live: true, Status: s, Watermark: evs(wm...), ActivationStops: 1, ActivatedAt: opened}
	if s == triage.Pending {
		r.AttemptID = old
	}
	return r
}

func TestDefaultPolicy(t *testing.T) {
	want := triage.Policy{MinStops: 3, MinElapsed: 10 * time.Minute, Ceiling: 500}
	if triage.Default != want {
		t.Errorf("Default = %+v, want %+v", triage.Default, want)
	}
	if triage.Default.Ceiling != provenance.Ceiling {
		t.Errorf("triage ceiling %d differs from the read's %d", triage.Default.Ceiling, provenance.Ceiling)
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range []triage.Status{triage.Idle, triage.Pending, triage.Completed, triage.Expired, triage.Overflowed} {
		got, err := triage.ParseStatus(string(s))
		if err != nil || got != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "IDLE", "Idle", " idle", "idle ", "armed", "pending\x00", "over-flowed"} {
		if got, err := triage.ParseStatus(s); err == nil {
			t.Errorf("ParseStatus(%q) = %q, nil; want an error", s, got)
		}
	}
}

func TestReasonText(t *testing.T) {
	tests := map[triage.Reason]string{
		triage.ReasonNotLive:    "not-live",
		triage.ReasonOverflowed: "overflowed",
		triage.ReasonPending:    "pending",
		triage.ReasonNoSignal:   "no-signal",
		triage.ReasonDebounce:   "debounce",
	}
	for r, want := range tests {
		if string(r) != want {
			t.Errorf("reason %q, want %q", r, want)
		}
	}
}

func TestBegin(t *testing.T) {
	p := triage.Default
	with := func(r triage.Row, f func(*triage.Row)) triage.Row { f(&r); return r }
	notLive := func(r *triage.Row) { r.Live = false }
	stops := func(n int) func(*triage.Row) { return func(r *triage.Row) { r.ActivationStops = n } }

	type want struct {
		armed     bool
		reason    triage.Reason
		attempt   uuid.UUID
		status    triage.Status
		watermark []uuid.UUID
		changed   bool
	}
	declined := func(reason triage.Reason, r triage.Row) want {
		return want{reason: reason, status: r.Status, watermark: r.Watermark}
	}
	armed := func(wm ...int) want {
		return want{armed: true, attempt: fresh, status: triage.Pending, watermark: evs(wm...), changed: true}
	}
	overflow := func(r triage.Row) want {
		return want{reason: triage.ReasonOverflowed, status: triage.Overflowed, watermark: r.Watermark, changed: true}
	}

	tests := []struct {
		name    string
		row     triage.Row
		visible triage.Listing
		now     time.Time
		want    want
	}{
		// 1. not live, whatever else holds
		{"not live, idle with every arm of the debounce", with(row(triage.Idle), func(r *triage.Row) { notLive(r); r.ActivationStops = 9 }), list(1), opened.Add(time.Hour),
			declined(triage.ReasonNotLive, with(row(triage.Idle), notLive))},
		{"not live, pending: the attempt id is not published", with(row(triage.Pending), notLive), list(), early,
			declined(triage.ReasonNotLive, with(row(triage.Pending), notLive))},
		{"not live, overflowed", with(row(triage.Overflowed), notLive), list(), early,
			declined(triage.ReasonNotLive, with(row(triage.Overflowed), notLive))},
		{"not live, truncated listing: nothing written", with(row(triage.Idle), notLive), triage.Listing{IDs: evs(1), Truncated: true}, early,
			declined(triage.ReasonNotLive, with(row(triage.Idle), notLive))},

		// 2. overflowed is terminal
		{"overflowed, new event", row(triage.Overflowed, 1), list(1, 2), early,
			declined(triage.ReasonOverflowed, row(triage.Overflowed, 1))},
		{"overflowed, every debounce arm", with(row(triage.Overflowed), stops(99)), list(7), opened.Add(24 * time.Hour),
			declined(triage.ReasonOverflowed, row(triage.Overflowed))},

		// 3. pending answers with the in-flight attempt and never arms again
		{"pending, nothing new", row(triage.Pending, 1), list(1), early,
			want{reason: triage.ReasonPending, attempt: old, status: triage.Pending, watermark: evs(1)}},
		{"pending, new events and substance", with(row(triage.Pending, 1), stops(9)), list(1, 2, 3), opened.Add(time.Hour),
			want{reason: triage.ReasonPending, attempt: old, status: triage.Pending, watermark: evs(1)}},
		{"pending, truncated listing: still pending", row(triage.Pending, 1), triage.Listing{IDs: evs(1, 2), Truncated: true}, early,
			want{reason: triage.ReasonPending, attempt: old, status: triage.Pending, watermark: evs(1)}},

		// 4. a truncated listing overflows every entry status
		{"idle, truncated", with(row(triage.Idle, 1), stops(5)), triage.Listing{IDs: evs(1, 2), Truncated: true}, early, overflow(row(triage.Idle, 1))},
		{"idle without substance, truncated", row(triage.Idle), triage.Listing{Truncated: true}, early, overflow(row(triage.Idle))},
		{"completed, truncated", row(triage.Completed, 1), triage.Listing{IDs: evs(1), Truncated: true}, early, overflow(row(triage.Completed, 1))},
		{"expired, truncated", row(triage.Expired, 1), triage.Listing{IDs: evs(1, 2), Truncated: true}, early, overflow(row(triage.Expired, 1))},

		// 5. completed and expired re-enter on a new event id only
		{"completed, no new id", row(triage.Completed, 1, 2), list(1, 2), early,
			declined(triage.ReasonNoSignal, row(triage.Completed, 1, 2))},
		{"completed, no new id, many stops and hours", with(row(triage.Completed, 1, 2), stops(50)), list(1, 2), opened.Add(48 * time.Hour),
			declined(triage.ReasonNoSignal, row(triage.Completed, 1, 2))},
		{"completed, new id", row(triage.Completed, 1, 2), list(1, 2, 3), early, armed(1, 2, 3)},
		{"expired, no new id", row(triage.Expired, 1), list(1), early,
			declined(triage.ReasonNoSignal, row(triage.Expired, 1))},
		{"expired, empty run", row(triage.Expired), list(), early,
			declined(triage.ReasonNoSignal, row(triage.Expired))},
		{"expired, stops at the threshold", with(row(triage.Expired, 1), stops(3)), list(1), early,
			declined(triage.ReasonNoSignal, row(triage.Expired, 1))},
		{"expired, elapsed at the threshold", row(triage.Expired, 1), list(1), opened.Add(10 * time.Minute),
			declined(triage.ReasonNoSignal, row(triage.Expired, 1))},
		{"expired, new id", row(triage.Expired, 1), list(1, 2), early, armed(1, 2)},
		// a late-committing write holds an earlier UUIDv7 than the watermark's
		{"expired, late write with an earlier id", row(triage.Expired, 2, 3), list(1, 2, 3), early, armed(2, 3, 1)},

		// 6. idle: the debounce is a disjunction
		{"idle, no substance", row(triage.Idle), list(), early,
			declined(triage.ReasonDebounce, row(triage.Idle))},
		{"idle, first stop of a session with briefed ids", with(row(triage.Idle), stops(1)), list(), opened,
			declined(triage.ReasonDebounce, row(triage.Idle))},
		{"idle, MinStops-1 stops", with(row(triage.Idle), stops(2)), list(), early,
			declined(triage.ReasonDebounce, row(triage.Idle))},
		{"idle, MinStops stops", with(row(triage.Idle), stops(3)), list(), early, armed()},
		{"idle, MinStops+1 stops", with(row(triage.Idle), stops(4)), list(), early, armed()},
		{"idle, MinElapsed-1ns", row(triage.Idle), list(), opened.Add(10*time.Minute - time.Nanosecond),
			declined(triage.ReasonDebounce, row(triage.Idle))},
		{"idle, exactly MinElapsed", row(triage.Idle), list(), opened.Add(10 * time.Minute), armed()},
		{"idle, MinElapsed+1ns", row(triage.Idle), list(), opened.Add(10*time.Minute + time.Nanosecond), armed()},
		{"idle, now before open (clock skew)", row(triage.Idle), list(), opened.Add(-time.Hour),
			declined(triage.ReasonDebounce, row(triage.Idle))},
		{"idle, an untriaged event", row(triage.Idle), list(1), early, armed(1)},
		{"idle, only triaged events", row(triage.Idle, 1, 2), list(1, 2), early,
			declined(triage.ReasonDebounce, row(triage.Idle, 1, 2))},
		{"idle, one untriaged event among triaged ones", row(triage.Idle, 1, 2), list(1, 2, 3), early, armed(1, 2, 3)},
		{"idle, stops arm and stamp the visible ids", with(row(triage.Idle, 1), stops(3)), list(1, 2), early, armed(1, 2)},

		// arming keeps watermark ids the listing no longer shows
		{"idle, watermark id missing from the listing", with(row(triage.Idle, 1, 2), stops(3)), list(2, 3), early, armed(1, 2, 3)},

		// an unknown status never arms and is never written
		{"unknown status", with(row(triage.Idle), func(r *triage.Row) { r.Status = "bogus"; r.ActivationStops = 9 }), list(1), opened.Add(time.Hour),
			want{reason: triage.ReasonNoSignal, status: "bogus"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.row.Watermark)
			got := p.Begin(tt.row, tt.visible, fresh, tt.now)
			w := tt.want
			if got.Armed != w.armed || got.Reason != w.reason || got.AttemptID != w.attempt ||
				got.Status != w.status || got.Changed != w.changed || !slices.Equal(got.Watermark, w.watermark) {
				t.Errorf("Begin =\n  %+v\nwant\n  %+v", got, w)
			}
			if got.Armed != (got.Reason == "") {
				t.Errorf("Armed = %v with reason %q", got.Armed, got.Reason)
			}
			if !slices.Equal(tt.row.Watermark, in) {
				t.Errorf("Begin mutated the input watermark")
			}
		})
	}
}

// TestBeginWatermarkPastCeiling: a begin stamp that would not fit the
// ceiling is an overflow, like a truncated listing.
func TestBeginWatermarkPastCeiling(t *testing.T) {
	p := triage.Policy{MinStops: 3, MinElapsed: 10 * time.Minute, Ceiling: 3}
	tests := []struct {
		name    string
		row     triage.Row
		visible triage.Listing
		status  triage.Status
		reason  triage.Reason
	}{
		{"union exactly at the ceiling arms", row(triage.Idle, 1, 2), list(1, 2, 3), triage.Pending, ""},
		{"union one past the ceiling overflows", row(triage.Idle, 1, 2), list(2, 3, 4), triage.Overflowed, triage.ReasonOverflowed},
		{"expired, union past the ceiling overflows", row(triage.Expired, 1, 2, 3), list(4), triage.Overflowed, triage.ReasonOverflowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Begin(tt.row, tt.visible, fresh, early)
			if got.Status != tt.status || got.Reason != tt.reason || !got.Changed {
				t.Errorf("Begin = %+v, want status %q reason %q changed", got, tt.status, tt.reason)
			}
		})
	}
}

func TestComplete(t *testing.T) {
	p := triage.Default
	tests := []struct {
		name      string
		row       triage.Row
		visible   triage.Listing
		status    triage.Status
		watermark []uuid.UUID
		events    int
		since     int
		truncated bool
	}{
		{"zero-write continuation expires", row(triage.Pending, 1, 2), list(1, 2), triage.Expired, evs(1, 2), 2, 0, false},
		{"zero-write continuation on an empty run expires", row(triage.Pending), list(), triage.Expired, evs(), 0, 0, false},
		{"a write since begin completes", row(triage.Pending, 1, 2), list(1, 2, 3), triage.Completed, evs(1, 2, 3), 3, 1, false},
		{"several writes since begin", row(triage.Pending, 1), list(1, 2, 3, 4), triage.Completed, evs(1, 2, 3, 4), 4, 3, false},
		// since_begin is a set difference: a late-committing write with an
		// earlier UUIDv7 than every stamped id still counts.
		{"late write with an earlier id counts", row(triage.Pending, 5, 6), list(1, 5, 6), triage.Completed, evs(5, 6, 1), 3, 1, false},
		// the watermark never shrinks, even if an id drops out of the listing
		{"watermark id missing from the listing is kept", row(triage.Pending, 1, 2), list(2, 3), triage.Completed, evs(1, 2, 3), 2, 1, false},
		{"duplicate ids in the listing count once", row(triage.Pending, 1), list(1, 2, 2), triage.Completed, evs(1, 2), 3, 1, false},
		{"truncated listing overflows", row(triage.Pending, 1), triage.Listing{IDs: evs(1, 2), Truncated: true}, triage.Overflowed, evs(1, 2), 2, 1, true},
		{"truncated listing with no new writes overflows", row(triage.Pending, 1), triage.Listing{IDs: evs(1), Truncated: true}, triage.Overflowed, evs(1), 1, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, live := range []bool{true, false} {
				r := tt.row
				r.Live = live
				got, err := p.Complete(r, old, tt.visible)
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if got.Status != tt.status || got.EventCount != tt.events || got.SinceBeginCount != tt.since ||
					got.Truncated != tt.truncated || !slices.Equal(got.Watermark, tt.watermark) {
					t.Errorf("live=%v: Complete = %+v, want status %q watermark %v events %d since %d truncated %v",
						live, got, tt.status, tt.watermark, tt.events, tt.since, tt.truncated)
				}
			}
		})
	}
}

func TestCompleteCeiling(t *testing.T) {
	p := triage.Policy{MinStops: 3, MinElapsed: time.Minute, Ceiling: 3}
	tests := []struct {
		name      string
		row       triage.Row
		visible   triage.Listing
		status    triage.Status
		watermark []uuid.UUID
	}{
		{"union exactly at the ceiling", row(triage.Pending, 1), list(1, 2, 3), triage.Completed, evs(1, 2, 3)},
		{"union one past the ceiling: capped, overflowed", row(triage.Pending, 1, 2), list(3, 4), triage.Overflowed, evs(1, 2, 3)},
		{"watermark already full, one new id", row(triage.Pending, 1, 2, 3), list(1, 2, 3, 4), triage.Overflowed, evs(1, 2, 3)},
		{"watermark full, nothing new", row(triage.Pending, 1, 2, 3), list(1, 2, 3), triage.Expired, evs(1, 2, 3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Complete(tt.row, old, tt.visible)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != tt.status || !slices.Equal(got.Watermark, tt.watermark) || got.Truncated != (tt.status == triage.Overflowed) {
				t.Errorf("Complete = %+v, want status %q watermark %v", got, tt.status, tt.watermark)
			}
		})
	}
}

func TestCompleteConflict(t *testing.T) {
	p := triage.Default
	tests := []struct {
		name    string
		row     triage.Row
		attempt uuid.UUID
	}{
		{"stale attempt id", row(triage.Pending, 1), fresh},
		{"nil attempt id", row(triage.Pending, 1), uuid.Nil},
		{"nil attempt id on a row with none", func() triage.Row { r := row(triage.Pending); r.AttemptID = uuid.Nil; return r }(), uuid.Nil},
		{"idle", func() triage.Row { r := row(triage.Idle); r.AttemptID = old; return r }(), old},
		{"already completed", func() triage.Row { r := row(triage.Completed); r.AttemptID = old; return r }(), old},
		{"already expired (or retired by the closer)", func() triage.Row { r := row(triage.Expired); r.AttemptID = old; return r }(), old},
		{"overflowed", func() triage.Row { r := row(triage.Overflowed); r.AttemptID = old; return r }(), old},
		{"unknown status", func() triage.Row { r := row(triage.Pending); r.Status = "PENDING"; return r }(), old},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Complete(tt.row, tt.attempt, list(1, 2))
			if !errors.Is(err, triage.ErrConflict) {
				t.Errorf("Complete error = %v, want ErrConflict", err)
			}
			if got.Status != "" || got.Watermark != nil {
				t.Errorf("Complete result = %+v on conflict, want zero", got)
			}
		})
	}
}

func TestOnAttach(t *testing.T) {
	tests := []struct{ in, want triage.Status }{
		{triage.Idle, triage.Idle},
		{triage.Pending, triage.Pending},
		{triage.Completed, triage.Idle},
		{triage.Expired, triage.Expired},
		{triage.Overflowed, triage.Overflowed},
		{"bogus", "bogus"},
	}
	for _, tt := range tests {
		if got := triage.OnAttach(tt.in); got != tt.want {
			t.Errorf("OnAttach(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSignal(t *testing.T) {
	tests := []struct {
		name      string
		watermark []uuid.UUID
		visible   triage.Listing
		want      bool
	}{
		{"both empty", nil, list(), false},
		{"empty watermark, one event", nil, list(1), true},
		{"all triaged", evs(1, 2), list(1, 2), false},
		{"all triaged, different order", evs(2, 1), list(1, 2), false},
		{"a new id", evs(1, 2), list(1, 2, 3), true},
		{"an earlier id (late commit)", evs(2, 3), list(1, 2, 3), true},
		{"watermark holds ids no longer visible", evs(1, 2, 3), list(2), false},
		{"truncation alone is no signal", evs(1), triage.Listing{IDs: evs(1), Truncated: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := triage.Signal(tt.watermark, tt.visible); got != tt.want {
				t.Errorf("Signal = %v, want %v", got, tt.want)
			}
		})
	}
}

// stepper drives one row through Begin, Complete and attaching writes the
// way the service would, for the scenario tests.
type stepper struct {
	t       *testing.T
	p       triage.Policy
	row     triage.Row
	visible []uuid.UUID
	next    int
	now     time.Time
}

func newStepper(t *testing.T) *stepper {
	return &stepper{t: t, p: triage.Default, row: triage.Row{Live: true, Status: triage.Idle, ActivatedAt: opened}, next: 1, now: early}
}

func (s *stepper) listing() triage.Listing { return triage.Listing{IDs: slices.Clone(s.visible)} }

func (s *stepper) stop() { s.row.ActivationStops++ }

// write is an attaching write: one new event and the status it leaves.
func (s *stepper) write() {
	s.visible = append(s.visible, ev(s.next))
	s.next++
	s.row.Status = triage.OnAttach(s.row.Status)
}

func (s *stepper) begin(attempt uuid.UUID) triage.BeginResult {
	s.t.Helper()
	res := s.p.Begin(s.row, s.listing(), attempt, s.now)
	if res.Changed {
		s.row.Status, s.row.Watermark = res.Status, res.Watermark
		if res.Armed {
			s.row.AttemptID = res.AttemptID
		}
	}
	return res
}

func (s *stepper) complete(attempt uuid.UUID) (triage.CompleteResult, error) {
	s.t.Helper()
	res, err := s.p.Complete(s.row, attempt, s.listing())
	if err == nil {
		s.row.Status, s.row.Watermark = res.Status, res.Watermark
	}
	return res, err
}

func (s *stepper) expect(res triage.BeginResult, armed bool, reason triage.Reason) {
	s.t.Helper()
	if res.Armed != armed || res.Reason != reason {
		s.t.Fatalf("Begin = armed %v reason %q, want armed %v reason %q (row %+v)", res.Armed, res.Reason, armed, reason, s.row)
	}
}

func TestScenarioSecondBeginWhilePending(t *testing.T) {
	s := newStepper(t)
	s.stop()
	s.stop()
	s.stop()
	s.expect(s.begin(fresh), true, "")
	second := s.begin(fresher)
	s.expect(second, false, triage.ReasonPending)
	if second.AttemptID != fresh || second.Changed {
		t.Errorf("second begin = %+v, want the in-flight attempt %v and no write", second, fresh)
	}
	// the stale caller of the fresher id cannot finalize
	if _, err := s.complete(fresher); !errors.Is(err, triage.ErrConflict) {
		t.Errorf("complete(fresher) = %v, want ErrConflict", err)
	}
	// and the round-tripped id can
	if res, err := s.complete(second.AttemptID); err != nil || res.Status != triage.Expired {
		t.Errorf("complete(in-flight) = %+v, %v; want expired", res, err)
	}
	// a complete replayed after it is finalized conflicts
	if _, err := s.complete(fresh); !errors.Is(err, triage.ErrConflict) {
		t.Errorf("replayed complete = %v, want ErrConflict", err)
	}
}

func TestScenarioExpiredRearmsOnlyOnANewEvent(t *testing.T) {
	s := newStepper(t)
	s.write() // an untriaged event arms
	s.expect(s.begin(fresh), true, "")
	if res, _ := s.complete(fresh); res.Status != triage.Expired || res.SinceBeginCount != 0 {
		t.Fatalf("zero-write continuation = %+v, want expired", res)
	}
	// Stops and hours pass: never a cross-turn nag.
	for range 20 {
		s.stop()
		s.now = s.now.Add(time.Hour)
		s.expect(s.begin(fresher), false, triage.ReasonNoSignal)
	}
	if s.row.Status != triage.Expired {
		t.Fatalf("status = %q, want expired", s.row.Status)
	}
	s.write() // an attaching write leaves expired alone...
	if s.row.Status != triage.Expired {
		t.Fatalf("attach flipped expired to %q", s.row.Status)
	}
	s.expect(s.begin(fresher), true, "") // ...and begin re-arms on its id
}

func TestScenarioCompletedAttachIdleArms(t *testing.T) {
	s := newStepper(t)
	s.write()
	s.expect(s.begin(fresh), true, "")
	s.write() // the debrief's own write
	if res, _ := s.complete(fresh); res.Status != triage.Completed || res.SinceBeginCount != 1 || res.EventCount != 2 {
		t.Fatalf("complete = %+v, want completed with 1 since begin of 2", res)
	}
	// complete absorbed the continuation's writes: no re-arm on them, nor on
	// Stops and time alone from completed
	s.stop()
	s.stop()
	s.stop()
	s.now = s.now.Add(time.Hour)
	s.expect(s.begin(fresher), false, triage.ReasonNoSignal)
	s.write()
	if s.row.Status != triage.Idle {
		t.Fatalf("attach left %q, want idle", s.row.Status)
	}
	s.expect(s.begin(fresher), true, "")
}

func TestScenarioOverflowIsNeverRearmed(t *testing.T) {
	s := newStepper(t)
	s.p.Ceiling = 2
	s.write()
	s.write()
	s.expect(s.begin(fresh), true, "")
	s.write() // the third event is past the ceiling
	res, err := s.complete(fresh)
	if err != nil || res.Status != triage.Overflowed || !res.Truncated {
		t.Fatalf("complete = %+v, %v; want overflowed", res, err)
	}
	for i := range 10 {
		s.write()
		s.stop()
		s.now = s.now.Add(time.Hour)
		s.expect(s.begin(uuid.New()), false, triage.ReasonOverflowed)
		if s.row.Status != triage.Overflowed {
			t.Fatalf("step %d: status %q, want overflowed", i, s.row.Status)
		}
	}
}

// TestScenarioArmingEventsDoNotRearm pins the begin stamp: the events that
// armed an attempt are absorbed at begin, so a completed attempt whose
// continuation wrote nothing new cannot be re-armed by them.
func TestScenarioArmingEventsDoNotRearm(t *testing.T) {
	s := newStepper(t)
	s.write()
	s.write()
	res := s.begin(fresh)
	s.expect(res, true, "")
	if !slices.Equal(res.Watermark, evs(1, 2)) {
		t.Fatalf("begin stamp = %v, want the visible ids", res.Watermark)
	}
	if c, _ := s.complete(fresh); c.Status != triage.Expired || c.SinceBeginCount != 0 {
		t.Fatalf("complete = %+v, want expired: the arming events are not since begin", c)
	}
	s.expect(s.begin(fresher), false, triage.ReasonNoSignal)
}

func ExamplePolicy_Begin() {
	p := triage.Default
	opened := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	r := triage.Row{Live: true, Status: triage.Idle, ActivationStops: 1, ActivatedAt: opened}
	attempt := uuid.MustParse("0195d1b2-0000-7000-8000-00000000a002")

	// The first Stop of a session: no substance yet.
	res := p.Begin(r, triage.Listing{}, attempt, opened.Add(time.Minute))
	fmt.Println(res.Armed, res.Reason)

	// Ten minutes in: armed, and the row goes pending.
	res = p.Begin(r, triage.Listing{}, attempt, opened.Add(10*time.Minute))
	fmt.Println(res.Armed, res.Status, res.AttemptID)

	// The next Stop finds it pending and gets the same attempt back.
	r.Status, r.AttemptID = res.Status, res.AttemptID
	again := p.Begin(r, triage.Listing{}, uuid.MustParse("0195d1b2-0000-7000-8000-00000000a003"), opened.Add(11*time.Minute))
	fmt.Println(again.Armed, again.Reason, again.AttemptID)

	// The continuation wrote nothing: expired.
	done, err := p.Complete(r, again.AttemptID, triage.Listing{})
	fmt.Println(done.Status, err)
	// Output:
	// false debounce
	// true pending 0195d1b2-0000-7000-8000-00000000a002
	// false pending 0195d1b2-0000-7000-8000-00000000a002
	// expired <nil>
}
