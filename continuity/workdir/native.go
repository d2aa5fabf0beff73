package workdir

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A hook pays for every git it starts (a process, git's own start-up), and
// SessionStart, PreCompact and SessionEnd each need HEAD. native answers
// the common case by reading the repository's files, as git itself would:
// the nearest .git above the directory, HEAD, and the ref it names in the
// loose refs or packed-refs. Whenever the layout is anything it does not
// read plainly, it declines and git runs: an environment variable that
// changes discovery, a .git file of unknown form, a repository owned by
// another user (git's safe.directory refusal), a core.worktree or
// core.bare setting, the reftable ref store, a symbolic ref chain, a path
// inside a .git directory.

// maxGitFile bounds what native reads of HEAD, a loose ref, a .git file,
// commondir and config; packed-refs is scanned line by line.
const maxGitFile = 64 << 10

// discoveryVars change where git looks for a repository or how far; native
// declines when any is set (gitEnv drops the location ones before git runs,
// but not these).
var discoveryVars = []string{"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// native reads dir's facts without running git. ok false means "run git":
// it never guesses. dir must be an existing directory (git answers for a
// missing one or a file).
func native(dir string) (f Facts, ok bool) {
	if dir == "" {
		return Facts{}, false
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	} else {
		return Facts{}, false
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Facts{}, false
	}
	// git walks up the physical path (it enters dir and asks where it is),
	// and prints the top level so.
	physical, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return Facts{}, false
	}
	for _, part := range strings.Split(filepath.ToSlash(physical), "/") {
		if part == ".git" {
			return Facts{}, false
		}
	}
	for _, v := range discoveryVars {
		if os.Getenv(v) != "" {
			return Facts{}, false
		}
	}
	ceilings := ceilingDirs()
	for d := physical; ; {
		gitDir, found, ok := dotGit(d)
		if !ok {
			return Facts{}, false
		}
		if found {
			h, ok := readHead(gitDir)
			if !ok {
				return Facts{}, false
			}
			return Facts{TopLevel: d, Head: h}, true
		}
		parent := filepath.Dir(d)
		if parent == d || ceilings[parent] {
			// No work tree up to the root or a ceiling. git would still
			// find a bare repository or a .git-less layout that native
			// does not look for; those are not work trees either, and
			// both answers say "no work tree".
			if looksLikeGitDir(physical) {
				return Facts{}, false
			}
			return Facts{TopLevel: dir}, true
		}
		d = parent
	}
}

// ceilingDirs is GIT_CEILING_DIRECTORIES as a set: git does not go up into
// them.
func ceilingDirs() map[string]bool {
	v := os.Getenv("GIT_CEILING_DIRECTORIES")
	if v == "" {
		return nil
	}
	set := map[string]bool{}
	for _, c := range filepath.SplitList(v) {
		if c != "" {
			set[filepath.Clean(c)] = true
			if r, err := filepath.EvalSymlinks(c); err == nil {
				set[r] = true
			}
		}
	}
	return set
}

// looksLikeGitDir reports whether dir itself may be a git directory (a bare
// repository): git answers for those, native does not.
func looksLikeGitDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// dotGit looks for d/.git: a directory is the git directory; a file holds
// "gitdir: PATH" (a linked worktree or a submodule). found is false when
// there is none; ok is false when there is one native does not read.
func dotGit(d string) (gitDir string, found, ok bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Lstat(p)
	switch {
	case os.IsNotExist(err):
		return "", false, true
	case err != nil:
		return "", false, false
	case fi.IsDir():
		return p, true, ownedByMe(p)
	case !fi.Mode().IsRegular():
		return "", false, false
	}
	b, ok := readSmall(p)
	if !ok {
		return "", false, false
	}
	target, has := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	target = strings.TrimSpace(target)
	if !has || target == "" || strings.ContainsAny(target, "\n\r") {
		return "", false, false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, filepath.FromSlash(target))
	}
	return filepath.Clean(target), true, ownedByMe(target)
}

