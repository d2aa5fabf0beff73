package workdir_test

import (
	"path/filepath"
	"testing"

	"github.com/batonhq/baton/continuity/workdir"
)

func TestTopLevel(t *testing.T) {
	root := gitRoot(t)
	repo, _ := newRepo(t, root, "my-repo")
	sub := mkdir(t, filepath.Join(repo, "internal", "pkg"))
	plain := mkdir(t, filepath.Join(root, "plain-dir", "a"))
	// git prints the top level with symlinks resolved (macOS's /tmp).
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name, dir, want string
	}{
		{"git top-level itself", repo, real(repo)},
		{"nested subdirectory: the top level", sub, real(repo)},
		{"no git: the directory itself", plain, plain},
		{"unclean path: cleaned", filepath.Join(plain, "..", "a", "."), plain},
		{"empty: empty", "", ""},
	}
	for _, tt := range tests {
		if got := workdir.TopLevel(tt.dir); got != tt.want {
			t.Errorf("%s: TopLevel(%q) = %q, want %q", tt.name, tt.dir, got, tt.want)
		}
	}
}
