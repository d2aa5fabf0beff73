package sqlstore_test

import (
	"context"
	"database/sql"
	"maps"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// ledgerSizes reads migration 014's counts and the ledger's own, by tenant.
func ledgerSizes(t *testing.T, db *sql.DB) (kept, counted map[string]int) {
	t.Helper()
	read := func(q string) map[string]int {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int{}
		for rows.Next() {
			var tenant string
			var n int
			if err := rows.Scan(&tenant, &n); err != nil {
				t.Fatal(err)
			}
			out[tenant] = n
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	return read(`SELECT tenant, lines FROM ledger_sizes`), read(`SELECT user_id, count(*) FROM ledger GROUP BY user_id`)
}

// TestSQLiteLedgerSizes: on SQLite the trim reads the tenant's count of
// ledger lines that migration 014's triggers keep. The count equals the
// ledger's own after every way the ledger changes, a tenant's count row
// goes with its last line (an erase leaves no trace of the tenant), and
// the migration counts the lines a store already holds.
func TestSQLiteLedgerSizes(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/baton.db"
	st, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	now := time.Now().UTC()
	lines := func(k int, at time.Time) []continuity.LedgerEntry {
		es := make([]continuity.LedgerEntry, k)
		for i := range es {
			es[i] = continuity.LedgerEntry{ID: uuid.Must(uuid.NewV7()), Event: "test.n", At: at}
		}
		return es
	}
	write := func(tenant string, fn func(ctx context.Context, tx continuity.Tx) error) func() error {
		return func() error { return st.Write(ctx, tenant, fn) }
	}
	appendTo := func(tenant string, keep, k int, at time.Time) func() error {
		return write(tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, keep, lines(k, at)...) })
	}
	steps := []struct {
		name string
		do   func() error
		want map[string]int
	}{
		{"appends without a bound", appendTo("a", 0, 7, now.Add(-time.Hour)), map[string]int{"a": 7}},
		{"another tenant's", appendTo("b", 0, 2, now), map[string]int{"a": 7, "b": 2}},
		{"an append past a bound of 4", appendTo("a", 4, 1, now), map[string]int{"a": 4, "b": 2}},
		{"a prune of the old lines", write("a", func(ctx context.Context, tx continuity.Tx) error {
			_, err := tx.PruneLedger(ctx, now.Add(-time.Minute), 0)
			return err
		}), map[string]int{"a": 1, "b": 2}},
		{"an erase of a", func() error {
			_, err := st.EraseBatch(ctx, "a", 100)
			return err
		}, map[string]int{"b": 2}},
		{"a tenant moved (no path does; the count follows)", func() error {
			_, err := raw.Exec(`UPDATE ledger SET user_id = 'c' WHERE user_id = 'b'`)
			return err
		}, map[string]int{"c": 2}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		kept, counted := ledgerSizes(t, raw)
		if !maps.Equal(kept, s.want) || !maps.Equal(counted, s.want) {
			t.Fatalf("after %s: counts %v, ledger %v; want %v", s.name, kept, counted, s.want)
		}
	}

	// A store from before migration 014, holding lines: the migration
	// counts them.
	if err := appendTo("a", 0, 3, now)(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, q := range []string{`DROP TRIGGER ledger_sizes_insert`, `DROP TRIGGER ledger_sizes_delete`, `DROP TRIGGER ledger_sizes_update`,
		`DROP TABLE ledger_sizes`, `DELETE FROM baton_schema_migrations WHERE version = 14`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	st, err = sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kept, counted := ledgerSizes(t, raw)
	if want := map[string]int{"a": 3, "c": 2}; !maps.Equal(kept, want) || !maps.Equal(counted, want) {
		t.Fatalf("after the migration: counts %v, ledger %v; want %v", kept, counted, want)
	}
}
