package hook

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// LinkedWorktree reports whether dir is inside a secondary (linked) git
// worktree: the nearest .git above it is a file pointing into a
// repository's worktrees directory. A main worktree (.git is a directory),
// a submodule (its .git file points into modules) and a directory outside
// git are not. It reads at most one short line per level and never runs
// git, so that a hook can decide before it touches anything else.
func LinkedWorktree(dir string) bool {
	if dir == "" {
		return false
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		fi, err := os.Stat(filepath.Join(dir, ".git"))
		switch {
		case err == nil && fi.IsDir():
			return false
		case err == nil && fi.Mode().IsRegular():
			return pointsIntoWorktrees(filepath.Join(dir, ".git"))
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// pointsIntoWorktrees reads a .git file's "gitdir: PATH" line and reports
// whether PATH is <git dir>/worktrees/<name>.
func pointsIntoWorktrees(gitFile string) bool {
	f, err := os.Open(gitFile)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	if !ok {
		return false
	}
	target = filepath.Clean(filepath.FromSlash(strings.TrimSpace(target)))
	return filepath.Base(filepath.Dir(target)) == "worktrees"
}
