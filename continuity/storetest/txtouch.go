package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

func init() { txContract["TouchLive"] = txTouchLive }

// txTouchLive: a live row takes the heartbeat in one statement (the floor,
// the counts, the excerpt) and is returned as updated; a closed, lapsed,
// unknown or other tenant's row is nil and unchanged, the lease boundary
// exactly as lease.Policy.Live decides it.
func txTouchLive(t *testing.T, f *fixture) {
	now := f.clock.Now()
	lp := lease.Default
	closedAt := now.Add(-time.Minute)
	rows := map[string]continuity.Session{}
	add := func(tenant, sid string, lastSeen time.Time, closed bool) {
		s := sessionRow(sid, "baton", lastSeen)
		s.OpenedAt = lastSeen.Add(-time.Hour)
		if closed {
			s.ClosedAt = &closedAt
		}
		inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
		rows[tenant+"/"+sid] = s
	}
	add(tenantA, "live", now.Add(-time.Hour), false)
	add(tenantA, "ahead", now.Add(time.Minute), false) // last seen by a clock ahead of this one
	add(tenantA, "inside", now.Add(-lp.Lease+time.Microsecond), false)
	add(tenantA, "at-expiry", now.Add(-lp.Lease), false)
	add(tenantA, "closed", now.Add(-2*time.Minute), true)
	add(tenantB, "theirs", now.Add(-time.Hour), false)
	touch := func(sid string, excerpt *string, stop, compact bool) *continuity.Session {
		t.Helper()
		var got *continuity.Session
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.TouchLive(ctx, continuity.SessionTouch{Agent: agent, SessionID: sid, Now: now, LiveAfter: lp.LiveAfter(now),
				Excerpt: excerpt, Stop: stop, Compact: compact})
			return err
		})
		return got
	}
	text := "the last message"
	cases := []struct {
		name, sid     string
		excerpt       *string
		stop, compact bool
		live          bool
		lastSeen      time.Time
	}{
		{"a live row: floored to now, counted, its excerpt replaced", "live", &text, true, false, true, now},
		{"a row last seen ahead of now keeps its later instant", "ahead", nil, false, true, true, now.Add(time.Minute)},
		{"a microsecond inside the lease is live", "inside", nil, true, false, true, now},
		{"at the expiry instant it has lapsed", "at-expiry", &text, true, false, false, time.Time{}},
		{"an explicitly closed row", "closed", &text, true, false, false, time.Time{}},
		{"another tenant's row", "theirs", &text, true, false, false, time.Time{}},
		{"no row", "nobody", &text, true, false, false, time.Time{}},
	}
	for _, tc := range cases {
		before := rows[tenantA+"/"+tc.sid]
		got := touch(tc.sid, tc.excerpt, tc.stop, tc.compact)
		if !tc.live {
			if got != nil {
				t.Errorf("%s: TouchLive = %+v, want nil", tc.name, got)
			}
			if tc.sid != "nobody" && tc.sid != "theirs" {
				same(t, tc.name+": the row after", readSession(t, f, tenantA, before.ID), before)
			}
			continue
		}
		want := before
		want.LastSeenAt = tc.lastSeen
		if tc.excerpt != nil {
			want.LastMessageExcerpt = *tc.excerpt
		}
		if tc.stop {
			want.StopCount++
			want.ActivationStops++
		}
		if tc.compact {
			want.Compactions++
		}
		if got == nil {
			t.Errorf("%s: TouchLive = nil, want the row", tc.name)
			continue
		}
		same(t, tc.name+": the row returned", *got, want)
		same(t, tc.name+": the row read back", readSession(t, f, tenantA, before.ID), want)
	}
	theirs := rows[tenantB+"/theirs"]
	theirs.Tenant = tenantB // sessionRow's tenant field; the store keeps the writer's
	same(t, "tenant B's row after tenant A's touch", readSession(t, f, tenantB, theirs.ID), theirs)
}

// readSession reads a row by id as tenant.
func readSession(t *testing.T, f *fixture, tenant string, id uuid.UUID) continuity.Session {
	t.Helper()
	var got *continuity.Session
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		got, err = tx.SessionByID(ctx, id)
		return err
	})
	return *got
}
