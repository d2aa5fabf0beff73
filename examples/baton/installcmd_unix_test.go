//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/internal/runes"
)

// TestInstallCommandShowsHostilePaths: the paths install names come from
// the environment (CODEX_HOME) or a directory's name, and a POSIX name may
// hold an escape sequence, a carriage return or a newline: the dry run's
// diff headers and the lines saying what install created show each as its
// code point, so the name cannot retitle the window, overwrite its line or
// start one of its own. (Windows refuses control characters in names.)
func TestInstallCommandShowsHostilePaths(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, "x\x1b]0;pwned\x07\ry\nz\u202e")
	if err := os.Mkdir(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	shown := filepath.Join(home, "x<U+001B>]0;pwned<U+0007><U+000D>y<U+000A>z<U+202E>")
	env := append(installEnv(home), "CODEX_HOME="+codexHome)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"install", "--harness", "codex", "--dry-run"}, []string{
			"--- /dev/null\n+++ " + shown + "/hooks.json\n", "--- /dev/null\n+++ " + shown + "/config.toml\n"}},
		{[]string{"install", "--harness", "codex"}, []string{
			"created " + shown + "/hooks.json\n", "created " + shown + "/config.toml\n"}},
	} {
		out, errOut, status := baton(t, dir, env, tc.args...)
		if status != 0 {
			t.Fatalf("%v: status %d\n%s\n%s", tc.args, status, out, errOut)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%v: stdout lacks %q:\n%q", tc.args, want, out)
			}
		}
		if i := strings.IndexFunc(out+errOut, func(r rune) bool { return r != '\t' && r != '\n' && runes.Marked(r) }); i >= 0 {
			t.Errorf("%v prints %q as it is", tc.args, (out + errOut)[i:])
		}
	}
}
