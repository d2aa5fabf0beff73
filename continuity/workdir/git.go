package workdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Timeout bounds every git run whose context carries no deadline of its own
// (and Project, which takes none): a hook must never hang on a wedged git.
const Timeout = 5 * time.Second

// Head is the working directory's git position.
type Head struct {
	// InWorkTree is whether git is installed and the directory is inside a
	// git work tree. When it is false the other fields are empty and a
	// divergence against it is unknown.
	InWorkTree bool
	// Commit is HEAD's full sha, lowercase hex as git prints it; empty on an
	// unborn branch (a repository with no commit yet).
	Commit string
	// Branch is the branch HEAD is on ("main", "feature/x"); empty when HEAD
	// is detached.
	Branch string
}

// ErrNotCommit is returned (wrapped) by IsAncestor for an argument that is
// not a full commit sha. Only shas reach git's command line, never a ref name
// or anything a caller could make git read as an option.
var ErrNotCommit = errors.New("workdir: not a full commit sha (40 or 64 hex digits)")

// Git reports dir's HEAD: its commit and branch. Not being able to tell is
// an answer, not an error: when dir does not exist, is not inside a work
// tree (a plain directory, a .git directory, a bare repository), or needs
// git and git is not installed, Git returns a Head with InWorkTree false
// and a nil error. The error is for a context that ended (ctx's deadline,
// else Timeout) or a git that could not be started for another reason.
//
// A hook pays for every git it starts, so the common layouts (a work tree
// or linked worktree whose HEAD is a branch in the loose refs or
// packed-refs, or detached) are read from the repository's files without
// git (see native); anything else runs git once: rev-parse prints
// whether dir is in a work tree, HEAD's commit and the ref HEAD names ("HEAD"
// itself when detached); the final "--" keeps a file named HEAD from making
// the revision ambiguous. Only on a branch with no commit yet, where
// rev-parse stops after the first answer, does a second run read the branch.
func Git(ctx context.Context, dir string) (Head, error) {
	if err := ctx.Err(); err != nil {
		return Head{}, fmt.Errorf("workdir: git: %w", err)
	}
	if f, ok := native(dir); ok {
		return f.Head, nil
	}
	out, ok, err := run(ctx, dir, append([]string{"rev-parse"}, headArgs...)...)
	if err != nil {
		return Head{}, err
	}
	return head(ctx, dir, strings.Split(out, "\n"), ok)
}

// headArgs are rev-parse's arguments for a Head, read by head.
var headArgs = []string{"--is-inside-work-tree", "HEAD", "--symbolic-full-name", "HEAD", "--"}

// head reads a Head from the lines rev-parse printed for headArgs, ok when
// it exited 0.
func head(ctx context.Context, dir string, lines []string, ok bool) (Head, error) {
	if len(lines) == 0 || lines[0] != "true" {
		return Head{}, nil
	}
	h := Head{InWorkTree: true}
	ref := ""
	if ok && len(lines) >= 3 && isSHA(lines[1]) {
		h.Commit, ref = lines[1], lines[2]
	} else if r, _, err := run(ctx, dir, "symbolic-ref", "--quiet", "HEAD"); err != nil {
		// HEAD names no commit (an unborn branch): Commit stays empty.
		return Head{}, err
	} else {
		ref = r
	}
	if ref != "HEAD" { // a detached HEAD names no branch
		h.Branch = strings.TrimPrefix(ref, "refs/heads/")
	}
	return h, nil
}

// Facts are what Inspect reads of a working directory.
type Facts struct {
	// TopLevel is TopLevel's answer for the directory.
	TopLevel string
	// Head is Git's.
	Head Head
}

// Project is the project facet of the directory, Project's answer.
func (f Facts) Project() string { return name(f.TopLevel) }

// Inspect answers TopLevel(dir) and Git(ctx, dir) with one git run where
// they take two (a SessionStart needs both: the project, and HEAD for the
// handover's divergence). Its error is Git's; TopLevel is set whatever
// happens. An empty dir has empty facts.
func Inspect(ctx context.Context, dir string) (Facts, error) {
	if dir == "" {
		return Facts{}, nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if err := ctx.Err(); err != nil {
		return Facts{TopLevel: dir}, fmt.Errorf("workdir: git: %w", err)
	}
	if f, ok := native(dir); ok {
		return f, nil
	}
	return inspectGit(ctx, dir)
}

// inspectGit is Inspect by one git run, for an absolute dir.
func inspectGit(ctx context.Context, dir string) (Facts, error) {
	f := Facts{TopLevel: dir}
	out, ok, err := run(ctx, dir, append([]string{"rev-parse", "--show-toplevel"}, headArgs...)...)
	if err != nil {
		return f, err
	}
	// The top level is printed first, and nothing at all when dir is in no
	// work tree (rev-parse refuses --show-toplevel there); an unborn HEAD
	// stops it after the second line.
	lines := strings.Split(out, "\n")
	if lines[0] == "" {
		return f, nil
	}
	f.TopLevel = filepath.FromSlash(lines[0])
	f.Head, err = head(ctx, dir, lines[1:], ok)
	return f, err
}

// IsAncestor reports whether ancestor is an ancestor of commit in dir's
// repository (git merge-base --is-ancestor; a commit is its own ancestor).
// Both must be full shas (ErrNotCommit otherwise). When git cannot decide,
// because git is not installed, dir is not a repository, or either commit
// is unknown to it, the answer is false with a nil error: a commit the
// repository does not hold is not in HEAD's history. Errors are as Git's.
func IsAncestor(ctx context.Context, dir, ancestor, commit string) (bool, error) {
	for _, c := range []struct{ name, sha string }{{"ancestor", ancestor}, {"commit", commit}} {
		if !isSHA(c.sha) {
			return false, fmt.Errorf("%w: %s", ErrNotCommit, c.name)
		}
	}
	_, ok, err := run(ctx, dir, "merge-base", "--is-ancestor", "--", ancestor, commit)
	return ok, err
}

// isSHA reports whether s is a full SHA-1 or SHA-256 object name in hex.
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// locationVars are the environment variables that would make git look at a
// repository other than the one containing dir (they are set, for example,
// while git runs a hook). Every answer here is about dir, so they are
// dropped.
var locationVars = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX",
}

func gitEnv() []string {
	env := os.Environ()
	kept := env[:0:0]
next:
	for _, kv := range env {
		for _, name := range locationVars {
			if strings.HasPrefix(kv, name+"=") {
				continue next
			}
		}
		kept = append(kept, kv)
	}
	return kept
}

// run runs git with args in dir and returns its trimmed standard output,
// whatever git exited with. ok is false, with a nil error, when git is not
// installed, dir cannot be entered, or git exits non-zero; those are
// answers. The error is for a context that ended and for any other failure
// to run git.
func run(ctx context.Context, dir string, args ...string) (out string, ok bool, err error) {
	if _, has := ctx.Deadline(); !has {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	cmd.WaitDelay = time.Second // git's own children must not hold the run open
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err = cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return "", false, fmt.Errorf("workdir: git %s: %w", args[0], ctxErr)
	}
	var exit *exec.ExitError
	var path *fs.PathError
	switch {
	case err == nil:
		return strings.TrimSpace(stdout.String()), true, nil
	case errors.As(err, &exit):
		return strings.TrimSpace(stdout.String()), false, nil
	case errors.Is(err, exec.ErrNotFound), errors.As(err, &path):
		return "", false, nil
	}
	return "", false, fmt.Errorf("workdir: git %s: %w", args[0], err)
}
