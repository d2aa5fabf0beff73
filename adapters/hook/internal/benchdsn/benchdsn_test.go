package benchdsn

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestDSNSetsTheStoresPragmas opens a new file through DSN on the driver
// the build selected (.ci/run runs it on both) and reads the pragmas back.
func TestDSNSetsTheStoresPragmas(t *testing.T) {
	db, err := sql.Open(sqliteshim.ShimName, DSN(filepath.Join(t.TempDir(), "bench.db")))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL
		{"busy_timeout", "10000"},
	} {
		var got string
		if err := db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s driver: PRAGMA %s = %s, want %s", sqliteshim.DriverName(), c.pragma, got, c.want)
		}
	}
}
