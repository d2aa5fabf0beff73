package brief

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity/memrule"
	"github.com/google/uuid"
)

// Item is one row of a briefing, in the section a store query placed it.
type Item struct {
	ID      uuid.UUID      `json:"id"`
	Kind    memrule.Kind   `json:"kind"`
	Topic   string         `json:"topic"`
	Status  memrule.Status `json:"status"`
	Content string         `json:"content"`
	Section string         `json:"section"`
	Due     *time.Time     `json:"due,omitempty"`
}

// Handover is the newest handover (or checkpoint) of the project as a
// SessionStart shows it, after the briefing. The caller prepares every field
// as text: the freshness and divergence rules decide Label and History
// (divergence is read against the working directory's HEAD, so it is
// decided where the work tree is), and this package only lays them out.
type Handover struct {
	// Kind is the record's kind, "handover" when empty.
	Kind string
	// CreatedAt is when the record was written, as it should read.
	CreatedAt string
	// Task is the task the episode carried ("none" when it carried none).
	Task string
	// Objective, State and NextAction are the record's text.
	Objective  string
	State      string
	NextAction string
	// Label is the freshness (and divergence) label with its reason, shown
	// in the heading's parentheses: "fresh, 18m" or "stale, 6d old: …".
	Label string
	// History says the record is too old (or its time unreadable) to act
	// on: it is shown as earlier history and its next action is not
	// quoted, so it is never read as the current next step.
	History bool
}

// Input is what a briefing renders.
type Input struct {
	// Project names the project in the header; "" for every project.
	Project string
	// Items are the rows in render order, grouped by section.
	Items []Item
	// Budget is the text's budget in characters.
	Budget int
}

// Result is a rendered briefing.
type Result struct {
	Text string
	// Shown counts the items that survived the cut: they are
	// Input.Items[:Shown], exactly the rows the agent saw.
	Shown int
}

// Render renders the briefing and cuts it at the budget. The header comes
// first (when even it does not fit, the text is empty), then the items in
// order. A block or a row renders whole or not at
// all, and the cut is a prefix of the whole text, so the rows that survived
// are exactly the ones the agent saw; a note says what was cut.
func Render(in Input) Result {
	w := writer{budget: in.Budget}
	header := "# baton briefing\n"
	if in.Project != "" {
		header = "# baton briefing — project " + oneLine(in.Project) + "\n"
	}
	if !w.write(header) {
		return Result{}
	}
	var res Result
	if len(in.Items) == 0 {
		w.write("\nNo open commitments, blockers, decisions or preferences are recorded.\n")
		res.Text = w.out.String()
		return res
	}
	section := ""
	for i, it := range in.Items {
		var chunk strings.Builder
		if it.Section != section {
			chunk.WriteString("\n## " + it.Section + "\n")
		}
		fmt.Fprintf(&chunk, "- %s [%s] %s", oneLine(it.Topic), it.Kind, oneLine(it.Content))
		if it.Due != nil {
			chunk.WriteString(" (due " + it.Due.UTC().Format("2006-01-02 15:04 UTC") + ")")
		}
		chunk.WriteString("\n")
		if !w.write(chunk.String()) {
			w.write(cutNote(len(in.Items) - i))
			break
		}
		section = it.Section
		res.Shown++
	}
	res.Text = w.out.String()
	return res
}

// HandoverBlock lays out a handover: current, with its next action, or
// history, without it (an instruction that was right days ago is worse than
// none when the worker cannot tell it is wrong until after acting on it).
// Every value is one line, so record text cannot forge a heading or a row.
func HandoverBlock(h Handover) string {
	kind := handoverKind(h)
	var b strings.Builder
	if h.History {
		b.WriteString("\n## Earlier " + kind + " — history")
	} else {
		b.WriteString("\n## Last " + kind)
	}
	if l := oneLine(h.Label); l != "" {
		b.WriteString(" (" + l + ")")
	}
	b.WriteString("\n")
	line := func(name, v string) {
		if v = oneLine(v); v != "" {
			b.WriteString("- " + name + ": " + v + "\n")
		}
	}
	line("Written", h.CreatedAt)
	line("Task", h.Task)
	line("Objective", h.Objective)
	line("State", h.State)
	switch {
	case !h.History:
		line("Next action", h.NextAction)
	case oneLine(h.NextAction) != "":
		b.WriteString("- Its next action is not quoted: re-check the current state before acting on it.\n")
	}
	return b.String()
}

func handoverKind(h Handover) string {
	if k := oneLine(h.Kind); k != "" {
		return k
	}
	return "handover"
}

// cutNote says how many rows the budget cut.
func cutNote(rows int) string {
	what := fmt.Sprintf("%d more rows", rows)
	if rows == 1 {
		what = "1 more row"
	}
	return "\n(" + what + " cut at the briefing's budget)\n"
}

// writer accumulates text within a character budget.
type writer struct {
	out          strings.Builder
	used, budget int
}

// write appends s whole when it fits the budget, and reports whether it did.
func (w *writer) write(s string) bool {
	n := utf8.RuneCountInString(s)
	if w.used+n > w.budget {
		return false
	}
	w.out.WriteString(s)
	w.used += n
	return true
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
