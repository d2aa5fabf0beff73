package bottle

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle/privacy"
)

// Mode is the rung of the degradation ladder a bottle was rendered on.
type Mode string

// The rungs of the ladder, best first.
const (
	// ModeFull is a bottle rendered from the transcript: verbatim
	// conversation with observations in place of tool traffic.
	ModeFull Mode = "full"
	// ModeReconstructed is a bottle rebuilt from stored prompts, Stop
	// excerpts, observations and generated summaries: the transcript is gone.
	ModeReconstructed Mode = "reconstructed"
	// ModeTimeline means nothing was stored: no bottle is written and the
	// caller falls back to the briefing.
	ModeTimeline Mode = "timeline"
)

// Page is everything one render needs; the renderer does no I/O.
type Page struct {
	// SessionID is the session being bottled.
	SessionID string
	// Transcript is the parsed transcript; nil when it is gone.
	Transcript *Transcript
	// Record is the stored history, used when Transcript is nil.
	Record *Record
	// Observations are the host's observations, used only when
	// HostObservations is set; otherwise a full render derives them from
	// the transcript's tool calls.
	Observations []Observation
	// HostObservations says Observations came from a host source.
	HostObservations bool
	// Queue is the host's not-yet-observed events; nil without a drainer.
	Queue *Queue
}

// Result is a rendered bottle.
type Result struct {
	// Markdown is the bottle; empty in ModeTimeline.
	Markdown []byte
	// Mode is the ladder rung rendered.
	Mode Mode
	// Gap counts tool events whose observations are not written yet.
	Gap int
	// Task is the one-line current task: the latest summary or last prompt.
	Task string
}

// maxTailLines bounds the stubs shown; the gap still counts them all.
const maxTailLines = 50

// Render renders a bottle from values alone, walking the ladder: full when
// the page has a transcript with at least one message, reconstructed when it
// has a record with a prompt, Stop excerpt or observation, else timeline.
// Every message passes privacy.Scrub; a message empty after it is left out.
func Render(p Page, now time.Time) Result {
	if p.Transcript != nil && hasMessages(p.Transcript) {
		return renderFull(p, now)
	}
	if p.Record != nil {
		r := p.Record
		if len(r.Prompts) > 0 || len(r.StopExcerpts) > 0 || (p.HostObservations && len(p.Observations) > 0) {
			return renderReconstructed(p, now)
		}
	}
	return Result{Mode: ModeTimeline}
}

func hasMessages(t *Transcript) bool {
	for i := range t.Entries {
		if k := t.Entries[i].Kind; (k == KindUser || k == KindAssistant) && privacy.Scrub(t.Entries[i].Text) != "" {
			return true
		}
	}
	return false
}

// item is one line group of a full bottle in conversation order.
type item struct {
	pos   int64
	order int // 0 for transcript entries, 1 for observations at the same position
	seq   int
	entry *Entry
	text  string // the entry's text, scrubbed
	obs   *Observation
}

