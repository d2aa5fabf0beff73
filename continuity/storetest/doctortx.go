package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// The doctor's reads join the Tx contract from here, so the contract's
// table stays one list per file that adds methods.
func init() {
	txContract["ProjectActivity"] = txProjectActivity
	txContract["CountSessions"] = txCountSessions
	txContract["LedgerCountsSince"] = txLedgerCountsSince
	txContract["LedgerEvents"] = txLedgerEvents
	txContract["ArmedBottles"] = txArmedBottles
}

// failsWithACode asserts that a Tx method meeting a driver failure (its
// context cancelled inside a live transaction, so the driver, not the
// service, produces the error) returns a *continuity.Error.
func failsWithACode(t *testing.T, f *fixture, method string, call txFunc) {
	t.Helper()
	var got error
	_ = f.store.Write(t.Context(), tenantA, func(ctx context.Context, tx continuity.Tx) error {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		got = call(cctx, tx)
		return got
	})
	var ce *continuity.Error
	if got == nil || !errors.As(got, &ce) {
		t.Errorf("%s on a failing driver returned %T (%v), want a *continuity.Error", method, got, got)
	}
}

// insertSession inserts a session row as tenant.
func insertSession(t *testing.T, f *fixture, tenant string, s continuity.Session) {
	t.Helper()
	s.Tenant = tenant
	inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
}

func txProjectActivity(t *testing.T, f *fixture) {
	now := f.clock.Now()
	activity := func(limit int) []continuity.ProjectActivity {
		return listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.ProjectActivity, error) {
			return tx.ProjectActivity(ctx, limit)
		})
	}
	got := activity(0)
	wantEmpty(t, "no sessions", got, nil)

	h := time.Hour
	rows := []continuity.Session{
		sessionRow("b1", "baton", now),
		sessionRow("b2", "baton", now.Add(2*h)),
		sessionRow("n1", "", now.Add(-h)),
		sessionRow("o1", "other", now),
		sessionRow("a1", "alpha", now),
	}
	rows[0].ActivatedAt = now.Add(h) // a later activation of an earlier open
	rows[2].ActivatedAt = now.Add(3 * h)
	rows[3].ActivatedAt = time.Time{} // read as its open
	for _, s := range rows {
		insertSession(t, f, tenantA, s)
	}
	for _, r := range []continuity.Record{
		recordRow(continuity.RecordCheckpoint, agent, "b1", "baton", now.Add(10*time.Minute)),
		recordRow(continuity.RecordHandover, agent, "b1", "baton", now.Add(30*time.Minute)),
		recordRow(continuity.RecordHandover, agent, "o1", "other", now.Add(5*time.Minute)),
	} {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &r) })
	}
	// Tenant B's newer session and record of "baton" change nothing of A's.
	insertSession(t, f, tenantB, sessionRow("b1", "baton", now.Add(9*h)))
	b := recordRow(continuity.RecordHandover, agent, "b1", "baton", now.Add(9*h))
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &b) })

	want := []continuity.ProjectActivity{
		{Project: "", Sessions: 1, FirstOpenedAt: now.Add(-h), LastActivatedAt: now.Add(3 * h)},
		{Project: "baton", Sessions: 2, FirstOpenedAt: now, LastActivatedAt: now.Add(2 * h), NewestRecordAt: now.Add(30 * time.Minute)},
		{Project: "alpha", Sessions: 1, FirstOpenedAt: now, LastActivatedAt: now}, // ties by name
		{Project: "other", Sessions: 1, FirstOpenedAt: now, LastActivatedAt: now, NewestRecordAt: now.Add(5 * time.Minute)},
	}
	same(t, "every project, newest activation first", activity(0), want)
	same(t, "limit", activity(2), want[:2])
	failsWithACode(t, f, "ProjectActivity", func(ctx context.Context, tx continuity.Tx) error { _, err := tx.ProjectActivity(ctx, 10); return err })
}

func txCountSessions(t *testing.T, f *fixture) {
	T := f.clock.Now()
	us := time.Microsecond
	r1 := sessionRow("r1", "baton", T.Add(-us))
	r2 := sessionRow("r2", "baton", T)
	closed := T
	r2.ClosedAt, r2.TriageStatus = &closed, "pending"
	r3 := sessionRow("r3", "", T.Add(us))
	r3.ActivatedAt, r3.TriageStatus = time.Time{}, "pending" // activated at its open
	for _, s := range []continuity.Session{r1, r2, r3} {
		insertSession(t, f, tenantA, s)
	}
	other := sessionRow("r2", "baton", T)
	other.TriageStatus = "pending"
	insertSession(t, f, tenantB, other)

	cases := []struct {
		name string
		q    continuity.SessionCount
		want int
	}{
		{"every row", continuity.SessionCount{}, 3},
		{"a project", continuity.SessionCount{ByProject: true, Project: "baton"}, 2},
		{"no project", continuity.SessionCount{ByProject: true}, 1},
		{"a project without ByProject matches anything", continuity.SessionCount{Project: "nope"}, 3},
		{"open", continuity.SessionCount{Open: true}, 2},
		{"activated since the instant of one", continuity.SessionCount{ActivatedSince: T}, 2},
		{"activated since a microsecond later", continuity.SessionCount{ActivatedSince: T.Add(us)}, 1},
		{"activated since after the last", continuity.SessionCount{ActivatedSince: T.Add(2 * us)}, 0},
		{"seen after a microsecond before", continuity.SessionCount{SeenAfter: T.Add(-us)}, 2},
		{"seen after the instant of one", continuity.SessionCount{SeenAfter: T}, 1},
		{"seen not after the instant of one", continuity.SessionCount{SeenNotAfter: T}, 2},
		{"seen not after a microsecond before", continuity.SessionCount{SeenNotAfter: T.Add(-us)}, 1},
		{"seen not after before the first", continuity.SessionCount{SeenNotAfter: T.Add(-2 * us)}, 0},
		{"triage status", continuity.SessionCount{TriageStatus: "pending"}, 2},
		{"every bound at once", continuity.SessionCount{ByProject: true, Project: "baton", TriageStatus: "pending",
			SeenAfter: T.Add(-us), SeenNotAfter: T, ActivatedSince: T}, 1},
	}
	for _, tc := range cases {
		var got int
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.CountSessions(ctx, tc.q)
			return err
		})
		if got != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.name, got, tc.want)
		}
	}
	failsWithACode(t, f, "CountSessions", func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.CountSessions(ctx, continuity.SessionCount{})
		return err
	})
}

