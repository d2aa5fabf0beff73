package sqlstore_test

import (
	"context"
	"database/sql"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/google/uuid"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// sizesBackend is one database's ledger counts: migration 014's on SQLite
// (a row per tenant), 015's on Postgres (a row per tenant plus the changes
// not yet folded into it).
type sizesBackend struct {
	name string
	dsn  string
	raw  *sql.DB // outside the store, seeing every tenant's rows
	// kept reads each tenant's counted lines; traces counts the rows of the
	// bookkeeping that name a tenant, pending those of its changes not yet
	// folded into its count.
	kept, traces, pending string
	// unmigrate returns the schema to before the counts' migration.
	unmigrate []string
}

func sqliteSizes(t *testing.T) sizesBackend {
	path := t.TempDir() + "/baton.db"
	raw, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return sizesBackend{name: "sqlite", dsn: path, raw: raw,
		kept:    `SELECT tenant, lines FROM ledger_sizes`,
		traces:  `SELECT count(*) FROM ledger_sizes WHERE tenant = ?`,
		pending: `SELECT 0 WHERE ? IS NOT NULL`,
		unmigrate: []string{`DROP TRIGGER ledger_sizes_insert`, `DROP TRIGGER ledger_sizes_delete`, `DROP TRIGGER ledger_sizes_update`,
			`DROP TABLE ledger_sizes`, `DELETE FROM baton_schema_migrations WHERE version = 14`}}
}

// postgresSizes runs the store as an owner bound by row-level security
// (the migration's count must still see every tenant) and reads the
// counts as the superuser of the test database.
func postgresSizes(t *testing.T) sizesBackend {
	base := sqltest.PostgresBase(t)
	dsn := ownerSchema(t, base)
	st, err := sqlstore.Open(context.Background(), dsn) // creates the schema's tables
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	var schema string
	if err := sqltest.PostgresDB(t, dsn).QueryRow(`SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return sizesBackend{name: "postgres", dsn: dsn, raw: sqltest.PostgresDB(t, sqltest.WithSearchPath(t, base, schema)),
		kept:    postgresKept,
		traces:  `SELECT (SELECT count(*) FROM ledger_sizes WHERE tenant = $1) + (SELECT count(*) FROM ledger_size_changes WHERE tenant = $1)`,
		pending: `SELECT count(*) FROM ledger_size_changes WHERE tenant = $1`,
		unmigrate: []string{`DROP TRIGGER ledger_sizes_insert ON ledger`, `DROP TRIGGER ledger_sizes_delete ON ledger`,
			`DROP TRIGGER ledger_sizes_update ON ledger`, `DROP TRIGGER ledger_sizes_truncate ON ledger`,
			`DROP FUNCTION baton_ledger_lines_added(), baton_ledger_lines_removed(), baton_ledger_lines_moved(), baton_ledger_truncated()`,
			`DROP TABLE ledger_sizes, ledger_size_changes`, `DELETE FROM baton_schema_migrations WHERE version = 15`}}
}

// postgresKept reads migration 015's counts: a tenant's folded count plus
// its changes not yet folded.
const postgresKept = `SELECT tenant, sum(lines) FROM (SELECT tenant, lines FROM ledger_sizes UNION ALL SELECT tenant, lines FROM ledger_size_changes) c
	GROUP BY tenant HAVING sum(lines) <> 0`

// sizes reads the counts the bookkeeping keeps and the ledger's own, by
// tenant.
func (b sizesBackend) sizes(t *testing.T) (kept, counted map[string]int) {
	t.Helper()
	read := func(q string) map[string]int {
		rows, err := b.raw.Query(q)
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
	return read(b.kept), read(`SELECT user_id, count(*) FROM ledger GROUP BY user_id`)
}

func ledgerLines(k int, at time.Time) []continuity.LedgerEntry {
	es := make([]continuity.LedgerEntry, k)
	for i := range es {
		es[i] = continuity.LedgerEntry{ID: uuid.Must(uuid.NewV7()), Event: "test.n", At: at}
	}
	return es
}

// TestLedgerSizes: the trim reads each tenant's count of ledger lines,
// which migration 014's triggers keep on SQLite and 015's on Postgres. The
// count equals the ledger's own after every way the ledger changes, an
// erase leaves no row naming the tenant, and the migration counts the
// lines a store already holds.
func TestLedgerSizes(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testLedgerSizes(t, sqliteSizes(t)) })
	t.Run("postgres", func(t *testing.T) { testLedgerSizes(t, postgresSizes(t)) })
}

func testLedgerSizes(t *testing.T, b sizesBackend) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, b.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	now := time.Now().UTC()
	write := func(tenant string, fn func(ctx context.Context, tx continuity.Tx) error) func() error {
		return func() error { return st.Write(ctx, tenant, fn) }
	}
	appendTo := func(tenant string, keep, k int, at time.Time) func() error {
		return write(tenant, func(ctx context.Context, tx continuity.Tx) error {
			return tx.AppendLedger(ctx, keep, ledgerLines(k, at)...)
		})
	}
	raw := func(q string) func() error {
		return func() error { _, err := b.raw.Exec(q); return err }
	}
	steps := []struct {
		name     string
		postgres bool // a step of Postgres alone
		do       func() error
		want     map[string]int
	}{
		{"appends without a bound", false, appendTo("a", 0, 7, now.Add(-time.Hour)), map[string]int{"a": 7}},
		{"another tenant's", false, appendTo("b", 0, 2, now), map[string]int{"a": 7, "b": 2}},
		{"an append past a bound of 4", false, appendTo("a", 4, 1, now), map[string]int{"a": 4, "b": 2}},
		{"an append within it", false, appendTo("a", 5, 1, now), map[string]int{"a": 5, "b": 2}},
		{"a prune of the old lines", false, write("a", func(ctx context.Context, tx continuity.Tx) error {
			_, err := tx.PruneLedger(ctx, now.Add(-time.Minute), 0)
			return err
		}), map[string]int{"a": 2, "b": 2}},
		{"an erase of a", false, func() error {
			for {
				n, err := st.EraseBatch(ctx, "a", 1)
				if err != nil || n == 0 {
					return err
				}
			}
		}, map[string]int{"b": 2}},
		{"a tenant moved (no path does; the count follows)", false, raw(`UPDATE ledger SET user_id = 'c' WHERE user_id = 'b'`), map[string]int{"c": 2}},
		{"lines again", false, appendTo("a", 3, 2, now), map[string]int{"a": 2, "c": 2}},
		{"every line deleted at once", false, raw(`DELETE FROM ledger`), map[string]int{}},
		{"lines after that", false, appendTo("a", 3, 4, now), map[string]int{"a": 3}},
		{"a truncate", true, raw(`TRUNCATE ledger`), map[string]int{}},
		{"lines after the truncate", true, appendTo("a", 3, 1, now), map[string]int{"a": 1}},
	}
	for _, s := range steps {
		if s.postgres && b.name != "postgres" {
			continue
		}
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		kept, counted := b.sizes(t)
		if !maps.Equal(kept, s.want) || !maps.Equal(counted, s.want) {
			t.Fatalf("after %s: counts %v, ledger %v; want %v", s.name, kept, counted, s.want)
		}
		if s.name == "an erase of a" {
			var n int
			if err := b.raw.QueryRow(b.traces, "a").Scan(&n); err != nil || n != 0 {
				t.Fatalf("after the erase %d rows of the counts name the tenant (%v), want none", n, err)
			}
		}
	}

	// A store from before the migration, holding lines of two tenants:
	// the migration counts them.
	if err := appendTo("c", 0, 3, now)(); err != nil {
		t.Fatal(err)
	}
	kept, _ := b.sizes(t)
	st.Close()
	for _, q := range b.unmigrate {
		if err := raw(q)(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if st, err = sqlstore.Open(ctx, b.dsn); err != nil {
		t.Fatal(err)
	}
	again, counted := b.sizes(t)
	if want := map[string]int{"a": kept["a"], "c": 3}; !maps.Equal(again, want) || !maps.Equal(counted, want) {
		t.Fatalf("after the migration: counts %v, ledger %v; want %v", again, counted, want)
	}

	// Appends without a bound fold their changes too: the bookkeeping of a
	// ledger that keeps every line does not grow with it.
	for range 10 {
		if err := appendTo("d", 0, 1, now)(); err != nil {
			t.Fatal(err)
		}
	}
	var pending int
	if err := b.raw.QueryRow(b.pending, "d").Scan(&pending); err != nil || pending > 1 {
		t.Fatalf("after ten unbounded appends, %d changes of the tenant are not folded (%v), want at most 1", pending, err)
	}
	if kept, counted := b.sizes(t); kept["d"] != 10 || counted["d"] != 10 {
		t.Fatalf("after ten unbounded appends: counted %d, ledger %d; want 10", kept["d"], counted["d"])
	}

	// 32 callers append past a bound of 5 at once (their trims skip one
	// another's on Postgres, and queue on SQLite's writer): the count
	// still agrees with the ledger, and the next append trims to the bound.
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 4 {
				if err := appendTo("e", 5, 1, now)(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if kept, counted := b.sizes(t); kept["e"] != counted["e"] {
		t.Fatalf("after 32 concurrent callers: counted %d, ledger %d", kept["e"], counted["e"])
	}
	if err := appendTo("e", 5, 1, now)(); err != nil {
		t.Fatal(err)
	}
	if kept, counted := b.sizes(t); kept["e"] != 5 || counted["e"] != 5 {
		t.Fatalf("after the next append: counted %d, ledger %d; want 5", kept["e"], counted["e"])
	}
}
