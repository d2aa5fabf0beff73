package storetest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// testWorkerChaos: two workers run the sweep and the closer (a judge that
// finds every commitment done) pass after pass while 16 callers heartbeat,
// close, resume and write to the same conversations by their run ids,
// unresolve their commitments, and move the clock past the sweep floor
// now and then. However the passes and the calls interleave (on Postgres,
// Read Committed transactions of many connections), no pass and no call
// fails for a reason of the store's own, no pass fails or backs off
// (closer.failed), and once the callers stop, a pass past the floor
// leaves every conversation closed, its pass finished, none failed, and
// the closer has resolved commitments along the way.
func testWorkerChaos(t *testing.T, h Harness) {
	t.Parallel()
	const conversations, callers, perCaller = 3, 16, 15
	f := newFixture(t, h)
	floor := lease.Default.Lease + lease.Default.SweepGrace
	ctx := context.Background()
	sids := make([]string, conversations)
	runs := map[string]uuid.UUID{}
	var commitments []uuid.UUID
	for i := range sids {
		sids[i] = "w" + strconv.Itoa(i)
		run, ids := briefedSession(t, f, tenantA, sids[i], 2)
		runs[sids[i]] = run
		commitments = append(commitments, ids...)
	}
	judge := &fixedJudge{all: true}
	var stop atomic.Bool
	var workers, calls sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(what string, err error) {
		if c := continuity.ErrorCode(err); err != nil && (c == continuity.CodeInternal || c == "") {
			mu.Lock()
			failures = append(failures, what+": "+err.Error())
			mu.Unlock()
		}
	}
	passes := atomic.Int64{}
	for range 2 {
		w := continuity.NewWorker(f.svc, continuity.WithCloser(judge))
		workers.Go(func() {
			for !stop.Load() {
				_, err := w.Tick(ctx)
				fail("tick", err)
				passes.Add(1)
			}
		})
	}
	for c := range callers {
		calls.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 11))
			for range perCaller {
				sid := sids[rng.IntN(len(sids))]
				switch rng.IntN(7) {
				case 0:
					msg := "still going"
					_, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: sid, LastMessageExcerpt: &msg, Stop: true})
					fail("heartbeat", err)
				case 1:
					_, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: sid})
					fail("close", err)
				case 2:
					p := startup(sid)
					p.Source = continuity.SourceResume
					_, err := f.svc.Open(ctx, tenantA, p)
					fail("resume", err)
				case 3:
					_, err := f.svc.Remember(ctx, tenantA, remember(continuity.KindDecision, sid+" d"+strconv.Itoa(rng.IntN(100)), "decided", "", runs[sid].String()))
					fail("remember", err)
				case 4:
					id := commitments[rng.IntN(len(commitments))]
					_, err := f.svc.Unresolve(ctx, tenantA, id.String(), continuity.TransitionParams{Actor: continuity.ActorUserAPI})
					fail("unresolve", err)
				case 5:
					f.clock.Advance(floor + time.Minute)
				default:
					f.clock.Advance(time.Minute)
				}
			}
		})
	}
	calls.Wait()
	stop.Store(true)
	workers.Wait()
	for _, m := range failures {
		t.Error(m)
	}
	t.Logf("%d passes", passes.Load())

	// Quiescent: the callers closed nothing more and every row lapses.
	for _, sid := range sids {
		_, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: sid})
		fail("close", err)
	}
	f.clock.Advance(floor + time.Minute)
	w := continuity.NewWorker(f.svc, continuity.WithCloser(judge))
	for range 2 {
		tick(t, w)
	}
	for _, sid := range sids {
		v := view(t, f, tenantA, sid)
		if v.ClosedAt == nil || v.CloserNextAt != nil || v.CloserFailures != 0 {
			t.Errorf("conversation %s after the last pass: closed at %v, closer next at %v, %d failures; want closed, its pass finished, none failed",
				sid, v.ClosedAt, v.CloserNextAt, v.CloserFailures)
		}
	}
	resolved := 0
	for _, e := range ledgerOf(t, f, tenantA) {
		switch e.Event {
		case "closer.failed":
			t.Errorf("a pass failed or backed off: %v", e.Fields)
		case continuity.EventCloserResolved:
			resolved++
		}
	}
	if resolved == 0 {
		t.Errorf("the closer resolved nothing in %d passes: the load never reached it", passes.Load())
	}
}
