package bottle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
)

// Continuation is what a compact or resume SessionStart runs: it claims the
// session's armed marker and returns it, for the caller to inject a pointer
// to its bottle (package continuity/inject renders the wording). ok is
// false when there was nothing to claim, so of two racing SessionStarts
// exactly one injects. A claimed marker whose bottle is gone (archived by
// /clear, or deleted) yields ok false: a pointer to a missing file would
// mislead. The marker's Task is read back from the bottle's header.
func (b *Bottler) Continuation(ctx context.Context, c MarkerClaimer, sessionID string) (m Marker, ok bool, err error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return Marker{}, false, err
	}
	m, ok, err = c.ClaimBottle(ctx, sessionID)
	if err != nil {
		return Marker{}, false, fmt.Errorf("bottle: claim marker: %w", err)
	}
	if !ok {
		return Marker{}, false, nil
	}
	if _, err := os.Stat(m.Path); err != nil {
		return Marker{}, false, nil
	}
	m.Task = headerTask(m.Path)
	return m, true, nil
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
