//go:build !unix && !windows

package bottle

import (
	"errors"
	"os"
)

// tryLock on a platform with no file locks (js, wasip1, plan9) reports that
// locking is unsupported rather than pretending to exclude other processes.
func tryLock(*os.File) error {
	return errors.ErrUnsupported
}

func unlockFile(*os.File) error { return nil }