// ledgerLine is a line of tenant A's ledger at the instant.
func ledgerLine(event string, at time.Time) continuity.LedgerEntry {
	return continuity.LedgerEntry{ID: newID(), Tenant: tenantA, Event: event, At: at, Session: "s1", Fields: map[string]string{"agent": agent}}
}

func appendEntries(t *testing.T, f *fixture, tenant string, lines ...continuity.LedgerEntry) {
	t.Helper()
	inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 0, lines...) })
}

func txLedgerCountsSince(t *testing.T, f *fixture) {
	T := f.clock.Now()
	us := time.Microsecond
	appendEntries(t, f, tenantA, ledgerLine("e1", T.Add(-us)), ledgerLine("e1", T), ledgerLine("e2", T.Add(us)))
	appendEntries(t, f, tenantB, ledgerLine("e1", T))
	counts := func(since time.Time) map[string]int {
		var out map[string]int
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			out, err = tx.LedgerCountsSince(ctx, since)
			return err
		})
		return out
	}
	same(t, "since a microsecond before the first", counts(T.Add(-us)), map[string]int{"e1": 2, "e2": 1})
	same(t, "since the instant of a line", counts(T), map[string]int{"e1": 1, "e2": 1})
	same(t, "since the last", counts(T.Add(us)), map[string]int{"e2": 1})
	same(t, "since after the last", counts(T.Add(2*us)), map[string]int{})
	failsWithACode(t, f, "LedgerCountsSince", func(ctx context.Context, tx continuity.Tx) error { _, err := tx.LedgerCountsSince(ctx, T); return err })
}

func txLedgerEvents(t *testing.T, f *fixture) {
	T := f.clock.Now()
	us := time.Microsecond
	a, b, c, d := ledgerLine("x", T.Add(-us)), ledgerLine("x", T), ledgerLine("y", T), ledgerLine("z", T.Add(us))
	c.Fields["reason"] = "internal: boom"
	appendEntries(t, f, tenantA, a, b, c, d)
	appendEntries(t, f, tenantB, ledgerLine("x", T))
	read := func(events []string, since time.Time, limit int) []continuity.LedgerEntry {
		return listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.LedgerEntry, error) {
			return tx.LedgerEvents(ctx, events, since, limit)
		})
	}
	same(t, "named events since an instant, newest first, every field", read([]string{"x", "y"}, T, 0), []continuity.LedgerEntry{c, b})
	wantIDs(t, "since a microsecond before", read([]string{"x"}, T.Add(-us), 0), rowIDs([]continuity.LedgerEntry{b, a}))
	wantIDs(t, "limit keeps the newest", read([]string{"x", "y", "z"}, T.Add(-us), 2), rowIDs([]continuity.LedgerEntry{d, c}))
	wantEmpty(t, "since after the last", read([]string{"x", "y", "z"}, T.Add(2*us), 0), nil)
	wantEmpty(t, "no names", read(nil, T.Add(-us), 0), nil)
	failsWithACode(t, f, "LedgerEvents", func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.LedgerEvents(ctx, []string{"x"}, T, 10)
		return err
	})
}

func txArmedBottles(t *testing.T, f *fixture) {
	T := f.clock.Now()
	us := time.Microsecond
	marker := func(ag, sid string, at time.Time) continuity.BottleMarker {
		return continuity.BottleMarker{Tenant: tenantA, Agent: ag, SessionID: sid, Path: "/b/" + sid + ".md", Mode: "full", Gap: 1, Task: "t", ArmedAt: at}
	}
	m1, m2, m2b, m3 := marker(agent, "m1", T.Add(-us)), marker(agent, "m2", T), marker("codex", "m2b", T), marker(agent, "m3", T.Add(us))
	claimed := marker(agent, "claimed", T)
	for _, m := range []continuity.BottleMarker{m1, m2, m2b, m3, claimed} {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.ArmBottle(ctx, m) })
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.ClaimBottle(ctx, agent, "claimed", T)
		return err
	})
	b := marker(agent, "m2", T)
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.ArmBottle(ctx, b) })
	armed := func(after, notAfter time.Time, limit int) []continuity.BottleMarker {
		return listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.BottleMarker, error) {
			return tx.ArmedBottles(ctx, after, notAfter, limit)
		})
	}
	same(t, "(T-1µs, T]: oldest first, ties by agent", armed(T.Add(-us), T, 0), []continuity.BottleMarker{m2, m2b})
	same(t, "every armed one", armed(T.Add(-2*us), T.Add(us), 0), []continuity.BottleMarker{m1, m2, m2b, m3})
	same(t, "limit", armed(T.Add(-2*us), T.Add(us), 1), []continuity.BottleMarker{m1})
	if got := armed(T, T, 0); got == nil || len(got) != 0 {
		t.Errorf("an empty interval = %+v, want empty and non-nil", got)
	}
	failsWithACode(t, f, "ArmedBottles", func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.ArmedBottles(ctx, T, T, 10)
		return err
	})
}
