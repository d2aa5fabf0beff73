package freshness

import "strings"

// Ref is a position in git: a commit sha (full, as git rev-parse prints it)
// and the branch it was on (empty when HEAD was detached).
type Ref struct {
	Commit string
	Branch string
}

// Topology is what Diverge compares: the position a record was written at,
// the working directory's position now, and the ancestry fact the caller
// asked git for. Diverge runs nothing; the caller (continuity/workdir) does.
type Topology struct {
	// Git says git is installed and the working directory is in a work tree.
	Git bool
	// Recorded is the record's commit and branch; an empty Commit means the
	// record carries no position.
	Recorded Ref
	// Current is HEAD now; an empty Commit means an unborn branch.
	Current Ref
	// RecordedIsAncestor is whether Recorded.Commit is an ancestor of
	// Current.Commit (git merge-base --is-ancestor, which also holds when
	// the two are the same commit).
	RecordedIsAncestor bool
}

// Divergence is where a record's git position stands against HEAD: a
// statement about topology that says nothing about age (a record can be
// Advanced and Stale at once). The zero value is DivergenceUnknown.
type Divergence int

const (
	// DivergenceUnknown means there is nothing to compare: git is not
	// available, the record carries no commit, or HEAD has no commit yet.
	DivergenceUnknown Divergence = iota
	// Exact means HEAD is the recorded commit.
	Exact
	// Advanced means the recorded commit is a proper ancestor of HEAD: work
	// continued on top of it.
	Advanced
	// Diverged means the recorded commit is not in HEAD's history.
	Diverged
	// DifferentContext means the record was written on another branch.
	DifferentContext
)

var divergenceNames = names[Divergence]{kind: "divergence", words: []string{
	DivergenceUnknown: "unknown", Exact: "exact", Advanced: "advanced", Diverged: "diverged", DifferentContext: "different_context",
}}

// Diverge decides the divergence, in this order: no git, no recorded commit
// or no current commit is DivergenceUnknown; two branches that are both named
// and differ are DifferentContext (a detached HEAD on either side names no
// branch, so it is compared by commit alone); the same commit
// (case-insensitive hex) is Exact; a recorded commit that is an ancestor of
// HEAD is Advanced; anything else is Diverged.
func Diverge(t Topology) Divergence {
	switch {
	case !t.Git || t.Recorded.Commit == "" || t.Current.Commit == "":
		return DivergenceUnknown
	case t.Recorded.Branch != "" && t.Current.Branch != "" && t.Recorded.Branch != t.Current.Branch:
		return DifferentContext
	case strings.EqualFold(t.Recorded.Commit, t.Current.Commit):
		return Exact
	case t.RecordedIsAncestor:
		return Advanced
	}
	return Diverged
}

// String returns the divergence's stable name.
func (d Divergence) String() string { return divergenceNames.word(d) }

// MarshalText returns the divergence's stable name ("exact", "advanced",
// "diverged", "different_context", "unknown"), never a number. A divergence
// this package does not define is an error.
func (d Divergence) MarshalText() ([]byte, error) { return divergenceNames.marshal(d) }

// UnmarshalText parses a name MarshalText produced.
func (d *Divergence) UnmarshalText(b []byte) error { return divergenceNames.unmarshal(b, d) }
