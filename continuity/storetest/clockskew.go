package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
)

// databaseClock is implemented by a store that says whether its clock
// (continuity.StoreClock) is the database server's, shared by every host
// that opens it, rather than the one machine's clock its file lives on.
type databaseClock interface{ DatabaseClock() bool }

// testHandoverClockSkew: a handover's age is measured on one clock, the
// store's. A writer whose host clock runs hours ahead or behind, or far in
// the future, writes a handover that the next reader finds fresh, not from
// the future (invalid) nor stale at once, wherever the store has a clock
// of its own (the database server's); on a store that is one machine's
// file every handle reads that machine's clock, and only a step of it
// remains, which the boundaries cover. Then, on the reader's store clock,
// each freshness threshold exactly, a nanosecond either side (the service
// keeps microseconds: a nanosecond before a threshold reads a microsecond
// before it), and ahead of the stamp, clamped under Policy.Skew and
// invalid from it. A hook whose own clock runs a month ahead of the
// store's renders the same handover fresh: it reads the age at the
// serving clock's instant, not its own.
func testHandoverClockSkew(t *testing.T, h Harness) {
	if h.OpenClocked == nil {
		t.Skip("the harness opens no store on a given host clock")
	}
	ctx := context.Background()
	st, dsn := h.New(t)
	shared, _ := st.(databaseClock)
	skews := []time.Duration{0}
	if shared != nil && shared.DatabaseClock() {
		skews = append(skews, 2*time.Hour, -2*time.Hour, -3*24*time.Hour, 100*365*24*time.Hour)
	}
	clock := NewClock()
	open := func(t *testing.T, skew time.Duration) *continuity.Service {
		t.Helper()
		s, err := h.OpenClocked(ctx, dsn, func() time.Time { return clock.Now().Add(skew) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return continuity.New(s)
	}
	pol := freshness.Default
	const us = time.Microsecond
	boundaries := []struct {
		name  string
		d     time.Duration // the reader's store clock minus the stamp
		label freshness.Label
		ahead bool // clamped: the reason says the stamp was ahead
	}{
		{"at the stamp", 0, freshness.Fresh, false},
		{"a nanosecond after the stamp", time.Nanosecond, freshness.Fresh, false},
		{"a nanosecond before the stamp", -time.Nanosecond, freshness.Fresh, true},
		{"a second before the stamp", -time.Second, freshness.Fresh, true},
		{"a microsecond inside the skew", -pol.Skew + us, freshness.Fresh, true},
		{"exactly the skew before the stamp", -pol.Skew, freshness.Invalid, false},
		{"a nanosecond past the skew", -pol.Skew - time.Nanosecond, freshness.Invalid, false},
		{"a nanosecond before the fresh threshold", pol.Fresh - time.Nanosecond, freshness.Fresh, false},
		{"exactly the fresh threshold", pol.Fresh, freshness.Aging, false},
		{"a nanosecond past the fresh threshold", pol.Fresh + time.Nanosecond, freshness.Aging, false},
		{"a nanosecond before the stale threshold", pol.Stale - time.Nanosecond, freshness.Aging, false},
		{"exactly the stale threshold", pol.Stale, freshness.Stale, false},
		{"a nanosecond past the stale threshold", pol.Stale + time.Nanosecond, freshness.Stale, false},
	}
	for i, skew := range skews {
		t.Run(fmt.Sprintf("writer clock %+v", skew), func(t *testing.T) {
			clock.Set(NewClock().Now())
			project := fmt.Sprintf("skew-%d", i)
			sid := fmt.Sprintf("skew-%d", i)
			writer := open(t, skew).For(tenantA)
			reader := open(t, 0)
			if _, err := writer.SessionStart(ctx, startOf(sid, continuity.SourceStartup, project)); err != nil {
				t.Fatal(err)
			}
			if _, err := writer.SessionEnd(ctx, continuity.EndParams{EventParams: hookEvent(evEnd, sid), Reason: "exit"}); err != nil {
				t.Fatal(err)
			}
			read := func() continuity.HandoverView {
				t.Helper()
				b, err := reader.For(tenantA).Briefing(ctx, continuity.BriefingParams{Project: project})
				if err != nil || b.Handover == nil {
					t.Fatalf("briefing: %v, handover %v", err, b.Handover)
				}
				return *b.Handover
			}
			v := read()
			if v.Freshness.Label != freshness.Fresh || v.History {
				t.Errorf("just written by a writer %v off: %v %q, want fresh", skew, v.Freshness.Label, v.Freshness.Reason)
			}
			e := continuity.NewEpisodes(reader.For(tenantA), agent, "")
			e.Now = func() time.Time { return clock.Now().Add(30 * 24 * time.Hour) }
			text, err := e.Briefing(ctx, "", project)
			if err != nil || !strings.Contains(text, "fresh: recorded") {
				t.Errorf("a hook a month ahead of the store renders %v:\n%s", err, text)
			}
			// The reader's store clock is its host clock plus a fixed
			// offset: set the host clock so the store clock reads exactly
			// the stamp plus d.
			offset := reader.Store().(continuity.StoreClock).Now().Sub(clock.Now())
			created := v.Record.CreatedAt
			for _, b := range boundaries {
				clock.Set(created.Add(b.d).Add(-offset))
				got := read().Freshness
				clamped := strings.Contains(got.Reason, "ahead of the reading clock")
				if got.Label != b.label || clamped != b.ahead {
					t.Errorf("%s: %v %q, want %v (clamped %v)", b.name, got.Label, got.Reason, b.label, b.ahead)
				}
			}
		})
	}
}
