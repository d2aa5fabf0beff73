package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

func testSweep(t *testing.T, h Harness) {
	ctx := context.Background()
	lp := lease.Default
	floor := lp.Lease + lp.SweepGrace

	t.Run("Boundaries", func(t *testing.T) {
		cases := []struct {
			name      string
			idle      time.Duration
			closed    bool
			wantSwept bool
		}{
			{"live", time.Hour, false, false},
			{"lapsed but inside the grace", lp.Lease + time.Minute, false, false},
			{"exactly at the sweep floor", floor, false, false},
			{"one microsecond past the floor", floor + time.Microsecond, false, true},
			{"explicitly closed long ago", floor + time.Hour, true, false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
				if tc.closed {
					if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
						t.Fatal(err)
					}
				}
				f.clock.Advance(tc.idle)
				res, err := f.svc.Sweep(ctx, tenantA, 10)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(res.Swept) == 1 && res.Swept[0] == run; got != tc.wantSwept || (!tc.wantSwept && len(res.Swept) != 0) {
					t.Fatalf("swept %v, want swept %v", res.Swept, tc.wantSwept)
				}
				if !tc.wantSwept {
					return
				}
				v := view(t, f, tenantA, "s1")
				if v.ClosedAt == nil || !v.ClosedAt.Equal(f.clock.Now()) || v.State != lease.ImplicitlyClosed {
					t.Fatalf("swept row: closed %v state %v, want implicitly closed now", v.ClosedAt, v.State)
				}
				// A swept row still resurrects on the next heartbeat.
				hb, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"})
				if err != nil || !hb.Resurrected || hb.ActivationEpoch != 2 {
					t.Fatalf("heartbeat after sweep = %+v %v", hb, err)
				}
				es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 100)
				if got := events(es); got[len(got)-2] != continuity.EventSessionSwept {
					t.Fatalf("ledger = %v", got)
				}
			})
		}
	})

	t.Run("LimitAndTenant", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		for _, sid := range []string{"s1", "s2", "s3"} {
			mustOpen(t, f, tenantA, startup(sid))
			f.clock.Advance(time.Second)
		}
		mustOpen(t, f, tenantB, startup("b1"))
		f.clock.Advance(floor + time.Hour)
		first, err := f.svc.Sweep(ctx, tenantA, 2)
		if err != nil {
			t.Fatal(err)
		}
		second, err := f.svc.Sweep(ctx, tenantA, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(first.Swept) != 2 || len(second.Swept) != 1 {
			t.Fatalf("swept %d then %d, want 2 then 1", len(first.Swept), len(second.Swept))
		}
		if v := view(t, f, tenantA, "s1"); v.ClosedAt == nil {
			t.Fatal("the oldest row was not swept first")
		}
		if v, err := f.svc.Session(ctx, tenantB, agent, "b1"); err != nil || v.ClosedAt != nil {
			t.Fatalf("tenant A's sweep closed B's row: %v %v", v.ClosedAt, err)
		}
		for _, n := range []int{0, continuity.MaxSweep + 1} {
			_, err := f.svc.Sweep(ctx, tenantA, n)
			if _, ok := continuity.ErrorFields(err)["limit"]; !ok {
				t.Fatalf("limit %d: %v", n, err)
			}
		}
	})
}
