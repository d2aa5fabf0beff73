//go:build unix

package hook

import "golang.org/x/sys/unix"

// canCreateIn reports whether this process may create files in dir, as
// the kernel decides it (owner, group, ACLs).
func canCreateIn(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }
