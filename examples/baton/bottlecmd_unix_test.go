//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestBottleRenderRefusesFIFO: a FIFO is refused before it is opened (an
// open would wait for a writer, a read would never end).
func TestBottleRenderRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "t.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out, stderr, status := run(t, testEnv(t), []string{"bottle", "render", "--transcript", fifo})
	if status != exitUsage || out != "" || !strings.Contains(stderr, "not a regular file") {
		t.Errorf("status %d, stdout %q, stderr %q; want %d and a refusal", status, out, stderr, exitUsage)
	}
}
