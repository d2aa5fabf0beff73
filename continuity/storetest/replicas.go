package storetest

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// replicaCallers is how many calls each replica race makes at once.
const replicaCallers = 32

// replicas returns two services over the fixture's database, as a team
// server's two replicas: the second over a store handle of its own when
// the harness can open one (h.Open), else over the same handle. Both read
// the fixture's clock.
func replicas(t *testing.T, h Harness, f *fixture) [2]*continuity.Service {
	t.Helper()
	st := f.store
	if h.Open != nil {
		second, err := h.Open(context.Background(), f.dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { second.Close() })
		st = second
	}
	return [2]*continuity.Service{f.svc, continuity.New(st, continuity.WithClock(f.clock.Now))}
}

// race runs call(i) for i in [0, n) on n goroutines released together.
func race(n int, call func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			call(i)
		})
	}
	close(start)
	wg.Wait()
}

// ledgerLines returns the tenant's ledger lines of event for the
// conversation sid.
func ledgerLines(t *testing.T, f *fixture, sid, event string) []continuity.LedgerEntry {
	t.Helper()
	es, err := f.svc.SessionLedger(context.Background(), tenantA, sid, uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []continuity.LedgerEntry
	for _, e := range es {
		if e.Event == event {
			out = append(out, e)
		}
	}
	return out
}

// testReplicaRaces races two replicas (two services over two store
// handles of one database; on Postgres, Read Committed transactions of
// separate pools) on the paths where one decision must be taken once: the
// Stop triage handshake, the claim of a bottle marker, the transitions of
// one memory, a SessionEnd against a resume, and an attributed write
// against the close of its run.
func testReplicaRaces(t *testing.T, h Harness) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, Harness)
	}{
		{"StopHandshakeInjectsEachAttemptOnce", testReplicaStops},
		{"BottleClaimedOncePerArm", testReplicaBottle},
		{"MemoryTransitionsSerialize", testReplicaMemory},
		{"SessionEndRacesResume", testReplicaEndResume},
		{"AttributedWriteRacesClose", testReplicaWriteClose},
		{"BriefingReadsOneSnapshot", testBriefingReadsOneSnapshot},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, h)
		})
	}
}

// testReplicaStops: rounds of 32 calls on one conversation, spread over
// two replicas: nudged Stops, Stops carrying stop_hook_active (the
// continuation of an injected one), and writes attributed to the run (the
// signal that re-arms a finished handshake). Whatever the interleaving,
// every injecting Stop armed an attempt of its own (one triage.armed line
// each, no attempt injected twice), no attempt was finalized twice (one
// finishing line and at most one Stop reporting it completed), and only
// an armed attempt was finalized.
func testReplicaStops(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	svcs := replicas(t, h, f)
	run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
	stops(t, f, 3)
	injected := map[uuid.UUID]int{}
	completed := map[uuid.UUID]int{}
	for round := range 4 {
		results := make([]continuity.StopResult, replicaCallers)
		errs := make([]error, replicaCallers)
		race(replicaCallers, func(i int) {
			svc := svcs[i%2]
			if i%4 == 1 {
				_, errs[i] = svc.Remember(ctx, tenantA, remember(continuity.KindDecision, "topic "+strconv.Itoa(round*100+i), "content", "baton", run.String()))
				return
			}
			p := stopOf("s1", "Did step "+strconv.Itoa(i)+".")
			p.Nudge, p.StopHookActive = true, i%4 == 3
			results[i], errs[i] = svc.Stop(ctx, tenantA, p)
		})
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, caller %d: %v", round, i, err)
			}
			r := results[i]
			if r.Inject {
				if r.Triage == nil || !r.Triage.Armed || r.Triage.AttemptID == uuid.Nil {
					t.Fatalf("round %d, caller %d injected without an armed attempt: %+v", round, i, r.Triage)
				}
				injected[r.Triage.AttemptID]++
			}
			if r.Triage != nil && r.Triage.Completed {
				completed[r.Triage.AttemptID]++
			}
		}
	}
	armed := map[uuid.UUID]int{}
	for _, e := range ledgerLines(t, f, "s1", continuity.EventTriageArmed) {
		id, err := uuid.Parse(e.Fields["attempt_id"])
		if err != nil {
			t.Fatalf("armed line without an attempt: %v", e.Fields)
		}
		armed[id]++
	}
	finished := map[uuid.UUID]int{}
	for _, e := range ledgerLines(t, f, "s1", continuity.EventTriageFinished) {
		if id, err := uuid.Parse(e.Fields["attempt_id"]); err == nil {
			finished[id]++
		}
	}
	if len(armed) == 0 {
		t.Fatal("no Stop armed the handshake")
	}
	for id, n := range armed {
		if n != 1 || injected[id] != 1 {
			t.Errorf("attempt %s: %d armed lines, injected %d times; want 1 and 1", id, n, injected[id])
		}
	}
	for id, n := range injected {
		if armed[id] == 0 {
			t.Errorf("attempt %s injected %d times, never armed", id, n)
		}
	}
	for id, n := range finished {
		if n != 1 || armed[id] != 1 || completed[id] > 1 {
			t.Errorf("attempt %s: finished %d times (armed %d), reported completed by %d Stops; want once, once, at most once", id, n, armed[id], completed[id])
		}
	}
	t.Logf("%d attempts armed, %d finished, %d reported completed by a Stop", len(armed), len(finished), len(completed))
	for id := range completed {
		if finished[id] != 1 {
			t.Errorf("attempt %s reported completed, finished %d times", id, finished[id])
		}
	}
}

