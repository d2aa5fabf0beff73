package storetest

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
)

// rowOf reads the tenant's row of the conversation sid.
func rowOf(t *testing.T, f *fixture, tenant, sid string) *continuity.Session {
	t.Helper()
	var row *continuity.Session
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		row, err = tx.SessionByKey(ctx, agent, sid)
		return err
	})
	return row
}

// lapseRows opens per conversations (prefix0, prefix1, ...) in each of
// three tenants, then moves the clock past their sweep floor; it returns
// the tenants.
func lapseRows(t *testing.T, f *fixture, prefix string, per int) []string {
	t.Helper()
	tenants := []string{tenantA, tenantB, "tenant-c"}
	for _, tenant := range tenants {
		for i := range per {
			mustOpen(t, f, tenant, startup(prefix+strconv.Itoa(i)))
		}
	}
	f.clock.Advance(lease.Default.Lease + lease.Default.SweepGrace + time.Second)
	return tenants
}

// testSweepRaces races the sweep, on a replica of its own, with what may
// reach a lapsed row at the same time: a Stop's heartbeat at the lease
// boundary (and a nanosecond either side), a second worker, and 32
// callers mixing heartbeats and sweeps.
func testSweepRaces(t *testing.T, h Harness) {
	ctx := context.Background()

	// A Stop arrives at the lease boundary of its row (by its replica's
	// clock) while a worker on another replica, whose clock is a
	// nanosecond past the row's sweep floor, sweeps it. Whichever wins,
	// the row ends live, its one Stop counted, its excerpt kept, and the
	// ledger says what happened: a sweep only with a resurrection after
	// it, a resurrection exactly when the heartbeat reported one (and the
	// epoch advanced by it), never a sweep the row does not show.
	t.Run("StopAtTheLeaseBoundary", func(t *testing.T) {
		pol := lease.Default
		for _, off := range []time.Duration{-time.Nanosecond, 0, time.Nanosecond} {
			t.Run(off.String(), func(t *testing.T) {
				f := newFixture(t, h)
				start := f.clock.Now()
				hbClock, swClock := NewClock(), NewClock()
				hbClock.Set(pol.Expiry(start).Add(off))
				swClock.Set(start.Add(pol.Lease + pol.SweepGrace + time.Nanosecond))
				reps := replicas(t, h, f)
				hb := continuity.New(reps[0].Store(), continuity.WithClock(hbClock.Now))
				sw := continuity.NewWorker(continuity.New(reps[1].Store(), continuity.WithClock(swClock.Now)))
				const rounds = 6
				for i := range rounds {
					sid := "edge-" + strconv.Itoa(i)
					mustOpen(t, f, tenantA, startup(sid))
				}
				var wg sync.WaitGroup
				results := make([]continuity.HeartbeatResult, rounds)
				swept := 0
				wg.Go(func() {
					for range rounds {
						res, err := sw.Tick(ctx)
						if err != nil {
							t.Errorf("sweep: %v", err)
						}
						swept += res.Swept
					}
				})
				for i := range rounds {
					wg.Go(func() {
						text := "stopped " + strconv.Itoa(i)
						r, err := hb.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "edge-" + strconv.Itoa(i), Stop: true, LastMessageExcerpt: &text})
						if err != nil {
							t.Errorf("heartbeat %d: %v", i, err)
						}
						results[i] = r
					})
				}
				wg.Wait()
				lines := ledgerOf(t, f, tenantA)
				sweptLines := 0
				for i := range rounds {
					sid := "edge-" + strconv.Itoa(i)
					row := rowOf(t, f, tenantA, sid)
					r := results[i]
					count := func(event string) int {
						n := 0
						for _, l := range lines {
							if l.Event == event && l.Session == sid {
								n++
							}
						}
						return n
					}
					sw, res := count(continuity.EventSessionSwept), count(continuity.EventSessionResurrect)
					sweptLines += sw
					if row.ClosedAt != nil || row.CloserNextAt != nil {
						t.Errorf("%s: closed_at %v, closer_next_at %v after its Stop: the sweep won after the heartbeat", sid, row.ClosedAt, row.CloserNextAt)
					}
					if row.StopCount != 1 || row.LastMessageExcerpt != "stopped "+strconv.Itoa(i) {
						t.Errorf("%s: stop count %d, excerpt %q: the Stop was lost", sid, row.StopCount, row.LastMessageExcerpt)
					}
					if r.ActivationEpoch != row.ActivationEpoch || r.SessionRunID != row.ID {
						t.Errorf("%s: the heartbeat answered epoch %d of %v, the row is at %d of %v", sid, r.ActivationEpoch, r.SessionRunID, row.ActivationEpoch, row.ID)
					}
					wantEpoch := 1
					if r.Resurrected {
						wantEpoch = 2
					}
					if row.ActivationEpoch != wantEpoch || res != wantEpoch-1 {
						t.Errorf("%s: epoch %d, %d resurrection lines, heartbeat resurrected=%v", sid, row.ActivationEpoch, res, r.Resurrected)
					}
					if sw > 1 || (sw == 1 && !r.Resurrected) {
						t.Errorf("%s: %d swept lines but the heartbeat resurrected=%v: the ledger disagrees with the row", sid, sw, r.Resurrected)
					}
					if off < 0 && res == 1 && sw == 0 {
						t.Errorf("%s: a heartbeat inside the lease resurrected a row no sweep closed", sid)
					}
					if off >= 0 && !r.Resurrected {
						t.Errorf("%s: a heartbeat at or past the lease boundary did not resurrect", sid)
					}
					var es []continuity.StopExcerpt
					inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
						var err error
						es, err = tx.StopExcerpts(ctx, agent, sid)
						return err
					})
					if len(es) != 1 || es[0].Text != "stopped "+strconv.Itoa(i) {
						t.Errorf("%s: %d Stop excerpts kept, want its one", sid, len(es))
					}
				}
				if sweptLines != swept {
					t.Errorf("the worker reported %d swept, the ledger has %d swept lines", swept, sweptLines)
				}
			})
		}
	})

	// Two workers, each on a store handle of its own (two processes),
	// sweep the same tenants pass after pass: every lapsed row is swept
	// once, with one ledger line, and neither worker reports an error.
	t.Run("TwoWorkersSweepTheSameTenants", func(t *testing.T) {
		f := newFixture(t, h)
		const per = 25
		tenants := lapseRows(t, f, "lapsing-", per)
		reps := replicas(t, h, f)
		var mu sync.Mutex
		swept := 0
		race(2, func(i int) {
			w := continuity.NewWorker(reps[i], continuity.WithWorkerBatch(7))
			for range 8 {
				res, err := w.Tick(ctx)
				if err != nil {
					t.Errorf("worker %d: %v", i, err)
				}
				mu.Lock()
				swept += res.Swept
				mu.Unlock()
			}
		})
		if swept != len(tenants)*per {
			t.Errorf("two workers swept %d rows, want each of %d once", swept, len(tenants)*per)
		}
		for _, tenant := range tenants {
			lines := perRun(t, f, tenant, continuity.EventSessionSwept)
			if len(lines) != per {
				t.Errorf("%s: %d runs have a swept line, want %d", tenant, len(lines), per)
			}
			for run, n := range lines {
				if n != 1 {
					t.Errorf("%s: run %s has %d swept lines", tenant, run, n)
				}
			}
		}
	})

	// 32 callers at once, half heartbeating lapsed conversations (each
	// resurrects its row, or finds it resurrected by its neighbour) and
	// half sweeping the tenant: no call fails, every Stop is counted, and
	// every row's epoch, closed state and ledger agree.
	t.Run("HeartbeatsAndSweepsMixed", func(t *testing.T) {
		f := newFixture(t, h)
		const convs = 8
		for i := range convs {
			mustOpen(t, f, tenantA, startup("mixed-"+strconv.Itoa(i)))
		}
		f.clock.Advance(lease.Default.Lease + lease.Default.SweepGrace + time.Second)
		reps := replicas(t, h, f)
		race(replicaCallers, func(i int) {
			svc := reps[i%2]
			if i%2 == 1 {
				if _, err := svc.Sweep(ctx, tenantA, continuity.MaxSweep); err != nil {
					t.Errorf("sweep %d: %v", i, err)
				}
				return
			}
			if _, err := svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "mixed-" + strconv.Itoa(i/2%convs), Stop: true}); err != nil {
				t.Errorf("heartbeat %d: %v", i, err)
			}
		})
		lines := ledgerOf(t, f, tenantA)
		for i := range convs {
			sid := "mixed-" + strconv.Itoa(i)
			row := rowOf(t, f, tenantA, sid)
			sw, res := 0, 0
			for _, l := range lines {
				switch {
				case l.Session != sid:
				case l.Event == continuity.EventSessionSwept:
					sw++
				case l.Event == continuity.EventSessionResurrect:
					res++
				}
			}
			if row.StopCount != 2 || row.ClosedAt != nil {
				t.Errorf("%s: stop count %d, closed_at %v after two Stops", sid, row.StopCount, row.ClosedAt)
			}
			if sw > 1 || res != 1 || row.ActivationEpoch != 2 {
				t.Errorf("%s: %d swept lines, %d resurrections, epoch %d: want at most one sweep and the one resurrection", sid, sw, res, row.ActivationEpoch)
			}
		}
	})
}

