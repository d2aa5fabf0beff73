//go:build !unix

package hook_test

import "testing"

// fifo skips the test: named pipes are a Unix file type.
func fifo(t *testing.T) string {
	t.Skip("no named pipes on this platform")
	return ""
}
