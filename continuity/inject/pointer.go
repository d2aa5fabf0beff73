package inject

import (
	"fmt"
	"strings"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/internal/runes"
)

// MaxTaskLen bounds the current-task line of a pointer, in characters. The
// pointer is a pointer, not a payload: the bottle holds the rest.
const MaxTaskLen = 200

// PointerInput is what a pointer to a bottle says.
type PointerInput struct {
	// Path is the absolute path of the bottle's index; "" means there is
	// no bottle.
	Path string
	// Plan is the reads to make, newest first; with no Index path the
	// pointer names Path alone and leaves the paging to the reader.
	Plan bottle.ReadPlan
	// Mode decides the full or the degraded wording.
	Mode bottle.Mode
	// Gap, when positive, adds the pending-observations line.
	Gap int
	// Task is the one-line current task; "" leaves the line out.
	Task string
}

// FromMarker returns the pointer input of a claimed bottle marker.
func FromMarker(m bottle.Marker) PointerInput {
	return PointerInput{Path: m.Path, Plan: m.Plan, Mode: m.Mode, Gap: m.Gap, Task: m.Task}
}

// ContinuationInput is a compact or resume SessionStart that claimed a
// bottle marker.
type ContinuationInput struct {
	// RunID and Agent are the session's, for the id instruction.
	RunID string
	Agent string
	// Bottle is the claimed bottle.
	Bottle PointerInput
}

// Continuation returns the text injected after a compaction or resume that
// claimed a bottle marker: the pointer to the bottle, then the id
// instruction (compaction discarded the run id with the context). With no
// bottle path it is the id instruction alone: a pointer to nothing would
// mislead.
func Continuation(in ContinuationInput) string {
	return join(pointer(in.Bottle), IDInstruction(in.RunID, in.Agent))
}

// pointer returns the short block that points at a bottle rather than
// carrying it: the model pulls the bottle in with reads, which the next
// compaction drops first, so bottles never pile up across legs. With a plan
// it names the exact reads, newest first: the index and the page where the
// session stopped, then the older pages only if needed; each is a whole
// file laid out within the reader's limits. A reconstructed bottle gets the
// degraded wording: its assistant turns were not preserved, so the lines
// claiming a verbatim record and forbidding a repeat of the final message
// would be false. Paths, what each read holds, and the task are rendered
// after a prefix on a line baton writes, so none can fake a heading.
func pointer(in PointerInput) string {
	if in.Path == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("# [baton] Endless Mode — session continuation\n\n")
	end := "file"
	if p := in.Plan; p.Index.Path != "" && p.Last.Path != "" {
		end = "last page"
		b.WriteString("Before doing anything else, read this session's bottle and continue the\n" +
			"session from where it ends. Its files are laid out to fit your file tool's\n" +
			"limits: make these reads, in this order, each as given.\n\n")
		fmt.Fprintf(&b, "1. Read %s — %s.\n", readText(p.Index), runes.OneLine(p.Index.Holds))
		fmt.Fprintf(&b, "2. Read %s — %s, where the session stopped.\n", readText(p.Last), runes.OneLine(p.Last.Holds))
		if p.Previous.Path != "" {
			fmt.Fprintf(&b, "3. Only if you need more, read %s — %s;\n"+
				"   then the older pages the index lists, newest first.\n", readText(p.Previous), runes.OneLine(p.Previous.Holds))
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Before doing anything else, Read this file and continue the session from\nwhere it ends:\n\n")
		fmt.Fprintf(&b, "    %s\n\n", runes.OneLine(in.Path))
		b.WriteString("(Page with offset/limit if it is long — read the tail first if you must\nprioritize.)\n\n")
	}
	if in.Mode == bottle.ModeReconstructed {
		b.WriteString("- It is a partial reconstruction: your messages to the user were not\n" +
			"  preserved — only the user's messages are verbatim. Session summary\n" +
			"  blocks are generated, not your words. Do not assume prior phrasings.\n" +
			"- The last session summary describes where you left off; continue from\n" +
			"  there.\n")
	} else {
		b.WriteString("- It is the authoritative session record: verbatim conversation, with\n" +
			"  observations in place of tool activity. Where it conflicts with the\n" +
			"  system-generated summary above, the bottle wins.\n" +
			"- The final assistant message in it was already delivered to the user.\n" +
			"  Do not repeat it or redo work it describes as done — continue from its\n" +
			"  end state.\n")
	}
	switch {
	case in.Gap == 1:
		fmt.Fprintf(&b, "- The last tool event has no observation yet (⏳ at the end of the\n"+
			"  %s): its outcome is not recorded. Do not assume it; check it.\n", end)
	case in.Gap > 1:
		fmt.Fprintf(&b, "- The last %d tool events have no observations yet (⏳ at the end of the\n"+
			"  %s): their outcomes are not recorded. Do not assume them; check them.\n", in.Gap, end)
	}
	if task := strings.TrimSpace(runes.OneLine(in.Task)); task != "" {
		task = runes.Ellipsize(task, MaxTaskLen)
		fmt.Fprintf(&b, "\nCurrent task: %s\n", task)
	}
	return b.String()
}

// readText names one read: the file and its line range.
func readText(r bottle.PageRead) string {
	first := max(r.Offset, 1)
	return fmt.Sprintf("%s (lines %d–%d)", runes.OneLine(r.Path), first, first+max(r.Limit, 1)-1)
}
