package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// SerialWriter is implemented by stores that admit one write transaction at
// a time (SQLite's immediate transactions): a second writer waits before its
// function runs, so no interleaving inside two write transactions exists.
type SerialWriter interface {
	// SerialWrites reports whether write transactions never overlap.
	SerialWrites() bool
}

// actorKey marks a context with the name of the goroutine whose
// transactions a pausingStore watches.
type actorKey struct{}

// pausingStore wraps a store so a test can stop one transaction at a chosen
// point and see where another one is: it calls hook(actor, point) at
// "write" (before a write transaction begins), "candidates" (after an
// id-less write read the leased-open sessions of a project) and "lock"
// (before a project lock is taken).
type pausingStore struct {
	continuity.Store
	hook func(actor, point string)
}

func (p *pausingStore) Write(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	actor, _ := ctx.Value(actorKey{}).(string)
	p.hook(actor, "write")
	return p.Store.Write(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
		return fn(ctx, &pausingTx{Tx: tx, actor: actor, hook: p.hook})
	})
}

// TouchLive is a write transaction of its own too: "write" first.
func (p *pausingStore) TouchLive(ctx context.Context, tenant string, t continuity.SessionTouch) (*continuity.Session, error) {
	actor, _ := ctx.Value(actorKey{}).(string)
	p.hook(actor, "write")
	return p.Store.TouchLive(ctx, tenant, t)
}

type pausingTx struct {
	continuity.Tx
	actor string
	hook  func(actor, point string)
}

func (t *pausingTx) OpenSessions(ctx context.Context, project string) ([]continuity.Session, error) {
	out, err := t.Tx.OpenSessions(ctx, project)
	t.hook(t.actor, "candidates")
	return out, err
}

func (t *pausingTx) LockProject(ctx context.Context, project string) error {
	t.hook(t.actor, "lock")
	return t.Tx.LockProject(ctx, project)
}

// signal is a channel closed once, however many times it is fired (a
// retried transaction passes its points again).
type signal struct {
	once sync.Once
	ch   chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }
func (s *signal) fire()  { s.once.Do(func() { close(s.ch) }) }

