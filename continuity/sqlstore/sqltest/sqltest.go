// Package sqltest opens real stores for tests: a SQLite file in the
// test's temporary directory always, and a fresh schema of the Postgres
// database BATON_TEST_POSTGRES_DSN names when it is set. The store's own
// suite (continuity/sqlstore) and the packages above it that run the
// scenario suite through another transport (adapters/httpapi) share it, so
// a test database is set up one way.
package sqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/storetest"
)

// EnvPostgres names the Postgres database the Postgres half of a suite runs
// against.
const EnvPostgres = "BATON_TEST_POSTGRES_DSN"

// SQLite is the harness of a fresh SQLite store per test.
var SQLite = SQLiteWith()

// SQLiteWith is the harness of a fresh SQLite store per test opened with
// opts (sqlstore.OneConnection, say).
func SQLiteWith(opts ...sqlstore.Option) storetest.Harness {
	return storetest.Harness{New: func(t *testing.T) (continuity.Store, string) {
		dsn := filepath.Join(t.TempDir(), "baton.db")
		st, err := sqlstore.Open(context.Background(), dsn, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, dsn
	}, Open: func(ctx context.Context, dsn string) (continuity.Store, error) {
		return sqlstore.Open(ctx, dsn, opts...)
	}, OpenClocked: func(ctx context.Context, dsn string, host func() time.Time) (continuity.Store, error) {
		return sqlstore.Open(ctx, dsn, append(append([]sqlstore.Option{}, opts...), sqlstore.HostClock(host))...)
	}}
}

// Postgres returns the harness of a fresh Postgres schema per test, skipping
// t when BATON_TEST_POSTGRES_DSN is unset and failing it when the database
// is unusable: CI sets the variable, and a suite that silently skipped there
// would prove nothing.
func Postgres(t *testing.T) storetest.Harness {
	base := PostgresBase(t)
	return storetest.Harness{New: func(t *testing.T) (continuity.Store, string) { return PostgresStore(t, base) }, Open: open, OpenClocked: openClocked}
}

// PostgresBase returns BATON_TEST_POSTGRES_DSN, skipping t when it is unset
// and failing it when the database is unusable.
func PostgresBase(t testing.TB) string {
	base := os.Getenv(EnvPostgres)
	if base == "" {
		t.Skip(EnvPostgres + " is not set")
	}
	admin, err := sqlstore.Open(context.Background(), base)
	if err != nil {
		t.Fatalf(EnvPostgres+" is set but Postgres is unusable: %v", err)
	}
	admin.Close()
	return base
}

// PostgresStore opens a store in a fresh schema of base, dropped when the
// test ends, and returns it with its DSN.
func PostgresStore(t testing.TB, base string) (*sqlstore.Store, string) {
	schema := "bt_" + RandomHex(6)
	if err := sqlstore.CreateSchema(context.Background(), base, schema); err != nil {
		t.Fatal(err)
	}
	dsn := WithSearchPath(t, base, schema)
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		if err := sqlstore.DropSchema(context.Background(), base, schema); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	return st, dsn
}

// PostgresDB opens a plain database/sql handle on dsn (the "pgx" driver),
// closed when the test ends: for what a test reads or does beside the
// store (statistics, grants, roles).
func PostgresDB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(t testing.TB, dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// RandomHex returns n random bytes in hex: a name no other test uses.
func RandomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// open opens a second handle on a store a harness made.
func open(ctx context.Context, dsn string) (continuity.Store, error) { return sqlstore.Open(ctx, dsn) }

// openClocked opens a second handle as a process whose clock is host would.
func openClocked(ctx context.Context, dsn string, host func() time.Time) (continuity.Store, error) {
	return sqlstore.Open(ctx, dsn, sqlstore.HostClock(host))
}
