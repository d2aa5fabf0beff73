package storetest

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// fixedJudge is the suite's Judge: it answers every case with fixed ids
// (every commitment of the case when all is set) or a fixed error, after
// running hook, and keeps the cases it was asked.
type fixedJudge struct {
	ids  []uuid.UUID
	all  bool
	err  error
	hook func(c continuity.JudgeCase)

	mu    sync.Mutex
	cases []continuity.JudgeCase
}

func (j *fixedJudge) Judge(_ context.Context, c continuity.JudgeCase) (continuity.Verdict, error) {
	j.mu.Lock()
	j.cases = append(j.cases, c)
	j.mu.Unlock()
	if j.hook != nil {
		j.hook(c)
	}
	if j.err != nil {
		return continuity.Verdict{}, j.err
	}
	ids := slices.Clone(j.ids)
	if j.all {
		for _, m := range c.Commitments {
			ids = append(ids, m.ID)
		}
	}
	return continuity.Verdict{Completed: ids, Usage: continuity.JudgeUsage{InputTokens: 10, OutputTokens: 2, CostMicroUSD: 3}}, nil
}

// judgeFunc is a Judge of one function.
type judgeFunc func(ctx context.Context, c continuity.JudgeCase) (continuity.Verdict, error)

func (j judgeFunc) Judge(ctx context.Context, c continuity.JudgeCase) (continuity.Verdict, error) {
	return j(ctx, c)
}

func (j *fixedJudge) asked() []continuity.JudgeCase {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.cases)
}

// briefedSession opens sid for tenant with its commitments briefed, leaves
// an excerpt at a Stop, and returns the run id and the commitments' ids.
// The commitments have no project, so no open session of the project
// attaches them.
func briefedSession(t *testing.T, f *fixture, tenant, sid string, commitments int) (uuid.UUID, []uuid.UUID) {
	t.Helper()
	var ids []uuid.UUID
	var briefed []continuity.BriefedMemory
	for i := range commitments {
		m := mustRemember(t, f, tenant, remember(continuity.KindCommitment, "c"+strconv.Itoa(i), "ship part "+strconv.Itoa(i), "", ""))
		ids = append(ids, m.ID)
		briefed = append(briefed, continuity.BriefedMemory{ID: m.ID, Topic: m.Topic, Status: string(m.Status)})
	}
	p := startup(sid)
	p.BriefedMemories = briefed
	run := mustOpen(t, f, tenant, p).SessionRunID
	excerpt := "shipped it"
	if _, err := f.svc.Heartbeat(context.Background(), tenant, continuity.HeartbeatParams{Agent: agent, SessionID: sid, LastMessageExcerpt: &excerpt, Stop: true}); err != nil {
		t.Fatal(err)
	}
	return run, ids
}

func closeSession(t *testing.T, f *fixture, tenant, sid string) {
	t.Helper()
	if _, err := f.svc.Close(context.Background(), tenant, continuity.CloseParams{Agent: agent, SessionID: sid}); err != nil {
		t.Fatal(err)
	}
}

func tick(t *testing.T, w *continuity.Worker) continuity.WorkerResult {
	t.Helper()
	res, err := w.Tick(context.Background())
	if err != nil {
		t.Fatalf("tick: %v", err)
	}
	return res
}

func memoryStatus(t *testing.T, f *fixture, tenant string, id uuid.UUID) continuity.MemoryStatus {
	t.Helper()
	var st continuity.MemoryStatus
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		m, err := tx.MemoryByID(ctx, id)
		if err != nil {
			return err
		}
		st = m.Status
		return nil
	})
	return st
}

// perRun counts the tenant's ledger lines of the event, by run id.
func perRun(t *testing.T, f *fixture, tenant, event string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range ledgerOf(t, f, tenant) {
		if e.Event == event {
			out[e.Fields["session_run_id"]]++
		}
	}
	return out
}

