package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
)

// testWriteOrder: what is read newest first is the last written, whatever
// the writers' clocks said. A row's id is a UUIDv7 of its writer's clock
// (a hook process, or a team server's replica) and its time that writer's
// too, so a writer behind the one before stamps both earlier.
func testWriteOrder(t *testing.T, h Harness) {
	t.Run("NewestHandoverAfterClockStep", func(t *testing.T) { testNewestHandoverClockStep(t, h) })
	t.Run("StopsOfOneTurnAfterClockStep", func(t *testing.T) { testStopsOfOneTurnClockStep(t, h) })
	t.Run("InterleavedWriters", func(t *testing.T) { testInterleavedWriters(t, h) })
	t.Run("StopsAfterAClearAfterClockStep", func(t *testing.T) { testClearClockStep(t, h) })
}

// testClearClockStep: a clear under the conversation's id leaves out of
// its history the Stops recorded before it, and keeps every Stop recorded
// after it, one whose writer's clock (its id's and its time) is step
// after the clear's writer's included.
func testClearClockStep(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		step time.Duration
	}{
		{"a minute after", time.Minute},
		{"a millisecond before", -time.Millisecond},
		{"an hour before", -time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			e := episodes(t, f)
			before, after := "before the clear", "after the clear"
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1"})
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", LastMessage: &before})
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceClear, SessionID: "s1"})
			at := time.Now().Add(tc.step) // the ids above are of this machine's clock
			x := excerpt(agent, "s1", after, at)
			x.ID = IDAt(at)
			inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 0, &x) })
			var got []string
			for _, e := range historyOf(t, f, "s1").StopExcerpts {
				got = append(got, e.Text)
			}
			same(t, "the Stops of the history", got, []string{after})
		})
	}
}

// testNewestHandoverClockStep: a project's second handover is written by
// a writer whose clock is step after the first's. The briefing's newest
// handover is the second, and so is the first record Records lists.
func testNewestHandoverClockStep(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		step time.Duration
	}{
		{"a minute ahead", time.Minute},
		{"a millisecond ahead", time.Millisecond},
		{"a millisecond behind", -time.Millisecond},
		{"a minute behind", -time.Minute},
		{"a day behind", -24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			ctx := t.Context()
			at := f.clock.Now()
			for i, objective := range []string{"first", "second"} {
				when := at.Add(time.Duration(i) * tc.step)
				r := recordRow(continuity.RecordHandover, agent, "s"+objective, "baton", when)
				r.ID, r.Objective = IDAt(when), objective
				inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &r) })
			}
			b, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton"})
			if err != nil {
				t.Fatal(err)
			}
			if b.Handover == nil || b.Handover.Record.Objective != "second" {
				t.Errorf("the briefing's newest handover = %+v, want the second written", b.Handover)
			}
			rs, err := f.svc.Records(ctx, tenantA, continuity.RecordQuery{ByProject: true, Project: "baton"})
			if err != nil || len(rs) != 2 || rs[0].Objective != "second" || rs[1].Objective != "first" {
				t.Fatalf("records = %+v, %v; want the second written, then the first", rs, err)
			}
			// The keyset goes by the same order.
			if older, err := f.svc.Records(ctx, tenantA, continuity.RecordQuery{Before: rs[0].ID}); err != nil || len(older) != 1 || older[0].Objective != "first" {
				t.Errorf("records before the second = %+v, %v; want the first", older, err)
			}
		})
	}
}

// testStopsOfOneTurnClockStep: two Stops end one turn (a Stop whose hook
// continued the turn, then the Stop that ended it), the second stamped
// step after the first. The reconstructed bottle shows them in the order
// they were recorded.
func testStopsOfOneTurnClockStep(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		step time.Duration
	}{
		{"a second after", time.Second},
		{"the same instant", 0},
		{"a microsecond before", -time.Microsecond},
		{"a minute before, before the turn's prompt", -2 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			ctx := t.Context()
			mustOpen(t, f, tenantA, startup("s1"))
			f.clock.Advance(time.Minute)
			if _, err := f.svc.RecordPrompt(ctx, tenantA, agent, "s1", "parse the header"); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(time.Minute)
			for _, text := range []string{"reply one", "reply two"} {
				if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &text}); err != nil {
					t.Fatal(err)
				}
				f.clock.Advance(tc.step)
			}
			hist := historyOf(t, f, "s1")
			wantTurns(t, "", hist, map[string]int{"reply one": 1, "reply two": 1})
			md := string(bottle.Render(bottle.Page{SessionID: "s1", Record: &hist}, f.clock.Now()).Markdown)
			if one, two := strings.Index(md, "reply one"), strings.Index(md, "reply two"); one < 0 || two < one {
				t.Errorf("the reconstructed bottle does not read the turn's Stops in the order they were recorded:\n%s", md)
			}
		})
	}
}

