// Package gittest runs git for tests, hermetically: the machine's global
// and system configuration are ignored, and the identity, signing and
// default branch are given on the command line.
package gittest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Run runs git with args in dir and returns its trimmed output; a failure
// fails t with git's output.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	base := []string{"-c", "user.name=baton test", "-c", "user.email=test@baton.invalid",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}
	cmd := exec.Command("git", append(base, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