// testAttachRace pins that an id-less write's attach decision holds at
// commit (seed: "zero or many at commit → leave payload unset"). Writer A
// reads the project's leased-open sessions and is paused right there while
// writer B runs an operation that changes that set: a SessionEnd close, a
// resurrecting heartbeat, a resurrecting write by run id, the open of a
// second row (a startup inserting it, a resume reopening it), or the
// close of a second live row. The test never sleeps: it releases A only
// once B has either committed or is provably waiting (for the project
// lock, or on a store that admits one writer at a time, for the write
// transaction). Whichever committed first, A's write is attributed by the
// set at its commit: to the one live run, or to none (then it must not
// touch the session row), and B applies after it when it waited.
func testAttachRace(t *testing.T, h Harness) {
	type scenario struct {
		name string
		// setup returns the run A attaches to when B waits for it, and the
		// one it attaches to when B commits first (uuid.Nil: none).
		setup func(t *testing.T, f *fixture) (waited, first uuid.UUID)
		// b is the concurrent operation.
		b func(ctx context.Context, f *fixture) error
	}
	ctx := context.Background()
	note := func(run string) continuity.RememberParams {
		return continuity.RememberParams{Kind: continuity.KindDecision, Topic: "race", Content: "attach at commit",
			Project: "baton", SessionRunID: run, Actor: continuity.ActorUserAPI}
	}
	var lapsedRun uuid.UUID
	scenarios := []scenario{
		{
			name: "SessionEnd",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				return mustOpen(t, f, tenantA, startup("s1")).SessionRunID, uuid.Nil
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"})
				return err
			},
		},
		{
			name: "ResurrectingHeartbeat",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				mustOpen(t, f, tenantA, startup("s2"))
				f.clock.Advance(afterLease)
				return mustOpen(t, f, tenantA, startup("s1")).SessionRunID, uuid.Nil
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s2", Stop: true})
				return err
			},
		},
		{
			name: "ResurrectingWriteByRunID",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				lapsedRun = mustOpen(t, f, tenantA, startup("s2")).SessionRunID
				f.clock.Advance(afterLease)
				return mustOpen(t, f, tenantA, startup("s1")).SessionRunID, uuid.Nil
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Remember(ctx, tenantA, note(lapsedRun.String()))
				return err
			},
		},
		{
			// B inserts a second row of the project.
			name: "StartupOfASecondRow",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				return mustOpen(t, f, tenantA, startup("s1")).SessionRunID, uuid.Nil
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Open(ctx, tenantA, startup("s2"))
				return err
			},
		},
		{
			// B reopens a second row of the project that SessionEnd closed.
			name: "ResumeOfAClosedSecondRow",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				mustOpen(t, f, tenantA, startup("s2"))
				if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s2"}); err != nil {
					t.Fatal(err)
				}
				return mustOpen(t, f, tenantA, startup("s1")).SessionRunID, uuid.Nil
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: "s2", Source: continuity.SourceResume})
				return err
			},
		},
		{
			// Two live rows, and B closes the second: A read two
			// candidates, so it attaches only if B's close committed
			// before its decision.
			name: "SessionEndOfASecondRow",
			setup: func(t *testing.T, f *fixture) (uuid.UUID, uuid.UUID) {
				mustOpen(t, f, tenantA, startup("s2"))
				return uuid.Nil, mustOpen(t, f, tenantA, startup("s1")).SessionRunID
			},
			b: func(ctx context.Context, f *fixture) error {
				_, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s2"})
				return err
			},
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			st, _ := h.New(t)
			clock := NewClock()
			serial := false
			if sw, ok := st.(SerialWriter); ok {
				serial = sw.SerialWrites()
			}
			aPaused, releaseA, bWaiting := newSignal(), newSignal(), newSignal()
			ps := &pausingStore{Store: st, hook: func(actor, point string) {
				switch {
				case actor == "A" && point == "candidates":
					aPaused.fire()
					<-releaseA.ch
				case actor == "B" && point == "lock", actor == "B" && point == "write" && serial:
					bWaiting.fire()
				}
			}}
			f := &fixture{store: ps, clock: clock, svc: continuity.New(ps, continuity.WithClock(clock.Now))}
			waited, first := sc.setup(t, f)
			before := view(t, f, tenantA, "s1")
			clock.Advance(time.Second)

			type result struct {
				w   continuity.WriteResult
				err error
			}
			aDone := make(chan result, 1)
			go func() {
				w, err := f.svc.Remember(context.WithValue(ctx, actorKey{}, "A"), tenantA, note(""))
				aDone <- result{w, err}
			}()
			select {
			case <-aPaused.ch:
			case r := <-aDone:
				t.Fatalf("writer A finished without reading candidates: %+v", r)
			}
			bDone := make(chan error, 1)
			go func() { bDone <- sc.b(context.WithValue(ctx, actorKey{}, "B"), f) }()
			bFirst := false
			var bErr error
			select {
			case bErr = <-bDone:
				bFirst = true
			case <-bWaiting.ch:
			}
			releaseA.fire()
			a := <-aDone
			if !bFirst {
				bErr = <-bDone
			}
			if a.err != nil || bErr != nil {
				t.Fatalf("A: %v; B: %v", a.err, bErr)
			}
			after := view(t, f, tenantA, "s1")
			want := waited
			if bFirst {
				// B changed the leased-open set before A decided.
				want = first
			}
			if a.w.SessionRunID != want {
				t.Fatalf("B committed first=%v, so A should attach to %v; got %v", bFirst, want, a.w.SessionRunID)
			}
			if want == uuid.Nil && !after.LastSeenAt.Equal(before.LastSeenAt) {
				t.Fatalf("an unattributed write moved last_seen_at from %v to %v", before.LastSeenAt, after.LastSeenAt)
			}
			if sc.name == "SessionEnd" {
				if after.State != lease.ExplicitlyClosed || after.LastSeenAt.After(*after.ClosedAt) {
					t.Fatalf("after both: state %v, last_seen_at %v, closed_at %v; want explicitly closed with last_seen_at frozen at or before closed_at",
						after.State, after.LastSeenAt, after.ClosedAt)
				}
			}
			t.Logf("serial=%v, B committed first=%v", serial, bFirst)
		})
	}
}
