package workdir_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/gittest"
)

func TestProject(t *testing.T) {
	root := gitRoot(t)
	repo, _ := newRepo(t, root, "my-repo")
	sub := mkdir(t, filepath.Join(repo, "internal", "pkg"))
	plain := mkdir(t, filepath.Join(root, "plain-dir"))
	nested := mkdir(t, filepath.Join(plain, "a", "b"))

	// A linked worktree: its .git is a file pointing into my-repo/.git.
	wt := filepath.Join(root, "my-repo-feature")
	gittest.Run(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	wtSub := mkdir(t, filepath.Join(wt, "docs"))

	// A repository whose git directory lives elsewhere, named by a .git file.
	sep := mkdir(t, filepath.Join(root, "separate"))
	gittest.Run(t, sep, "init", "-q", "--separate-git-dir", filepath.Join(root, "elsewhere.git"))
	sepSub := mkdir(t, filepath.Join(sep, "src"))

	// A repository nested inside another work tree: the innermost wins.
	inner, _ := newRepo(t, repo, "vendor-inner")

	tests := []struct {
		name, dir, want string
	}{
		{"git top-level itself", repo, "my-repo"},
		{"nested subdirectory", sub, "my-repo"},
		{"unclean path", filepath.Join(sub, "..", "pkg", "."), "my-repo"},
		{"linked worktree", wt, "my-repo-feature"},
		{"linked worktree subdirectory", wtSub, "my-repo-feature"},
		{".git file pointing elsewhere", sepSub, "separate"},
		{"repository inside a work tree", inner, "vendor-inner"},
		{"no git: the directory's name", plain, "plain-dir"},
		{"no git, nested: the directory's own name", nested, "b"},
		{"missing directory: its name", filepath.Join(plain, "gone"), "gone"},
		// A name is made a facet the service stores (at most 200
		// characters of UTF-8 text without control characters), so a
		// session opens whatever the directory is called.
		{"a name of 230 characters: its first 200", filepath.Join(plain, strings.Repeat("p", 230)), strings.Repeat("p", 200)},
		{"a name of 200 characters: whole", filepath.Join(plain, strings.Repeat("é", 200)), strings.Repeat("é", 200)},
		{"a name of 201 two-byte characters: 200 of them", filepath.Join(plain, strings.Repeat("é", 201)), strings.Repeat("é", 200)},
		{"a cut that ends in a space: trimmed", filepath.Join(plain, strings.Repeat("x", 199)+" "+strings.Repeat("y", 10)), strings.Repeat("x", 199)},
		{"bytes that are not UTF-8", filepath.Join(plain, "caf\xe9"), "caf\uFFFD"},
		{"NUL and a newline", filepath.Join(plain, "a\x00b\nc"), "a\uFFFDb\uFFFDc"},
		{"surrounding white space", filepath.Join(plain, " spaced "), "spaced"},
		{"root directory: nothing meaningful", string(filepath.Separator), ""},
		{"empty dir: no facet, never unknown", "", ""},
	}
	if vol := filepath.VolumeName(root); vol != "" {
		tests = append(tests, struct{ name, dir, want string }{"volume root", vol + `\`, ""})
	}
	for _, tt := range tests {
		if got := workdir.Project(tt.dir); got != tt.want {
			t.Errorf("%s: Project(%q) = %q, want %q", tt.name, tt.dir, got, tt.want)
		}
	}

	t.Run("relative dir", func(t *testing.T) {
		t.Chdir(sub)
		for _, dir := range []string{".", filepath.Join("..", "pkg")} {
			if got := workdir.Project(dir); got != "my-repo" {
				t.Errorf("Project(%q) from %s = %q, want my-repo", dir, sub, got)
			}
		}
		t.Chdir(plain)
		if got := workdir.Project("."); got != "plain-dir" {
			t.Errorf("Project(.) from %s = %q, want plain-dir", plain, got)
		}
	})

	t.Run("GIT_DIR does not redirect it", func(t *testing.T) {
		t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
		if got := workdir.Project(plain); got != "plain-dir" {
			t.Errorf("Project(plain) with GIT_DIR set = %q, want plain-dir", got)
		}
	})

	t.Run("git not installed", func(t *testing.T) {
		// A plain repository is found from its files; a directory in
		// none is its own project either way.
		t.Setenv("PATH", t.TempDir())
		if got := workdir.Project(sub); got != "my-repo" {
			t.Errorf("Project(sub) without git = %q, want the repository's name my-repo", got)
		}
		if got := workdir.Project(plain); got != "plain-dir" {
			t.Errorf("Project(plain) without git = %q, want plain-dir", got)
		}
	})
}

// TestProjectIsNotAFile: a dir that is a file is not entered; its name is
// still the answer, as for any directory git cannot be run in.
func TestProjectIsNotAFile(t *testing.T) {
	root := gitRoot(t)
	f := filepath.Join(root, "notes.txt")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := workdir.Project(f); got != "notes.txt" {
		t.Errorf("Project(file) = %q, want notes.txt", got)
	}
}
