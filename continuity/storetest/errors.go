package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// testErrors asserts that the store translates its driver's errors into
// baton's codes at its edge, whichever backend runs.
func testErrors(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	now := f.clock.Now()
	row := continuity.Session{ID: uuid.Must(uuid.NewV7()), Tenant: tenantA, Agent: agent, SessionID: "dup", Source: continuity.SourceStartup,
		OpenedAt: now, LastSeenAt: now, ActivationEpoch: 1, TriageStatus: "idle"}
	insert := func(s continuity.Session) error {
		return f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
	}
	if err := insert(row); err != nil {
		t.Fatal(err)
	}
	again := row
	again.ID = uuid.Must(uuid.NewV7())
	cases := []struct {
		name string
		err  error
		code continuity.Code
	}{
		{"duplicate natural key", insert(again), continuity.CodeConflict},
		{"duplicate id", insert(func() continuity.Session { s := row; s.SessionID = "other"; return s }()), continuity.CodeConflict},
		{"update of an unknown row", f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			s := row
			s.ID = uuid.New()
			return tx.UpdateSession(ctx, &s)
		}), continuity.CodeNotFound},
		{"unknown memory", f.store.Read(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			_, err := tx.MemoryByID(ctx, uuid.New())
			return err
		}), continuity.CodeNotFound},
		{"unknown session id", f.store.Read(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			_, err := tx.SessionByID(ctx, uuid.New())
			return err
		}), continuity.CodeNotFound},
		{"update of an unknown memory", f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			return tx.UpdateMemory(ctx, &continuity.Memory{ID: uuid.New(), Status: continuity.StatusOpen, UpdatedAt: now})
		}), continuity.CodeNotFound},
		{"no tenant", f.store.Read(ctx, "", func(context.Context, continuity.Tx) error { return nil }), continuity.CodeInvalid},
	}
	for _, tc := range cases {
		if got := continuity.ErrorCode(tc.err); got != tc.code {
			t.Errorf("%s: code %q (%v), want %q", tc.name, got, tc.err, tc.code)
		}
	}
	// A rolled-back write leaves nothing behind.
	_ = f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		s := row
		s.ID, s.SessionID = uuid.Must(uuid.NewV7()), "rolled-back"
		if err := tx.InsertSession(ctx, &s); err != nil {
			return err
		}
		return continuity.Errorf(continuity.CodeConflict, "abort")
	})
	if _, err := f.svc.Session(ctx, tenantA, agent, "rolled-back"); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Fatalf("a failed transaction's insert survived: %v", err)
	}
	// A cancelled context surfaces as an error, not a hang or a panic.
	cctx, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	<-cctx.Done()
	if _, err := f.svc.Heartbeat(cctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "dup"}); err == nil {
		t.Fatal("a heartbeat on a cancelled context succeeded")
	}
}
