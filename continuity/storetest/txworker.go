package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// The worker's Store and Tx methods, each on its own (see txcontract.go).
func init() {
	txContract["Lapsed"] = txLapsed
	txContract["CloserDue"] = txCloserDue
	txContract["TrySessionByID"] = txTrySessionByID
	txContract["ClaimCloser"] = txClaimCloser
}

// refs returns the pairs with the ids, in order, each of its tenant.
func refs(pairs ...any) []continuity.RowRef {
	out := []continuity.RowRef{}
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, continuity.RowRef{Tenant: pairs[i].(string), ID: pairs[i+1].(uuid.UUID)})
	}
	return out
}

// insertRows inserts each tenant's rows in one write transaction.
func insertRows(t *testing.T, f *fixture, tenant string, rows ...*continuity.Session) {
	t.Helper()
	inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		for _, s := range rows {
			if err := tx.InsertSession(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// discovered returns the check of one discovery call's answer: want, in
// order, and no error.
func discovered(t *testing.T, name string, want []continuity.RowRef) func([]continuity.RowRef, error) {
	return func(got []continuity.RowRef, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		same(t, name, got, want)
	}
}

// discoveryLimits asserts that a discovery method refuses a limit outside 1
// to MaxDiscover, naming it.
func discoveryLimits(t *testing.T, name string, discover func(limit int) ([]continuity.RowRef, error)) {
	t.Helper()
	for _, n := range []int{-1, 0, continuity.MaxDiscover + 1} {
		_, err := discover(n)
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)["limit"] == "" {
			t.Errorf("%s with limit %d: %v, want invalid naming limit", name, n, err)
		}
	}
	if _, err := discover(continuity.MaxDiscover); err != nil {
		t.Errorf("%s with limit MaxDiscover: %v", name, err)
	}
}

func txLapsed(t *testing.T, f *fixture) {
	ctx := t.Context()
	before := f.clock.Now()
	at := func(sid string, d time.Duration) continuity.Session { return sessionRow(sid, "baton", before.Add(d)) }
	oldest, tieFirst, tieSecond := at("oldest", -3*time.Hour), at("tie-1", -2*time.Hour), at("tie-2", -2*time.Hour)
	justBefore, atBoundary, after := at("just-before", -time.Microsecond), at("boundary", 0), at("after", time.Hour)
	closed := at("closed", -5*time.Hour)
	closed.ClosedAt = &before
	b, bClosed := at("b", -150*time.Minute), at("b-closed", -6*time.Hour)
	bClosed.ClosedAt = &before
	insertRows(t, f, tenantA, &justBefore, &tieSecond, &after, &oldest, &atBoundary, &closed, &tieFirst)
	insertRows(t, f, tenantB, &b, &bClosed)

	all := refs(tenantA, oldest.ID, tenantB, b.ID, tenantA, tieFirst.ID, tenantA, tieSecond.ID, tenantA, justBefore.ID)
	cases := []struct {
		name   string
		before time.Time
		limit  int
		want   []continuity.RowRef
	}{
		{"every tenant's open rows, oldest first, ties in id order, the instant excluded", before, 10, all},
		{"at most limit, the oldest", before, 2, all[:2]},
		{"one microsecond later includes the boundary row", before.Add(time.Microsecond), 10, append(slices.Clone(all), refs(tenantA, atBoundary.ID)...)},
		{"nothing before the oldest", oldest.LastSeenAt, 10, refs()},
	}
	for _, tc := range cases {
		discovered(t, tc.name, tc.want)(f.store.Lapsed(ctx, tc.before, tc.limit))
	}
	discoveryLimits(t, "Lapsed", func(n int) ([]continuity.RowRef, error) { return f.store.Lapsed(ctx, before, n) })
}

func txCloserDue(t *testing.T, f *fixture) {
	ctx := t.Context()
	now := f.clock.Now()
	closedAt := now.Add(-48 * time.Hour)
	row := func(sid, status string, due *time.Time, closed bool) continuity.Session {
		s := sessionRow(sid, "baton", now.Add(-72*time.Hour))
		s.TriageStatus, s.CloserNextAt = status, due
		if closed {
			s.ClosedAt = &closedAt
		}
		return s
	}
	dueAt := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	idle, pending := row("idle", "idle", dueAt(-3*time.Hour), true), row("pending", "pending", dueAt(-2*time.Hour), true)
	expired, completed := row("expired", "expired", dueAt(-time.Hour), true), row("completed", "completed", dueAt(-time.Microsecond), true)
	atNow, later := row("at-now", "idle", dueAt(0), true), row("later", "idle", dueAt(time.Microsecond), true)
	overflowed := row("overflowed", "overflowed", dueAt(-4*time.Hour), true)
	finished := row("finished", "completed", nil, true)
	open := row("open", "idle", dueAt(-5*time.Hour), false)
	b := row("b", "expired", dueAt(-90*time.Minute), true)
	insertRows(t, f, tenantA, &later, &completed, &idle, &overflowed, &atNow, &finished, &expired, &open, &pending)
	insertRows(t, f, tenantB, &b)

	all := refs(tenantA, idle.ID, tenantA, pending.ID, tenantB, b.ID, tenantA, expired.ID, tenantA, completed.ID, tenantA, atNow.ID)
	cases := []struct {
		name  string
		at    time.Time
		limit int
		want  []continuity.RowRef
	}{
		{"every tenant's closed rows due at the instant, in due order; overflowed, finished and open rows never", now, 10, all},
		{"at most limit, the earliest due", now, 3, all[:3]},
		{"one microsecond later includes the row due then", now.Add(time.Microsecond), 10, append(slices.Clone(all), refs(tenantA, later.ID)...)},
		{"one microsecond earlier excludes the row due now", now.Add(-time.Microsecond), 10, all[:5]},
		{"nothing before the earliest", now.Add(-3*time.Hour - time.Microsecond), 10, refs()},
	}
	for _, tc := range cases {
		discovered(t, tc.name, tc.want)(f.store.CloserDue(ctx, tc.at, tc.limit))
	}
	discoveryLimits(t, "CloserDue", func(n int) ([]continuity.RowRef, error) { return f.store.CloserDue(ctx, now, n) })
}

func txTrySessionByID(t *testing.T, f *fixture) {
	sessionLookup(t, f, "TrySessionByID", func(ctx context.Context, tx continuity.Tx, s continuity.Session) (*continuity.Session, error) {
		return tx.TrySessionByID(ctx, s.ID)
	}, []continuity.Session{{ID: newID()}, {ID: uuid.Nil}})
	// A row another transaction holds is not_found at once, not waited
	// for; another row of the tenant is read as usual.
	held, free := sessionRow("held", "baton", f.clock.Now()), sessionRow("free", "baton", f.clock.Now())
	insertRows(t, f, tenantA, &held, &free)
	whileHeld(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByID(ctx, held.ID)
		return err
	}, func(ctx context.Context, tx continuity.Tx) error {
		if _, err := tx.TrySessionByID(ctx, held.ID); continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Errorf("TrySessionByID of a held row: %v, want not_found", err)
		}
		got, err := tx.TrySessionByID(ctx, free.ID)
		if err != nil || got.ID != free.ID {
			t.Errorf("TrySessionByID of a free row: %v, %v", got, err)
		}
		return nil
	})
}

