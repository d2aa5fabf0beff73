package workdir_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/gittest"
)

// countGit puts a git first on PATH that logs each run's arguments, one
// line a run, before it runs the real git, and returns a function reading
// the log.
func countGit(t *testing.T) func() []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the logging git is a shell script")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "runs")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		data, _ := os.ReadFile(log)
		_ = os.Remove(log)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(data)), " ", "_"))
	}
}

// TestGitRuns: a hook pays for every git it starts, so reading HEAD runs
// no git in the layouts native reads (a branch tip, an unborn branch, a
// plain directory), and git once where it declines (a repository with
// extensions), twice only there on a branch with no commit yet.
func TestGitRuns(t *testing.T) {
	root := gitRoot(t)
	repo, _ := newRepo(t, root, "repo")
	unborn := mkdir(t, filepath.Join(root, "unborn"))
	gittest.Run(t, unborn, "init", "-q")
	extended := mkdir(t, filepath.Join(root, "sha256"))
	gittest.Run(t, extended, "init", "-q", "--object-format=sha256")
	commit(t, extended, "first")
	extendedUnborn := mkdir(t, filepath.Join(root, "sha256-unborn"))
	gittest.Run(t, extendedUnborn, "init", "-q", "--object-format=sha256")
	runs := countGit(t)
	for _, tt := range []struct {
		name, dir string
		want      int
	}{
		{"a branch tip", repo, 0}, {"an unborn branch", unborn, 0}, {"a plain directory", mkdir(t, filepath.Join(root, "plain")), 0},
		{"extensions: a branch tip", extended, 1}, {"extensions: an unborn branch", extendedUnborn, 2},
	} {
		if _, err := workdir.Git(context.Background(), tt.dir); err != nil {
			t.Fatal(err)
		}
		if got := runs(); len(got) != tt.want {
			t.Errorf("%s: git ran %d times, want %d: %v", tt.name, len(got), tt.want, got)
		}
	}
}

// TestInspect: Inspect answers what TopLevel, Project and Git answer, for
// every kind of directory, with one git run.
func TestInspect(t *testing.T) {
	root := gitRoot(t)
	ctx := context.Background()
	repo, first := newRepo(t, root, "repo")
	commit(t, repo, "second")
	detached, detachedHead := newRepo(t, root, "detached")
	commit(t, detached, "later")
	gittest.Run(t, detached, "checkout", "-q", "--detach", detachedHead)
	unborn := mkdir(t, filepath.Join(root, "unborn"))
	gittest.Run(t, unborn, "init", "-q")
	wt := filepath.Join(root, "wt")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "wt-branch", wt, first)
	bare := mkdir(t, filepath.Join(root, "bare.git"))
	gittest.Run(t, bare, "init", "-q", "--bare")
	file := filepath.Join(root, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{repo, mkdir(t, filepath.Join(repo, "a", "b")), detached, unborn, wt, filepath.Join(repo, ".git"), bare,
		mkdir(t, filepath.Join(root, "plain")), filepath.Join(root, "gone"), file, filepath.Join(repo, "a", "..", "a")}
	for _, dir := range dirs {
		got, err := workdir.Inspect(ctx, dir)
		head, herr := workdir.Git(ctx, dir)
		if want := (workdir.Facts{TopLevel: workdir.TopLevel(dir), Head: head}); err != nil || herr != nil || got != want {
			t.Errorf("Inspect(%q) = %+v, %v; want %+v, %v", dir, got, err, want, herr)
		}
		if got.Project() != workdir.Project(dir) {
			t.Errorf("Inspect(%q).Project() = %q, Project says %q", dir, got.Project(), workdir.Project(dir))
		}
	}
	// No directory is nothing, as TopLevel and Project say (Git would read
	// the process's own).
	if got, err := workdir.Inspect(ctx, ""); got != (workdir.Facts{}) || err != nil {
		t.Errorf(`Inspect("") = %+v, %v; want nothing`, got, err)
	}
	runs := countGit(t)
	if _, err := workdir.Inspect(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if got := runs(); len(got) != 0 {
		t.Errorf("Inspect ran git %d times in a plain repository, want none: %v", len(got), got)
	}
	bareWork := mkdir(t, filepath.Join(root, "bare-config"))
	gittest.Run(t, bareWork, "init", "-q")
	gittest.Run(t, bareWork, "config", "core.bare", "true")
	runs() // the set-up's own runs
	if _, err := workdir.Inspect(ctx, bareWork); err != nil {
		t.Fatal(err)
	}
	if got := runs(); len(got) != 1 {
		t.Errorf("Inspect ran git %d times where core.bare is set, want once: %v", len(got), got)
	}
}