// readHead reads the HEAD of a git directory: its commit and branch.
func readHead(gitDir string) (Head, bool) {
	common := gitDir
	if b, ok := readSmall(filepath.Join(gitDir, "commondir")); ok {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, filepath.FromSlash(c))
		}
		common = filepath.Clean(c)
	} else if _, err := os.Stat(filepath.Join(gitDir, "commondir")); !os.IsNotExist(err) {
		return Head{}, false
	}
	if !plainConfig(filepath.Join(common, "config")) {
		return Head{}, false
	}
	if _, err := os.Stat(filepath.Join(common, "reftable")); !os.IsNotExist(err) {
		return Head{}, false
	}
	b, ok := readSmall(filepath.Join(gitDir, "HEAD"))
	if !ok {
		return Head{}, false
	}
	head := strings.TrimSpace(string(b))
	if isSHA(head) { // detached
		return Head{InWorkTree: true, Commit: strings.ToLower(head)}, true
	}
	ref, isRef := strings.CutPrefix(head, "ref:")
	ref = strings.TrimSpace(ref)
	if !isRef || !strings.HasPrefix(ref, "refs/heads/") || !safeRef(ref) {
		return Head{}, false
	}
	h := Head{InWorkTree: true, Branch: strings.TrimPrefix(ref, "refs/heads/")}
	// Branches live in the common directory, shared by every worktree.
	if b, ok := readSmall(filepath.Join(common, filepath.FromSlash(ref))); ok {
		v := strings.TrimSpace(string(b))
		if !isSHA(v) {
			return Head{}, false // a symbolic ref chain, or garbage
		}
		h.Commit = strings.ToLower(v)
		return h, true
	} else if _, err := os.Stat(filepath.Join(common, filepath.FromSlash(ref))); !os.IsNotExist(err) {
		return Head{}, false
	}
	sha, found, ok := packedRef(filepath.Join(common, "packed-refs"), ref)
	if !ok {
		return Head{}, false
	}
	if found {
		h.Commit = sha
	}
	// Not found anywhere: an unborn branch, Commit empty.
	return h, true
}

// safeRef reports whether ref is a plain branch path: no empty, "." or ".."
// component, nothing that would leave the refs directory.
func safeRef(ref string) bool {
	for _, part := range strings.Split(ref, "/") {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, "\\\x00") {
			return false
		}
	}
	return true
}

// packedRef finds ref in a packed-refs file. A missing file holds nothing.
func packedRef(path, ref string) (sha string, found, ok bool) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return "", false, true
	}
	if err != nil {
		return "", false, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		v, name, cut := bytes.Cut(line, []byte{' '})
		if !cut {
			return "", false, false
		}
		if string(name) == ref {
			if !isSHA(string(v)) {
				return "", false, false
			}
			return strings.ToLower(string(v)), true, true
		}
	}
	return "", false, sc.Err() == nil
}

// plainConfig reports whether a repository's config is one native may read
// past: no core.worktree, no core.bare = true, no extensions (the ref
// storage, the object format are git's to interpret), no includes.
func plainConfig(path string) bool {
	b, ok := readSmall(path)
	if !ok {
		return false
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		l := strings.ToLower(strings.TrimSpace(line))
		if l == "" || l[0] == '#' || l[0] == ';' {
			continue
		}
		if l[0] == '[' {
			section = strings.Trim(strings.Fields(strings.Trim(l, "[]"))[0], `"`)
			if section == "extensions" || section == "include" || section == "includeif" {
				return false
			}
			continue
		}
		if section != "core" {
			continue
		}
		key, val, _ := strings.Cut(l, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key == "worktree" || key == "bare" && val != "false" {
			return false
		}
	}
	return true
}

// readSmall reads a small regular file; ok is false when it is missing,
// not regular or larger than maxGitFile.
func readSmall(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGitFile {
		return nil, false
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, false
	}
	return b, true
}
