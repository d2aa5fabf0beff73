//go:build unix

package workdir

import (
	"os"
	"syscall"
)

// ownedByMe reports whether path is owned by the process's user: git
// refuses a repository owned by someone else (safe.directory), and native
// leaves that decision to git.
func ownedByMe(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
