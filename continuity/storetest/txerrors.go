package storetest

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// testTxErrors asserts the Tx contract at the method: a Tx method returns
// baton's codes itself, inside the transaction, so code inside Write sees
// the codes its caller would.
func testTxErrors(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("DuplicateInsertConflictsAtTheMethod", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		s, m := txRows(uuid.Must(uuid.NewV7()), f.clock.Now())
		cases := []struct {
			name   string
			insert func(ctx context.Context, tx continuity.Tx) error
		}{
			{"InsertSession", func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) }},
			{"InsertMemory", func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &m) }},
		}
		for _, tc := range cases {
			var second error
			err := f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
				if err := tc.insert(ctx, tx); err != nil {
					return err
				}
				second = tc.insert(ctx, tx)
				return second
			})
			if got := continuity.ErrorCode(second); got != continuity.CodeConflict {
				t.Errorf("%s twice in one Write: the method returned %q (%v), want %q", tc.name, got, second, continuity.CodeConflict)
			}
			wantCode(t, err, continuity.CodeConflict)
		}
	})

	t.Run("EveryMethodReturnsACode", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		now := f.clock.Now()
		id := uuid.Must(uuid.NewV7())
		s, m := txRows(id, now)
		// Each method meets a driver failure: its context is cancelled
		// inside a live transaction, so the driver, not the service,
		// produces the error the method must translate. LockProject issues
		// no statement on SQLite, so it has no driver to fail there.
		calls := map[string]func(ctx context.Context, tx continuity.Tx) error{
			"SessionByKey": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.SessionByKey(ctx, agent, "s1")
				return err
			},
			"SessionByID":   func(ctx context.Context, tx continuity.Tx) error { _, err := tx.SessionByID(ctx, id); return err },
			"InsertSession": func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) },
			"UpdateSession": func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateSession(ctx, &s) },
			"OpenSessions":  func(ctx context.Context, tx continuity.Tx) error { _, err := tx.OpenSessions(ctx, "baton"); return err },
			"StaleSessions": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.StaleSessions(ctx, now, 10)
				return err
			},
			"AppendLedger": func(ctx context.Context, tx continuity.Tx) error {
				return tx.AppendLedger(ctx, 5, continuity.LedgerEntry{ID: id, Event: "test.event", At: now})
			},
			"Ledger":       func(ctx context.Context, tx continuity.Tx) error { _, err := tx.Ledger(ctx, uuid.Nil, 10); return err },
			"LedgerCounts": func(ctx context.Context, tx continuity.Tx) error { _, err := tx.LedgerCounts(ctx); return err },
			"InsertMemory": func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &m) },
			"MemoryByID":   func(ctx context.Context, tx continuity.Tx) error { _, err := tx.MemoryByID(ctx, id); return err },
			"UpdateMemory": func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateMemory(ctx, &m) },
			"Memories": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.Memories(ctx, continuity.MemoryQuery{Limit: 10})
				return err
			},
			"InsertMemoryEvents": func(ctx context.Context, tx continuity.Tx) error {
				return tx.InsertMemoryEvents(ctx, continuity.MemoryEvent{ID: id, MemoryID: id, Kind: continuity.EventCreate,
					ActorKind: continuity.ActorUserCLI, CreatedAt: now})
			},
			"RunEvents": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.RunEvents(ctx, id, uuid.Nil, 10)
				return err
			},
			"InsertStopExcerpt": func(ctx context.Context, tx continuity.Tx) error {
				return tx.InsertStopExcerpt(ctx, 3, &continuity.StopExcerpt{ID: id, Agent: agent, SessionID: "s1", Text: "x", At: now})
			},
			"ProjectByKey": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.ProjectByKey(ctx, agent, "s1")
				return err
			},
			"ProjectByID": func(ctx context.Context, tx continuity.Tx) error { _, err := tx.ProjectByID(ctx, id); return err },
			"ArmBottle": func(ctx context.Context, tx continuity.Tx) error {
				return tx.ArmBottle(ctx, continuity.BottleMarker{Agent: agent, SessionID: "s1", Path: "/b/s1.md", Mode: "full", ArmedAt: now})
			},
			"ClaimBottle": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.ClaimBottle(ctx, agent, "s1", now)
				return err
			},
			"BottleMarker": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.BottleMarker(ctx, agent, "s1")
				return err
			},
			"AppendPrompt": func(ctx context.Context, tx continuity.Tx) error {
				return tx.AppendPrompt(ctx, &continuity.Prompt{ID: id, Agent: agent, SessionID: "s1", Text: "x", At: now})
			},
			"Prompts": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.Prompts(ctx, agent, "s1")
				return err
			},
			"LastPrompt": func(ctx context.Context, tx continuity.Tx) error {
				_, _, err := tx.LastPrompt(ctx, agent, "s1")
				return err
			},
			"StopExcerpts": func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.StopExcerpts(ctx, agent, "s1")
				return err
			},
		}
		for _, name := range slices.Sorted(maps.Keys(calls)) {
			failsWithACode(t, f, name, calls[name])
		}
		// The failures rolled back: the store still works.
		if _, err := f.svc.Open(ctx, tenantA, startup("after")); err != nil {
			t.Fatal(err)
		}
	})
}

// txRows returns a session row and a memory with the id, as a Tx inserts them.
func txRows(id uuid.UUID, now time.Time) (continuity.Session, continuity.Memory) {
	return continuity.Session{ID: id, Tenant: tenantA, Agent: agent, SessionID: "s1", Source: continuity.SourceStartup,
			OpenedAt: now, LastSeenAt: now, ActivationEpoch: 1, TriageStatus: "idle"},
		continuity.Memory{ID: id, Tenant: tenantA, Kind: continuity.KindNote, Topic: "t", Content: "c",
			Status: continuity.StatusOpen, CreatedAt: now, UpdatedAt: now}
}
