package inject

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxHandoverFieldLen bounds each field of a rendered handover, in
// characters; a longer field is cut and ends in "…".
const MaxHandoverFieldLen = 400

// HandoverInput is the newest handover of the project and its two labels:
// freshness (an age) and divergence (git topology), which say different
// things and are both shown.
type HandoverInput struct {
	Task       string
	Objective  string
	State      string
	NextAction string
	// Freshness is the freshness label (fresh, aging, stale, unknown,
	// invalid) and FreshnessReason its human reason ("recorded 6d ago,
	// stale from 2d").
	Freshness       string
	FreshnessReason string
	// Divergence is the git label (exact, advanced, diverged,
	// different_context, unknown).
	Divergence string
	// History says the handover is shown as history: stale or invalid.
	History bool
}

// Handover renders the handover block of a SessionStart. A current
// handover is quoted whole, next action included. A stale or invalid one is
// history: its age and reason are stated and its next action is not quoted,
// because an instruction that was right days ago is worse than none when the
// worker cannot tell it is wrong until after acting on it (the
// episode-lifecycle ADR). Every field is rendered on one line.
func Handover(in HandoverInput) string {
	var b strings.Builder
	labels := fmt.Sprintf("%s: %s; git: %s", field(in.Freshness), field(in.FreshnessReason), field(in.Divergence))
	if in.History {
		fmt.Fprintf(&b, "## Earlier handover — history, not current (%s)\n", labels)
	} else {
		fmt.Fprintf(&b, "## Last handover (%s)\n", labels)
	}
	fmt.Fprintf(&b, "- Task: %s\n", field(in.Task))
	fmt.Fprintf(&b, "- Objective: %s\n", field(in.Objective))
	if in.History {
		fmt.Fprintf(&b, "- State at the time: %s\n", field(in.State))
		b.WriteString("- Its next action is not repeated: it may no longer apply. Re-check the state before acting.\n")
		return b.String()
	}
	fmt.Fprintf(&b, "- State: %s\n", field(in.State))
	fmt.Fprintf(&b, "- Next action: %s\n", field(in.NextAction))
	return b.String()
}

// field renders an outside value on one line, bounded.
func field(s string) string {
	s = strings.TrimSpace(oneLine(s))
	if s == "" {
		return "(none)"
	}
	if utf8.RuneCountInString(s) > MaxHandoverFieldLen {
		s = string([]rune(s)[:MaxHandoverFieldLen-1]) + "…"
	}
	return s
}
