package bottle

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestFirstClause(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", ""},
		{"Every hook wraps 5 shared cores", "Every hook wraps 5 shared cores"},
		{"Every hook wraps cores. Each core is small.", "Every hook wraps cores"},
		{"Reads config; then boots", "Reads config"},
		{"Six self-heal layers — before MCP boot", "Six self-heal layers"},
		{"Is it flaky? Yes.", "Is it flaky?"},
		{"Fixed it! Moving on", "Fixed it!"},
		{"first line\nsecond line", "first line"},
		{"ran it\rforged\u2028line\x1b]0;title\a", "ran it forged line ]0;title"},
		{"Ends with a stop.", "Ends with a stop"},
		{"version 1.2.3 shipped", "version 1.2.3 shipped"},
		{strings.Repeat("w", 250), strings.Repeat("w", 200) + "…"},
	}
	for _, c := range cases {
		if got := FirstClause(c.in); got != c.want {
			t.Errorf("FirstClause(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// turns is a two-turn transcript with a tool call in each turn.
func turns() *Transcript {
	var l transcriptLines
	l.user("first ask").assistant("a1", "looking").call("tu1", "Read", `{"file_path":"/a.go"}`).result("tu1", false).
		assistant("a2", "read it").
		user("second ask").call("tu2", "Bash", `{"command":"make"}`).result("tu2", true).assistant("a3", "built")
	var tr Transcript
	if _, err := tr.ReadLines(strings.NewReader(l.String()), 0); err != nil {
		panic(err)
	}
	return &tr
}

// section returns the part of a bottle from the line starting with from up
// to the next turn separator.
func section(out, from string) string {
	i := strings.Index(out, from)
	if i < 0 {
		return ""
	}
	rest := out[i:]
	if j := strings.Index(rest[1:], "\n---\n"); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

func TestRenderPlacement(t *testing.T) {
	tr := turns()
	at := func(m int) time.Time { return renderedAt.Add(-time.Hour + time.Duration(m)*time.Minute) }
	cases := []struct {
		name    string
		obs     Observation
		inTurn  string // the turn the line must appear in
		after   string // text the line must come after within the turn
		wantGap int
	}{
		{"by tool-use id", Observation{ID: "1", Title: "Read a.go", ToolUseID: "tu1"}, "first ask", "looking", 1},
		{"by prompt number", Observation{ID: "2", Title: "Built", PromptNumber: 2, Time: at(7)}, "second ask", "second ask", 0},
		{"by time, no prompt number", Observation{ID: "3", Title: "Read", Time: at(4)}, "first ask", "looking", 1},
		{"prompt number beyond the transcript", Observation{ID: "4", Title: "Late", PromptNumber: 9}, "second ask", "built", 0},
		{"no anchor at all", Observation{ID: "5", Title: "Loose"}, "first ask", "first ask", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Render(Page{SessionID: "s", Transcript: tr, Observations: []Observation{c.obs}, HostObservations: true}, renderedAt)
			out := string(res.Markdown)
			line := fmt.Sprintf("- [#%s] %s", c.obs.ID, c.obs.Title)
			sec := section(out, "**User** (turn 1, "+tr.Entries[0].Time.Format("15:04")+")\n"+c.inTurn)
			if c.inTurn == "second ask" {
				sec = section(out, "\nsecond ask")
			}
			i, j := strings.Index(sec, line), strings.Index(sec, c.after)
			if i < 0 || j < 0 || i < j {
				t.Errorf("%q not in turn %q after %q:\n%s", line, c.inTurn, c.after, out)
			}
			if res.Gap != c.wantGap {
				t.Errorf("gap %d, want %d", res.Gap, c.wantGap)
			}
		})
	}
}

func TestRenderTail(t *testing.T) {
	tr := turns()
	stubs := make([]Stub, 60)
	for i := range stubs {
		stubs[i] = Stub{Tool: "Bash", Input: []byte(fmt.Sprintf(`{"command":"step %d"}`, i)), ToolUseID: fmt.Sprintf("q%d", i)}
	}
	cases := []struct {
		name       string
		page       Page
		wantGap    int
		present    []string
		absent     []string
		wantNoTail bool
	}{
		{"derived, all calls answered", Page{Transcript: tr}, 0, []string{"[#tu2] Bash — `make` (failed)"}, nil, true},
		{"host saw everything", Page{Transcript: tr, HostObservations: true, Observations: []Observation{{ID: "9", Title: "Built", ToolUseID: "tu2"}}}, 0, []string{"[#9] Built"}, []string{"⏳"}, true},
		{"host saw nothing", Page{Transcript: tr, HostObservations: true}, 2, []string{"- ⏳ Read — /a.go (", "- ⏳ Bash — `make` ("}, nil, false},
		{"queue is authoritative", Page{Transcript: tr, HostObservations: true, Queue: &Queue{Pending: 1, Stubs: stubs[:1]}}, 1, []string{"- ⏳ Bash — `step 0`"}, []string{"⏳ Read"}, false},
		{"drained queue hides the transcript floor", Page{Transcript: tr, HostObservations: true, Queue: &Queue{}}, 0, nil, []string{"⏳"}, true},
		{"long tail is capped", Page{Transcript: tr, HostObservations: true, Queue: &Queue{Pending: 60, Stubs: stubs}}, 60, []string{"`step 59`", "- ⏳ … and 10 more"}, []string{"`step 9`"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.page.SessionID = "s"
			res := Render(c.page, renderedAt)
			out := string(res.Markdown)
			if res.Gap != c.wantGap {
				t.Errorf("gap %d, want %d", res.Gap, c.wantGap)
			}
			for _, s := range c.present {
				if !strings.Contains(out, s) {
					t.Errorf("lacks %q:\n%s", s, out)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(out, s) {
					t.Errorf("contains %q:\n%s", s, out)
				}
			}
			if got := strings.Contains(out, "Recent activity"); got == c.wantNoTail {
				t.Errorf("tail section present=%v", got)
			}
		})
	}
}

func TestRenderLadder(t *testing.T) {
	var calls Transcript
	_, _ = calls.ReadLines(strings.NewReader(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}`+"\n"), 0)
	cases := []struct {
		name string
		page Page
		want Mode
	}{
		{"nothing", Page{}, ModeTimeline},
		{"empty transcript", Page{Transcript: &Transcript{}}, ModeTimeline},
		{"tool calls only", Page{Transcript: &calls}, ModeTimeline},
		{"private-only prompt", Page{Transcript: &Transcript{Entries: []Entry{{Kind: KindUser, Text: "<private>x</private>"}}}}, ModeTimeline},
		{"empty record", Page{Record: &Record{}}, ModeTimeline},
		{"summaries alone", Page{Record: &Record{Summaries: []Summary{{Text: "s"}}}}, ModeTimeline},
		{"one prompt", Page{Record: &Record{Prompts: []Prompt{{Number: 1, Text: "p"}}}}, ModeReconstructed},
		{"one stop excerpt", Page{Record: &Record{StopExcerpts: []StopExcerpt{{Text: "e"}}}}, ModeReconstructed},
		{"one host observation", Page{Record: &Record{}, HostObservations: true, Observations: []Observation{{ID: "1", Title: "t"}}}, ModeReconstructed},
		{"transcript wins over record", Page{Transcript: turns(), Record: &Record{Prompts: []Prompt{{Number: 1, Text: "p"}}}}, ModeFull},
	}
	for _, c := range cases {
		if got := Render(c.page, renderedAt); got.Mode != c.want || (got.Mode == ModeTimeline) != (len(got.Markdown) == 0) {
			t.Errorf("%s: mode %s with %d bytes, want %s", c.name, got.Mode, len(got.Markdown), c.want)
		}
	}
}

// TestReconstructedStopOrder: a turn's Stop excerpts read in the order they
// were recorded (Seq), whatever their Times say; those without a Seq first,
// by Time, and turns by number.
func TestReconstructedStopOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		excerpts []StopExcerpt
		want     []string
	}{
		{"by Seq, the second stamped before the first", []StopExcerpt{
			{PromptNumber: 1, Text: "two", Time: t0, Seq: 2}, {PromptNumber: 1, Text: "one", Time: t0.Add(time.Minute), Seq: 1}}, []string{"one", "two"}},
		{"by Seq at one instant", []StopExcerpt{
			{PromptNumber: 1, Text: "two", Time: t0, Seq: 2}, {PromptNumber: 1, Text: "one", Time: t0, Seq: 1}}, []string{"one", "two"}},
		{"without a Seq, by Time", []StopExcerpt{
			{PromptNumber: 1, Text: "two", Time: t0.Add(time.Microsecond)}, {PromptNumber: 1, Text: "one", Time: t0}}, []string{"one", "two"}},
		{"without a Seq before one with", []StopExcerpt{
			{PromptNumber: 1, Text: "two", Time: t0, Seq: 1}, {PromptNumber: 1, Text: "one", Time: t0.Add(time.Hour)}}, []string{"one", "two"}},
		{"turns by number before Seq", []StopExcerpt{
			{PromptNumber: 2, Text: "two", Time: t0, Seq: 1}, {PromptNumber: 1, Text: "one", Time: t0.Add(time.Hour), Seq: 2}}, []string{"one", "two"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Record{SessionID: "s1", Prompts: []Prompt{{Number: 1, Text: "p1", Time: t0}, {Number: 2, Text: "p2", Time: t0}},
				StopExcerpts: tc.excerpts}
			md := string(Render(Page{SessionID: "s1", Record: &rec}, t0.Add(2*time.Hour)).Markdown)
			last := -1
			for _, w := range tc.want {
				i := strings.Index(md, "> "+w)
				if i <= last {
					t.Fatalf("%q not in order %q:\n%s", w, tc.want, md)
				}
				last = i
			}
		})
	}
}
