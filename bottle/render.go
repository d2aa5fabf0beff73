package bottle

import (
	"crypto/sha256"
	"fmt"
	"math"
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
	// Limits are the file-read limits of the harness that will read the
	// bottle; zero (or too small to lay out a page) is DefaultReadLimits.
	Limits ReadLimits
	// TranscriptPath names the transcript a full bottle was rendered from,
	// so an observation's id ([#…]) can be looked up in it; "" leaves the
	// line out.
	TranscriptPath string

	win *window // set by a routine render: only the pages from the window on are laid out
}

// window is what a routine render knows of the pages it does not lay out
// again: the frozen pages before the window, and what the entries on them
// carry into it.
type window struct {
	frozen  []pageMeta
	turns   int    // prompts before the window
	task    string // the current task as of the window's start
	request request
}

// Result is a rendered bottle: an index and pages, each within the read
// limits it was rendered for.
type Result struct {
	// Markdown is the whole bottle as one document, the index followed by
	// every page; empty in ModeTimeline.
	Markdown []byte
	// Index is the index file (IndexName): session facts, the original
	// request and the table of pages.
	Index []byte
	// Pages are the page files, page 1 (PageName(1)) first.
	Pages [][]byte
	// Mode is the ladder rung rendered.
	Mode Mode
	// Gap counts tool events whose observations are not written yet.
	Gap int
	// Task is the one-line current task: the latest summary or last prompt.
	Task string

	metas   []pageMeta // every page, those before the window included
	from    int        // index in metas of Pages[0]
	restart int        // index in metas of the page the next routine render restarts at
	settled int64      // position of the first call still pending in the transcript; MaxInt64 when none
	request request
	sum     string // SHA-256 of Index
}

// maxTailLines bounds the stubs shown; the gap still counts them all.
const maxTailLines = 50

// Render renders a bottle from values alone, walking the ladder: full when
// the page has a transcript with at least one message, reconstructed when it
// has a record with a prompt, Stop excerpt or observation, else timeline.
// Every message passes privacy.Scrub; a message empty after it is left out.
func Render(p Page, now time.Time) Result {
	p.win = nil
	return render(p, now)
}

