package bottle

import (
	"crypto/sha256"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A bottle is laid out as an index and numbered pages, each a file a
// harness's file tool reads whole within its ReadLimits. The conversation is
// cut into blocks (a message, a group of observation lines, the pending
// tail) and the blocks are poured into pages in order: a block that does
// not fit the rest of a page starts the next one, a block longer than a page
// starts a page and runs on over the next ones, and each leg (the stretch
// between two compactions) starts a page of its own. A page, once a later
// one holds settled conversation after it, never changes again: a routine
// render lays out only the last pages anew (see window).

// block is a run of lines kept on one page when they fit.
type block struct {
	lines []string // wrapped, without newlines
	cost  int      // bytes of lines plus lineCost each
	pos   int64    // transcript position of its first item; 0 when unknown
	clean bool     // every item before it is at an earlier position: a render may restart here
	turn  int      // the user turn it belongs to; 0 before the first prompt
	leg   int      // 1-based
	opens bool     // it opens its turn (a prompt)
	text  int      // for the original request's block: index in lines where its text starts; else -1
	from  time.Time
	to    time.Time
}

func (b *block) add(lines ...string) {
	for _, l := range lines {
		b.lines = append(b.lines, l)
		b.cost += len(l) + lineCost
	}
}

// Page headers take two lines (the header and a blank line); the last page
// also ends with a footer of two lines (when it was rendered, the current
// task) that it loses when a page follows it. Every page keeps room for
// both: pageReserveLines lines and pageReserveBytes of a page's byte bound.
// The header line is at most about 100 characters (numbers and ASCII) and
// the task line at most 175 (maxBrief runes and an ellipsis after its
// prefix): shorter than any line limit's wrap width (see MinReadLimits).
const (
	pageHeaderLines  = 2
	pageReserveLines = pageHeaderLines + 2
	pageReserveBytes = 4*lineCost + 200 + 40 + len(taskPrefix) + utf8.UTFMax*(maxBrief+1)
)

// pageMeta is what a bottle keeps of a laid-out page: enough to list it in
// the index, to restart a layout at it, and to skip rewriting it unchanged.
type pageMeta struct {
	Lines     int    // lines of the page file
	Sum       string // SHA-256 of the page file
	Leg       int
	FirstTurn int
	LastTurn  int
	Continued bool // its first turn began on an earlier page
	MidBlock  bool // it begins inside a block begun on an earlier page
	Clean     bool // it begins with a clean block: a render may restart here
	StartPos  int64
	From, To  time.Time
	Row       string // its row in the index's table, kept so the index of a long session costs no formatting
}

// request is where the original request was laid out, for the index.
type request struct {
	Known bool
	Lines []string // the request's wrapped lines when short enough to repeat in the index
	Total int      // its wrapped line count
	Page  int      // 1-based page its text starts on
	Line  int      // 1-based line of that page
}

// pager pours blocks into pages.
type pager struct {
	lim    ReadLimits
	number int  // number of the next page, 1-based
	placed bool // a block was placed before (on this or an earlier page)
	pages  []laidPage
	cur    *laidPage
	cost   int
	req    request
	starts []int // page index (in pages) each block started on
}

type laidPage struct {
	meta  pageMeta
	lines []string
	data  []byte
}

func (p *pager) fits(lines, cost int) bool {
	return len(p.cur.lines)+lines <= p.lim.MaxLines-pageReserveLines &&
		p.cost+cost <= p.lim.MaxBytes-pageReserveBytes
}

func (p *pager) add(b *block) {
	if p.cur != nil && (b.leg != p.cur.meta.Leg || !p.fits(len(b.lines), b.cost)) {
		p.close()
	}
	if p.cur == nil {
		p.open(b, false)
	}
	p.starts = append(p.starts, len(p.pages))
	for i, l := range b.lines {
		if !p.fits(1, len(l)+lineCost) { // only a block longer than a page
			p.close()
			p.open(b, true)
		}
		if i == b.text {
			p.req.Page, p.req.Line = p.number, pageHeaderLines+len(p.cur.lines)+1
		}
		p.cur.lines = append(p.cur.lines, l)
		p.cost += len(l) + lineCost
	}
	m := &p.cur.meta
	m.LastTurn = b.turn
	if !b.from.IsZero() && m.From.IsZero() {
		m.From = b.from
	}
	if !b.to.IsZero() {
		m.To = b.to
	}
	p.placed = true
}

func (p *pager) open(b *block, mid bool) {
	p.cur = &laidPage{meta: pageMeta{
		Leg: b.leg, FirstTurn: b.turn, LastTurn: b.turn, MidBlock: mid, Clean: !mid && b.clean, StartPos: b.pos,
		Continued: p.placed && (mid || !b.opens), From: b.from, To: b.to,
	}}
	p.cost = 0
}

// close ends the current page; footer, when set, are the lines that end
// the last page.
func (p *pager) close(footer ...string) {
	if p.cur == nil {
		return
	}
	pg := p.cur
	m := &pg.meta
	var sb strings.Builder
	sb.WriteString("# Session bottle — " + pageHolds(p.number, *m) + "\n\n")
	for _, l := range append(pg.lines, footer...) {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	pg.data = []byte(sb.String())
	m.Lines = pageHeaderLines + len(pg.lines) + len(footer)
	sum := sha256.Sum256(pg.data)
	m.Sum = string(sum[:])
	m.Row = pageRow(p.number, p.number, []pageMeta{*m})
	p.pages = append(p.pages, *pg)
	p.cur = nil
	p.number++
}

// footer returns the lines that end the last page: when the bottle was
// rendered and the current task. They live there, not in the index, so
// that the index changes only when its table does.
func footer(now time.Time, task string) []string {
	lines := []string{renderedPrefix + stamp(now)}
	if task != "" {
		lines = append(lines, taskPrefix+task)
	}
	return lines
}

// renderedPrefix starts the last page's line that says when it was
// rendered.
const renderedPrefix = "rendered: "

// pageHolds says what page n holds: the end of its header line, and the
// Holds of a read of it.
func pageHolds(n int, m pageMeta) string {
	s := fmt.Sprintf("page %d: leg %d, %s", n, m.Leg, turnsText(m.FirstTurn, m.LastTurn))
	if m.Continued {
		s += fmt.Sprintf(" (turn %d began on an earlier page)", m.FirstTurn)
	}
	return s
}

// turnsText names a range of turns.
func turnsText(first, last int) string {
	if first == last {
		return "turn " + strconv.Itoa(first)
	}
	return fmt.Sprintf("turns %d–%d", first, last)
}

// PageName is the file name of the bottle's page n (1-based).
func PageName(n int) string {
	return fmt.Sprintf("page-%04d.md", n)
}

// IndexName is the file name of a bottle's index, beside its pages.
const IndexName = "index.md"

// indexHead is what the index says above its table of pages.
type indexHead struct {
	session     string
	project     string
	started     time.Time
	compactions int
	mode        string
	transcript  string
	request     request
}

// renderIndex renders the index within the limits: the session facts, how
// to read the pages, the original request (in full when it is short, else
// where it is), and a table of the pages newest first. When the table would
// not fit, the oldest pages share one row.
func renderIndex(h indexHead, pages []pageMeta, lim ReadLimits) []byte {
	w := lim.wrapWidth()
	var lines []string
	lines = wrapLine(lines, "# Session bottle — "+fact(h.session, maxBrief), w)
	project := fact(h.project, maxBrief)
	if project == "" {
		project = "(unknown)"
	}
	lines = wrapLine(lines, fmt.Sprintf("project: %s · started: %s · legs: %d",
		project, stamp(h.started), h.compactions+1), w)
	lines = wrapLine(lines, "mode: "+h.mode, w)
	if h.transcript != "" {
		// An observation's id ([#…]) is its tool call's id in this file.
		lines = wrapLine(lines, "transcript: "+fact(h.transcript, maxPathChars)+" (observation ids [#…] are its tool call ids)", w)
	}
	lines = append(lines, "")
	n := len(pages)
	files := fmt.Sprintf("%d page files beside it, %s, oldest first", n, pageRange(1, n))
	if n == 1 {
		files = "one page file beside it, " + PageName(1)
	}
	intro := fmt.Sprintf("This is the bottle's index. The conversation is in %s; %s holds where the session stopped and ends with when the bottle was rendered and the current task. A line ending in %s goes on in the next line: it was wrapped to fit a file reader's line limit, and nothing is cut.",
		files, PageName(n), ContinuationMark)
	lines = wrapLine(lines, intro, w)
	lines = append(lines, "")
	if r := h.request; r.Known {
		lines = append(lines, "## Original request")
		if r.Lines != nil {
			lines = append(lines, r.Lines...)
		} else {
			lines = wrapLine(lines, fmt.Sprintf("It is %d lines long, too long to repeat here: it opens turn 1, on %s from line %d.", r.Total, PageName(r.Page), r.Line), w)
		}
		lines = append(lines, "")
	}
	lines = append(lines, "## Pages, newest first", "| page | leg | turns | time (UTC) | lines |", "| --- | --- | --- | --- | --- |")

	used := 0
	for _, l := range lines {
		used += len(l) + lineCost
	}
	const rowReserve = 400 // room for the grouped row of the oldest pages
	budgetLines := lim.MaxLines - len(lines) - 1
	budgetBytes := lim.MaxBytes - used - rowReserve
	// The last page is still growing: its row says only where it starts.
	last := pages[n-1]
	rows := []string{fmt.Sprintf("| %s | %d | %d– | %s– | — |", PageName(n), last.Leg, last.FirstTurn, span(last.From, time.Time{}))}
	budgetBytes -= len(rows[0]) + lineCost
	i := n - 2
	for ; i >= 0; i-- {
		row := pages[i].Row
		if len(rows)+1 > budgetLines || len(row)+lineCost > budgetBytes {
			break
		}
		rows = append(rows, row)
		budgetBytes -= len(row) + lineCost
	}
	if i >= 0 {
		rows = append(rows, pageRow(1, i+1, pages[:i+1]))
	}
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(l)
		sb.WriteByte('\n')
	}
	for _, r := range rows {
		sb.WriteString(r)
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// pageRange names pages first to last.
func pageRange(first, last int) string {
	if first == last {
		return PageName(first)
	}
	return PageName(first) + " … " + PageName(last)
}

// pageRow is one row of the index's table: pages first to last (1-based),
// whose metas are ms.
func pageRow(first, last int, ms []pageMeta) string {
	a, z := ms[0], ms[len(ms)-1]
	legs := strconv.Itoa(a.Leg)
	if z.Leg != a.Leg {
		legs += "–" + strconv.Itoa(z.Leg)
	}
	turns := strconv.Itoa(a.FirstTurn)
	if z.LastTurn != a.FirstTurn {
		turns += "–" + strconv.Itoa(z.LastTurn)
	}
	lines := 0
	from, to := time.Time{}, time.Time{}
	for _, m := range ms {
		lines += m.Lines
		if from.IsZero() {
			from = m.From
		}
		if !m.To.IsZero() {
			to = m.To
		}
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %d |", pageRange(first, last), legs, turns, span(from, to), lines)
}

// span names a stretch of time compactly, in UTC.
func span(from, to time.Time) string {
	if from.IsZero() {
		return "—"
	}
	from, to = from.UTC(), to.UTC()
	s := from.Format("2006-01-02 15:04")
	switch {
	case to.IsZero() || to.Format("2006-01-02 15:04") == s:
	case to.Format("2006-01-02") == from.Format("2006-01-02"):
		s += "–" + to.Format("15:04")
	default:
		s += " – " + to.Format("2006-01-02 15:04")
	}
	return s
}

// requestOf returns the original request as the index shows it: its lines
// when they fit in an eighth of a read, else only its length (its place is
// filled in by the pager).
func requestOf(lines []string, lim ReadLimits) request {
	r := request{Known: true, Total: len(lines)}
	cost := 0
	for _, l := range lines {
		cost += len(l) + lineCost
	}
	if len(lines) <= lim.MaxLines/8 && cost <= lim.MaxBytes/8 {
		r.Lines = lines
	}
	return r
}

// builder cuts a conversation into blocks, in order.
type builder struct {
	w       int // wrap width, in runes
	blocks  []block
	group   *block  // the open block that later items may join: observation lines, or a reconstructed turn
	prev    int64   // position of the last item placed
	turn    int     // the current user turn
	legs    []int64 // compaction positions, ascending
	asked   bool    // the original request was placed (in this layout or before its window)
	request []string
	starts  []int // set by layOut: the page each block starts on, counted from the first laid out
}

// leg returns the leg an item at pos belongs to: one more than the
// compactions recorded before it.
func (b *builder) leg(pos int64) int {
	return 1 + sort.Search(len(b.legs), func(i int) bool { return b.legs[i] >= pos })
}

func (b *builder) open(pos int64, t time.Time) *block {
	b.end()
	return &block{pos: pos, clean: pos > b.prev, turn: b.turn, leg: b.leg(pos), text: -1, from: t, to: t}
}

func (b *builder) push(blk *block, pos int64) {
	b.blocks = append(b.blocks, *blk)
	b.prev = pos
}

// end closes the open group, if any; a group of observation lines ends
// with a blank line, as every message does.
func (b *builder) end() {
	if g := b.group; g != nil {
		b.group = nil
		if g.lines[0] == whatHappened {
			g.add("")
		}
		b.blocks = append(b.blocks, *g)
	}
}

// text adds a message's lines to blk; the first prompt of the session is
// the original request, and the index shows or points at it.
func (b *builder) text(blk *block, text string) {
	lines := wrapText(nil, text, b.w)
	if !b.asked {
		b.asked = true
		blk.text = len(blk.lines)
		b.request = lines
	}
	blk.add(lines...)
	blk.add("")
}

// user adds a prompt the person typed: it opens the next turn.
func (b *builder) user(pos int64, t time.Time, text string) {
	b.turn++
	blk := b.open(pos, t)
	blk.opens = true
	at := ""
	if !t.IsZero() {
		at = ", " + t.UTC().Format("15:04")
	}
	blk.add("---", "", fmt.Sprintf("**User** (turn %d%s)", b.turn, at))
	b.text(blk, text)
	b.push(blk, pos)
}

// assistant adds a message the model showed the person.
func (b *builder) assistant(pos int64, t time.Time, text string) {
	blk := b.open(pos, t)
	blk.add("**Assistant**" + clock(t))
	blk.add(wrapText(nil, text, b.w)...)
	blk.add("")
	b.push(blk, pos)
}

// observation adds one observation line (ending in a newline), joining the
// open group of observations unless a message or a compaction came between.
func (b *builder) observation(pos int64, t time.Time, line string) {
	g := b.group
	if g == nil || g.leg != b.leg(pos) || len(g.lines) == 0 || g.lines[0] != whatHappened {
		g = b.open(pos, t)
		g.add(whatHappened)
		b.group = g
	}
	g.add(wrapLine(nil, strings.TrimSuffix(line, "\n"), b.w)...)
	if !t.IsZero() {
		g.to = t
	}
	b.prev = pos
}

const whatHappened = "*What happened:*"

// tail adds the honest tail: tool events whose observations are pending.
func (b *builder) tail(tail []Stub, gap int) {
	if len(tail) == 0 && gap == 0 {
		return
	}
	b.end()
	blk := &block{pos: b.prev, turn: b.turn, leg: b.leg(b.prev), text: -1}
	if n := len(b.blocks); n > 0 {
		blk.leg = b.blocks[n-1].leg
	}
	blk.add("---", "", "*Recent activity (observations not recorded yet — do not assume these outcomes):*")
	shown := tail
	if len(shown) > maxTailLines {
		shown = shown[len(shown)-maxTailLines:]
	}
	for _, s := range shown {
		brief, isCode := s.gist()
		if isCode && brief != "" {
			brief = code(brief)
		}
		line := "- ⏳ " + fact(s.Tool, maxBrief)
		if brief != "" {
			line += " — " + brief
		}
		if !s.Time.IsZero() {
			line += " (" + s.Time.UTC().Format("15:04:05") + ")"
		}
		blk.add(wrapLine(nil, line, b.w)...)
	}
	if hidden := max(gap, len(tail)) - len(shown); hidden > 0 {
		blk.add(fmt.Sprintf("- ⏳ … and %d more", hidden))
	}
	blk.add("")
	b.blocks = append(b.blocks, *blk)
}

// separator opens a turn of a reconstructed bottle; its prompts join it.
func (b *builder) separator() {
	g := b.open(0, time.Time{})
	g.opens = true
	g.add("---", "")
	b.group = g
}

// prompt adds a stored prompt to the open turn of a reconstructed bottle.
func (b *builder) prompt(t time.Time, heading, text string) {
	g := b.group
	if g.from.IsZero() {
		g.from = t
	}
	if !t.IsZero() {
		g.to = t
	}
	g.add(heading)
	b.text(g, text)
}

// quoted adds a recorded excerpt or a generated summary: a heading and the
// text as a block quote, never in an assistant's slot.
func (b *builder) quoted(t time.Time, heading, text string) {
	blk := b.open(0, t)
	blk.add(wrapText(nil, heading, b.w)...)
	blk.add(wrapText(nil, quote(text), b.w)...)
	blk.add("")
	b.push(blk, 0)
}

// maxPathChars bounds the transcript path the index names.
const maxPathChars = 4096
