package sqlstore_test

import (
	"context"
	"database/sql"
	"maps"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestExcerptPromptNumberMigration: migration 018 meets a store that
// already holds Stop excerpts. Those rows get no prompt number and are
// filed by time, as before (the one a clock step stamped a microsecond
// before its prompt under the turn before); the next Stop's excerpt,
// stamped the same way, records its turn. On both backends, the Stops
// through the live touch (baton_touch_live on Postgres).
func TestExcerptPromptNumberMigration(t *testing.T) { onBothBackends(t, testPromptNumberMigration) }

// onBothBackends runs a migration's test on a fresh SQLite file and a
// fresh Postgres schema, each by its DSN and a raw handle on it.
func onBothBackends(t *testing.T, test func(t *testing.T, dsn string, raw *sql.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		path := t.TempDir() + "/baton.db"
		raw, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		test(t, path, raw)
	})
	t.Run("postgres", func(t *testing.T) {
		st, dsn := sqltest.PostgresStore(t, sqltest.PostgresBase(t))
		st.Close()
		test(t, dsn, sqltest.PostgresDB(t, dsn))
	})
}

func testPromptNumberMigration(t *testing.T, dsn string, raw *sql.DB) {
	ctx := context.Background()
	clock := storetest.NewClock()
	prompt1 := clock.Now().Add(time.Minute)
	prompt2 := prompt1.Add(2 * time.Minute)
	var st *sqlstore.Store
	var svc *continuity.Service
	open := func() {
		var err error
		if st, err = sqlstore.Open(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		svc = continuity.New(st, continuity.WithClock(clock.Now))
	}
	at := func(when time.Time, f func() error) {
		t.Helper()
		clock.Set(when)
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	prompt := func(text string) func() error {
		return func() error { _, err := svc.RecordPrompt(ctx, "tenant-a", "claude-code", "s1", text); return err }
	}
	stop := func(text string) func() error {
		return func() error {
			r, err := svc.Heartbeat(ctx, "tenant-a", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s1", Stop: true, LastMessageExcerpt: &text})
			if err == nil && r.Resurrected {
				t.Fatalf("the Stop of %q resurrected the row: it was to run the live touch", text)
			}
			return err
		}
	}
	open()
	at(clock.Now(), func() error {
		_, err := svc.Open(ctx, "tenant-a", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup})
		return err
	})
	at(prompt1, prompt("first"))
	at(prompt1.Add(time.Minute), stop("old"))
	at(prompt2, prompt("second"))
	at(prompt2.Add(-time.Microsecond), stop("old, stamped before its prompt"))
	st.Close()

	// Back to before the migration, the rows kept.
	for _, q := range []string{`ALTER TABLE stop_excerpts DROP COLUMN prompt_number`, `DELETE FROM baton_schema_migrations WHERE version = 18`} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	open()
	defer st.Close()
	at(prompt2.Add(-time.Microsecond), stop("new, stamped before its prompt"))

	var rows []continuity.StopExcerpt
	if err := st.Read(ctx, "tenant-a", func(ctx context.Context, tx continuity.Tx) error {
		var err error
		rows, err = tx.StopExcerpts(ctx, "claude-code", "s1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	numbers := map[string]*int{}
	for _, r := range rows {
		numbers[r.Text] = r.PromptNumber
	}
	if len(rows) != 3 || numbers["old"] != nil || numbers["old, stamped before its prompt"] != nil ||
		numbers["new, stamped before its prompt"] == nil || *numbers["new, stamped before its prompt"] != 2 {
		t.Fatalf("excerpts after the migration: %+v; want the two older without a number and the new one numbered 2", rows)
	}
	hist, err := svc.SessionHistory(ctx, "tenant-a", "claude-code", "s1")
	if err != nil {
		t.Fatal(err)
	}
	turns := map[string]int{}
	for _, e := range hist.StopExcerpts {
		turns[e.Text] = e.PromptNumber
	}
	if want := map[string]int{"old": 1, "old, stamped before its prompt": 1, "new, stamped before its prompt": 2}; !maps.Equal(turns, want) {
		t.Fatalf("turns after the migration: %v, want %v", turns, want)
	}
}
