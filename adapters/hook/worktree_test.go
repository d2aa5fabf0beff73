package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/batonhq/baton/internal/gittest"
)

// worktreeCase is a directory and whether LinkedWorktree must say it is
// inside a linked worktree.
type worktreeCase struct {
	name, dir string
	want      bool
}

func checkWorktrees(t *testing.T, cases []worktreeCase) {
	t.Helper()
	for _, tc := range cases {
		if got := LinkedWorktree(tc.dir); got != tc.want {
			t.Errorf("%s: LinkedWorktree(%s) = %v, want %v", tc.name, tc.dir, got, tc.want)
		}
	}
}

// TestLinkedWorktree builds, under one temporary root, the layouts git
// writes (a main checkout, linked worktrees with absolute and relative
// gitdir lines, submodules, one of them named worktrees/x, a linked
// worktree of a submodule) and asks from a directory two levels inside
// each. A .git file is a linked worktree only when its gitdir holds a
// commondir file, as git's own worktrees do; a submodule's gitdir has none,
// whatever its path. Symlinked paths are resolved first, so a link into a
// linked worktree is one, and a link inside a linked worktree that points
// into the main checkout is not.
func TestLinkedWorktree(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	write := func(rel, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(at(rel)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(at(rel), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// checkout makes dir/sub/deeper with dir/.git holding gitFile ("" for
	// a .git directory) and returns the deeper directory.
	checkout := func(dir, gitFile string) string {
		t.Helper()
		if err := os.MkdirAll(at(dir+"/sub/deeper"), 0o700); err != nil {
			t.Fatal(err)
		}
		if gitFile == "" {
			write(dir+"/.git/HEAD", "ref: refs/heads/main\n")
		} else {
			write(dir+"/.git", gitFile)
		}
		return at(dir + "/sub/deeper")
	}
	// gitDir makes a repository's git directory below the main checkout;
	// linked ones hold commondir, as `git worktree add` writes them.
	gitDir := func(rel string, linked bool) {
		write("main/.git/"+rel+"/HEAD", "ref: refs/heads/x\n")
		if linked {
			write("main/.git/"+rel+"/commondir", "../..\n")
		}
	}
	plain := at("plain/sub")
	if err := os.MkdirAll(plain, 0o700); err != nil {
		t.Fatal(err)
	}
	mainDir := checkout("main", "")
	gitDir("worktrees/wt", true)
	gitDir("worktrees/rel", true)
	gitDir("modules/lib", false)
	gitDir("modules/worktrees/x", false)
	gitDir("worktrees/wt/modules/lib", false)
	gitDir("modules/lib/worktrees/libwt", true)
	cases := []worktreeCase{
		{"no repository", plain, false},
		{"the main checkout", mainDir, false},
		{"a linked worktree", checkout("wt", "gitdir: "+filepath.ToSlash(at("main/.git/worktrees/wt"))+"\n"), true},
		{"a linked worktree, relative gitdir, no newline", checkout("rel", "gitdir: ../main/.git/worktrees/rel"), true},
		{"a submodule", checkout("main/lib", "gitdir: ../.git/modules/lib\n"), false},
		{"a submodule named worktrees/x", checkout("main/worktrees/x", "gitdir: ../../.git/modules/worktrees/x\n"), false},
		{"a submodule of a linked worktree", checkout("wt/lib", "gitdir: "+filepath.ToSlash(at("main/.git/worktrees/wt/modules/lib"))+"\n"), false},
		{"a linked worktree of a submodule", checkout("libwt", "gitdir: "+filepath.ToSlash(at("main/.git/modules/lib/worktrees/libwt"))+"\n"), true},
		{"a gitdir under worktrees/ that does not exist", checkout("dangling", "gitdir: "+filepath.ToSlash(at("gone/.git/worktrees/wt"))+"\n"), false},
		{"a .git file that is not one", checkout("garbage", "not a git file\n"), false},
		{"no directory", "", false},
	}
	if runtime.GOOS != "windows" {
		link := func(rel, target string) string {
			t.Helper()
			if err := os.MkdirAll(filepath.Dir(at(rel)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, at(rel)); err != nil {
				t.Fatal(err)
			}
			return at(rel)
		}
		cases = append(cases, []worktreeCase{
			{"a symlink into a linked worktree", link("links/into-wt", at("wt/sub/deeper")), true},
			{"a relative symlink into a linked worktree", link("links/rel-wt", "../wt/sub"), true},
			{"a symlink inside a linked worktree into the main checkout", link("wt/sub/to-main", at("main/sub/deeper")), false},
			{"a symlink into the main checkout", link("links/into-main", at("main/sub")), false},
		}...)
	}
	checkWorktrees(t, cases)
}

// TestLinkedWorktreeRealGit asks the same of layouts real git made: `git
// worktree add` is a linked worktree, `git submodule add` (named
// worktrees/lib, so that its gitdir is .git/modules/worktrees/lib) and the
// main checkout are not, and a symlink into the linked worktree is one.
func TestLinkedWorktreeRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	repo, lib, wt := filepath.Join(root, "real"), filepath.Join(root, "lib"), filepath.Join(root, "real-wt")
	git := func(dir string, args ...string) { t.Helper(); gittest.Run(t, dir, args...) }
	for _, d := range []string{repo, lib} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		git(d, "init", "-q")
		git(d, "commit", "-q", "--allow-empty", "-m", "one")
	}
	git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "--name", "worktrees/lib", lib, "worktrees/lib")
	git(repo, "commit", "-q", "-m", "submodule")
	git(repo, "worktree", "add", "-q", wt, "-b", "wt")
	cases := []worktreeCase{
		{"the main checkout", repo, false},
		{"the submodule", filepath.Join(repo, "worktrees", "lib"), false},
		{"the linked worktree", wt, true},
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(root, "link-to-wt")
		if err := os.Symlink(wt, link); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, worktreeCase{"a symlink into the linked worktree", link, true})
	}
	checkWorktrees(t, cases)
}