// testReplicaBottle: 32 SessionStart claims of one armed marker across two
// replicas take it once; then 32 callers arm markers of distinct paths and
// claim, interleaved: no path is claimed twice, only an armed path is
// claimed, the ledger has one line per arm and per claim, and a marker
// left armed is one no claim returned.
func testReplicaBottle(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	svcs := replicas(t, h, f)
	if err := f.svc.ArmBottle(ctx, tenantA, agent, *sealedOf("s1")); err != nil {
		t.Fatal(err)
	}
	oks := make([]bool, replicaCallers)
	errs := make([]error, replicaCallers)
	race(replicaCallers, func(i int) { _, oks[i], errs[i] = svcs[i%2].ClaimBottle(ctx, tenantA, agent, "s1") })
	claims := 0
	for i := range oks {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if oks[i] {
			claims++
		}
	}
	if claims != 1 {
		t.Fatalf("%d claims of one armed marker, want 1", claims)
	}

	paths := make([]string, replicaCallers)
	race(replicaCallers, func(i int) {
		svc := svcs[i%2]
		if i%2 == 0 {
			m := *sealedOf("s1")
			m.Path = "/home/u/.baton/bottles/s1-" + strconv.Itoa(i) + ".md"
			errs[i] = svc.ArmBottle(ctx, tenantA, agent, m)
			return
		}
		var m bottle.Marker
		m, oks[i], errs[i] = svc.ClaimBottle(ctx, tenantA, agent, "s1")
		paths[i] = m.Path
	})
	armedPaths := map[string]bool{}
	for i := 0; i < replicaCallers; i += 2 {
		armedPaths["/home/u/.baton/bottles/s1-"+strconv.Itoa(i)+".md"] = true
	}
	claimed := map[string]bool{}
	for i := 1; i < replicaCallers; i += 2 {
		if errs[i-1] != nil || errs[i] != nil {
			t.Fatal(errs[i-1], errs[i])
		}
		if !oks[i] {
			continue
		}
		if !armedPaths[paths[i]] || claimed[paths[i]] {
			t.Errorf("claim %d took %q: armed %v, claimed before %v", i, paths[i], armedPaths[paths[i]], claimed[paths[i]])
		}
		claimed[paths[i]] = true
	}
	if n := len(ledgerLines(t, f, "s1", continuity.EventBottleArmed)); n != 1+replicaCallers/2 {
		t.Errorf("%d bottle.armed lines, want %d", n, 1+replicaCallers/2)
	}
	if n := len(ledgerLines(t, f, "s1", continuity.EventBottleClaimed)); n != 1+len(claimed) {
		t.Errorf("%d bottle.claimed lines, want %d", n, 1+len(claimed))
	}
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		m, err := tx.BottleMarker(ctx, agent, "s1")
		if err != nil {
			return err
		}
		if m.ConsumedAt == nil && claimed[m.Path] {
			t.Errorf("marker %q is armed, and a claim returned it", m.Path)
		}
		if m.ConsumedAt != nil && !claimed[m.Path] {
			t.Errorf("marker %q is consumed, and no claim returned it", m.Path)
		}
		return nil
	})
}

