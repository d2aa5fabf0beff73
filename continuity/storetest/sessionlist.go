package storetest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// The session listing: Tx.Sessions's contract case (registered in
// txContract here, so a group adds its case without editing the table) and
// Service.Sessions's lease-state filter at each boundary.
func init() { txContract["Sessions"] = txSessions }

func txSessions(t *testing.T, f *fixture) {
	now := f.clock.Now()
	s1, s2, s3, s4 := sessionRow("s1", "p", now), sessionRow("s2", "p", now), sessionRow("s3", "", now), sessionRow("s4", "q", now)
	s2.Agent = "codex"
	s4.ClosedAt = &now // a closed row is listed like any other
	b := sessionRow("b", "p", now)
	rows := []*continuity.Session{&s1, &s2, &s3, &s4}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, s := range rows {
			if err := tx.InsertSession(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &b) })
	ids := func(ss ...continuity.Session) []uuid.UUID {
		out := []uuid.UUID{}
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	cases := []struct {
		name   string
		tenant string
		q      continuity.SessionQuery
		want   []uuid.UUID
	}{
		{"all, newest first", tenantA, continuity.SessionQuery{}, ids(s4, s3, s2, s1)},
		{"by project", tenantA, continuity.SessionQuery{ByProject: true, Project: "p"}, ids(s2, s1)},
		{"by no project", tenantA, continuity.SessionQuery{ByProject: true}, ids(s3)},
		{"project without ByProject matches anything", tenantA, continuity.SessionQuery{Project: "nope"}, ids(s4, s3, s2, s1)},
		{"by agent", tenantA, continuity.SessionQuery{Agent: "codex"}, ids(s2)},
		{"keyset before", tenantA, continuity.SessionQuery{Before: s3.ID}, ids(s2, s1)},
		{"keyset before the oldest", tenantA, continuity.SessionQuery{Before: s1.ID}, ids()},
		{"limit", tenantA, continuity.SessionQuery{Limit: 2}, ids(s4, s3)},
		{"a limit below 1 is no limit", tenantA, continuity.SessionQuery{Limit: -1}, ids(s4, s3, s2, s1)},
		{"states are the service's filter", tenantA, continuity.SessionQuery{States: []lease.State{lease.Live}}, ids(s4, s3, s2, s1)},
		{"tenant B sees its own row only", tenantB, continuity.SessionQuery{}, ids(b)},
		{"tenant B's project", tenantB, continuity.SessionQuery{ByProject: true, Project: "q"}, ids()},
	}
	for _, tc := range cases {
		got := listOf(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) ([]continuity.Session, error) {
			return tx.Sessions(ctx, tc.q)
		})
		wantIDs(t, tc.name, got, tc.want)
	}
	got := listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.Session, error) {
		return tx.Sessions(ctx, continuity.SessionQuery{Agent: "codex"})
	})
	if len(got) == 1 {
		same(t, "a listed row reads back as written", got[0], s2)
	}
}

