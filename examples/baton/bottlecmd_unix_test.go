//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/batonhq/baton/bottle"
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

// TestBottleRenderKeepShowsHostilePaths: --keep prints where the bottle's
// index is, under BATON_HOME, whose POSIX name may hold an escape sequence,
// a carriage return, a newline or a right-to-left override: the line shows
// each as its code point, as every path baton names is shown (install,
// export, forget), so a home's name neither drives the terminal nor prints a
// second line.
func TestBottleRenderKeepShowsHostilePaths(t *testing.T) {
	env := testEnv(t)
	const hostile, shown = "x\x1b]0;t\x07\ry\nz\u202e", "x<U+001B>]0;t<U+0007><U+000D>y<U+000A>z<U+202E>"
	parent := env.Home
	env.Home = filepath.Join(parent, hostile)
	if err := os.Mkdir(env.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	out, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", realTranscript, "--keep"})
	want := filepath.Join(parent, shown, "bottles", defaultAgent, realSession+".bottle", bottle.IndexName) + "\n"
	if status != exitOK || out != want {
		t.Errorf("status %d, stdout %q, stderr %q; want %q", status, out, stderr, want)
	}
}
