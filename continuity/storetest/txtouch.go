package storetest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

func init() {
	txContract["TouchLive"] = func(t *testing.T, f *fixture) {
		txTouchLive(t, f)
		txTouchLiveTrim(t, f) // other conversations of the same store
		txTouchLiveConcurrent(t, f)
	}
}

// txTouchLive: a live row takes the heartbeat in one transaction of its
// own (the floor, the counts, the excerpt, the Stop's excerpt row) and is
// returned as updated; a closed, lapsed, unknown or other tenant's row is
// nil and unchanged and no excerpt row is written, the lease boundary
// exactly as lease.Policy.Live decides it. The excerpts are trimmed at the
// stop counts the touch says, and a touch whose excerpt row cannot be
// written changes nothing.
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
	var stopExcerpts []uuid.UUID // the excerpt rows the live touches wrote
	touch := func(sid string, excerpt *string, stop, compact bool) *continuity.Session {
		t.Helper()
		tt := continuity.SessionTouch{Agent: agent, SessionID: sid, Now: now, LiveAfter: lp.LiveAfter(now),
			Excerpt: excerpt, Stop: stop, Compact: compact}
		if excerpt != nil {
			tt.StopExcerpt = &continuity.StopExcerpt{ID: uuid.Must(uuid.NewV7()), Text: *excerpt, Truncated: true}
		}
		got, err := f.store.TouchLive(context.Background(), tenantA, tt)
		if err != nil {
			t.Fatalf("TouchLive(%s): %v", sid, err)
		}
		if got != nil && tt.StopExcerpt != nil {
			stopExcerpts = append(stopExcerpts, tt.StopExcerpt.ID)
		}
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
	var written []uuid.UUID
	for _, sid := range []string{"live", "ahead", "inside", "at-expiry", "closed", "nobody"} {
		for _, e := range ofConversation(t, f, tenantA, agent, sid, continuity.Tx.StopExcerpts) {
			if e.Text != text || !e.Truncated || !e.At.Equal(now) || e.Tenant != tenantA || e.Agent != agent || e.SessionID != sid {
				t.Errorf("%s's excerpt row = %+v, want the touch's text, truncated, at now, of the conversation", sid, e)
			}
			written = append(written, e.ID)
		}
	}
	same(t, "the excerpt rows written (only by live touches)", written, stopExcerpts)
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

// txTouchLiveTrim: a live touch with an excerpt trims the conversation's
// excerpts to the newest KeepExcerpts exactly when the row's new stop
// count is above KeepExcerpts and a multiple of TrimEvery; another
// conversation's excerpts are untouched; a touch whose excerpt id exists
// is conflict and changes neither the row nor the excerpts; a refused
// tenant is invalid.
func txTouchLiveTrim(t *testing.T, f *fixture) {
	ctx := context.Background()
	now := f.clock.Now()
	trimmed := sessionRow("trim", "baton", now)
	for _, s := range []continuity.Session{trimmed, sessionRow("other", "baton", now)} {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		e := excerpt(agent, "other", "other's", now)
		return tx.InsertStopExcerpt(ctx, 0, &e)
	})
	const keep, every = 3, 2
	stop := func(sid string, id uuid.UUID, keepExcerpts int) (*continuity.Session, error) {
		text := "stop " + id.String()
		return f.store.TouchLive(ctx, tenantA, continuity.SessionTouch{Agent: agent, SessionID: sid, Now: now,
			LiveAfter: lease.Default.LiveAfter(now), Excerpt: &text, Stop: true,
			StopExcerpt: &continuity.StopExcerpt{ID: id, Text: text}, KeepExcerpts: keepExcerpts, TrimEvery: every})
	}
	var ids []uuid.UUID
	// stop count after the touch -> how many of the conversation's excerpts remain
	cases := []struct{ stops, held int }{
		{1, 1}, {2, 2}, {3, 3}, // at most keep: never trimmed, even on a multiple of every
		{4, 3}, // above keep on a multiple: trimmed to keep
		{5, 4}, // above keep, not a multiple: kept
		{6, 3},
		{7, 4},
	}
	for _, tc := range cases {
		id := uuid.Must(uuid.NewV7())
		ids = append(ids, id)
		row, err := stop("trim", id, keep)
		if err != nil || row == nil || row.StopCount != tc.stops {
			t.Fatalf("stop %d: TouchLive = %+v, %v; want the row with that stop count", tc.stops, row, err)
		}
		same(t, fmt.Sprintf("the excerpts after stop %d", tc.stops), rowIDs(ofConversation(t, f, tenantA, agent, "trim", continuity.Tx.StopExcerpts)), ids[len(ids)-tc.held:])
	}
	if got := ofConversation(t, f, tenantA, agent, "other", continuity.Tx.StopExcerpts); len(got) != 1 {
		t.Errorf("the other conversation's excerpts = %d, want its one untouched", len(got))
	}
	// KeepExcerpts 0: no trim at any count.
	id := uuid.Must(uuid.NewV7())
	ids = append(ids, id)
	if _, err := stop("trim", id, 0); err != nil {
		t.Fatal(err)
	}
	same(t, "the excerpts after stop 8 with KeepExcerpts 0", rowIDs(ofConversation(t, f, tenantA, agent, "trim", continuity.Tx.StopExcerpts)), ids[len(ids)-5:])

	before := readSession(t, f, tenantA, trimmed.ID)
	_, err := stop("trim", ids[len(ids)-1], keep)
	wantCode(t, err, continuity.CodeConflict)
	same(t, "the row after a touch whose excerpt id exists", readSession(t, f, tenantA, before.ID), before)
	same(t, "the excerpts after it", rowIDs(ofConversation(t, f, tenantA, agent, "trim", continuity.Tx.StopExcerpts)), ids[len(ids)-5:])

	for _, bad := range []string{"", "bad\x00tenant"} {
		_, err := f.store.TouchLive(ctx, bad, continuity.SessionTouch{Agent: agent, SessionID: "trim", Now: now, LiveAfter: now.Add(-time.Hour)})
		wantCode(t, err, continuity.CodeInvalid)
	}
	same(t, "the row after refused tenants", readSession(t, f, tenantA, before.ID), before)
}

