package workdir_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/batonhq/baton/internal/gittest"
)

// gitRoot skips the test when the git binary is absent, and only then, and
// returns a temporary directory at which git's discovery stops, so nothing
// below it is taken for part of a repository that happens to enclose it.
func gitRoot(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", root)
	return root
}

// mkdir makes the directories and returns the first.
func mkdir(t *testing.T, dirs ...string) string {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dirs[0]
}

// commit makes an empty commit in dir and returns its sha.
func commit(t *testing.T, dir, msg string) string {
	t.Helper()
	gittest.Run(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gittest.Run(t, dir, "rev-parse", "HEAD")
}

// newRepo initialises a repository on branch main at root/name with one
// commit, and returns its directory and that commit.
func newRepo(t *testing.T, root, name string) (string, string) {
	t.Helper()
	dir := mkdir(t, filepath.Join(root, name))
	gittest.Run(t, dir, "init", "-q")
	return dir, commit(t, dir, "first")
}
