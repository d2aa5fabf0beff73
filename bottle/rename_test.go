package bottle

import (
	"errors"
	"testing"
)

// TestRetryRename: a rename that fails busy is tried again until it
// succeeds, within renameRetryFor; a failure that is not busy, or one that
// stays busy, is returned (the second after the bound, not forever).
func TestRetryRename(t *testing.T) {
	errBusy, errOther := errors.New("busy"), errors.New("other")
	busy := func(err error) bool { return errors.Is(err, errBusy) }
	forever := make([]error, 1000)
	for i := range forever {
		forever[i] = errBusy
	}
	tests := []struct {
		name  string
		fails []error // the answers of successive renames; nil after them
		want  error
		calls int // exact, or at least when atLeast
		least bool
	}{
		{"succeeds at once", nil, nil, 1, false},
		{"busy twice, then succeeds", []error{errBusy, errBusy}, nil, 3, false},
		{"another failure is not retried", []error{errOther, nil}, errOther, 1, false},
		{"busy for good ends at the bound", forever, errBusy, 3, true},
	}
	for _, tt := range tests {
		calls := 0
		rename := func(from, to string) error {
			calls++
			if calls <= len(tt.fails) {
				return tt.fails[calls-1]
			}
			return nil
		}
		err := retryRename(rename, busy, "a", "b")
		if !errors.Is(err, tt.want) || err != nil && tt.want == nil {
			t.Errorf("%s: err %v; want %v", tt.name, err, tt.want)
		}
		if tt.least && (calls < tt.calls || calls >= len(tt.fails)) || !tt.least && calls != tt.calls {
			t.Errorf("%s: %d renames; want %d", tt.name, calls, tt.calls)
		}
	}
}

// TestBusyErrno: the Windows errors a rename over a file another handle
// holds open meets are busy; others (not found, a bad path) are not.
func TestBusyErrno(t *testing.T) {
	for n, want := range map[uintptr]bool{5: true, 32: true, 33: true, 2: false, 3: false, 123: false, 0: false} {
		if got := busyErrno(n); got != want {
			t.Errorf("busyErrno(%d) = %v; want %v", n, got, want)
		}
	}
}
