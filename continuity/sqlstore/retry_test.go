package sqlstore

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRetryableSeesThroughTranslation: Tx methods translate their driver
// errors, and a busy database or a serialization failure must still be
// retried whole once they have.
func TestRetryableSeesThroughTranslation(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"SQLite busy", errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{"SQLite table locked", errors.New("database table is locked"), true},
		{"Postgres serialization failure", &pgconn.PgError{Code: "40001"}, true},
		{"Postgres deadlock", &pgconn.PgError{Code: "40P01"}, true},
		{"Postgres unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"anything else", errors.New("disk I/O error"), false},
	}
	for _, tc := range cases {
		for _, err := range []error{tc.err, translate(tc.err), fmt.Errorf("in a service: %w", translate(tc.err))} {
			if got := retryable(err); got != tc.want {
				t.Errorf("%s: retryable(%v) = %v, want %v", tc.name, err, got, tc.want)
			}
		}
	}
}
