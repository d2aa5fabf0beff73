package storetest

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

func testConcurrency(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("HeartbeatsRaceCloses", func(t *testing.T) {
		t.Parallel()
		testHeartbeatsRaceCloses(t, h)
	})
	t.Run("HeartbeatsKeepTheLatest", func(t *testing.T) {
		t.Parallel()
		st, _ := h.New(t)
		base := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		const workers = 16
		// Each call carries one of 16 distinct instants, handed out in a
		// shuffled order, so the newest does not arrive last.
		times := make([]time.Time, workers)
		for i := range times {
			times[i] = base.Add(time.Duration(i+1) * time.Second)
		}
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
		var next atomic.Int64
		next.Store(-1)
		clock := func() time.Time {
			i := next.Add(1)
			if i < 0 {
				return base
			}
			return times[int(i)%workers]
		}
		setup := continuity.New(st, continuity.WithClock(func() time.Time { return base }))
		if _, err := setup.Open(ctx, tenantA, startup("hot")); err != nil {
			t.Fatal(err)
		}
		svc := continuity.New(st, continuity.WithClock(clock))
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "hot", Stop: true})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		v, err := setup.Session(ctx, tenantA, agent, "hot")
		if err != nil {
			t.Fatal(err)
		}
		latest := base.Add(workers * time.Second)
		if !v.LastSeenAt.Equal(latest) {
			t.Fatalf("last_seen_at = %v, want the latest carried %v", v.LastSeenAt, latest)
		}
		if v.StopCount != workers {
			t.Fatalf("stop_count = %d, want %d (a lost update)", v.StopCount, workers)
		}
	})

	t.Run("ConflictingStartupsRaceTheInsert", func(t *testing.T) {
		t.Parallel()
		testConflictingStartups(t, h)
	})
	t.Run("ProcessesWriteOneStore", func(t *testing.T) {
		t.Parallel()
		st, dsn := h.New(t)
		if _, err := continuity.New(st).Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: "shared", Source: continuity.SourceStartup}); err != nil {
			t.Fatal(err)
		}
		const procs, writes = 4, 25
		var wg sync.WaitGroup
		outs := make([]string, procs)
		errs := make([]error, procs)
		for i := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), envChild+"=writer", envDSN+"="+dsn, envWrites+"="+strconv.Itoa(writes), envIndex+"="+strconv.Itoa(i))
				out, err := cmd.CombinedOutput()
				outs[i], errs[i] = string(out), err
			}()
		}
		wg.Wait()
		for i := range procs {
			if strings.Contains(outs[i], "database is locked") || strings.Contains(outs[i], "SQLITE_BUSY") {
				t.Fatalf("process %d met a locked database:\n%s", i, outs[i])
			}
			if errs[i] != nil {
				t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
			}
		}
		svc := continuity.New(st)
		v, err := svc.Session(ctx, tenantA, agent, "shared")
		if err != nil {
			t.Fatal(err)
		}
		if v.StopCount != procs*writes {
			t.Fatalf("stop_count = %d, want %d: a write was lost", v.StopCount, procs*writes)
		}
		es, err := svc.Ledger(ctx, tenantA, uuid.Nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range es {
			if e.Event == "test.write" {
				n++
			}
		}
		if n != procs*writes {
			t.Fatalf("ledger has %d child lines, want %d", n, procs*writes)
		}
	})
}

// testConflictingStartups races 32 startups of one new conversation, half
// of them with another project, over several conversations: the first
// insert wins; every startup with the winner's values is its retry (the
// same run, not created), every other one is the conflict of different
// values, and one session.started line is written. On Postgres the losers
// that read no row lock the project they asked for while the winner
// inserts under its own: they must not take the row's project lock after
// the row (the lock order is project, then row), which deadlocked.
func testConflictingStartups(t *testing.T, h Harness) {
	ctx := context.Background()
	st, _ := h.New(t)
	svc := continuity.New(st)
	const callers = 32
	projects := [2]string{"p", "q"}
	for round := range 4 {
		sid := "race-" + strconv.Itoa(round)
		results := make([]continuity.OpenResult, callers)
		errs := make([]error, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup, Project: projects[i%2]})
			}()
		}
		wg.Wait()
		v, err := svc.Session(ctx, tenantA, agent, sid)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		created := 0
		for i := range callers {
			if projects[i%2] != v.Project {
				if continuity.ErrorCode(errs[i]) != continuity.CodeConflict || !strings.Contains(errs[i].Error(), "different project, scope or selector") {
					t.Errorf("round %d, caller %d (project %s, the row's %s): %v, want the conflict of different values", round, i, projects[i%2], v.Project, errs[i])
				}
				continue
			}
			if errs[i] != nil {
				t.Errorf("round %d, caller %d (the row's project): %v, want the row", round, i, errs[i])
				continue
			}
			if results[i].SessionRunID != v.ID {
				t.Errorf("round %d, caller %d: run %s, want the row's %s", round, i, results[i].SessionRunID, v.ID)
			}
			if results[i].Created {
				created++
			}
		}
		if created != 1 {
			t.Errorf("round %d: %d startups created the row, want 1", round, created)
		}
		es, err := svc.SessionLedger(ctx, tenantA, sid, uuid.Nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		started := 0
		for _, e := range es {
			if e.Event == continuity.EventSessionStarted {
				started++
			}
		}
		if started != 1 {
			t.Errorf("round %d: %d session.started lines, want 1", round, started)
		}
	}
}
