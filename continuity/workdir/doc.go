// Package workdir reads the working directory a hook or command runs in: the
// project facet it belongs to, and its git position (HEAD's commit and
// branch, and whether a recorded commit is an ancestor of it). It is the I/O
// half beside continuity/freshness, whose pure rules take what this package
// reads.
//
// Git is asked through the git binary (os/exec), which already handles
// packed refs, linked worktrees, a .git file pointing elsewhere and
// ancestry. Only fixed arguments and validated full shas reach its command
// line; environment variables that would point git at another repository are
// dropped. Not having git, or not being in a repository, is an answer (no
// git), not an error, so that divergence reads unknown and the hook goes on.
//
// Files:
//
//	project.go     Project: the git top-level's base name, else the directory's;
//	               TopLevel: that directory itself
//	git.go         Head, Git, Facts, Inspect (TopLevel and Git in one run), IsAncestor,
//	               ErrNotCommit, Timeout; the one git runner
//	*_test.go      tables over temporary repositories made with git init/commit
//	               (skipped only when git is not installed)
package workdir
