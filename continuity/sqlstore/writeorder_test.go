package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// TestWriteOrderMigration: migration 019 meets a store that already holds
// Stop excerpts and records. It numbers them in id order, per
// conversation and per tenant, so they read as they did; the rows written
// after it number on from there, whatever their ids, the next Stop's
// through the live touch (baton_touch_live on Postgres).
func TestWriteOrderMigration(t *testing.T) { onBothBackends(t, testWriteOrderMigration) }

func testWriteOrderMigration(t *testing.T, dsn string, raw *sql.DB) {
	ctx := context.Background()
	clock := storetest.NewClock()
	t0 := clock.Now()
	var st *sqlstore.Store
	var svc *continuity.Service
	open := func() {
		var err error
		if st, err = sqlstore.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		svc = continuity.New(st, continuity.WithClock(clock.Now))
	}
	write := func(tenant string, fn func(ctx context.Context, tx continuity.Tx) error) {
		t.Helper()
		if err := st.Write(ctx, tenant, fn); err != nil {
			t.Fatal(err)
		}
	}
	excerpt := func(tenant, text string, at time.Time) {
		write(tenant, func(ctx context.Context, tx continuity.Tx) error {
			return tx.InsertStopExcerpt(ctx, 0, &continuity.StopExcerpt{ID: storetest.IDAt(at), Agent: "claude-code", SessionID: "s1", Text: text, At: at})
		})
	}
	record := func(tenant, objective string, at time.Time) {
		write(tenant, func(ctx context.Context, tx continuity.Tx) error {
			return tx.InsertRecord(ctx, &continuity.Record{ID: storetest.IDAt(at), Kind: continuity.RecordHandover, Agent: "claude-code", SessionID: "s1",
				SessionRunID: uuid.Must(uuid.NewV7()), Project: "baton", Objective: objective, State: "s", NextAction: "n", CreatedAt: at})
		})
	}
	open()
	if _, err := svc.Open(ctx, "tenant-a", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
		t.Fatal(err)
	}
	// Written out of id order: before 019 they read in id order.
	excerpt("tenant-a", "old two", t0.Add(2*time.Millisecond))
	excerpt("tenant-a", "old one", t0.Add(time.Millisecond))
	excerpt("tenant-b", "b's", t0)
	record("tenant-a", "old two", t0.Add(2*time.Millisecond))
	record("tenant-a", "old one", t0.Add(time.Millisecond))
	record("tenant-b", "b's", t0)
	st.Close()

	// Back to before the migration, the rows kept.
	for _, q := range []string{
		`DROP INDEX stop_excerpts_seq_idx`, `DROP INDEX continuity_records_seq_idx`,
		`DROP INDEX continuity_records_project_seq_idx`, `DROP INDEX continuity_records_session_seq_idx`,
		`ALTER TABLE stop_excerpts DROP COLUMN seq`, `ALTER TABLE continuity_records DROP COLUMN seq`,
		`DELETE FROM baton_schema_migrations WHERE version = 19`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	open()
	defer st.Close()
	// The next Stop and handover, by writers whose clocks are behind.
	clock.Set(t0.Add(-time.Hour))
	text := "new, behind"
	if r, err := svc.Heartbeat(ctx, "tenant-a", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s1", Stop: true, LastMessageExcerpt: &text}); err != nil || r.Resurrected {
		t.Fatalf("the Stop = %+v, %v; want the live touch", r, err)
	}
	record("tenant-a", "new, behind", t0.Add(-time.Hour))

	type row struct {
		Text string
		Seq  int
	}
	read := func(tenant string) (excerpts, records []row) {
		t.Helper()
		if err := st.Read(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
			es, err := tx.StopExcerpts(ctx, "claude-code", "s1")
			for _, e := range es {
				excerpts = append(excerpts, row{e.Text, e.Seq})
			}
			if err != nil {
				return err
			}
			rs, err := tx.Records(ctx, continuity.RecordQuery{ByProject: true, Project: "baton"})
			for _, r := range rs {
				records = append(records, row{r.Objective, r.Seq})
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return excerpts, records
	}
	for _, tc := range []struct {
		tenant            string
		excerpts, records []row
	}{
		{"tenant-a", []row{{"old one", 1}, {"old two", 2}, {"new, behind", 3}}, []row{{"new, behind", 3}, {"old two", 2}, {"old one", 1}}},
		{"tenant-b", []row{{"b's", 1}}, []row{{"b's", 1}}},
	} {
		excerpts, records := read(tc.tenant)
		if !equalRows(excerpts, tc.excerpts) || !equalRows(records, tc.records) {
			t.Errorf("%s after the migration: excerpts %v, records %v; want %v and %v", tc.tenant, excerpts, records, tc.excerpts, tc.records)
		}
	}
}

func equalRows[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
