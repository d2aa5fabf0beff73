package freshness_test

import (
	"testing"

	"github.com/batonhq/baton/continuity/freshness"
)

const (
	shaA = "1f3a9c0d2e4b5a6978807162534455667788990a"
	shaB = "c0ffee0d2e4b5a6978807162534455667788990b"
)

func ref(commit, branch string) freshness.Ref { return freshness.Ref{Commit: commit, Branch: branch} }

// TestDiverge walks the rule's order: no git, nothing recorded or an unborn
// HEAD is unknown whatever else holds; two named, different branches are a
// different context; then same commit, ancestry, neither. Detached HEAD (an
// empty branch) on either side is compared by commit alone.
func TestDiverge(t *testing.T) {
	tests := []struct {
		name              string
		git               bool
		recorded, current freshness.Ref
		ancestor          bool
		want              freshness.Divergence
	}{
		// unknown
		{"no git", false, ref(shaA, "main"), ref(shaA, "main"), true, freshness.DivergenceUnknown},
		{"no git, other branch", false, ref(shaA, "main"), ref(shaB, "feat"), false, freshness.DivergenceUnknown},
		{"nothing recorded", true, ref("", ""), ref(shaA, "main"), false, freshness.DivergenceUnknown},
		{"branch but no commit recorded", true, ref("", "feat"), ref(shaA, "main"), false, freshness.DivergenceUnknown},
		{"no commit recorded, caller claims ancestry", true, ref("", "main"), ref(shaA, "main"), true, freshness.DivergenceUnknown},
		{"unborn HEAD", true, ref(shaA, "main"), ref("", "main"), false, freshness.DivergenceUnknown},
		{"unborn HEAD on another branch", true, ref(shaA, "main"), ref("", "feat"), false, freshness.DivergenceUnknown},
		{"detached and unborn", true, ref(shaA, ""), ref("", ""), false, freshness.DivergenceUnknown},

		// different_context
		{"other branch, same commit", true, ref(shaA, "main"), ref(shaA, "feat"), true, freshness.DifferentContext},
		{"other branch, ancestor", true, ref(shaA, "main"), ref(shaB, "feat"), true, freshness.DifferentContext},
		{"other branch, unrelated", true, ref(shaA, "main"), ref(shaB, "feat"), false, freshness.DifferentContext},
		{"branch names are case-sensitive", true, ref(shaA, "Main"), ref(shaA, "main"), true, freshness.DifferentContext},

		// exact
		{"same branch, same commit", true, ref(shaA, "main"), ref(shaA, "main"), true, freshness.Exact},
		{"same commit, ancestry not asked", true, ref(shaA, "main"), ref(shaA, "main"), false, freshness.Exact},
		{"same commit, other hex case", true, ref(shaA, "main"), ref(upper(shaA), "main"), true, freshness.Exact},
		{"recorded detached, same commit", true, ref(shaA, ""), ref(shaA, "main"), true, freshness.Exact},
		{"HEAD detached, same commit", true, ref(shaA, "main"), ref(shaA, ""), true, freshness.Exact},
		{"both detached, same commit", true, ref(shaA, ""), ref(shaA, ""), true, freshness.Exact},

		// advanced
		{"same branch, ancestor", true, ref(shaA, "main"), ref(shaB, "main"), true, freshness.Advanced},
		{"recorded detached, ancestor", true, ref(shaA, ""), ref(shaB, "main"), true, freshness.Advanced},
		{"HEAD detached, ancestor", true, ref(shaA, "main"), ref(shaB, ""), true, freshness.Advanced},
		{"both detached, ancestor", true, ref(shaA, ""), ref(shaB, ""), true, freshness.Advanced},

		// diverged
		{"same branch, not an ancestor", true, ref(shaA, "main"), ref(shaB, "main"), false, freshness.Diverged},
		{"recorded detached, not an ancestor", true, ref(shaA, ""), ref(shaB, "main"), false, freshness.Diverged},
		{"HEAD detached, not an ancestor", true, ref(shaA, "main"), ref(shaB, ""), false, freshness.Diverged},
		{"both detached, not an ancestor", true, ref(shaA, ""), ref(shaB, ""), false, freshness.Diverged},
	}
	for _, tt := range tests {
		got := freshness.Diverge(freshness.Topology{Git: tt.git, Recorded: tt.recorded, Current: tt.current, RecordedIsAncestor: tt.ancestor})
		if got != tt.want {
			t.Errorf("%s: Diverge = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestDivergeEveryCombination checks, over every combination of the inputs'
// kinds, the properties each label promises, so no combination falls through
// to a label that contradicts its inputs.
func TestDivergeEveryCombination(t *testing.T) {
	commits := []string{"", shaA, shaB}
	branches := []string{"", "main", "feat"}
	seen := map[freshness.Divergence]bool{}
	for _, git := range []bool{false, true} {
		for _, anc := range []bool{false, true} {
			for _, rc := range commits {
				for _, cc := range commits {
					for _, rb := range branches {
						for _, cb := range branches {
							in := freshness.Topology{Git: git, Recorded: ref(rc, rb), Current: ref(cc, cb), RecordedIsAncestor: anc}
							got := freshness.Diverge(in)
							seen[got] = true
							comparable := git && rc != "" && cc != ""
							otherBranch := rb != "" && cb != "" && rb != cb
							var ok bool
							switch got {
							case freshness.DivergenceUnknown:
								ok = !comparable
							case freshness.DifferentContext:
								ok = comparable && otherBranch
							case freshness.Exact:
								ok = comparable && !otherBranch && rc == cc
							case freshness.Advanced:
								ok = comparable && !otherBranch && rc != cc && anc
							case freshness.Diverged:
								ok = comparable && !otherBranch && rc != cc && !anc
							}
							if !ok {
								t.Errorf("%+v: %v contradicts its inputs", in, got)
							}
						}
					}
				}
			}
		}
	}
	if len(seen) != 5 {
		t.Errorf("combinations reached %d labels, want all 5", len(seen))
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
