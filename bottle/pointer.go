package bottle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Continuation is what a compact or resume SessionStart runs: it claims the
// session's armed marker and returns it, for the caller to inject a pointer
// to its bottle (package continuity/inject renders the wording). ok is
// false when there was nothing to claim, so of two racing SessionStarts
// exactly one injects. A claimed marker whose bottle is gone (archived by
// /clear, or deleted) yields ok false: a pointer to a missing file would
// mislead. The marker's Plan is read from the bottle's files as they are
// now, and its Task back from the end of the last page.
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
	return AsItIs(m), true, nil
}

// AsItIs returns the claimed marker m with what it says of its bottle read
// from the bottle's files as they are now: its Plan, and its Task from the
// end of the last page (the marker's own, of its seal, when the page has
// none). The bottle may have been rendered again since the seal (every
// Stop renders it), and a pointer must not name as the current task one
// the session has moved on from.
func AsItIs(m Marker) Marker {
	m.Plan, _ = PlanReads(m.Path) // a plan that cannot be read leaves the pointer naming the index alone
	if task := pageTask(m.Plan.Last.Path); task != "" {
		m.Task = task
	}
	return m
}

// PageRead is one read a pointer asks for: Limit lines of Path from line
// Offset, which a harness's file tool returns whole.
type PageRead struct {
	// Path is the file's absolute path.
	Path string `json:"path"`
	// Offset is the first line to read, 1-based.
	Offset int `json:"offset"`
	// Limit is how many lines to read.
	Limit int `json:"limit"`
	// Holds says what the read holds, on one line.
	Holds string `json:"holds"`
}

// ReadPlan is the reads a pointer to a bottle asks for, newest first: the
// index and the page where the session stopped, then, only if needed, the
// page before it and the older ones the index lists. Each read is a whole
// file laid out within the reader's limits.
type ReadPlan struct {
	// Index is the read of the index.
	Index PageRead `json:"index"`
	// Last is the read of the newest page.
	Last PageRead `json:"last"`
	// Previous is the read of the page before it; zero with one page.
	Previous PageRead `json:"previous,omitzero"`
	// Pages is how many pages the bottle has.
	Pages int `json:"pages"`
}

// indexHolds is what a plan says the index holds.
const indexHolds = "the index: session facts, the original request and the table of pages"

// planOf returns the plan of a bottle just written to dir.
func planOf(dir string, res Result) ReadPlan {
	n := len(res.metas)
	lines := strings.Count(string(res.Index), "\n")
	p := ReadPlan{Index: PageRead{Path: filepath.Join(dir, IndexName), Offset: 1, Limit: lines, Holds: indexHolds}, Pages: n}
	read := func(i int) PageRead {
		return PageRead{Path: filepath.Join(dir, PageName(i+1)), Offset: 1, Limit: res.metas[i].Lines, Holds: pageHolds(i+1, res.metas[i])}
	}
	if n > 0 {
		p.Last = read(n - 1)
	}
	if n > 1 {
		p.Previous = read(n - 2)
	}
	return p
}

// PlanReads returns the plan of the bottle whose index is at indexPath, read
// from its files as they are now.
func PlanReads(indexPath string) (ReadPlan, error) {
	dir := filepath.Dir(indexPath)
	lines, _, err := fileLines(indexPath)
	if err != nil {
		return ReadPlan{}, fmt.Errorf("bottle: plan: %w", err)
	}
	names, err := pageFiles(dir)
	if err != nil {
		return ReadPlan{}, fmt.Errorf("bottle: plan: %w", err)
	}
	p := ReadPlan{Index: PageRead{Path: indexPath, Offset: 1, Limit: lines, Holds: indexHolds}, Pages: len(names)}
	read := func(name string) (PageRead, error) {
		path := filepath.Join(dir, name)
		lines, first, err := fileLines(path)
		if err != nil {
			return PageRead{}, fmt.Errorf("bottle: plan: %w", err)
		}
		_, holds, _ := strings.Cut(first, " — ")
		return PageRead{Path: path, Offset: 1, Limit: lines, Holds: holds}, nil
	}
	if n := len(names); n > 0 {
		if p.Last, err = read(names[n-1]); err != nil {
			return ReadPlan{}, err
		}
		if n > 1 {
			if p.Previous, err = read(names[n-2]); err != nil {
				return ReadPlan{}, err
			}
		}
	}
	return p, nil
}

// fileLines returns how many lines a file has and its first line.
func fileLines(path string) (int, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, "", err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n, first, nil
}

// pageTask reads the current task from the footer of a bottle's last page;
// a page that is missing or has none yields "".
func pageTask(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, line := range lines[max(len(lines)-2, 0):] { // the footer's two lines
		if task, found := strings.CutPrefix(line, taskPrefix); found {
			return task
		}
	}
	return ""
}