func render(p Page, now time.Time) Result {
	var res Result
	switch {
	case p.Transcript != nil && (p.win != nil && len(p.win.frozen) > 0 || hasMessages(p.Transcript)):
		res = renderFull(p, now)
	case p.Record != nil && (len(p.Record.Prompts) > 0 || len(p.Record.StopExcerpts) > 0 || (p.HostObservations && len(p.Observations) > 0)):
		res = renderReconstructed(p, now)
	default:
		return Result{Mode: ModeTimeline}
	}
	if p.win == nil {
		res.Markdown = append(res.Markdown, res.Index...)
		for _, pg := range res.Pages {
			res.Markdown = append(res.Markdown, '\n')
			res.Markdown = append(res.Markdown, pg...)
		}
	}
	return res
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
	lim := p.Limits.orDefault()
	win := p.win
	if win == nil {
		win = &window{}
	}
	var obs []Observation
	var tail []Stub
	calls := callIndex(t)
	if p.HostObservations {
		obs = p.Observations
		tail = transcriptTail(t, calls, obs)
	} else {
		obs, tail = DeriveObservations(t)
	}
	// The first call still pending in the transcript bounds what the next
	// render may leave untouched: when it settles, its line lands there.
	settled := int64(math.MaxInt64)
	for _, s := range tail {
		settled = min(settled, s.pos)
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

	task := win.task
	bb := builder{w: lim.wrapWidth(), turn: win.turns, legs: t.Boundaries, prev: -1, asked: win.turns > 0}
	content := -1 // the last block before the first pending call
	for _, it := range items {
		if it.obs != nil {
			if line := observationLine(it.obs); line != "" {
				bb.observation(it.pos, it.obs.Time, line)
			}
		} else if it.entry.Kind == KindUser {
			bb.user(it.pos, it.entry.Time, it.text)
			task = oneLine(it.text, maxBrief)
		} else if it.entry.Kind == KindAssistant {
			bb.assistant(it.pos, it.entry.Time, it.text)
		}
		if it.pos < settled {
			content = len(bb.blocks)
			if bb.group == nil {
				content--
			}
		}
	}
	bb.end()
	bb.tail(tail, gap)

	source := "transcript + observations"
	if !p.HostObservations {
		source = "transcript + observations derived from tool calls"
	}
	res := layOut(&bb, lim, win, footer(now, task), indexHead{session: p.SessionID, project: t.Project, started: t.Started,
		compactions: t.Compactions, mode: "full (" + source + ")", transcript: p.TranscriptPath})
	res.Mode, res.Gap, res.Task, res.settled = ModeFull, gap, task, settled
	if content >= 0 {
		res.restart = len(win.frozen) + bb.starts[content]
	}
	for res.restart > len(win.frozen) && (!res.metas[res.restart].Clean || res.metas[res.restart].MidBlock) {
		res.restart--
	}
	return res
}

// layOut pours the built blocks into pages after the window's frozen ones
// and renders the index over all of them.
func layOut(bb *builder, lim ReadLimits, win *window, foot []string, h indexHead) Result {
	pg := pager{lim: lim, number: len(win.frozen) + 1, placed: len(win.frozen) > 0}
	for i := range bb.blocks {
		pg.add(&bb.blocks[i])
	}
	pg.close(foot...)
	bb.starts = pg.starts
	h.request = win.request
	if bb.request != nil {
		h.request = requestOf(bb.request, lim)
		h.request.Page, h.request.Line = pg.req.Page, pg.req.Line
	}
	res := Result{from: len(win.frozen), request: h.request}
	res.metas = append(res.metas, win.frozen...)
	for _, lp := range pg.pages {
		res.metas = append(res.metas, lp.meta)
		res.Pages = append(res.Pages, lp.data)
	}
	res.Index = renderIndex(h, res.metas, lim)
	sum := sha256.Sum256(res.Index)
	res.sum = string(sum[:])
	return res
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
			tail = append(tail, Stub{Tool: e.Tool, Time: e.Time, ToolUseID: e.ToolUseID, brief: e.Brief, code: e.Code, pos: e.Pos})
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

// taskPrefix starts the last page's line that carries the current task;
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

// fact is something a bottle shows beside the conversation: the session,
// its project, the transcript's path, a tool's name, a call's id. Each is
// taken as the transcript or the host gives it, so it passes the privacy
// filter as every message does, and it is shown as one line of at most max
// runes, so that it cannot add lines the page layout did not count.
func fact(s string, max int) string {
	return oneLine(privacy.Scrub(s), max)
}

func observationLine(o *Observation) string {
	title := fact(o.Title, maxBrief)
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
	if id := fact(o.ID, maxBrief); id != "" {
		fmt.Fprintf(&b, "[#%s] ", id)
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

const truncatedMarker = "[truncated at 4000 chars]"

func renderReconstructed(p Page, now time.Time) Result {
	r := p.Record
	lim := p.Limits.orDefault()
	prompts := append([]Prompt(nil), r.Prompts...)
	sort.SliceStable(prompts, func(a, b int) bool { return prompts[a].Number < prompts[b].Number })
	excerpts := append([]StopExcerpt(nil), r.StopExcerpts...)
	sort.SliceStable(excerpts, func(a, b int) bool {
		x, y := excerpts[a], excerpts[b]
		if x.PromptNumber == y.PromptNumber && x.Seq != y.Seq {
			return x.Seq < y.Seq
		}
		return byTurn(x.PromptNumber, x.Time, y.PromptNumber, y.Time)
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
	// came last before it. Only time can place it: baton writes nothing per
	// tool call (its hooks are start, prompt, stop, precompact and end), so
	// no record of its own lies between a tool call and a prompt to order
	// them by, and without a transcript a ToolUseID matches no call.
	// The two instants come from two clocks, the host's (tool time) and the
	// store's (the prompt's stamp), so a host whose clock is off from the
	// store's files such an observation a turn early or late; a host that
	// sets PromptNumber is placed exactly.
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
	var lastPrompt, lastSummary string
	for _, x := range prompts {
		if s := promptText(x); s != "" {
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

	bb := builder{w: lim.wrapWidth(), prev: -1}
	for _, n := range order {
		bb.turn = n
		bb.separator()
		for _, x := range prompts {
			if s := promptText(x); s != "" && x.Number == n {
				at := ""
				if !x.Time.IsZero() {
					at = ", " + x.Time.UTC().Format("15:04")
				}
				bb.prompt(x.Time, fmt.Sprintf("**User** (prompt %d%s)", x.Number, at), s)
			}
		}
		for i := range obs {
			if obs[i].PromptNumber != n {
				continue
			}
			if l := observationLine(&obs[i]); l != "" {
				bb.observation(0, obs[i].Time, l)
			}
		}
		bb.end()
		for _, x := range excerpts {
			if s := privacy.Scrub(x.Text); s != "" && x.PromptNumber == n {
				at := ""
				if !x.Time.IsZero() {
					at = ", " + x.Time.UTC().Format("15:04")
				}
				bb.quoted(x.Time, fmt.Sprintf("*Assistant's last message at Stop%s (recorded excerpt, may be cut):*", at), s)
			}
		}
		for _, x := range summaries {
			if s := privacy.Scrub(x.Text); s != "" && x.PromptNumber == n {
				bb.quoted(x.Time, "> Session summary (generated — not verbatim)\n>", s)
			}
		}
	}
	res := layOut(&bb, lim, &window{}, footer(now, task), indexHead{session: p.SessionID, project: r.Project, started: r.Started,
		compactions: r.Compactions,
		mode:        "reconstructed (transcript unavailable) — user messages verbatim; assistant messages not preserved; summaries are generated"})
	res.Mode, res.Task = ModeReconstructed, task
	return res
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
