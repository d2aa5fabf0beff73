package storetest

import (
	"context"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// A conversation's ledger lines: Tx.SessionLedger's contract case
// (registered in txContract here) and Service.SessionLedger's validation.
func init() { txContract["SessionLedger"] = txSessionLedger }

func txSessionLedger(t *testing.T, f *fixture) {
	line := func(id uuid.UUID, session string) continuity.LedgerEntry {
		return continuity.LedgerEntry{ID: id, Event: "test.line", At: f.clock.Now(), Session: session}
	}
	ids := newIDs(6)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, 0, line(ids[4], "s1"), line(ids[0], "s1"), line(ids[1], "s2"), line(ids[2], ""), line(ids[3], "s1"))
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 0, line(ids[5], "s1")) })
	for _, tc := range []struct {
		name, tenant, session string
		after                 uuid.UUID
		limit                 int
		want                  []uuid.UUID
	}{
		{"a session's lines in id order", tenantA, "s1", uuid.Nil, 10, []uuid.UUID{ids[0], ids[3], ids[4]}},
		{"another session", tenantA, "s2", uuid.Nil, 10, []uuid.UUID{ids[1]}},
		{"at most limit", tenantA, "s1", uuid.Nil, 2, []uuid.UUID{ids[0], ids[3]}},
		{"after a line", tenantA, "s1", ids[0], 10, []uuid.UUID{ids[3], ids[4]}},
		{"after a line of another session", tenantA, "s1", ids[2], 10, []uuid.UUID{ids[3], ids[4]}},
		{"after the last", tenantA, "s1", ids[4], 10, []uuid.UUID{}},
		{"a limit below 1 is no limit", tenantA, "s1", uuid.Nil, 0, []uuid.UUID{ids[0], ids[3], ids[4]}},
		{"no session matches no line, not the lines without one", tenantA, "", uuid.Nil, 10, []uuid.UUID{}},
		{"an unknown session", tenantA, "s9", uuid.Nil, 10, []uuid.UUID{}},
		{"tenant B's own line only", tenantB, "s1", uuid.Nil, 10, []uuid.UUID{ids[5]}},
	} {
		wantIDs(t, tc.name, listOf(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) ([]continuity.LedgerEntry, error) {
			return tx.SessionLedger(ctx, tc.session, tc.after, tc.limit)
		}), tc.want)
	}
}

// testSessionLedger: the service reads a conversation's lines as the
// hook events wrote them, and validates its arguments.
func testSessionLedger(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.SessionLedger(ctx, tenantA, "s1", uuid.Nil, continuity.MaxLedgerRead)
	if err != nil {
		t.Fatal(err)
	}
	if evs := events(got); len(evs) != 2 || evs[0] != continuity.EventSessionStarted || evs[1] != continuity.EventSessionClosed {
		t.Errorf("s1's lines: %v", evs)
	}
	for _, e := range got {
		if e.Session != "s1" {
			t.Errorf("a line of %q", e.Session)
		}
	}
	for _, tc := range []struct {
		name, tenant, session string
		limit                 int
		field                 string
	}{
		{"no session id", tenantA, "", 10, "sessionId"},
		{"a session id no bottle could name", tenantA, "../s1", 10, "sessionId"},
		{"limit 0", tenantA, "s1", 0, "limit"},
		{"limit over the bound", tenantA, "s1", continuity.MaxLedgerRead + 1, "limit"},
		{"no tenant", "", "s1", 10, "tenant"},
	} {
		_, err := f.svc.SessionLedger(ctx, tc.tenant, tc.session, uuid.Nil, tc.limit)
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] == "" {
			t.Errorf("%s: %v, want invalid naming %s", tc.name, err, tc.field)
		}
	}
	if got, err := f.svc.SessionLedger(ctx, tenantA, "s1", uuid.Nil, 1); err != nil || len(got) != 1 {
		t.Errorf("limit 1: %d lines, %v", len(got), err)
	}
}
