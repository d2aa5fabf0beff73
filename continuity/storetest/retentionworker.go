package storetest

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

func init() { txContract["RetentionDue"] = txRetentionDue }

// aged writes, as tenant, a ledger line and a prompt of the given ages
// (a negative age writes none of that kind).
func aged(t *testing.T, f *fixture, tenant string, now time.Time, ledgerAge, promptAge time.Duration) {
	t.Helper()
	inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		if ledgerAge >= 0 {
			if err := tx.AppendLedger(ctx, 0, continuity.LedgerEntry{ID: newID(), Event: "test.age", At: now.Add(-ledgerAge)}); err != nil {
				return err
			}
		}
		if promptAge >= 0 {
			p := prompt(agent, "s1", "p", now.Add(-promptAge))
			return tx.AppendPrompt(ctx, &p)
		}
		return nil
	})
}

// txRetentionDue: the tenants, across every tenant, with a ledger line or
// a prompt strictly before its bound, in order, paged by after.
func txRetentionDue(t *testing.T, f *fixture) {
	ctx := t.Context()
	now := f.clock.Now()
	ledgerBefore, promptsBefore := now.Add(-3*time.Hour), now.Add(-5*time.Hour)
	aged(t, f, "t-ledger", now, 3*time.Hour+time.Microsecond, -1) // a microsecond past: due
	aged(t, f, "t-prompt", now, -1, 5*time.Hour+time.Microsecond) // a prompt past its own bound
	aged(t, f, "t-both", now, 4*time.Hour, 6*time.Hour)
	aged(t, f, "t-boundary", now, 3*time.Hour, 5*time.Hour) // exactly at the bounds: kept
	aged(t, f, "t-new", now, time.Minute, time.Minute)
	aged(t, f, "t-crossed", now, 3*time.Hour-time.Minute, 5*time.Hour-time.Minute) // the prompt past the ledger bound only: not due
	cases := []struct {
		name   string
		after  string
		limit  int
		before time.Duration // added to both bounds
		want   []string
	}{
		{"every due tenant in order", "", 10, 0, []string{"t-both", "t-ledger", "t-prompt"}},
		{"at most limit", "", 2, 0, []string{"t-both", "t-ledger"}},
		{"after a tenant", "t-both", 10, 0, []string{"t-ledger", "t-prompt"}},
		{"after the last", "t-prompt", 10, 0, []string{}},
		{"a microsecond later includes the rows at the bounds", "", 10, time.Microsecond, []string{"t-both", "t-boundary", "t-ledger", "t-prompt"}},
	}
	for _, tc := range cases {
		got, err := f.store.RetentionDue(ctx, ledgerBefore.Add(tc.before), promptsBefore.Add(tc.before), tc.after, tc.limit)
		if err != nil || !slices.Equal(append([]string{}, got...), tc.want) {
			t.Errorf("%s: RetentionDue = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	if got, err := f.store.RetentionDue(ctx, time.Time{}, time.Time{}, "", 10); err != nil || len(got) != 0 {
		t.Errorf("nothing is before the zero time: %v, %v", got, err)
	}
	for _, n := range []int{-1, 0, continuity.MaxDiscover + 1} {
		if _, err := f.store.RetentionDue(ctx, ledgerBefore, promptsBefore, "", n); continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)["limit"] == "" {
			t.Errorf("RetentionDue with limit %d: %v, want invalid naming limit", n, err)
		}
	}
}

// testWorkerRetention: the worker's pass prunes every tenant's ledger lines
// and prompts past their retention, at the boundary, once per
// WithRetentionEvery.
func testWorkerRetention(t *testing.T, h Harness) {
	r := continuity.Retention{Ledger: 3 * time.Hour, Prompts: 5 * time.Hour}
	f := newFixture(t, h, continuity.WithRetention(r))
	now := f.clock.Now()
	for _, tenant := range []string{tenantA, tenantB} {
		aged(t, f, tenant, now, r.Ledger+time.Microsecond, r.Prompts+time.Microsecond) // pruned
		aged(t, f, tenant, now, r.Ledger, r.Prompts)                                   // kept: exactly as old
	}
	count := func(tenant string) (int, int) {
		t.Helper()
		return len(ledgerOf(t, f, tenant)), len(ofConversation(t, f, tenant, agent, "s1", continuity.Tx.Prompts))
	}
	// A pass whose retention failed (here its discovery) leaves it due:
	// the next pass runs it, not the one an hour later.
	failing := &failingDiscovery{Store: f.store}
	failing.fail.Store(true)
	w := continuity.NewWorker(continuity.New(failing, continuity.WithClock(f.clock.Now), continuity.WithRetention(r)),
		continuity.WithWorkerBatch(1), continuity.WithRetentionEvery(time.Hour))
	if res, err := w.Tick(t.Context()); err == nil || res.Pruned != 0 {
		t.Fatalf("a pass whose discovery failed: %+v, %v; want its error", res, err)
	}
	failing.fail.Store(false)
	// One tenant a page: the discovery pages through both.
	res, err := w.Tick(t.Context())
	if err != nil || res.Pruned != 4 {
		t.Fatalf("first pass: %+v, %v; want 4 rows pruned (a line and a prompt of each tenant)", res, err)
	}
	for _, tenant := range []string{tenantA, tenantB} {
		if l, p := count(tenant); l != 1 || p != 1 {
			t.Errorf("%s after the pass: %d ledger lines, %d prompts; want the one of each exactly as old as its retention", tenant, l, p)
		}
	}
	// Within the hour the next pass does not run retention; at the hour
	// it does, and the rows that aged past their retention meanwhile go.
	f.clock.Advance(time.Hour - time.Microsecond)
	if res, err := w.Tick(t.Context()); err != nil || res.Pruned != 0 {
		t.Errorf("a pass within the hour: %+v, %v; want no retention run", res, err)
	}
	f.clock.Advance(time.Microsecond)
	if res, err := w.Tick(t.Context()); err != nil || res.Pruned != 4 {
		t.Errorf("the pass at the hour: %+v, %v; want the rows that were at their bounds, now past them, pruned", res, err)
	}
	for _, tenant := range []string{tenantA, tenantB} {
		if l, p := count(tenant); l != 0 || p != 0 {
			t.Errorf("%s after the hour: %d ledger lines, %d prompts; want none", tenant, l, p)
		}
	}
}

// testWorkerRetentionClockStep: the wall clock steps forward (a host booted
// with a wrong date, an NTP step) while a pass runs retention, then back.
// The pass's stamp then lies in the future; the worker's schedule must not
// wait for the clock to catch up with it (a year's step would stop
// retention for a year): a pass whose clock reads before the last run's
// stamp runs retention.
func testWorkerRetentionClockStep(t *testing.T, h Harness) {
	r := continuity.Retention{Ledger: 3 * time.Hour, Prompts: 5 * time.Hour}
	for _, tc := range []struct {
		name string
		step time.Duration
	}{
		{"a microsecond", time.Microsecond},
		{"half the schedule", 30 * time.Minute},
		{"a day", 24 * time.Hour},
		{"a year", 365 * 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, h, continuity.WithRetention(r))
			w := continuity.NewWorker(f.svc, continuity.WithRetentionEvery(time.Hour))
			base := f.clock.Now()
			f.clock.Set(base.Add(tc.step))
			if _, err := w.Tick(t.Context()); err != nil {
				t.Fatal(err)
			}
			f.clock.Set(base) // stepped back
			aged(t, f, tenantA, base, r.Ledger+time.Microsecond, -1)
			res, err := w.Tick(t.Context())
			if err != nil || res.Pruned != 1 || len(ledgerOf(t, f, tenantA)) != 0 {
				t.Errorf("the pass after the clock stepped back %v: %+v, %v, %d lines left; want the line past its retention pruned",
					tc.step, res, err, len(ledgerOf(t, f, tenantA)))
			}
		})
	}
}

// failingDiscovery is a store whose RetentionDue fails while fail is set.
type failingDiscovery struct {
	continuity.Store
	fail atomic.Bool
}

func (s *failingDiscovery) RetentionDue(ctx context.Context, ledgerBefore, promptsBefore time.Time, after string, limit int) ([]string, error) {
	if s.fail.Load() {
		return nil, continuity.Errorf(continuity.CodeInternal, "the database is unreachable")
	}
	return s.Store.RetentionDue(ctx, ledgerBefore, promptsBefore, after, limit)
}