// testReplicaMemory: two rounds of 32 calls on one open commitment, each
// attributed to the one live run, across two replicas: resolves and
// unresolves, then the same with revises and archives mixed in. Each call
// that succeeded left its event, and no other call did; replaying the
// memory's events in id order through memrule's rules accepts every one
// and ends at the status the memory has; and at most one revise
// succeeded, its successor the memory's SupersededBy.
func testReplicaMemory(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	svcs := replicas(t, h, f)
	run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
	m := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "ship", "ship the parser", "baton", run.String()))
	id := m.Memory.ID.String()
	tp := continuity.TransitionParams{SessionRunID: run.String(), Actor: continuity.ActorUserAPI}
	succeeded := map[uuid.UUID]bool{m.EventID: true}
	var successor uuid.UUID
	// Round 0 resolves and unresolves alone, so that many succeed; round
	// 1 mixes in revises and archives, which end the memory's changes.
	for round := range 2 {
		results := make([]continuity.WriteResult, replicaCallers)
		errs := make([]error, replicaCallers)
		revise := func(i int) bool { return round == 1 && i%8 == 2 }
		race(replicaCallers, func(i int) {
			svc := svcs[i%2]
			switch {
			case revise(i):
				results[i], errs[i] = svc.Revise(ctx, tenantA, id, continuity.ReviseParams{Content: "ship the parser, " + strconv.Itoa(i), SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
			case round == 1 && i%8 == 7:
				results[i], errs[i] = svc.Archive(ctx, tenantA, id, tp)
			case i%2 == 0:
				results[i], errs[i] = svc.Resolve(ctx, tenantA, id, tp)
			default:
				results[i], errs[i] = svc.Unresolve(ctx, tenantA, id, tp)
			}
		})
		for i, err := range errs {
			switch continuity.ErrorCode(err) {
			case "":
				if results[i].SessionRunID != run {
					t.Errorf("round %d, caller %d: attributed to %s, want the live run %s", round, i, results[i].SessionRunID, run)
				}
				if revise(i) {
					if successor != uuid.Nil {
						t.Errorf("two revises of one memory succeeded: %s and %s", successor, results[i].Memory.ID)
					}
					successor = results[i].Memory.ID
					continue // its event is the successor's create
				}
				succeeded[results[i].EventID] = true
			case continuity.CodeConflict:
			default:
				t.Fatalf("round %d, caller %d: %v, want success or conflict", round, i, err)
			}
		}
	}
	page, err := f.svc.RunEvents(ctx, tenantA, run.String(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	status, seen := memrule.Open, map[uuid.UUID]bool{}
	for _, it := range page.Items {
		if it.MemoryID != m.Memory.ID {
			continue // the successor's create
		}
		seen[it.ID] = true
		switch ev := memrule.Event(it.EventKind); ev {
		case memrule.Create, memrule.Supersede:
			// A supersede leaves the predecessor archived (its archive
			// event follows when a commitment is demoted).
			if ev == memrule.Supersede {
				status = memrule.Archived
			}
		default:
			next, err := memrule.Transition(ev, status)
			if err != nil {
				t.Fatalf("event %s %s replayed from %s: %v", it.ID, ev, status, err)
			}
			status = next
		}
	}
	for id := range succeeded {
		if !seen[id] {
			t.Errorf("event %s of a call that succeeded is not the memory's", id)
		}
	}
	for id := range seen {
		if !succeeded[id] && !ofSuccessor(page.Items, id, successor) {
			t.Errorf("event %s belongs to no call that succeeded", id)
		}
	}
	t.Logf("%d calls succeeded, the memory's events replay to %s", len(succeeded)-1, status)
	got, err := f.svc.Memory(ctx, tenantA, id)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Status) != string(status) || got.SupersededBy != successor {
		t.Errorf("memory is %s superseded by %s; its events replay to %s, the revise that succeeded wrote %s", got.Status, got.SupersededBy, status, successor)
	}
}

// ofSuccessor reports whether event id is the supersede a revise that
// made successor wrote for its predecessor (a commitment revised into a
// commitment is carried, so no archive follows it).
func ofSuccessor(items []provenance.Item, id, successor uuid.UUID) bool {
	if successor == uuid.Nil {
		return false
	}
	for _, it := range items {
		if it.ID == id {
			return it.EventKind == string(memrule.Supersede)
		}
	}
	return false
}

// testReplicaEndResume: 32 SessionEnds and resumes of one conversation,
// interleaved across two replicas. Every resume began an activation of its
// own (the epochs they answered are distinct, and the row's epoch counts
// them all); every SessionEnd that closed the row closed a distinct
// activation and wrote its own handover, one session.closed line each; a
// SessionEnd that found the row closed wrote none; and the row is closed
// exactly when the last activation was closed.
func testReplicaEndResume(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	svcs := replicas(t, h, f)
	mustOpen(t, f, tenantA, startup("s1"))
	ends := make([]continuity.EndResult, replicaCallers)
	starts := make([]continuity.StartResult, replicaCallers)
	errs := make([]error, replicaCallers)
	race(replicaCallers, func(i int) {
		svc := svcs[i%2]
		if i%2 == 0 {
			ends[i], errs[i] = svc.SessionEnd(ctx, tenantA, continuity.EndParams{EventParams: hookEvent(evEnd, "s1"), Reason: "exit",
				BudgetMillis: int(continuity.MaxEndBudget / time.Millisecond)})
			return
		}
		starts[i], errs[i] = svc.SessionStart(ctx, tenantA, startOf("s1", continuity.SourceResume, "baton"))
	})
	epochs := map[int]string{}
	handovers := map[uuid.UUID]bool{}
	closed, lastClosed := 0, 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if i%2 == 1 {
			if prev, dup := epochs[starts[i].ActivationEpoch]; dup && prev == "resume" {
				t.Errorf("two resumes answered epoch %d", starts[i].ActivationEpoch)
			}
			epochs[starts[i].ActivationEpoch] = "resume"
			continue
		}
		c := ends[i].Close
		if c.AlreadyClosed {
			continue
		}
		closed++
		lastClosed = max(lastClosed, c.ActivationEpoch)
		if handovers[ends[i].Handover.ID] {
			t.Errorf("two closing SessionEnds returned handover %s", ends[i].Handover.ID)
		}
		handovers[ends[i].Handover.ID] = true
	}
	v := view(t, f, tenantA, "s1")
	t.Logf("%d SessionEnds closed an activation, the newest at epoch %d", closed, lastClosed)
	if v.ActivationEpoch != 1+replicaCallers/2 {
		t.Errorf("epoch %d after %d resumes of epoch 1", v.ActivationEpoch, replicaCallers/2)
	}
	if n := len(ledgerLines(t, f, "s1", continuity.EventSessionClosed)); n != closed {
		t.Errorf("%d session.closed lines, %d SessionEnds closed the row", n, closed)
	}
	rs, err := f.svc.Records(ctx, tenantA, continuity.RecordQuery{SessionID: "s1", Kinds: []continuity.RecordKind{continuity.RecordHandover}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != closed {
		t.Errorf("%d handovers, %d SessionEnds closed the row", len(rs), closed)
	}
	for _, r := range rs {
		if !handovers[r.ID] {
			t.Errorf("handover %s was returned by no closing SessionEnd", r.ID)
		}
	}
	if (v.ClosedAt != nil) != (lastClosed == v.ActivationEpoch) {
		t.Errorf("row closed %v at epoch %d; the newest activation a SessionEnd closed is %d", v.ClosedAt != nil, v.ActivationEpoch, lastClosed)
	}
}

// testReplicaWriteClose: 32 writes carrying the run's id race closes and
// resumes of the run across two replicas. Each write is attributed or
// not, never half: its event carries the run exactly when the write
// answered it, and the run's events are exactly the attributed writes'.
func testReplicaWriteClose(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	svcs := replicas(t, h, f)
	run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
	results := make([]continuity.WriteResult, replicaCallers)
	errs := make([]error, replicaCallers)
	race(replicaCallers, func(i int) {
		svc := svcs[i%2]
		switch i % 4 {
		case 0:
			_, errs[i] = svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"})
		case 2:
			_, errs[i] = svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceResume})
		default:
			results[i], errs[i] = svc.Remember(ctx, tenantA, remember(continuity.KindNote, "n "+strconv.Itoa(i), "a note", "baton", run.String()))
		}
	})
	want := map[uuid.UUID]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		if i%2 == 1 {
			switch results[i].SessionRunID {
			case run:
				want[results[i].EventID] = true
			case uuid.Nil:
			default:
				t.Errorf("caller %d attributed to %s, not the run it carried", i, results[i].SessionRunID)
			}
		}
	}
	page, err := f.svc.RunEvents(ctx, tenantA, run.String(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d writes attributed", len(want), replicaCallers/2)
	got := map[uuid.UUID]bool{}
	for _, it := range page.Items {
		got[it.ID] = true
		if !want[it.ID] {
			t.Errorf("event %s carries the run; its write answered unattributed", it.ID)
		}
	}
	for id := range want {
		if !got[id] {
			t.Errorf("event %s was answered attributed; the run's events lack it", id)
		}
	}
}

// pausingReads wraps a store so that a test can stop a read transaction
// after its first Memories query: pause runs there, once.
type pausingReads struct {
	continuity.Store
	pause func()
}

func (p *pausingReads) Read(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	return p.Store.Read(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
		return fn(ctx, &pausingMemories{Tx: tx, pause: p.pause})
	})
}

type pausingMemories struct {
	continuity.Tx
	pause  func()
	paused bool
}

func (t *pausingMemories) Memories(ctx context.Context, q continuity.MemoryQuery) ([]continuity.Memory, error) {
	ms, err := t.Tx.Memories(ctx, q)
	if !t.paused {
		t.paused = true
		t.pause()
	}
	return ms, err
}

// testBriefingReadsOneSnapshot: a briefing reads its sections in one read
// transaction, one query each, and a replica's write commits between two
// of them. The briefing shows the rows as of one instant: never a
// commitment a revise demoted (read by the commitments section) beside
// its successor (read by the decisions section), never an atom twice. On
// Postgres a read transaction under Read Committed took a snapshot per
// statement and showed both.
func testBriefingReadsOneSnapshot(t *testing.T, h Harness) {
	ctx := context.Background()
	writes := []struct {
		name  string
		write func(svc *continuity.Service, id string) (uuid.UUID, error)
	}{
		{"ReviseDemotesACommitment", func(svc *continuity.Service, id string) (uuid.UUID, error) {
			w, err := svc.Revise(ctx, tenantA, id, continuity.ReviseParams{Kind: continuity.KindDecision, Content: "decided instead", Actor: continuity.ActorUserAPI})
			return w.Memory.ID, err
		}},
		{"ReviseCarriesACommitment", func(svc *continuity.Service, id string) (uuid.UUID, error) {
			w, err := svc.Revise(ctx, tenantA, id, continuity.ReviseParams{Content: "ship it on Friday", Actor: continuity.ActorUserAPI})
			return w.Memory.ID, err
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			svcs := replicas(t, h, f)
			m := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "ship", "ship the parser", "baton", ""))
			var successor uuid.UUID
			var writeErr error
			written := make(chan struct{})
			ps := &pausingReads{Store: f.store, pause: func() {
				go func() {
					defer close(written)
					successor, writeErr = w.write(svcs[1], m.Memory.ID.String())
				}()
				// The write commits meanwhile where reads do not hold
				// writers back; a store with one connection holds it
				// until the read ends.
				select {
				case <-written:
				case <-time.After(500 * time.Millisecond):
				}
			}}
			b, err := continuity.New(ps, continuity.WithClock(f.clock.Now)).Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton"})
			<-written
			if err != nil || writeErr != nil {
				t.Fatalf("briefing: %v; write: %v", err, writeErr)
			}
			seen := map[uuid.UUID]int{}
			for _, it := range b.Items {
				seen[it.ID]++
				if seen[it.ID] > 1 {
					t.Errorf("the briefing shows %s twice", it.ID)
				}
			}
			if seen[m.Memory.ID] > 0 && seen[successor] > 0 {
				t.Errorf("the briefing shows the revised commitment beside its successor: %+v", b.Items)
			}
			if seen[m.Memory.ID]+seen[successor] != 1 {
				t.Errorf("the briefing shows the atom %d times, before or after the revise: %+v", seen[m.Memory.ID]+seen[successor], b.Items)
			}
		})
	}
}
