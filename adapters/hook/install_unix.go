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
// until the function it returns is called. A file system that has no
// flock (some network and FUSE ones) is written without the lock, as
// before there was one, rather than not at all.
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
	switch err {
	case nil:
	case unix.ENOLCK, unix.EOPNOTSUPP, unix.ENOSYS, unix.EINVAL:
		_ = f.Close()
		return func() {}, nil
	default:
		_ = f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return func() { _ = f.Close() }, nil
}
