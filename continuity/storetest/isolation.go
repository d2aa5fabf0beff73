package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

func testIsolation(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("NoMethodCrossesTenants", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		a := mustOpen(t, f, tenantA, startup("shared-id"))
		f.clock.Advance(time.Minute)

		// Tenant B addresses the same natural key: it sees no row.
		_, err := f.svc.Heartbeat(ctx, tenantB, continuity.HeartbeatParams{Agent: agent, SessionID: "shared-id"})
		wantCode(t, err, continuity.CodeNotFound)
		_, err = f.svc.Close(ctx, tenantB, continuity.CloseParams{Agent: agent, SessionID: "shared-id"})
		wantCode(t, err, continuity.CodeNotFound)
		_, err = f.svc.Session(ctx, tenantB, agent, "shared-id")
		wantCode(t, err, continuity.CodeNotFound)
		if es, _ := f.svc.Ledger(ctx, tenantB, uuid.Nil, 100); len(es) != 0 {
			t.Fatalf("tenant B reads A's ledger: %v", events(es))
		}

		// B opening the same key makes B's own row; A's is untouched.
		b := mustOpen(t, f, tenantB, continuity.OpenParams{Agent: agent, SessionID: "shared-id", Source: continuity.SourceStartup, Project: "elsewhere"})
		if !b.Created || b.SessionRunID == a.SessionRunID {
			t.Fatalf("tenant B's open = %+v, want a new row", b)
		}
		v := view(t, f, tenantA, "shared-id")
		if v.Project != "baton" || v.ActivationEpoch != 1 || v.ClosedAt != nil || !v.LastSeenAt.Equal(a.LastSeenAt) {
			t.Fatalf("tenant A's row changed: %+v", v.Session)
		}

		// Store-level: B's transaction cannot reach A's row by id either.
		err = f.store.Read(ctx, tenantB, func(ctx context.Context, tx continuity.Tx) error {
			_, err := tx.SessionByID(ctx, a.SessionRunID)
			return err
		})
		wantCode(t, err, continuity.CodeNotFound)
		err = f.store.Write(ctx, tenantB, func(ctx context.Context, tx continuity.Tx) error {
			s := v.Session
			s.Project = "hijacked"
			return tx.UpdateSession(ctx, &s)
		})
		wantCode(t, err, continuity.CodeNotFound)
		if v := view(t, f, tenantA, "shared-id"); v.Project != "baton" {
			t.Fatalf("tenant B updated A's row: project %q", v.Project)
		}
	})

	t.Run("RowLevelSecurity", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		u, ok := f.store.(Unscoped)
		if !ok || !u.RowLevelSecurity() {
			t.Skip("this store enforces tenancy in its statements only (every statement filters on user_id)")
		}
		mustOpen(t, f, tenantA, startup("s1"))
		for _, table := range []string{"agent_sessions", "ledger", "continuity_records"} {
			n, err := u.UnscopedCount(ctx, table)
			if err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Fatalf("a query on %s without the tenant setting saw %d rows", table, n)
			}
		}
	})
}
