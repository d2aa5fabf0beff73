//go:build cgosqlite

package sqlstore_test

import (
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestSQLiteDriverIsCgo proves that a run of this package with -tags
// cgosqlite (the README's build of the baton binary, and a step of .ci/run)
// runs the suite over SQLite's C library (mattn/go-sqlite3), not the
// pure-Go driver the default build uses.
func TestSQLiteDriverIsCgo(t *testing.T) {
	if got := sqliteshim.DriverName(); got != "sqlite3" {
		t.Fatalf("sqliteshim.DriverName() = %q under -tags cgosqlite, want %q (mattn/go-sqlite3)", got, "sqlite3")
	}
}
