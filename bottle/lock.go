package bottle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// errLocked is returned by tryLock when another holder has the lock.
var errLocked = errors.New("bottle: locked")

// lockPoll is how often a waiter retries a held lock.
const lockPoll = 15 * time.Millisecond

// fileLock is an exclusive advisory lock on a file, held across processes.
type fileLock struct{ f *os.File }

// lockFile takes the exclusive lock on path, creating the file, waiting
// until it is free or ctx is done. Locks are advisory and held by the open
// file: a crashed holder's lock is released by the operating system, so a
// lock file never needs cleaning up.
func lockFile(ctx context.Context, path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("bottle: open lock: %w", err)
	}
	for {
		err := tryLock(f)
		if err == nil {
			return &fileLock{f: f}, nil
		}
		if !errors.Is(err, errLocked) {
			_ = f.Close()
			return nil, fmt.Errorf("bottle: lock: %w", err)
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("bottle: waiting for render lock: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// unlock releases the lock.
func (l *fileLock) unlock() error {
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
