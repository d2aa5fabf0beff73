//go:build unix

package hook

import (
	"os"

	"golang.org/x/sys/unix"
)

// canCreateIn reports whether this process may create files in dir, as
// the kernel decides it (owner, group, ACLs).
func canCreateIn(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// lockDir holds an exclusive advisory lock on the directory dir (flock)
// until the function it returns is called.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return func() { _ = f.Close() }, nil
}