func renderFull(p Page, now time.Time) Result {
	t := p.Transcript
	var obs []Observation
	var tail []Stub
	calls := callIndex(t)
	if p.HostObservations {
		obs = p.Observations
		tail = transcriptTail(t, calls, obs)
	} else {
		obs, tail = DeriveObservations(t)
	}
	gap := len(tail)
	if p.Queue != nil {
		gap = p.Queue.Pending
		tail = mergeStubs(p.Queue.Stubs, nil)
	}

	items := make([]item, 0, len(t.Entries)+len(obs))
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Kind == KindToolCall {
			continue
		}
		text := privacy.Scrub(e.Text)
		if text == "" {
			continue
		}
		items = append(items, item{pos: e.Pos, seq: i, entry: e, text: text})
	}
	for i := range obs {
		items = append(items, item{pos: anchor(t, calls, &obs[i]), order: 1, seq: i, obs: &obs[i]})
	}
	sort.SliceStable(items, func(a, b int) bool {
		x, y := items[a], items[b]
		if x.pos != y.pos {
			return x.pos < y.pos
		}
		if x.order != y.order {
			return x.order < y.order
		}
		if x.obs != nil && !x.obs.Time.Equal(y.obs.Time) {
			return x.obs.Time.Before(y.obs.Time)
		}
		return x.seq < y.seq
	})

	var first, last string
	for i := range t.Entries {
		if e := &t.Entries[i]; e.Kind == KindUser {
			if text := privacy.Scrub(e.Text); text != "" {
				if first == "" {
					first = text
				}
				last = text
			}
		}
	}
	task := oneLine(last, maxBrief)

	var b bytes.Buffer
	source := "transcript + observations"
	if !p.HostObservations {
		source = "transcript + observations derived from tool calls"
	}
	header(&b, p.SessionID, t.Project, t.Started, t.Compactions, now,
		"full ("+source+")", task)
	if first != "" {
		fmt.Fprintf(&b, "## Original request\n%s\n\n", first)
	}
	inObs := false
	for _, it := range items {
		if it.obs != nil {
			line := observationLine(it.obs)
			if line == "" {
				continue
			}
			if !inObs {
				b.WriteString("*What happened:*\n")
				inObs = true
			}
			b.WriteString(line)
			continue
		}
		if inObs {
			b.WriteString("\n")
			inObs = false
		}
		e := it.entry
		switch e.Kind {
		case KindUser:
			fmt.Fprintf(&b, "---\n\n**User**%s\n%s\n\n", clock(e.Time), it.text)
		case KindAssistant:
			fmt.Fprintf(&b, "**Assistant**%s\n%s\n\n", clock(e.Time), it.text)
		}
	}
	if inObs {
		b.WriteString("\n")
	}
	writeTail(&b, tail, gap)
	return Result{Markdown: b.Bytes(), Mode: ModeFull, Gap: gap, Task: task}
}

// anchor returns the transcript position an observation belongs at: its tool
// call's when the tool-use id matches, else just after the last entry of its
// turn not later than its time.
func anchor(t *Transcript, calls map[string]int, o *Observation) int64 {
	if o.derived {
		return o.pos
	}
	if o.ToolUseID != "" {
		if i, ok := calls[o.ToolUseID]; ok {
			return t.Entries[i].Pos
		}
	}
	// Find the turn: by prompt number when known, else by time.
	turnStart, turnEnd := -1, len(t.Entries)
	n := 0
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Kind != KindUser {
			continue
		}
		n++
		byNumber := o.PromptNumber > 0 && n == o.PromptNumber
		byTime := o.PromptNumber <= 0 && !o.Time.IsZero() && !e.Time.After(o.Time)
		if byNumber || byTime {
			turnStart = i
			turnEnd = len(t.Entries)
			for j := i + 1; j < len(t.Entries); j++ {
				if t.Entries[j].Kind == KindUser {
					turnEnd = j
					break
				}
			}
			if byNumber {
				break
			}
		}
	}
	if turnStart < 0 {
		if o.PromptNumber > n && len(t.Entries) > 0 {
			return t.Entries[len(t.Entries)-1].Pos // a turn newer than the transcript
		}
		if len(t.Entries) == 0 {
			return 0
		}
		turnStart, turnEnd = 0, len(t.Entries)
	}
	pos := t.Entries[turnStart].Pos
	for j := turnStart; j < turnEnd; j++ {
		if e := &t.Entries[j]; !o.Time.IsZero() && !e.Time.After(o.Time) {
			pos = e.Pos
		}
	}
	return pos
}

// callIndex maps each tool-use id to its call's index in t.Entries.
func callIndex(t *Transcript) map[string]int {
	calls := make(map[string]int)
	for i := range t.Entries {
		if e := &t.Entries[i]; e.Kind == KindToolCall && e.ToolUseID != "" {
			calls[e.ToolUseID] = i
		}
	}
	return calls
}

// transcriptTail returns the tool calls newer than the newest observation:
// the floor of the honest tail that works without the host's queue.
func transcriptTail(t *Transcript, calls map[string]int, obs []Observation) []Stub {
	newest := int64(-1)
	for i := range obs {
		if p := anchor(t, calls, &obs[i]); p > newest {
			newest = p
		}
	}
	var tail []Stub
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Kind == KindToolCall && e.Pos > newest {
			tail = append(tail, Stub{Tool: e.Tool, Time: e.Time, ToolUseID: e.ToolUseID, brief: e.Brief, code: e.Code})
		}
	}
	return tail
}

