//go:build !unix && !windows

package hook

// canCreateIn reports whether this process may create files in dir; where
// there is no access(2), the mode bits writableDir reads decide alone.
func canCreateIn(string) bool { return true }

// lockDir locks nothing where there is neither flock(2) nor LockFileEx:
// two installs at once may there still both write a file, the last one's
// edit kept.
func lockDir(string) (func(), error) { return func() {}, nil }