// txTouchLiveConcurrent: 32 callers touch 8 conversations at once (so a
// store that coalesces touches sees one conversation twice and many in
// one statement), some of them with an excerpt whose id already exists.
// Every touch is applied exactly once or, the bad ones, refused as
// conflict alone: each row's stop count is its good touches, each
// conversation holds exactly their excerpts, and the other callers never
// see the bad one's error.
func txTouchLiveConcurrent(t *testing.T, f *fixture) {
	now := f.clock.Now()
	const callers, each, conversations = 32, 6, 8
	sid := func(i int) string { return fmt.Sprintf("many-%d", i%conversations) }
	for i := range conversations {
		s := sessionRow(sid(i), "baton", now)
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
	}
	taken := uuid.Must(uuid.NewV7())
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		e := excerpt(agent, "elsewhere", "taken", now)
		e.ID = taken
		return tx.InsertStopExcerpt(ctx, 0, &e)
	})
	var (
		mu      sync.Mutex
		good    = map[string]int{}
		written = map[string][]uuid.UUID{}
		wg      sync.WaitGroup
	)
	for c := range callers {
		wg.Go(func() {
			for k := range each {
				s := sid(c + k)
				bad := c%8 == 3 && k == 2
				id := uuid.Must(uuid.NewV7())
				if bad {
					id = taken
				}
				text := fmt.Sprintf("caller %d stop %d", c, k)
				row, err := f.store.TouchLive(context.Background(), tenantA, continuity.SessionTouch{Agent: agent, SessionID: s, Now: now,
					LiveAfter: lease.Default.LiveAfter(now), Excerpt: &text, Stop: true, StopExcerpt: &continuity.StopExcerpt{ID: id, Text: text}})
				switch {
				case bad:
					if continuity.ErrorCode(err) != continuity.CodeConflict {
						t.Errorf("caller %d's touch with a taken excerpt id: %v, want conflict", c, err)
					}
				case err != nil || row == nil || row.SessionID != s:
					t.Errorf("caller %d's touch of %s: %+v, %v; want its row", c, s, row, err)
				default:
					mu.Lock()
					good[s]++
					written[s] = append(written[s], id)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i := range conversations {
		s := sid(i)
		var row *continuity.Session
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			row, err = tx.SessionByKey(ctx, agent, s)
			return err
		})
		if row.StopCount != good[s] || row.ActivationStops != good[s] {
			t.Errorf("%s: stop count %d, activation stops %d; want %d, one per applied touch", s, row.StopCount, row.ActivationStops, good[s])
		}
		got := rowIDs(ofConversation(t, f, tenantA, agent, s, continuity.Tx.StopExcerpts))
		slices.SortFunc(got, uuidCompare)
		want := slices.SortedFunc(slices.Values(written[s]), uuidCompare)
		same(t, s+"'s excerpts", got, want)
	}
}

func uuidCompare(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }
