//go:build !windows

package bottle

// renameBusy is false where an open file does not stop a rename over it.
func renameBusy(error) bool { return false }