func testWorker(t *testing.T, h Harness) {
	ctx := context.Background()
	lp := lease.Default
	floor := lp.Lease + lp.SweepGrace

	t.Run("SweepsEveryTenant", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		w := continuity.NewWorker(f.svc)
		if w.CloserOn() {
			t.Fatal("the closer is on by default")
		}
		// Rows last seen at different instants, swept when the pass runs
		// at the sweep floor past the first: strictly before it only.
		a := mustOpen(t, f, tenantA, startup("a")).SessionRunID
		b := mustOpen(t, f, tenantB, startup("b")).SessionRunID
		f.clock.Advance(time.Microsecond)
		mustOpen(t, f, tenantA, startup("at-floor"))
		f.clock.Advance(floor)
		mustOpen(t, f, tenantB, startup("live"))
		res := tick(t, w)
		if res.Swept != 2 || res.Claimed != 0 {
			t.Fatalf("first pass = %+v, want 2 swept, the row at the floor kept", res)
		}
		for _, c := range []struct {
			tenant, sid string
			closed      bool
		}{{tenantA, "a", true}, {tenantB, "b", true}, {tenantA, "at-floor", false}, {tenantB, "live", false}} {
			if v := view(t, f, c.tenant, c.sid); (v.ClosedAt != nil) != c.closed {
				t.Errorf("%s/%s closed %v, want %v", c.tenant, c.sid, v.ClosedAt, c.closed)
			}
		}
		if perRun(t, f, tenantA, continuity.EventSessionSwept)[a.String()] != 1 || perRun(t, f, tenantB, continuity.EventSessionSwept)[b.String()] != 1 {
			t.Fatal("each tenant's ledger must record its own sweep")
		}
		f.clock.Advance(time.Microsecond)
		if res := tick(t, w); res.Swept != 1 {
			t.Fatalf("one microsecond later = %+v, want the row at the floor swept", res)
		}
		if res := tick(t, w); res.Swept != 0 {
			t.Fatalf("a third pass = %+v, want nothing left", res)
		}
	})

	t.Run("TenantConfinement", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		// Both tenants have a conversation under one natural key; A's
		// briefing names, besides its own commitment, B's (a forged id).
		_, bIDs := briefedSession(t, f, tenantB, "shared", 1)
		aMine := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "mine", "ship", "baton", "")).ID
		p := startup("shared")
		p.BriefedMemories = []continuity.BriefedMemory{{ID: aMine, Topic: "mine", Status: "open"}, {ID: bIDs[0], Topic: "theirs", Status: "open"}}
		aRun := mustOpen(t, f, tenantA, p).SessionRunID
		closeSession(t, f, tenantA, "shared")
		closeSession(t, f, tenantB, "shared")
		j := &fixedJudge{ids: []uuid.UUID{aMine, bIDs[0]}}
		res := tick(t, continuity.NewWorker(f.svc, continuity.WithCloser(j)))
		if res.Claimed != 2 || res.Finished != 2 {
			t.Fatalf("pass = %+v, want both tenants' rows closed", res)
		}
		for _, c := range j.asked() {
			want := []uuid.UUID{bIDs[0]}
			if c.Tenant == tenantA {
				want = []uuid.UUID{aMine}
				if c.RunID != aRun {
					t.Errorf("tenant A's case names run %v, want %v", c.RunID, aRun)
				}
			}
			if got := rowIDs(c.Commitments); !slices.Equal(got, want) {
				t.Errorf("tenant %s's case holds commitments %v, want only its own %v", c.Tenant, got, want)
			}
		}
		if st := memoryStatus(t, f, tenantA, aMine); st != continuity.StatusResolved {
			t.Errorf("A's commitment is %s, want resolved", st)
		}
		// B's commitment was resolved by B's own pass (the judge names it
		// for both), never by A's: its event carries B's run.
		for _, e := range runEvents(t, f, tenantA, aRun) {
			if e.MemoryID == bIDs[0] {
				t.Fatal("tenant A's pass wrote an event about tenant B's commitment")
			}
		}
		if n := perRun(t, f, tenantA, continuity.EventCloserResolved)[aRun.String()]; n != 1 {
			t.Fatalf("tenant A's ledger records %d resolves, want 1", n)
		}
	})

	t.Run("TwoWorkersNeverClaimOneRow", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		tenants := []string{tenantA, tenantB, "tenant-c", "tenant-d"}
		runs := map[string][]uuid.UUID{}
		for _, tenant := range tenants {
			for i := range 6 {
				run, _ := briefedSession(t, f, tenant, "s"+strconv.Itoa(i), 1)
				runs[tenant] = append(runs[tenant], run)
			}
		}
		f.clock.Advance(floor + time.Minute)
		j := &fixedJudge{all: true}
		// Two services over one store, as two replicas: the same rows are
		// discovered by both and worked at once.
		workers := []*continuity.Worker{
			continuity.NewWorker(continuity.New(f.store, continuity.WithClock(f.clock.Now)), continuity.WithCloser(j), continuity.WithWorkerBatch(7)),
			continuity.NewWorker(continuity.New(f.store, continuity.WithClock(f.clock.Now)), continuity.WithCloser(j), continuity.WithWorkerBatch(7)),
		}
		var total continuity.WorkerResult
		var mu sync.Mutex
		for round := 0; round < 10; round++ {
			var wg sync.WaitGroup
			for _, w := range workers {
				wg.Go(func() {
					res, err := w.Tick(ctx)
					if err != nil {
						t.Errorf("tick: %v", err)
					}
					mu.Lock()
					total.Swept += res.Swept
					total.Claimed += res.Claimed
					total.Resolved += res.Resolved
					mu.Unlock()
				})
			}
			wg.Wait()
		}
		if total.Swept != 24 || total.Claimed != 24 || total.Resolved != 24 {
			t.Fatalf("two workers swept %d, claimed %d, resolved %d; want each of 24 rows exactly once", total.Swept, total.Claimed, total.Resolved)
		}
		for _, tenant := range tenants {
			swept, claimed := perRun(t, f, tenant, continuity.EventSessionSwept), perRun(t, f, tenant, continuity.EventCloserClaimed)
			for _, run := range runs[tenant] {
				if swept[run.String()] != 1 || claimed[run.String()] != 1 {
					t.Errorf("%s run %v swept %d times and claimed %d, want once each", tenant, run, swept[run.String()], claimed[run.String()])
				}
				if n := len(runEvents(t, f, tenant, run)); n != 1 {
					t.Errorf("%s run %v has %d events, want its one resolve", tenant, run, n)
				}
			}
		}
	})

	t.Run("ClaimFence", func(t *testing.T) {
		cases := []struct {
			name string
			// during runs inside the judge, between the claim and the
			// resolves.
			during        func(t *testing.T, f *fixture)
			wantAbandoned bool
		}{
			{"nothing happens meanwhile: the pass finishes", func(*testing.T, *fixture) {}, false},
			{"the run is resurrected: the batch stops", func(t *testing.T, f *fixture) {
				if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"}); err != nil {
					t.Error(err)
				}
			}, true},
			{"the claim went stale and another worker took the row: the stale pass is a no-op", func(t *testing.T, f *fixture) {
				f.clock.Advance(continuity.DefaultCloserClaimTTL)
				other := continuity.NewWorker(continuity.New(f.store, continuity.WithClock(f.clock.Now)), continuity.WithCloser(&fixedJudge{}))
				if res, err := other.Tick(ctx); err != nil || res.Claimed != 1 || res.Finished != 1 {
					t.Errorf("the second worker's pass = %+v, %v; want it to claim and finish the row", res, err)
				}
			}, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run, ids := briefedSession(t, f, tenantA, "s1", 2)
				closeSession(t, f, tenantA, "s1")
				j := &fixedJudge{all: true}
				j.hook = func(continuity.JudgeCase) { tc.during(t, f) }
				res := tick(t, continuity.NewWorker(f.svc, continuity.WithCloser(j)))
				wantStatus := continuity.StatusResolved
				if tc.wantAbandoned {
					wantStatus = continuity.StatusOpen
					if res.Abandoned != 1 || res.Finished != 0 || res.Resolved != 0 {
						t.Fatalf("pass = %+v, want it abandoned with nothing resolved", res)
					}
				} else if res.Finished != 1 || res.Resolved != 2 {
					t.Fatalf("pass = %+v, want it finished with both resolved", res)
				}
				for _, id := range ids {
					if st := memoryStatus(t, f, tenantA, id); st != wantStatus {
						t.Errorf("commitment %v is %s, want %s", id, st, wantStatus)
					}
				}
				if got := perRun(t, f, tenantA, continuity.EventCloserAbandoned)[run.String()]; (got == 1) != tc.wantAbandoned {
					t.Errorf("closer.abandoned lines = %d", got)
				}
			})
		}
		t.Run("a run resurrected before the pass is not claimed", func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			briefedSession(t, f, tenantA, "s1", 1)
			f.clock.Advance(floor + time.Minute)
			j := &fixedJudge{all: true}
			w := continuity.NewWorker(f.svc, continuity.WithCloser(j))
			if _, err := f.svc.Sweep(ctx, tenantA, 10); err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"}); err != nil {
				t.Fatal(err)
			}
			if res := tick(t, w); res.Claimed != 0 || len(j.asked()) != 0 {
				t.Fatalf("pass over a resurrected run = %+v, want no claim", res)
			}
		})
	})

	// A tenant erased (or partly erased: an erase stopped after its first
	// batches) while the closer judges one of its runs: the claim no longer
	// holds, so the pass is abandoned, with no error and no failure, and
	// writes nothing back into the tenant; the erase, run again to the
	// end, leaves nothing.
	t.Run("TheTenantIsErasedMeanwhile", func(t *testing.T) {
		for _, batches := range []int{0, 1, 2} {
			t.Run("after "+strconv.Itoa(batches)+" batches", func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				briefedSession(t, f, tenantA, "s1", 2)
				closeSession(t, f, tenantA, "s1")
				mustOpen(t, f, tenantB, startup("b1"))
				beforeB := rawRows(t, f, tenantB)
				j := &fixedJudge{all: true}
				j.hook = func(continuity.JudgeCase) {
					if _, err := f.svc.Erase(ctx, tenantA, continuity.EraseParams{Batch: 1, MaxBatches: batches}); err != nil {
						t.Error(err)
					}
				}
				res, err := continuity.NewWorker(f.svc, continuity.WithCloser(j)).Tick(ctx)
				if err != nil {
					t.Errorf("the pass over an erased tenant failed: %v", err)
				}
				if res.Claimed != 1 || res.Abandoned != 1 || res.Failed != 0 || res.Finished != 0 {
					t.Errorf("pass = %+v, want the claim abandoned, nothing failed or finished", res)
				}
				er, err := f.svc.Erase(ctx, tenantA, continuity.EraseParams{})
				if err != nil || !er.Complete {
					t.Fatalf("the erase run again = %+v, %v", er, err)
				}
				for table, n := range rawRows(t, f, tenantA) {
					if n != 0 {
						t.Errorf("after the erase tenant A has %d rows in %s", n, table)
					}
				}
				same(t, "tenant B's raw counts", rawRows(t, f, tenantB), beforeB)
			})
		}
	})

	t.Run("PendingExpiresOnClaim", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		briefedSession(t, f, tenantA, "s1", 1)
		stops(t, f, 3)
		armed := begin(t, f)
		if !armed.Armed {
			t.Fatalf("begin = %+v", armed)
		}
		w := continuity.NewWorker(f.svc, continuity.WithCloser(&fixedJudge{}))
		if res := tick(t, w); res.Claimed != 0 {
			t.Fatalf("a live pending row was claimed: %+v", res)
		}
		closeSession(t, f, tenantA, "s1")
		var during continuity.SessionView
		j := &fixedJudge{hook: func(continuity.JudgeCase) { during = view(t, f, tenantA, "s1") }}
		if res := tick(t, continuity.NewWorker(f.svc, continuity.WithCloser(j))); res.Claimed != 1 || res.Finished != 1 {
			t.Fatalf("pass = %+v", res)
		}
		if during.TriageStatus != string(triage.Expired) || during.TriageAttemptID == armed.AttemptID || during.TriageAttemptID == uuid.Nil {
			t.Fatalf("row while claimed: status %s attempt %v, want expired under the closer's own attempt", during.TriageStatus, during.TriageAttemptID)
		}
		_, err := f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: armed.AttemptID.String()})
		wantCode(t, err, continuity.CodeConflict)
		if v := view(t, f, tenantA, "s1"); v.TriageStatus != string(triage.Completed) {
			t.Fatalf("status after the pass = %s, want completed", v.TriageStatus)
		}
	})

	t.Run("NeverResurrectsItsOwnRow", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run, ids := briefedSession(t, f, tenantA, "s1", 1)
		f.clock.Advance(floor + time.Minute)
		j := &fixedJudge{all: true}
		w := continuity.NewWorker(f.svc, continuity.WithCloser(j))
		res := tick(t, w)
		if res.Swept != 1 || res.Claimed != 1 || res.Resolved != 1 || res.Finished != 1 {
			t.Fatalf("pass = %+v, want the lapsed row swept, claimed, resolved and finished", res)
		}
		if res.Usage != (continuity.JudgeUsage{InputTokens: 10, OutputTokens: 2, CostMicroUSD: 3}) {
			t.Errorf("usage = %+v", res.Usage)
		}
		v := view(t, f, tenantA, "s1")
		if v.ClosedAt == nil || v.State != lease.ImplicitlyClosed || v.ActivationEpoch != 1 {
			t.Fatalf("row after the pass: closed %v state %v epoch %d, want it still implicitly closed at epoch 1", v.ClosedAt, v.State, v.ActivationEpoch)
		}
		evs := runEvents(t, f, tenantA, run)
		if len(evs) != 1 || evs[0].MemoryID != ids[0] || evs[0].EventKind != string(continuity.EventResolve) ||
			evs[0].ActorKind != string(continuity.ActorWorker) || evs[0].SessionRunID != run {
			t.Fatalf("run events = %+v, want one resolve by the worker attributed to the run", evs)
		}
		if v.TriageStatus != string(triage.Completed) || !slices.Equal(v.TriagedEventIDs, []uuid.UUID{evs[0].ID}) || v.CloserNextAt != nil {
			t.Fatalf("bookkeeping: status %s watermark %v next %v, want completed with its own resolve triaged", v.TriageStatus, v.TriagedEventIDs, v.CloserNextAt)
		}
		if n := perRun(t, f, tenantA, continuity.EventSessionResurrect)[run.String()]; n != 0 {
			t.Fatalf("the closer resurrected its row %d times", n)
		}
		f.clock.Advance(floor)
		if res := tick(t, w); res != (continuity.WorkerResult{}) {
			t.Fatalf("a later pass = %+v, want nothing: the row is neither re-swept nor re-claimed", res)
		}
	})

	t.Run("Backoff", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run, ids := briefedSession(t, f, tenantA, "s1", 1)
		closeSession(t, f, tenantA, "s1")
		j := &fixedJudge{err: errors.New("model unavailable")}
		w := continuity.NewWorker(f.svc, continuity.WithCloser(j))
		for i, want := range []time.Duration{20 * time.Minute, 40 * time.Minute, 80 * time.Minute, 160 * time.Minute, 4 * time.Hour, 4 * time.Hour} {
			res, err := w.Tick(ctx)
			if err == nil || res.Failed != 1 || res.Claimed != 1 {
				t.Fatalf("failure %d: pass = %+v, %v; want one failed claim", i+1, res, err)
			}
			v := view(t, f, tenantA, "s1")
			if v.CloserFailures != i+1 || v.CloserNextAt == nil || !v.CloserNextAt.Equal(f.clock.Now().Add(want)) {
				t.Fatalf("failure %d: failures %d next %v, want %d and now+%v", i+1, v.CloserFailures, v.CloserNextAt, i+1, want)
			}
			if v.LastMessageExcerpt == "" {
				t.Fatalf("failure %d cleared the excerpt", i+1)
			}
			f.clock.Advance(want - time.Microsecond)
			if res := tick(t, w); res.Claimed != 0 {
				t.Fatalf("failure %d: claimed one microsecond before the backoff ended: %+v", i+1, res)
			}
			f.clock.Advance(time.Microsecond)
		}
		j.err = nil
		j.all = true
		if res := tick(t, w); res.Finished != 1 || res.Resolved != 1 {
			t.Fatalf("pass after the backoff = %+v", res)
		}
		v := view(t, f, tenantA, "s1")
		if v.CloserFailures != 0 || v.CloserNextAt != nil || memoryStatus(t, f, tenantA, ids[0]) != continuity.StatusResolved {
			t.Fatalf("after success: failures %d next %v", v.CloserFailures, v.CloserNextAt)
		}
		if n := perRun(t, f, tenantA, continuity.EventCloserFailed)[run.String()]; n != 6 {
			t.Fatalf("closer.failed lines = %d, want 6", n)
		}
	})

	// A judge is a host's code: one that panics, or hangs until its
	// context ends, fails its row's pass (backed off, the excerpt kept),
	// not the worker, and the pass goes on to the next row. The panic's
	// value, which may quote the case, reaches no error.
	t.Run("AJudgeThatPanicsOrHangs", func(t *testing.T) {
		cases := []struct {
			name  string
			judge judgeFunc
		}{
			{"panics", func(context.Context, continuity.JudgeCase) (continuity.Verdict, error) { panic("shipped it: secret") }},
			{"panics with nil", func(context.Context, continuity.JudgeCase) (continuity.Verdict, error) { panic(nil) }},
			{"hangs until its context ends", func(ctx context.Context, _ continuity.JudgeCase) (continuity.Verdict, error) {
				<-ctx.Done()
				return continuity.Verdict{}, ctx.Err()
			}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				briefedSession(t, f, tenantA, "s1", 1)
				briefedSession(t, f, tenantB, "s2", 1)
				closeSession(t, f, tenantA, "s1")
				closeSession(t, f, tenantB, "s2")
				w := continuity.NewWorker(f.svc, continuity.WithCloser(tc.judge), continuity.WithCloserClaimTTL(200*time.Millisecond))
				type pass struct {
					res continuity.WorkerResult
					err error
				}
				done := make(chan pass, 1)
				go func() {
					res, err := w.Tick(ctx)
					done <- pass{res, err}
				}()
				var p pass
				select {
				case p = <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("the pass did not return: the judge's call has no bound")
				}
				if p.err == nil || p.res.Claimed != 2 || p.res.Failed != 2 || p.res.Finished != 0 {
					t.Fatalf("pass = %+v, %v; want both claims failed", p.res, p.err)
				}
				if strings.Contains(p.err.Error(), "secret") {
					t.Errorf("the pass's error quotes the panic: %v", p.err)
				}
				for _, c := range []struct{ tenant, sid string }{{tenantA, "s1"}, {tenantB, "s2"}} {
					v := view(t, f, c.tenant, c.sid)
					if v.CloserFailures != 1 || v.CloserNextAt == nil || !v.CloserNextAt.Equal(f.clock.Now().Add(triage.CloserBackoff(1))) || v.LastMessageExcerpt == "" {
						t.Errorf("%s after the failed pass: failures %d next %v excerpt %q; want one failure backed off, the excerpt kept",
							c.sid, v.CloserFailures, v.CloserNextAt, v.LastMessageExcerpt)
					}
				}
			})
		}
	})

	t.Run("AStoppedPassIsNoFailure", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		briefedSession(t, f, tenantA, "s1", 1)
		closeSession(t, f, tenantA, "s1")
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		j := &fixedJudge{err: context.Canceled, hook: func(continuity.JudgeCase) { cancel() }}
		if _, err := continuity.NewWorker(f.svc, continuity.WithCloser(j)).Tick(cctx); err == nil {
			t.Fatal("a pass stopped by its context reported no error")
		}
		v := view(t, f, tenantA, "s1")
		if v.CloserFailures != 0 || v.CloserNextAt == nil || !v.CloserNextAt.Equal(f.clock.Now().Add(continuity.DefaultCloserClaimTTL)) || v.LastMessageExcerpt == "" {
			t.Fatalf("after a stopped pass: failures %d next %v; want no failure and the claim lapsing after its TTL", v.CloserFailures, v.CloserNextAt)
		}
	})

	t.Run("ExcerptClearedLast", func(t *testing.T) {
		cases := []struct {
			name        string
			judge       func(f *fixture) *fixedJudge
			wantExcerpt bool
		}{
			{"the pass finishes", func(*fixture) *fixedJudge { return &fixedJudge{all: true} }, false},
			{"the judge fails", func(*fixture) *fixedJudge { return &fixedJudge{err: errors.New("down")} }, true},
			{"the run is resurrected meanwhile", func(f *fixture) *fixedJudge {
				return &fixedJudge{all: true, hook: func(continuity.JudgeCase) {
					_, _ = f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"})
				}}
			}, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				_, ids := briefedSession(t, f, tenantA, "s1", 2)
				closeSession(t, f, tenantA, "s1")
				j := tc.judge(f)
				inner := j.hook
				// While the pass runs, the excerpt is still there: the judge
				// reads it, and it goes only with the final bookkeeping.
				j.hook = func(c continuity.JudgeCase) {
					if c.Excerpt != "shipped it" || view(t, f, tenantA, "s1").LastMessageExcerpt != "shipped it" {
						t.Errorf("excerpt during the pass: case %q", c.Excerpt)
					}
					if inner != nil {
						inner(c)
					}
				}
				_, _ = continuity.NewWorker(f.svc, continuity.WithCloser(j)).Tick(ctx)
				if got := view(t, f, tenantA, "s1").LastMessageExcerpt != ""; got != tc.wantExcerpt {
					t.Fatalf("excerpt kept %v, want %v", got, tc.wantExcerpt)
				}
				if !tc.wantExcerpt && memoryStatus(t, f, tenantA, ids[1]) != continuity.StatusResolved {
					t.Fatal("the excerpt was cleared but the resolves were not all made")
				}
			})
		}
	})

	t.Run("Eligibility", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		w := continuity.NewWorker(f.svc, continuity.WithCloser(&fixedJudge{all: true}))
		// A SessionEnd at the lease expiry is an implicit close: the
		// closer waits the grace past the expiry.
		briefedSession(t, f, tenantA, "late", 1)
		f.clock.Advance(lp.Lease)
		closeSession(t, f, tenantA, "late")
		f.clock.Advance(lp.SweepGrace - time.Microsecond)
		if res := tick(t, w); res.Claimed != 0 {
			t.Fatalf("claimed one microsecond before the grace ended: %+v", res)
		}
		f.clock.Advance(time.Microsecond)
		if res := tick(t, w); res.Claimed != 1 || res.Finished != 1 {
			t.Fatalf("at the end of the grace = %+v, want the row claimed", res)
		}
		// A completed row with nothing outside its watermark is left
		// alone and dropped from the closer's queue.
		run, _ := briefedSession(t, f, tenantA, "done", 0)
		mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "decided", "baton", run.String()))
		r, err := f.svc.TriageBegin(ctx, tenantA, continuity.TriageParams{Agent: agent, SessionID: "done"})
		if err != nil || !r.Armed {
			t.Fatalf("begin = %+v %v", r, err)
		}
		mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d2", "decided again", "baton", run.String()))
		if _, err := f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "done", AttemptID: r.AttemptID.String()}); err != nil {
			t.Fatal(err)
		}
		closeSession(t, f, tenantA, "done")
		if res := tick(t, w); res.Claimed != 0 || res.Skipped != 1 {
			t.Fatalf("completed row with no new event: %+v, want it skipped", res)
		}
		if v := view(t, f, tenantA, "done"); v.CloserNextAt != nil || v.TriageStatus != string(triage.Completed) {
			t.Fatalf("completed row: next %v status %s", v.CloserNextAt, v.TriageStatus)
		}
		if res := tick(t, w); res != (continuity.WorkerResult{}) {
			t.Fatalf("next pass = %+v, want nothing", res)
		}
		// An overflowed row is never taken.
		run, _ = briefedSession(t, f, tenantA, "over", 1)
		flood(t, f, run, provenance.Ceiling+1)
		if _, err := f.svc.TriageBegin(ctx, tenantA, continuity.TriageParams{Agent: agent, SessionID: "over"}); err != nil {
			t.Fatal(err)
		}
		closeSession(t, f, tenantA, "over")
		if v := view(t, f, tenantA, "over"); v.TriageStatus != string(triage.Overflowed) {
			t.Fatalf("flooded row status %s", v.TriageStatus)
		}
		if res := tick(t, w); res != (continuity.WorkerResult{}) {
			t.Fatalf("pass over an overflowed row = %+v, want nothing", res)
		}
		// A closed row whose events passed the ceiling after its last
		// handshake is overflowed by the closer, for good, and never
		// judged.
		j := &fixedJudge{all: true}
		w = continuity.NewWorker(f.svc, continuity.WithCloser(j))
		run, _ = briefedSession(t, f, tenantA, "flooded", 1)
		closeSession(t, f, tenantA, "flooded")
		flood(t, f, run, provenance.Ceiling+1)
		if res := tick(t, w); res.Claimed != 0 || res.Skipped != 1 || len(j.asked()) != 0 {
			t.Fatalf("pass over a truncated run = %+v, asked %d; want it skipped and never judged", res, len(j.asked()))
		}
		if v := view(t, f, tenantA, "flooded"); v.TriageStatus != string(triage.Overflowed) || v.CloserNextAt != nil || v.LastMessageExcerpt == "" {
			t.Fatalf("truncated run: status %s next %v excerpt kept %v", v.TriageStatus, v.CloserNextAt, v.LastMessageExcerpt != "")
		}
		if res := tick(t, w); res != (continuity.WorkerResult{}) {
			t.Fatalf("the next pass = %+v, want nothing", res)
		}
	})

	t.Run("OnlyBriefedOpenCommitments", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		unbriefed := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "u", "not briefed", "baton", "")).ID
		decision := mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "a decision", "baton", "")).ID
		done := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "r", "already done", "baton", "")).ID
		if _, err := f.svc.Resolve(ctx, tenantA, done.String(), continuity.TransitionParams{Actor: continuity.ActorUserCLI}); err != nil {
			t.Fatal(err)
		}
		run, ids := briefedSession(t, f, tenantA, "s1", 2)
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			row, err := tx.SessionByID(ctx, run)
			if err != nil {
				return err
			}
			for _, id := range []uuid.UUID{decision, done, ids[0]} {
				row.BriefedMemories = append(row.BriefedMemories, continuity.BriefedMemory{ID: id, Topic: "t", Status: "open"})
			}
			return tx.UpdateSession(ctx, row)
		})
		closeSession(t, f, tenantA, "s1")
		// Another session resolves the second commitment after the claim,
		// before the closer's resolve: the live re-read skips it.
		j := &fixedJudge{ids: []uuid.UUID{unbriefed, decision, ids[0], ids[1], ids[0]}}
		j.hook = func(continuity.JudgeCase) {
			if _, err := f.svc.Resolve(ctx, tenantA, ids[1].String(), continuity.TransitionParams{Actor: continuity.ActorUserAPI}); err != nil {
				t.Error(err)
			}
		}
		res := tick(t, continuity.NewWorker(f.svc, continuity.WithCloser(j)))
		if res.Resolved != 1 || res.Finished != 1 {
			t.Fatalf("pass = %+v, want exactly the one briefed open commitment resolved", res)
		}
		if c := j.asked(); len(c) != 1 || !slices.Equal(rowIDs(c[0].Commitments), ids) {
			t.Fatalf("the judge was asked about %v, want the briefed open commitments %v once each", rowIDs(j.asked()[0].Commitments), ids)
		}
		if memoryStatus(t, f, tenantA, unbriefed) != continuity.StatusOpen || memoryStatus(t, f, tenantA, decision) != continuity.StatusOpen {
			t.Fatal("the closer resolved a row that was not a briefed commitment")
		}
		evs := runEvents(t, f, tenantA, run)
		if len(evs) != 1 || evs[0].MemoryID != ids[0] {
			t.Fatalf("run events = %+v, want the closer's one resolve", evs)
		}
	})

	t.Run("UnderLoad", func(t *testing.T) { testWorkerChaos(t, h) })

	t.Run("RunStopsWithItsContext", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		w := continuity.NewWorker(f.svc)
		wantCode(t, w.Run(ctx, time.Second-time.Nanosecond), continuity.CodeInvalid)
		passes := make(chan continuity.WorkerResult, 4)
		rctx, cancel := context.WithCancel(ctx)
		mustOpen(t, f, tenantA, startup("s1"))
		f.clock.Advance(floor + time.Minute)
		w = continuity.NewWorker(f.svc, continuity.WithWorkerReport(func(r continuity.WorkerResult, err error) {
			if err != nil {
				t.Error(err)
			}
			passes <- r
		}))
		done := make(chan error, 1)
		go func() { done <- w.Run(rctx, time.Hour) }()
		if r := <-passes; r.Swept != 1 {
			t.Errorf("the first pass, run at once = %+v, want the lapsed row swept", r)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run after cancel = %v, want nil", err)
		}
	})
}
