package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

func testLedger(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("ReceiptBeforeWork", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		var seenDuringWork []string
		err := f.svc.Receive(ctx, tenantA, continuity.ReceiptParams{Provider: "claude-code", ProviderEvent: "SessionStart", Agent: agent, SessionID: "s1"},
			func(ctx context.Context) error {
				es, err := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10)
				seenDuringWork = events(es)
				if err != nil {
					return err
				}
				_, err = f.svc.Open(ctx, tenantA, startup("s1"))
				return err
			})
		if err != nil {
			t.Fatal(err)
		}
		if len(seenDuringWork) != 1 || seenDuringWork[0] != continuity.EventReceived {
			t.Fatalf("ledger during work = %v, want the receipt already there", seenDuringWork)
		}
		es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10)
		if got := events(es); len(got) != 2 || got[0] != continuity.EventReceived || got[1] != continuity.EventSessionStarted {
			t.Fatalf("ledger = %v", got)
		}
		if es[0].Fields["provider"] != "claude-code" || es[0].Fields["provider_event"] != "SessionStart" || es[0].Session != "s1" {
			t.Fatalf("receipt fields = %v session %q", es[0].Fields, es[0].Session)
		}
	})

	t.Run("FailedWorkLeavesAFailure", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		err := f.svc.Receive(ctx, tenantA, continuity.ReceiptParams{Provider: "codex", ProviderEvent: "Stop", Agent: "codex", SessionID: "missing"},
			func(ctx context.Context) error {
				_, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: "codex", SessionID: "missing"})
				return err
			})
		wantCode(t, err, continuity.CodeNotFound)
		es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10)
		if got := events(es); len(got) != 2 || got[0] != continuity.EventReceived || got[1] != continuity.EventFailed {
			t.Fatalf("ledger = %v, want received then failed", got)
		}
		fail := es[1].Fields
		if fail["provider"] != "codex" || fail["provider_event"] != "Stop" || fail["receipt"] != es[0].ID.String() || fail["reason"] == "" {
			t.Fatalf("failure fields = %v", fail)
		}
		// A non-baton error is recorded without its text.
		err = f.svc.Receive(ctx, tenantA, continuity.ReceiptParams{Provider: "codex", ProviderEvent: "Stop"},
			func(context.Context) error { return errors.New("secret prompt text") })
		if err == nil {
			t.Fatal("work error swallowed")
		}
		es, _ = f.svc.Ledger(ctx, tenantA, uuid.Nil, 10)
		if r := es[len(es)-1].Fields["reason"]; r != "internal: internal error" {
			t.Fatalf("reason = %q leaks or is missing", r)
		}
	})

	t.Run("InvalidReceiptWritesNothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		ran := false
		for _, p := range []continuity.ReceiptParams{{Provider: "", ProviderEvent: "Stop"}, {Provider: "x", ProviderEvent: ""}, {Provider: "x", ProviderEvent: "Stop", Agent: "Bad Agent"}} {
			err := f.svc.Receive(ctx, tenantA, p, func(context.Context) error { ran = true; return nil })
			wantCode(t, err, continuity.CodeInvalid)
		}
		if ran {
			t.Fatal("work ran after an invalid receipt")
		}
		if es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10); len(es) != 0 {
			t.Fatalf("invalid receipts wrote %v", events(es))
		}
	})

	t.Run("EnvelopeKeysRefused", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		for _, k := range []string{"event", "at", "tenant", "session"} {
			_, err := f.svc.AppendEvent(ctx, tenantA, "test.event", "s1", map[string]string{k: "x"})
			wantCode(t, err, continuity.CodeInvalid)
			if _, ok := continuity.ErrorFields(err)["fields."+k]; !ok {
				t.Fatalf("collision on %q not named: %v", k, err)
			}
		}
		if _, err := f.svc.AppendEvent(ctx, tenantA, "test.event", "s1", map[string]string{"provider_event": "Stop"}); err != nil {
			t.Fatal(err)
		}
		if es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10); len(es) != 1 {
			t.Fatalf("ledger = %v, want only the valid line", events(es))
		}
	})

	t.Run("LifecycleEvents", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		mustOpen(t, f, tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceResume})
		if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 10)
		want := []string{continuity.EventSessionStarted, continuity.EventSessionResumed, continuity.EventSessionClosed, continuity.EventSessionResurrect}
		got := events(es)
		if len(got) != len(want) {
			t.Fatalf("ledger = %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("ledger = %v, want %v", got, want)
			}
		}
		if es[3].Fields["epoch"] != "3" {
			t.Fatalf("resurrection epoch = %q, want 3", es[3].Fields["epoch"])
		}
	})

	t.Run("RetentionIsBoundedPerTenant", func(t *testing.T) {
		t.Parallel()
		const keep = 5
		f := newFixture(t, h, continuity.WithLedgerRetention(keep))
		for i := range keep + 3 {
			if _, err := f.svc.AppendEvent(ctx, tenantA, "test.n", "", map[string]string{"n": strconv.Itoa(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.svc.AppendEvent(ctx, tenantB, "test.n", "", map[string]string{"n": "b"}); err != nil {
			t.Fatal(err)
		}
		es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 100)
		if len(es) != keep {
			t.Fatalf("tenant A keeps %d lines, want %d", len(es), keep)
		}
		if es[0].Fields["n"] != "3" || es[keep-1].Fields["n"] != "7" {
			t.Fatalf("kept %s..%s, want the newest 3..7", es[0].Fields["n"], es[keep-1].Fields["n"])
		}
		if b, _ := f.svc.Ledger(ctx, tenantB, uuid.Nil, 100); len(b) != 1 {
			t.Fatalf("tenant B's line was trimmed by A's retention: %d", len(b))
		}
		if continuity.DefaultLedgerRetention != 5000 {
			t.Fatalf("default retention = %d", continuity.DefaultLedgerRetention)
		}
	})

	// The bound holds exactly through every way the ledger changes: an
	// append of several lines at once, past the bound or within it, a
	// prune of old lines (the bound then counts the lines left, so the
	// next append within it deletes none), an erase, and appends after
	// it. Tenant B's lines, appended between, are never counted in A's.
	t.Run("RetentionHoldsThroughPrunesAndErasure", func(t *testing.T) {
		t.Parallel()
		const keep = 5
		f := newFixture(t, h, continuity.WithLedgerRetention(keep))
		base := f.clock.Now()
		at := func(n int) time.Time { return base.Add(time.Duration(n) * time.Minute) }
		next := 0
		appendN := func(k int) func() {
			lines := make([]continuity.LedgerEntry, k)
			for i := range lines {
				lines[i] = continuity.LedgerEntry{ID: newID(), Event: "test.n", At: at(next), Fields: map[string]string{"n": strconv.Itoa(next)}}
				next++
			}
			return func() {
				inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, keep, lines...) })
			}
		}
		pruneBefore := func(n int) func() {
			return func() {
				inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
					_, err := tx.PruneLedger(ctx, at(n), 0)
					return err
				})
			}
		}
		erase := func() {
			for {
				n, err := f.store.EraseBatch(ctx, tenantA, 3)
				if err != nil {
					t.Fatalf("erase: %v", err)
				}
				if n == 0 {
					return
				}
			}
		}
		steps := []struct {
			name string
			do   func()
			want string // tenant A's lines' n, oldest first
		}{
			{"three at once, within the bound", appendN(3), "0 1 2"},
			{"four at once, past it", appendN(4), "2 3 4 5 6"},
			{"a prune of the two oldest", pruneBefore(4), "4 5 6"},
			{"one within the bound the prune left", appendN(1), "4 5 6 7"},
			{"two past it", appendN(2), "5 6 7 8 9"},
			{"eight at once, more than the bound", appendN(8), "13 14 15 16 17"},
			{"an erase", erase, ""},
			{"one after the erase", appendN(1), "18"},
			{"five more", appendN(5), "19 20 21 22 23"},
		}
		for _, st := range steps {
			st.do()
			inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
				return tx.AppendLedger(ctx, keep, continuity.LedgerEntry{ID: newID(), Event: "test.b", At: at(next)})
			})
			var got []string
			for _, e := range ledgerOf(t, f, tenantA) {
				got = append(got, e.Fields["n"])
			}
			if strings.Join(got, " ") != st.want {
				t.Fatalf("after %s: tenant A keeps %q, want %q", st.name, strings.Join(got, " "), st.want)
			}
		}
		if b := ledgerOf(t, f, tenantB); len(b) != keep {
			t.Fatalf("tenant B keeps %d lines, want %d", len(b), keep)
		}
	})

	// 32 callers append to one tenant's ledger past its bound at once:
	// every append succeeds (concurrent trims of one tenant may not
	// deadlock or fail one another; a trim that finds another under way
	// may leave the bound to the next), and the next append alone trims
	// the ledger to the bound exactly.
	t.Run("ConcurrentAppendsPastTheBound", func(t *testing.T) {
		t.Parallel()
		const keep, callers, each = 5, 32, 4
		f := newFixture(t, h, continuity.WithLedgerRetention(keep))
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				for k := range each {
					if _, err := f.svc.AppendEvent(ctx, tenantA, "test.n", "", map[string]string{"n": fmt.Sprint(c, ".", k)}); err != nil {
						t.Errorf("caller %d append %d: %v", c, k, err)
					}
				}
			})
		}
		wg.Wait()
		if _, err := f.svc.AppendEvent(ctx, tenantA, "test.n", "", map[string]string{"n": "last"}); err != nil {
			t.Fatal(err)
		}
		es, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 1000)
		if len(es) != keep || es[keep-1].Fields["n"] != "last" {
			t.Fatalf("after the concurrent appends and one more: %d lines, the newest %v; want %d ending with the last", len(es), es[len(es)-1].Fields, keep)
		}
	})
}
