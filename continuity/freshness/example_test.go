package freshness_test

import (
	"fmt"
	"time"

	"github.com/batonhq/baton/continuity/freshness"
)

// The ADR's outage: a handover written six days ago on main, whose commit is
// an ancestor of HEAD. Advanced is true and says nothing about age; the
// record is stale, so it is shown as history and its Next Action is not
// quoted.
func Example() {
	now := time.Date(2026, 9, 11, 9, 0, 0, 0, time.UTC)
	a := freshness.Assessment{
		Freshness: freshness.Default.Parse("2026-09-05T03:45:23Z", now),
		Divergence: freshness.Diverge(freshness.Topology{
			Git:                true,
			Recorded:           freshness.Ref{Commit: "1f3a9c0d2e4b5a6978807162534455667788990a", Branch: "main"},
			Current:            freshness.Ref{Commit: "c0ffee0d2e4b5a6978807162534455667788990b", Branch: "main"},
			RecordedIsAncestor: true,
		}),
	}
	fmt.Println(a.Freshness.Label, a.Divergence, a.History())
	fmt.Println(a.Freshness.Reason)
	// Output:
	// stale advanced true
	// recorded 6d ago, stale from 2d
}

func ExamplePolicy_Of() {
	recorded := time.Date(2026, 9, 11, 9, 0, 0, 0, time.UTC)
	for _, age := range []time.Duration{18 * time.Minute, 12 * time.Hour, 25 * time.Hour, 48 * time.Hour} {
		r := freshness.Default.Of(recorded, recorded.Add(age))
		fmt.Printf("%-6s %s\n", r.Label, r.Reason)
	}
	fmt.Println(freshness.Default.Of(recorded, recorded.Add(-time.Hour)).Reason)
	// Output:
	// fresh  recorded 18m ago, fresh under 12h
	// aging  recorded 12h ago, aging from 12h
	// aging  recorded 25h ago, aging from 12h
	// stale  recorded 2d ago, stale from 2d
	// timestamp is 1h in the future
}
