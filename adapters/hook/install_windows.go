//go:build windows

package hook

import (
	"os"
	"syscall"
	"unsafe"
)

// canCreateIn reports whether this process may create files in dir; where
// there is no access(2), the mode bits writableDir reads decide alone.
func canCreateIn(string) bool { return true }

// kernel32's byte-range locks: the standard library's syscall package has
// no wrapper for them, so they are called as internal/syscall/windows and
// cmd/go's lockedfile call them.
var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const (
	lockfileExclusiveLock = 0x2
	// allBytes locks the whole file, as lockedfile does: the lock file
	// is empty, and any range would do, so long as every install takes
	// the same.
	allBytes = ^uint32(0)
)

// Errors LockFileEx gives where the file system has no byte-range locks.
const (
	errorInvalidFunction    syscall.Errno = 1
	errorNotSupported       syscall.Errno = 50
	errorCallNotImplemented syscall.Errno = 120
)

// lockDir holds an exclusive lock (LockFileEx) on the lock file lockPath
// names for the directory dir until the function it returns is called:
// Windows cannot lock a directory, and a lock file in dir would be left in
// the harness's directory, a project's among them. A file system without
// byte-range locks is written without the lock, as on Unix.
func lockDir(dir string) (func(), error) {
	path := lockPath(os.TempDir(), dir)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	h := uintptr(f.Fd())
	// Without an event in the Overlapped, on a handle opened for
	// synchronous I/O, LockFileEx waits until the lock is granted.
	ol := new(syscall.Overlapped)
	r1, _, e1 := procLockFileEx.Call(h, lockfileExclusiveLock, 0, uintptr(allBytes), uintptr(allBytes), uintptr(unsafe.Pointer(ol)))
	if r1 == 0 {
		_ = f.Close()
		errno, _ := e1.(syscall.Errno)
		switch errno {
		case errorInvalidFunction, errorNotSupported, errorCallNotImplemented:
			return func() {}, nil
		case 0:
			errno = syscall.EINVAL
		}
		return nil, &os.PathError{Op: "lock", Path: path, Err: errno}
	}
	return func() {
		ol := new(syscall.Overlapped)
		_, _, _ = procUnlockFileEx.Call(h, 0, uintptr(allBytes), uintptr(allBytes), uintptr(unsafe.Pointer(ol)))
		_ = f.Close()
	}, nil
}
