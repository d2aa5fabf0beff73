package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// testHeartbeatsRaceCloses: 32 callers heartbeat one conversation while
// another closes it again and again, interleaved (on Postgres, each in its
// own Read Committed transaction). A live row's heartbeat is one
// conditional UPDATE and a closed row's takes the project and row locks
// and resurrects; whichever way each goes, no Stop is lost, and every
// resurrection, and only a resurrection, advanced the epoch and left its
// ledger line.
func testHeartbeatsRaceCloses(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("hot"))
	const callers, each = 32, 5
	var resurrections atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	closes := 0
	closer := make(chan struct{})
	go func() {
		defer close(closer)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "hot"}); err != nil {
				t.Error(err)
				return
			}
			closes++
			time.Sleep(time.Millisecond) // let heartbeats find it closed, then live
		}
	}()
	for range callers {
		wg.Go(func() {
			text := "done"
			for range each {
				r, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "hot", Stop: true, LastMessageExcerpt: &text})
				if err != nil {
					t.Error(err)
					return
				}
				if r.Resurrected {
					resurrections.Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-closer
	v, err := f.svc.Session(ctx, tenantA, agent, "hot")
	if err != nil {
		t.Fatal(err)
	}
	if v.StopCount != callers*each {
		t.Errorf("stop count %d after %d heartbeats: Stops were lost", v.StopCount, callers*each)
	}
	if got := int64(v.ActivationEpoch - 1); got != resurrections.Load() {
		t.Errorf("epoch %d after %d resurrections reported", v.ActivationEpoch, resurrections.Load())
	}
	counts := map[string]int{}
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		counts, err = tx.LedgerCounts(ctx)
		return err
	})
	if int64(counts[continuity.EventSessionResurrect]) != resurrections.Load() {
		t.Errorf("%d resurrection ledger lines, %d resurrections reported", counts[continuity.EventSessionResurrect], resurrections.Load())
	}
	if closes == 0 || resurrections.Load() == 0 {
		t.Logf("the closes (%d) and heartbeats (%d resurrections) did not interleave this run", closes, resurrections.Load())
	}
}