func txClaimCloser(t *testing.T, f *fixture) {
	now := f.clock.Now()
	closedAt := now.Add(-time.Hour)
	observed := newID()
	fresh := func(status string, attempt uuid.UUID, closed bool) continuity.Session {
		s := sessionRow("s-"+newID().String(), "baton", now.Add(-2*time.Hour))
		s.ActivationEpoch, s.TriageStatus, s.TriageAttemptID, s.CloserNextAt = 3, status, attempt, &closedAt
		if closed {
			s.ClosedAt = &closedAt
		}
		return s
	}
	until := now.Add(15 * time.Minute)
	claimOf := func(s continuity.Session) continuity.CloserClaim {
		return continuity.CloserClaim{ID: s.ID, Epoch: s.ActivationEpoch, AttemptID: s.TriageAttemptID, Status: s.TriageStatus,
			Token: newID(), ClaimStatus: "expired", Until: until}
	}
	cases := []struct {
		name   string
		row    continuity.Session
		tenant string
		edit   func(c *continuity.CloserClaim)
		want   bool
	}{
		{"a pending row at the observed epoch and attempt", fresh("pending", observed, true), tenantA, nil, true},
		{"an idle row with no attempt", fresh("idle", uuid.Nil, true), tenantA, func(c *continuity.CloserClaim) { c.ClaimStatus = "idle" }, true},
		{"a stale epoch (the run was resurrected)", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.Epoch-- }, false},
		{"a newer epoch than the row's", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.Epoch++ }, false},
		{"a stale attempt (another claim took it)", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.AttemptID = newID() }, false},
		{"an attempt where the row has none", fresh("idle", uuid.Nil, true), tenantA, func(c *continuity.CloserClaim) { c.AttemptID = observed }, false},
		{"no attempt where the row has one", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.AttemptID = uuid.Nil }, false},
		{"a stale status", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.Status = "idle" }, false},
		{"an open row", fresh("pending", observed, false), tenantA, nil, false},
		{"tenant A's row from tenant B", fresh("pending", observed, true), tenantB, nil, false},
		{"an unknown row", fresh("pending", observed, true), tenantA, func(c *continuity.CloserClaim) { c.ID = newID() }, false},
	}
	for _, tc := range cases {
		insertRows(t, f, tenantA, &tc.row)
		c := claimOf(tc.row)
		if tc.edit != nil {
			tc.edit(&c)
		}
		var ok bool
		inWrite(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			ok, err = tx.ClaimCloser(ctx, c)
			return err
		})
		if ok != tc.want {
			t.Errorf("%s: claimed %v, want %v", tc.name, ok, tc.want)
		}
		want := tc.row
		if tc.want {
			want.TriageAttemptID, want.TriageStatus, want.CloserNextAt = c.Token, c.ClaimStatus, &until
		}
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			got, err := tx.SessionByID(ctx, tc.row.ID)
			if err != nil {
				return err
			}
			same(t, tc.name+": the row after the claim", *got, want)
			return nil
		})
	}
	// Of two claims observing the same attempt, the second finds the
	// first's token and takes nothing.
	row := fresh("pending", observed, true)
	insertRows(t, f, tenantA, &row)
	first, second := claimOf(row), claimOf(row)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		ok1, err := tx.ClaimCloser(ctx, first)
		if err != nil {
			return err
		}
		second.Status = "expired"
		ok2, err := tx.ClaimCloser(ctx, second)
		if !ok1 || ok2 {
			t.Errorf("two claims observing one attempt: first %v, second %v; want only the first", ok1, ok2)
		}
		return err
	})
}
