package bottle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
)

// PointerInput is what the injected pointer says.
type PointerInput struct {
	// Path is the bottle's absolute path.
	Path string
	// Mode decides the full or the degraded wording.
	Mode Mode
	// Gap, when positive, adds the pending-observations line.
	Gap int
	// Task is the one-line current task; empty leaves the line out.
	Task string
}

// Pointer returns the short block injected after a compaction or resume: a
// pointer to the bottle, not its contents. The model pulls the bottle in
// with a Read, which the next compaction drops first, so bottles never
// pile up across legs. A reconstructed bottle gets the degraded wording:
// its assistant turns were not preserved, so the lines claiming a verbatim
// record and forbidding a repeat of the final message would be false.
func Pointer(in PointerInput) string {
	var b strings.Builder
	b.WriteString("# [baton] Endless Mode — session continuation\n\n")
	b.WriteString("Before doing anything else, Read this file and continue the session from\nwhere it ends:\n\n")
	fmt.Fprintf(&b, "    %s\n\n", in.Path)
	b.WriteString("(Page with offset/limit if it is long — read the tail first if you must\nprioritize.)\n\n")
	if in.Mode == ModeReconstructed {
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
		b.WriteString("- The last tool event has no observation yet (⏳ at the end of the\n" +
			"  file); it will appear in the timeline shortly. Do not assume its outcome.\n")
	case in.Gap > 1:
		fmt.Fprintf(&b, "- The last %d tool events have no observations yet (⏳ at the end of the\n"+
			"  file); they will appear in the timeline shortly. Do not assume their\n"+
			"  outcome.\n", in.Gap)
	}
	if in.Task != "" {
		fmt.Fprintf(&b, "\nCurrent task: %s\n", in.Task)
	}
	return b.String()
}

// Continuation is what a compact or resume SessionStart runs: it claims the
// session's armed marker and returns the pointer to inject. ok is false when
// there was nothing to claim, so of two racing SessionStarts exactly one
// injects. A claimed marker whose bottle is gone (archived by /clear, or
// deleted) injects nothing: a pointer to a missing file would mislead. The
// current task is read back from the bottle's header.
func (b *Bottler) Continuation(ctx context.Context, c MarkerClaimer, sessionID string) (text string, ok bool, err error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return "", false, err
	}
	m, ok, err := c.ClaimBottle(ctx, sessionID)
	if err != nil {
		return "", false, fmt.Errorf("bottle: claim marker: %w", err)
	}
	if !ok {
		return "", false, nil
	}
	if _, err := os.Stat(m.Path); err != nil {
		return "", false, nil
	}
	return Pointer(PointerInput{Path: m.Path, Mode: m.Mode, Gap: m.Gap, Task: headerTask(m.Path)}), true, nil
}

// headerTask reads the current-task line from a bottle's header; a bottle
// that is missing or has none yields "".
func headerTask(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for i := 0; i < 6 && sc.Scan(); i++ {
		line := sc.Text()
		if line == "" {
			break // the header ends at the first blank line
		}
		if task, found := strings.CutPrefix(line, taskPrefix); found {
			return task
		}
	}
	return ""
}
