package sqlstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/storetest"
)

func open(ctx context.Context, dsn string) (continuity.Store, error) { return sqlstore.Open(ctx, dsn) }

func TestMain(m *testing.M) { storetest.Main(m, open) }

func TestSQLite(t *testing.T) {
	storetest.Run(t, storetest.Harness{New: func(t *testing.T) (continuity.Store, string) {
		dsn := filepath.Join(t.TempDir(), "baton.db")
		st, err := sqlstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, dsn
	}})
}

// TestPostgres runs the suite when BATON_TEST_POSTGRES_DSN names a database;
// each test gets its own schema. CI sets the variable and fails when the
// database cannot be reached.
func TestPostgres(t *testing.T) {
	base := os.Getenv("BATON_TEST_POSTGRES_DSN")
	if base == "" {
		t.Skip("BATON_TEST_POSTGRES_DSN is not set")
	}
	admin, err := sqlstore.Open(context.Background(), base)
	if err != nil {
		t.Fatalf("BATON_TEST_POSTGRES_DSN is set but Postgres is unusable: %v", err)
	}
	admin.Close()
	storetest.Run(t, storetest.Harness{New: func(t *testing.T) (continuity.Store, string) {
		schema := "bt_" + randomHex(6)
		if err := sqlstore.CreateSchema(context.Background(), base, schema); err != nil {
			t.Fatal(err)
		}
		dsn := withSearchPath(t, base, schema)
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
	}})
}

func withSearchPath(t *testing.T, dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
