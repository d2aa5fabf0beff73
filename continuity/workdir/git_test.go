package workdir_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/gittest"
)

func TestGit(t *testing.T) {
	root := gitRoot(t)
	ctx := context.Background()

	repo, first := newRepo(t, root, "repo")
	second := commit(t, repo, "second")
	sub := mkdir(t, filepath.Join(repo, "a", "b"))

	slashed, _ := newRepo(t, root, "slashed")
	gittest.Run(t, slashed, "switch", "-q", "-c", "feature/x")
	slashedHead := commit(t, slashed, "on feature/x")

	detached, detachedHead := newRepo(t, root, "detached")
	commit(t, detached, "later")
	gittest.Run(t, detached, "checkout", "-q", "--detach", detachedHead)

	packed, packedHead := newRepo(t, root, "packed")
	gittest.Run(t, packed, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(packed, ".git", "refs", "heads", "main")); !os.IsNotExist(err) {
		t.Fatalf("pack-refs left a loose ref: %v", err)
	}

	unborn := mkdir(t, filepath.Join(root, "unborn"))
	gittest.Run(t, unborn, "init", "-q")

	wt := filepath.Join(root, "wt")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "wt-branch", wt, first)

	bare := mkdir(t, filepath.Join(root, "bare.git"))
	gittest.Run(t, bare, "init", "-q", "--bare")

	// A repository with extensions (here SHA-256 object names) is git's
	// to read: native declines it.
	extended := mkdir(t, filepath.Join(root, "sha256"))
	gittest.Run(t, extended, "init", "-q", "--object-format=sha256")
	extendedHead := commit(t, extended, "first")

	plain := mkdir(t, filepath.Join(root, "plain"))
	file := filepath.Join(root, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir string
		want      workdir.Head
	}{
		{"branch tip", repo, workdir.Head{InWorkTree: true, Commit: second, Branch: "main"}},
		{"subdirectory", sub, workdir.Head{InWorkTree: true, Commit: second, Branch: "main"}},
		{"branch name with a slash", slashed, workdir.Head{InWorkTree: true, Commit: slashedHead, Branch: "feature/x"}},
		{"detached HEAD", detached, workdir.Head{InWorkTree: true, Commit: detachedHead}},
		{"SHA-256 repository", extended, workdir.Head{InWorkTree: true, Commit: extendedHead, Branch: "main"}},
		{"packed refs", packed, workdir.Head{InWorkTree: true, Commit: packedHead, Branch: "main"}},
		{"unborn branch", unborn, workdir.Head{InWorkTree: true, Branch: "main"}},
		{"linked worktree", wt, workdir.Head{InWorkTree: true, Commit: first, Branch: "wt-branch"}},
		{"inside .git", filepath.Join(repo, ".git"), workdir.Head{}},
		{"bare repository", bare, workdir.Head{}},
		{"plain directory", plain, workdir.Head{}},
		{"missing directory", filepath.Join(root, "gone"), workdir.Head{}},
		{"a file", file, workdir.Head{}},
	}
	for _, tt := range tests {
		got, err := workdir.Git(ctx, tt.dir)
		if err != nil || got != tt.want {
			t.Errorf("%s: Git = %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}

	t.Run("GIT_DIR does not redirect it", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
		t.Setenv("GIT_WORK_TREE", repo)
		if got, err := workdir.Git(ctx, plain); err != nil || got.InWorkTree {
			t.Errorf("Git(plain) with GIT_DIR set = %+v, %v; want no git", got, err)
		}
		if got, err := workdir.Git(ctx, slashed); err != nil || got.Branch != "feature/x" {
			t.Errorf("Git(slashed) with GIT_DIR set = %+v, %v; want feature/x", got, err)
		}
	})

	t.Run("git not installed", func(t *testing.T) {
		// A plain layout is read from its files; one that needs git is
		// not known to be a work tree.
		t.Setenv("PATH", t.TempDir())
		if got, err := workdir.Git(ctx, repo); err != nil || got != (workdir.Head{InWorkTree: true, Commit: second, Branch: "main"}) {
			t.Errorf("Git without git = %+v, %v; want main at %s read from the files", got, err, second)
		}
		if got, err := workdir.Git(ctx, extended); err != nil || got != (workdir.Head{}) {
			t.Errorf("Git without git, a repository with extensions = %+v, %v; want no work tree known and no error", got, err)
		}
	})

	t.Run("context ended", func(t *testing.T) {
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if got, err := workdir.Git(ended, repo); !errors.Is(err, context.Canceled) || got != (workdir.Head{}) {
			t.Errorf("Git with an ended context = %+v, %v; want context.Canceled", got, err)
		}
	})
}

func TestIsAncestor(t *testing.T) {
	root := gitRoot(t)
	ctx := context.Background()

	// a - b (main)
	//  \
	//   c (side)
	repo, a := newRepo(t, root, "repo")
	b := commit(t, repo, "b")
	gittest.Run(t, repo, "switch", "-q", "-c", "side", a)
	c := commit(t, repo, "c")
	plain := mkdir(t, filepath.Join(root, "plain"))
	unknown := strings.Repeat("0", 39) + "1"

	tests := []struct {
		name, dir, ancestor, commit string
		want                        bool
	}{
		{"parent of the tip", repo, a, b, true},
		{"a commit is its own ancestor", repo, b, b, true},
		{"the tip is not an ancestor of its parent", repo, b, a, false},
		{"across diverged branches", repo, c, b, false},
		{"the other way across", repo, b, c, false},
		{"the fork point", repo, a, c, true},
		{"uppercase hex", repo, strings.ToUpper(a), b, true},
		{"a commit the repository does not hold", repo, unknown, b, false},
		{"not a repository", plain, a, b, false},
		{"missing directory", filepath.Join(root, "gone"), a, b, false},
	}
	for _, tt := range tests {
		got, err := workdir.IsAncestor(ctx, tt.dir, tt.ancestor, tt.commit)
		if err != nil || got != tt.want {
			t.Errorf("%s: IsAncestor = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}

	// Nothing but a full sha reaches git's command line.
	bad := []struct{ name, ancestor, commit, which string }{
		{"empty ancestor", "", b, "ancestor"},
		{"empty commit", a, "", "commit"},
		{"abbreviated", a[:7], b, "ancestor"},
		{"one digit short", a[:39], b, "ancestor"},
		{"one digit long", a + "0", b, "ancestor"},
		{"a branch name", "main", b, "ancestor"},
		{"a revision expression", a, "HEAD~1", "commit"},
		{"an option", "--output=" + strings.Repeat("a", 31), b, "ancestor"},
		{"an option as long as a sha", "-" + a[1:], b, "ancestor"},
		{"non-hex letter", strings.Repeat("g", 40), b, "ancestor"},
		{"sha-256 length with a space", strings.Repeat("a", 63) + " ", b, "ancestor"},
	}
	for _, tt := range bad {
		got, err := workdir.IsAncestor(ctx, repo, tt.ancestor, tt.commit)
		if !errors.Is(err, workdir.ErrNotCommit) || got || !strings.HasSuffix(err.Error(), ": "+tt.which) {
			t.Errorf("%s: IsAncestor = %v, %v; want ErrNotCommit naming %s", tt.name, got, err, tt.which)
		}
	}

	t.Run("sha-256 length is accepted", func(t *testing.T) {
		// Valid in form, unknown to this SHA-1 repository: git cannot decide.
		if got, err := workdir.IsAncestor(ctx, repo, strings.Repeat("a", 64), b); err != nil || got {
			t.Errorf("IsAncestor(64 hex digits) = %v, %v; want false, nil", got, err)
		}
	})

	t.Run("git not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if got, err := workdir.IsAncestor(ctx, repo, a, b); err != nil || got {
			t.Errorf("IsAncestor without git = %v, %v; want false, nil", got, err)
		}
	})

	t.Run("context ended", func(t *testing.T) {
		ended, cancel := context.WithCancel(ctx)
		cancel()
		if got, err := workdir.IsAncestor(ended, repo, a, b); !errors.Is(err, context.Canceled) || got {
			t.Errorf("IsAncestor with an ended context = %v, %v; want context.Canceled", got, err)
		}
	})
}
