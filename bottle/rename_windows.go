//go:build windows

package bottle

import (
	"errors"
	"syscall"
)

// renameBusy reports whether a failed rename is one another process's open
// handle on the file causes (see busyErrno).
func renameBusy(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && busyErrno(uintptr(errno))
}
