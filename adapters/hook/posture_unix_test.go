//go:build unix

package hook_test

import (
	"path/filepath"
	"syscall"
	"testing"
)

// fifo makes a named pipe in a temporary directory and returns its path.
func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
