package workdir_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/gittest"
)

// TestNativeAgreesWithGit: Inspect reads the common layouts from the
// repository's files; for every layout, read or declined, its answer is
// exactly git's.
func TestNativeAgreesWithGit(t *testing.T) {
	root := gitRoot(t)
	ctx := context.Background()
	repo, first := newRepo(t, root, "repo")
	commit(t, repo, "second")
	sub := mkdir(t, filepath.Join(repo, "a", "b"))

	slashed, _ := newRepo(t, root, "slashed")
	gittest.Run(t, slashed, "switch", "-q", "-c", "feature/x")
	commit(t, slashed, "on feature/x")

	detached, detachedHead := newRepo(t, root, "detached")
	commit(t, detached, "later")
	gittest.Run(t, detached, "checkout", "-q", "--detach", detachedHead)

	packed, _ := newRepo(t, root, "packed")
	gittest.Run(t, packed, "pack-refs", "--all")
	// A commit after packing writes a loose ref that overrides the packed one.
	repacked, _ := newRepo(t, root, "repacked")
	gittest.Run(t, repacked, "pack-refs", "--all")
	commit(t, repacked, "after packing")

	unborn := mkdir(t, filepath.Join(root, "unborn"))
	gittest.Run(t, unborn, "init", "-q")

	wt := filepath.Join(root, "wt")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "wt-branch", wt, first)
	wtSub := mkdir(t, filepath.Join(wt, "deep", "er"))
	wtDetached := filepath.Join(root, "wt-detached")
	gittest.Run(t, repo, "worktree", "add", "-q", "--detach", wtDetached, first)

	// A submodule's .git file points into the superproject's modules, and
	// its config sets core.worktree: native declines, git answers.
	super, _ := newRepo(t, root, "super")
	gittest.Run(t, super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", repo, "mod")
	submodule := filepath.Join(super, "mod")

	// HEAD names a branch that is itself a symbolic ref.
	aliased, _ := newRepo(t, root, "aliased")
	gittest.Run(t, aliased, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
	gittest.Run(t, aliased, "symbolic-ref", "HEAD", "refs/heads/alias")

	coreWorktree, _ := newRepo(t, root, "core-worktree")
	gittest.Run(t, coreWorktree, "config", "core.worktree", coreWorktree)

	extended := mkdir(t, filepath.Join(root, "sha256"))
	gittest.Run(t, extended, "init", "-q", "--object-format=sha256")
	commit(t, extended, "first")

	bare := mkdir(t, filepath.Join(root, "bare.git"))
	gittest.Run(t, bare, "init", "-q", "--bare")
	plain := mkdir(t, filepath.Join(root, "plain"))
	file := filepath.Join(root, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{
		"branch tip": repo, "subdirectory": sub, "branch with a slash": slashed, "detached": detached,
		"packed refs": packed, "loose ref over packed": repacked, "unborn": unborn,
		"linked worktree": wt, "linked worktree subdirectory": wtSub, "detached linked worktree": wtDetached,
		"submodule": submodule, "symbolic ref chain": aliased, "core.worktree": coreWorktree, "extensions": extended,
		"inside .git": filepath.Join(repo, ".git"), "inside .git/refs": filepath.Join(repo, ".git", "refs"),
		"bare": bare, "plain": plain, "missing": filepath.Join(root, "gone"), "a file": file,
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(root, "link-to-sub")
		if err := os.Symlink(sub, link); err != nil {
			t.Fatal(err)
		}
		dirs["symlink into a repository"] = link
	}
	for name, dir := range dirs {
		got, err := workdir.Inspect(ctx, dir)
		want, werr := workdir.InspectGit(ctx, dir)
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: Inspect = %+v, %v; git says %+v, %v", name, got, err, want, werr)
		}
		head, err := workdir.Git(ctx, dir)
		if err != nil || head != want.Head {
			t.Errorf("%s: Git = %+v, %v; git says %+v", name, head, err, want.Head)
		}
		if top := workdir.TopLevel(dir); top != want.TopLevel {
			t.Errorf("%s: TopLevel = %q; git says %q", name, top, want.TopLevel)
		}
	}
}
