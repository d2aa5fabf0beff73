package hook

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// LinkedWorktree reports whether dir is inside a secondary (linked) git
// worktree: the nearest .git above dir's physical path (its symlinks
// resolved, as git resolves them when it walks up) is a file whose
// "gitdir:" names a git directory holding a commondir file, which git
// writes for its linked worktrees and for nothing else. A main worktree
// (.git is a directory), a submodule (its gitdir, under modules, has no
// commondir, even when its name puts it below a worktrees directory), a
// .git file whose gitdir is missing and a directory outside git are not.
// It reads at most one short line per level and never runs git, so that a
// hook can decide before it touches anything else.
func LinkedWorktree(dir string) bool {
	if dir == "" {
		return false
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if physical, err := filepath.EvalSymlinks(dir); err == nil {
		// Otherwise walking up the link's own parents would find the
		// .git of wherever the link sits, not of where it leads.
		dir = physical
	}
	for {
		fi, err := os.Stat(filepath.Join(dir, ".git"))
		switch {
		case err == nil && fi.IsDir():
			return false
		case err == nil && fi.Mode().IsRegular():
			gitDir, ok := gitDirOf(dir)
			if !ok {
				return false
			}
			fi, err := os.Stat(filepath.Join(gitDir, "commondir"))
			return err == nil && fi.Mode().IsRegular()
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// gitDirOf reads dir/.git's "gitdir: PATH" line and returns PATH, taken
// relative to dir when it is not absolute (as git writes it for submodules
// and relative worktrees).
func gitDirOf(dir string) (string, bool) {
	f, err := os.Open(filepath.Join(dir, ".git"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return "", false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
	target = strings.TrimSpace(target)
	if !ok || target == "" {
		return "", false
	}
	target = filepath.FromSlash(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return filepath.Clean(target), true
}