// mergeStubs returns a followed by the stubs of b whose tool-use id a lacks.
func mergeStubs(a, b []Stub) []Stub {
	seen := make(map[string]bool, len(a))
	out := make([]Stub, 0, len(a)+len(b))
	for _, s := range a {
		if s.ToolUseID != "" {
			seen[s.ToolUseID] = true
		}
		out = append(out, s)
	}
	for _, s := range b {
		if s.ToolUseID == "" || !seen[s.ToolUseID] {
			out = append(out, s)
		}
	}
	return out
}

func header(b *bytes.Buffer, session, project string, started time.Time, compactions int, now time.Time, mode, task string) {
	fmt.Fprintf(b, "# Session bottle — %s\n", session)
	if project == "" {
		project = "(unknown)"
	}
	fmt.Fprintf(b, "project: %s · started: %s · legs: %d · rendered: %s\n",
		project, stamp(started), compactions+1, stamp(now))
	fmt.Fprintf(b, "mode: %s\n", mode)
	if task != "" {
		fmt.Fprintf(b, "%s%s\n", taskPrefix, task)
	}
	b.WriteString("\n")
}

// taskPrefix starts the header line that carries the current task;
// Continuation reads it back.
const taskPrefix = "current task: "

func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " (" + t.UTC().Format("15:04") + ")"
}

func observationLine(o *Observation) string {
	title := oneLine(privacy.Scrub(o.Title), maxBrief)
	var clause string
	if o.derived {
		clause = o.Narrative
		if o.code && clause != "" {
			clause = code(clause)
		}
	} else {
		clause = FirstClause(privacy.Scrub(o.Narrative))
	}
	if title == "" && clause == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("- ")
	if o.ID != "" {
		fmt.Fprintf(&b, "[#%s] ", o.ID)
	}
	b.WriteString(title)
	if clause != "" {
		if title != "" {
			b.WriteString(" — ")
		}
		b.WriteString(clause)
	}
	if o.Failed {
		b.WriteString(" (failed)")
	}
	b.WriteString("\n")
	return b.String()
}