// stoppingStore is a store whose write transactions end the worker's
// context once they have updated stopAfter session rows (counted across
// transactions): a worker stopped in the middle of its pass.
type stoppingStore struct {
	continuity.Store
	mu        sync.Mutex
	updates   int
	stopAfter int
	stop      context.CancelFunc
}

func (s *stoppingStore) Write(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	return s.Store.Write(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
		return fn(ctx, &stoppingTx{Tx: tx, s: s})
	})
}

type stoppingTx struct {
	continuity.Tx
	s *stoppingStore
}

func (t *stoppingTx) UpdateSession(ctx context.Context, row *continuity.Session) error {
	err := t.Tx.UpdateSession(ctx, row)
	t.s.mu.Lock()
	t.s.updates++
	if t.s.updates == t.s.stopAfter {
		t.s.stop()
	}
	t.s.mu.Unlock()
	return err
}

// doctorChecks are the checks of the tenant's doctor report, with their
// sentences.
func doctorChecks(t *testing.T, svc *continuity.Service, tenant string) map[string]string {
	t.Helper()
	r, err := svc.Doctor(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range r.Findings {
		out[f.Check] = f.Sentence
	}
	return out
}

// testWorkerStops stops a worker's pass by its context halfway (inside a
// tenant's sweep, between tenants, between the closer's judge and its
// bookkeeping): nothing is half-written, every swept row has its line and
// its closer stamp, the pass reports only what it committed, a stopped
// pass records no failure, and the doctor says after it what it said
// before it.
func testWorkerStops(t *testing.T, h Harness) {
	ctx := context.Background()
	t.Run("MidSweep", func(t *testing.T) {
		for _, stopAfter := range []int{1, 3, 4, 5, 9} {
			t.Run("after "+strconv.Itoa(stopAfter)+" updates", func(t *testing.T) {
				f := newFixture(t, h)
				const per = 4
				tenants := lapseRows(t, f, "s", per)
				before := map[string]map[string]string{}
				for _, tenant := range tenants {
					before[tenant] = doctorChecks(t, f.svc, tenant)
				}
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				st := &stoppingStore{Store: f.store, stopAfter: stopAfter, stop: cancel}
				res, err := continuity.NewWorker(continuity.New(st, continuity.WithClock(f.clock.Now))).Tick(cctx)
				if err == nil && stopAfter < len(tenants)*per {
					t.Fatalf("a pass stopped after %d updates reported no error (swept %d)", stopAfter, res.Swept)
				}
				// Stopped, the pass stops: it reports its context's end
				// once, not once for each tenant left.
				if err != nil && (!errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "\n")) {
					t.Errorf("a stopped pass reported %q; want its context's end, once", err)
				}
				closed := 0
				for _, tenant := range tenants {
					lines := perRun(t, f, tenant, continuity.EventSessionSwept)
					n := 0
					for i := range per {
						row := rowOf(t, f, tenant, "s"+strconv.Itoa(i))
						if row.ClosedAt == nil {
							if lines[row.ID.String()] != 0 {
								t.Errorf("%s/s%d: open, with a swept line", tenant, i)
							}
							continue
						}
						n++
						if lines[row.ID.String()] != 1 || row.CloserNextAt == nil {
							t.Errorf("%s/s%d: closed with %d swept lines, closer_next_at %v", tenant, i, lines[row.ID.String()], row.CloserNextAt)
						}
					}
					if n != 0 && n != per {
						t.Errorf("%s: %d of its %d lapsed rows swept: a tenant's sweep is one transaction", tenant, n, per)
					}
					closed += n
				}
				if closed != res.Swept {
					t.Errorf("the pass reported %d swept, %d rows are closed", res.Swept, closed)
				}
				for _, tenant := range tenants {
					if got := doctorChecks(t, f.svc, tenant); !maps.Equal(got, before[tenant]) {
						t.Errorf("%s: the doctor said %v before the stopped pass and %v after it", tenant, before[tenant], got)
					}
				}
				// The next pass sweeps the rest.
				if r := tick(t, continuity.NewWorker(f.svc)); closed+r.Swept != len(tenants)*per {
					t.Errorf("the stopped pass swept %d and the next %d, want %d in all", closed, r.Swept, len(tenants)*per)
				}
			})
		}
	})

	// A closer pass whose context ends after its judge answered (with or
	// without a commitment done) stopped; it did not fail: no failure
	// counted or backed off, no closer.failed line, no doctor finding.
	t.Run("MidCloserPass", func(t *testing.T) {
		for _, done := range []bool{false, true} {
			t.Run("done="+strconv.FormatBool(done), func(t *testing.T) {
				f := newFixture(t, h)
				briefedSession(t, f, tenantA, "s1", 1)
				closeSession(t, f, tenantA, "s1")
				mustOpen(t, f, tenantA, startup("s2"))
				before := doctorChecks(t, f.svc, tenantA)
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				j := &fixedJudge{all: done, hook: func(continuity.JudgeCase) { cancel() }}
				if _, err := continuity.NewWorker(f.svc, continuity.WithCloser(j)).Tick(cctx); err == nil {
					t.Fatal("a pass stopped by its context reported no error")
				}
				row := rowOf(t, f, tenantA, "s1")
				if row.CloserFailures != 0 || row.CloserNextAt == nil || !row.CloserNextAt.Equal(f.clock.Now().Add(continuity.DefaultCloserClaimTTL)) || row.LastMessageExcerpt == "" {
					t.Errorf("after a stopped pass: failures %d, next %v, excerpt kept %v; want no failure, the claim lapsing after its TTL, the excerpt kept",
						row.CloserFailures, row.CloserNextAt, row.LastMessageExcerpt != "")
				}
				if n := len(perRun(t, f, tenantA, "closer.failed")); n != 0 {
					t.Errorf("a stopped pass left closer.failed lines for %d runs", n)
				}
				if got := doctorChecks(t, f.svc, tenantA); !maps.Equal(got, before) {
					t.Errorf("the doctor said %v before the stopped pass and %v after it", before, got)
				}
			})
		}
	})
}
