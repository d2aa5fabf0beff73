package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
)

// TestPostgresLiveHeartbeatIsHOT: a live heartbeat (baton_touch_live, what
// TouchLive runs), with and without a Stop's excerpt, updates its row as a
// heap-only tuple, so it writes no index entry (migration 013): no index of
// agent_sessions names a column it changes, and its page has room. The
// counts are read inside the touch's transaction.
func TestPostgresLiveHeartbeatIsHOT(t *testing.T) {
	base := sqltest.PostgresBase(t)
	st, dsn := sqltest.PostgresStore(t, base)
	ctx := context.Background()
	svc := continuity.New(st)
	if _, err := svc.Open(ctx, "tenant-a", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
		t.Fatal(err)
	}
	db := sqltest.PostgresDB(t, dsn)

	excerpt, id := "Done.", "0190a0a0-0000-7000-8000-000000000001"
	for _, tc := range []struct {
		name      string
		excerpt   *string
		excerptID *string
		stops     int32
	}{
		{"heartbeat", nil, nil, 0},
		{"stop with an excerpt", &excerpt, &id, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			counts := func() (updated, hot int) {
				err := tx.QueryRowContext(ctx, `SELECT pg_stat_get_xact_tuples_updated('agent_sessions'::regclass),
					pg_stat_get_xact_tuples_hot_updated('agent_sessions'::regclass)`).Scan(&updated, &hot)
				if err != nil {
					t.Fatal(err)
				}
				return updated, hot
			}
			// The backend's counts not yet reported include its earlier
			// transactions': the touch's are the difference.
			updated0, hot0 := counts()
			now := time.Now().UTC()
			var n int
			err = tx.QueryRowContext(ctx, `SELECT count(*) FROM baton_touch_live(false, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
				"tenant-a", []string{"claude-code"}, []string{"s1"}, []time.Time{now}, []time.Time{now.Add(-time.Hour)},
				[]*string{tc.excerpt}, []int32{tc.stops}, []int32{0}, []*string{tc.excerptID}, []*string{tc.excerpt},
				[]bool{false}, []int32{continuity.MaxStopExcerpts}, []int32{continuity.ExcerptTrimEvery}).Scan(&n)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("the touch returned %d rows, want the live one", n)
			}
			updated, hot := counts()
			if updated, hot = updated-updated0, hot-hot0; updated != 1 || hot != 1 {
				t.Errorf("the touch updated %d rows, %d of them heap-only; want 1 and 1", updated, hot)
			}
		})
	}
}