// code wraps s in a Markdown code span that its own backticks cannot close.
func code(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func writeTail(b *bytes.Buffer, tail []Stub, gap int) {
	if len(tail) == 0 && gap == 0 {
		return
	}
	b.WriteString("---\n\n*Recent activity (observations pending — will appear in the timeline shortly):*\n")
	shown := tail
	if len(shown) > maxTailLines {
		shown = shown[len(shown)-maxTailLines:]
	}
	for _, s := range shown {
		brief, isCode := s.gist()
		if isCode && brief != "" {
			brief = code(brief)
		}
		line := "- ⏳ " + s.Tool
		if brief != "" {
			line += " — " + brief
		}
		if !s.Time.IsZero() {
			line += " (" + s.Time.UTC().Format("15:04:05") + ")"
		}
		b.WriteString(line + "\n")
	}
	if hidden := max(gap, len(tail)) - len(shown); hidden > 0 {
		fmt.Fprintf(b, "- ⏳ … and %d more\n", hidden)
	}
	b.WriteString("\n")
}

const truncatedMarker = "[truncated at 4000 chars]"

func renderReconstructed(p Page, now time.Time) Result {
	r := p.Record
	prompts := append([]Prompt(nil), r.Prompts...)
	sort.SliceStable(prompts, func(a, b int) bool { return prompts[a].Number < prompts[b].Number })
	excerpts := append([]StopExcerpt(nil), r.StopExcerpts...)
	sort.SliceStable(excerpts, func(a, b int) bool {
		return byTurn(excerpts[a].PromptNumber, excerpts[a].Time, excerpts[b].PromptNumber, excerpts[b].Time)
	})
	summaries := append([]Summary(nil), r.Summaries...)
	sort.SliceStable(summaries, func(a, b int) bool {
		return byTurn(summaries[a].PromptNumber, summaries[a].Time, summaries[b].PromptNumber, summaries[b].Time)
	})
	var obs []Observation
	if p.HostObservations {
		obs = append(obs, p.Observations...)
	}
	// An observation with no prompt number goes to the turn whose prompt
	// came last before it.
	for i := range obs {
		if obs[i].PromptNumber > 0 {
			continue
		}
		for _, pr := range prompts {
			if !pr.Time.IsZero() && !pr.Time.After(obs[i].Time) {
				obs[i].PromptNumber = pr.Number
			}
		}
	}
	sort.SliceStable(obs, func(a, b int) bool { return byTurn(obs[a].PromptNumber, obs[a].Time, obs[b].PromptNumber, obs[b].Time) })

	turns := map[int]bool{}
	for _, x := range prompts {
		turns[x.Number] = true
	}
	for _, x := range excerpts {
		turns[x.PromptNumber] = true
	}
	for _, x := range summaries {
		turns[x.PromptNumber] = true
	}
	for _, x := range obs {
		turns[x.PromptNumber] = true
	}
	order := make([]int, 0, len(turns))
	for n := range turns {
		order = append(order, n)
	}
	sort.Ints(order)

	promptText := func(x Prompt) string {
		s := privacy.Scrub(x.Text)
		if s != "" && x.Truncated {
			s += " " + truncatedMarker
		}
		return s
	}
	var first, lastPrompt, lastSummary string
	for _, x := range prompts {
		if s := promptText(x); s != "" {
			if first == "" {
				first = s
			}
			lastPrompt = privacy.Scrub(x.Text)
		}
	}
	for _, x := range summaries {
		if s := privacy.Scrub(x.Text); s != "" {
			lastSummary = s
		}
	}
	task := oneLine(lastSummary, maxBrief)
	if task == "" {
		task = oneLine(lastPrompt, maxBrief)
	}

	var b bytes.Buffer
	header(&b, p.SessionID, r.Project, r.Started, r.Compactions, now,
		"reconstructed (transcript unavailable) — user messages verbatim; assistant messages not preserved; summaries are generated",
		task)
	if first != "" {
		fmt.Fprintf(&b, "## Original request\n%s\n\n", first)
	}
	gi := func(n int) (ps []Prompt, os []Observation, es []StopExcerpt, ss []Summary) {
		for _, x := range prompts {
			if x.Number == n {
				ps = append(ps, x)
			}
		}
		for _, x := range obs {
			if x.PromptNumber == n {
				os = append(os, x)
			}
		}
		for _, x := range excerpts {
			if x.PromptNumber == n {
				es = append(es, x)
			}
		}
		for _, x := range summaries {
			if x.PromptNumber == n {
				ss = append(ss, x)
			}
		}
		return
	}
	for _, n := range order {
		ps, os, es, ss := gi(n)
		b.WriteString("---\n\n")
		for _, x := range ps {
			if s := promptText(x); s != "" {
				at := ""
				if !x.Time.IsZero() {
					at = ", " + x.Time.UTC().Format("15:04")
				}
				fmt.Fprintf(&b, "**User** (prompt %d%s)\n%s\n\n", x.Number, at, s)
			}
		}
		var lines []string
		for i := range os {
			if l := observationLine(&os[i]); l != "" {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			b.WriteString("*What happened:*\n" + strings.Join(lines, "") + "\n")
		}
		for _, x := range es {
			if s := privacy.Scrub(x.Text); s != "" {
				at := ""
				if !x.Time.IsZero() {
					at = ", " + x.Time.UTC().Format("15:04")
				}
				fmt.Fprintf(&b, "*Assistant's last message at Stop%s (recorded excerpt, may be cut):*\n%s\n\n", at, quote(s))
			}
		}
		for _, x := range ss {
			if s := privacy.Scrub(x.Text); s != "" {
				fmt.Fprintf(&b, "> Session summary (generated — not verbatim)\n>\n%s\n\n", quote(s))
			}
		}
	}
	return Result{Markdown: b.Bytes(), Mode: ModeReconstructed, Task: task}
}

func byTurn(na int, ta time.Time, nb int, tb time.Time) bool {
	if na != nb {
		return na < nb
	}
	return ta.Before(tb)
}

// quote renders s as a Markdown block quote, line by line.
func quote(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n")
}