// testInterleavedWriters: two writers of one conversation's excerpts, or
// of one tenant's records, over two store handles (on Postgres two Read
// Committed transactions of separate pools): the second writes while the
// first has written and not committed, with a clock behind the first's.
// The second waits for the first and numbers after it: no shared number,
// no failure, and the second is read as the newer.
func testInterleavedWriters(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name  string
		first func(ctx context.Context, tx continuity.Tx, f *fixture) error
		// second writes through the second replica.
		second func(ctx context.Context, svc *continuity.Service, f *fixture) error
		want   func(t *testing.T, f *fixture)
	}{
		{"records",
			func(ctx context.Context, tx continuity.Tx, f *fixture) error {
				r := recordRow(continuity.RecordHandover, agent, "s1", "baton", f.clock.Now())
				r.ID, r.Objective = IDAt(f.clock.Now()), "first"
				return tx.InsertRecord(ctx, &r)
			},
			func(ctx context.Context, svc *continuity.Service, f *fixture) error {
				return svc.Store().Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
					r := recordRow(continuity.RecordHandover, agent, "s2", "baton", f.clock.Now().Add(-time.Minute))
					r.ID, r.Objective = IDAt(f.clock.Now().Add(-time.Minute)), "second"
					return tx.InsertRecord(ctx, &r)
				})
			},
			func(t *testing.T, f *fixture) {
				rs, err := f.svc.Records(t.Context(), tenantA, continuity.RecordQuery{})
				if err != nil || len(rs) != 2 || rs[0].Objective != "second" || rs[0].Seq != rs[1].Seq+1 {
					t.Errorf("records = %+v, %v; want the second numbered after the first", rs, err)
				}
			}},
		{"excerpts, a transaction then a live Stop",
			func(ctx context.Context, tx continuity.Tx, f *fixture) error {
				e := excerpt(agent, "s1", "first", f.clock.Now())
				e.ID = IDAt(f.clock.Now())
				return tx.InsertStopExcerpt(ctx, 0, &e)
			},
			func(ctx context.Context, svc *continuity.Service, f *fixture) error {
				text := "second"
				_, err := svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &text})
				return err
			},
			wantExcerptsWritten},
		{"excerpts, two transactions",
			func(ctx context.Context, tx continuity.Tx, f *fixture) error {
				e := excerpt(agent, "s1", "first", f.clock.Now())
				e.ID = IDAt(f.clock.Now())
				return tx.InsertStopExcerpt(ctx, 0, &e)
			},
			func(ctx context.Context, svc *continuity.Service, f *fixture) error {
				return svc.Store().Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
					e := excerpt(agent, "s1", "second", f.clock.Now().Add(-time.Minute))
					e.ID = IDAt(f.clock.Now().Add(-time.Minute))
					return tx.InsertStopExcerpt(ctx, 0, &e)
				})
			},
			wantExcerptsWritten},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			ctx := t.Context()
			mustOpen(t, f, tenantA, startup("s1"))
			second := replicas(t, h, f)[1]
			inserted, commit := make(chan struct{}), make(chan struct{})
			firstDone, secondDone := make(chan error, 1), make(chan error, 1)
			go func() {
				firstDone <- f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
					if err := tc.first(ctx, tx, f); err != nil {
						return err
					}
					close(inserted)
					<-commit
					return nil
				})
			}()
			select {
			case <-inserted:
			case err := <-firstDone:
				t.Fatalf("the first writer: %v", err)
			}
			go func() { secondDone <- tc.second(ctx, second, f) }()
			time.Sleep(300 * time.Millisecond) // the second now waits on the first
			close(commit)
			if err := <-firstDone; err != nil {
				t.Fatalf("the first writer: %v", err)
			}
			if err := <-secondDone; err != nil {
				t.Fatalf("the second writer: %v", err)
			}
			tc.want(t, f)
		})
	}
}

// wantExcerptsWritten asserts the conversation s1 holds the excerpts
// "first" and "second", numbered in that order.
func wantExcerptsWritten(t *testing.T, f *fixture) {
	t.Helper()
	es := ofConversation(t, f, tenantA, agent, "s1", continuity.Tx.StopExcerpts)
	if len(es) != 2 || es[0].Text != "first" || es[1].Text != "second" || es[1].Seq != es[0].Seq+1 {
		t.Errorf("excerpts = %+v; want the second numbered after the first", es)
	}
}
