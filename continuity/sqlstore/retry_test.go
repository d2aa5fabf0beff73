package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

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

// TestRetryStartsNoAttemptItCannotFinish: under a deadline, a retry after
// the first attempt begins only while a whole busy wait still fits before
// the deadline (a busy wait does not watch the context); the first attempt
// always runs, and without a deadline the retries run to their bound.
func TestRetryStartsNoAttemptItCannotFinish(t *testing.T) {
	busyErr := errors.New("database is locked (5) (SQLITE_BUSY)")
	cases := []struct {
		name     string
		busy     time.Duration
		deadline time.Duration // 0: none
		attempts func(n int) bool
	}{
		{"no deadline: every retry", 50 * time.Millisecond, 0, func(n int) bool { return n == 9 }},
		{"a deadline shorter than one busy wait: the first attempt only", time.Hour, 30 * time.Second, func(n int) bool { return n == 1 }},
		{"a deadline with room for busy waits", 10 * time.Millisecond, time.Minute, func(n int) bool { return n == 9 }},
	}
	for _, tc := range cases {
		s := &Store{retries: 8, busy: tc.busy}
		ctx := context.Background()
		var deadline time.Time
		if tc.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, tc.deadline)
			defer cancel()
			deadline, _ = ctx.Deadline()
		}
		n := 0
		err := s.retry(ctx, func() error {
			if n > 0 && tc.deadline > 0 && time.Until(deadline) < tc.busy {
				t.Errorf("%s: attempt %d began with %v left, less than the busy timeout %v", tc.name, n+1, time.Until(deadline), tc.busy)
			}
			n++
			return busyErr
		})
		if !tc.attempts(n) {
			t.Errorf("%s: %d attempts", tc.name, n)
		}
		if !retryable(err) {
			t.Errorf("%s: %v, want the busy error", tc.name, err)
		}
	}
}
