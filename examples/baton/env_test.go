package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestProjectFacet(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "my-repo")
	sub := filepath.Join(repo, "internal", "pkg")
	plain := filepath.Join(root, "plain-dir")
	for _, d := range []string{sub, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitAvailable := exec.Command("git", "init", "-q", repo).Run() == nil
	cases := []struct {
		name, dir, explicit, want string
		needGit                   bool
	}{
		{"git top-level from a subdirectory", sub, "", "my-repo", true},
		{"git top-level itself", repo, "", "my-repo", true},
		{"outside git: the directory's name", plain, "", "plain-dir", false},
		{"explicit wins", sub, "chosen", "chosen", false},
		{"no directory: no facet, never unknown", "", "", "", false},
	}
	for _, tc := range cases {
		if tc.needGit && !gitAvailable {
			t.Logf("%s: git is not available here", tc.name)
			continue
		}
		env := &Env{Dir: tc.dir}
		if got := env.ProjectOr(tc.explicit); got != tc.want {
			t.Errorf("%s: project = %q, want %q", tc.name, got, tc.want)
		}
	}
}