// testSessionList: the listing carries each row's lease state at the read's
// instant, filters on it at each lease boundary, scans past rows the filter
// drops, and validates its query.
func testSessionList(t *testing.T, h Harness) {
	ctx := context.Background()
	lapse := lease.Default.Lease

	t.Run("StatesAtTheBoundaries", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		now := f.clock.Now()
		row := func(sid string, lastSeen time.Time, closed *time.Time) continuity.Session {
			s := sessionRow(sid, "baton", lastSeen)
			s.ClosedAt = closed
			return s
		}
		at := func(t time.Time) *time.Time { return &t }
		seen := now.Add(-2 * lapse)
		rows := []continuity.Session{
			row("live-1us", now.Add(-lapse+time.Microsecond), nil),
			row("lapsed-at-expiry", now.Add(-lapse), nil),
			row("lapsed-1us", now.Add(-lapse-time.Microsecond), nil),
			row("closed-1us-before-expiry", seen, at(seen.Add(lapse-time.Microsecond))),
			row("closed-at-expiry", seen, at(seen.Add(lapse))),
			row("closed-1us-after-expiry", seen, at(seen.Add(lapse+time.Microsecond))),
		}
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			for i := range rows {
				if err := tx.InsertSession(ctx, &rows[i]); err != nil {
					return err
				}
			}
			return nil
		})
		want := map[string]lease.State{
			"live-1us": lease.Live, "lapsed-at-expiry": lease.ImplicitlyClosed, "lapsed-1us": lease.ImplicitlyClosed,
			"closed-1us-before-expiry": lease.ExplicitlyClosed, "closed-at-expiry": lease.ImplicitlyClosed,
			"closed-1us-after-expiry": lease.ImplicitlyClosed,
		}
		all, err := f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(rows) {
			t.Fatalf("listed %d rows, want %d", len(all), len(rows))
		}
		for i, v := range all {
			if w := rows[len(rows)-1-i]; v.ID != w.ID {
				t.Errorf("row %d is %s, want %s (newest first)", i, v.SessionID, w.SessionID)
			}
			if v.State != want[v.SessionID] {
				t.Errorf("%s: state %s, want %s", v.SessionID, v.State, want[v.SessionID])
			}
		}
		for _, tc := range []struct {
			states []lease.State
			want   []string
		}{
			{[]lease.State{lease.Live}, []string{"live-1us"}},
			{[]lease.State{lease.ExplicitlyClosed}, []string{"closed-1us-before-expiry"}},
			{[]lease.State{lease.ImplicitlyClosed}, []string{"closed-1us-after-expiry", "closed-at-expiry", "lapsed-1us", "lapsed-at-expiry"}},
			{[]lease.State{lease.Live, lease.ExplicitlyClosed}, []string{"closed-1us-before-expiry", "live-1us"}},
		} {
			got, err := f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{States: tc.states})
			if err != nil {
				t.Fatal(err)
			}
			if names := sessionIDs(got); strings.Join(names, " ") != strings.Join(tc.want, " ") {
				t.Errorf("states %v: %v, want %v", tc.states, names, tc.want)
			}
		}
		// One microsecond later the live row's lease has lapsed.
		f.clock.Advance(time.Microsecond)
		got, err := f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{States: []lease.State{lease.Live}})
		if err != nil || len(got) != 0 {
			t.Errorf("live a microsecond later: %v, %v; want none", sessionIDs(got), err)
		}
		other, err := f.svc.Sessions(ctx, tenantB, continuity.SessionQuery{})
		wantEmpty(t, "tenant B's listing", other, err)
	})

	t.Run("FilterScansPastDroppedRows", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		now := f.clock.Now()
		// Three live rows, then more lapsed rows (newer ids) than one
		// page of the store holds: the live ones are found behind them.
		var rows []continuity.Session
		for i := range 3 {
			rows = append(rows, sessionRow("live-"+string(rune('a'+i)), "baton", now))
		}
		for i := range continuity.MaxSessions + 20 {
			rows = append(rows, sessionRow("lapsed-"+strconv.Itoa(i), "baton", now.Add(-2*lapse)))
		}
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			for i := range rows {
				if err := tx.InsertSession(ctx, &rows[i]); err != nil {
					return err
				}
			}
			return nil
		})
		live := []lease.State{lease.Live}
		got, err := f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{States: live, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if names := strings.Join(sessionIDs(got), " "); names != "live-c live-b" {
			t.Errorf("two live rows: %s, want live-c live-b", names)
		}
		if got, err = f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{States: live}); err != nil || len(got) != 3 {
			t.Errorf("every live row: %v, %v", sessionIDs(got), err)
		}
		if got, err = f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{}); err != nil || len(got) != continuity.MaxSessions {
			t.Errorf("unfiltered default limit: %d rows, %v; want %d", len(got), err, continuity.MaxSessions)
		}
		if got, err = f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{Before: rows[2].ID, States: live}); err != nil || strings.Join(sessionIDs(got), " ") != "live-b live-a" {
			t.Errorf("keyset before live-c: %v, %v", sessionIDs(got), err)
		}
	})

	t.Run("Validation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		for _, tc := range []struct {
			name   string
			tenant string
			q      continuity.SessionQuery
			field  string
		}{
			{"limit below 1", tenantA, continuity.SessionQuery{Limit: -1}, "limit"},
			{"limit over the bound", tenantA, continuity.SessionQuery{Limit: continuity.MaxSessions + 1}, "limit"},
			{"a state no rule has", tenantA, continuity.SessionQuery{States: []lease.State{lease.ExplicitlyClosed + 1}}, "states"},
			{"an agent that is no agent name", tenantA, continuity.SessionQuery{Agent: "Claude Code"}, "agent"},
			{"a project over the bound", tenantA, continuity.SessionQuery{Project: strings.Repeat("p", continuity.MaxFacetLen+1)}, "project"},
			{"a project that is not UTF-8", tenantA, continuity.SessionQuery{Project: "\xff"}, "project"},
			{"no tenant", "", continuity.SessionQuery{}, "tenant"},
		} {
			_, err := f.svc.Sessions(ctx, tc.tenant, tc.q)
			if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] == "" {
				t.Errorf("%s: %v, want invalid naming %s", tc.name, err, tc.field)
			}
		}
		for _, limit := range []int{1, continuity.MaxSessions} {
			if got, err := f.svc.Sessions(ctx, tenantA, continuity.SessionQuery{Limit: limit}); err != nil || len(got) != 1 {
				t.Errorf("limit %d: %d rows, %v", limit, len(got), err)
			}
		}
	})
}

func sessionIDs(vs []continuity.SessionView) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.SessionID)
	}
	return out
}
