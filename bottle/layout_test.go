package bottle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle/privacy"
)

// unwrapLines joins the pieces wrapLine made: a line of exactly w+1 runes
// ending in ContinuationMark loses the mark and is joined to the next line.
func unwrapLines(lines []string, w int) []string {
	var out []string
	var cur strings.Builder
	for _, l := range lines {
		if strings.HasSuffix(l, ContinuationMark) && utf8.RuneCountInString(l) == w+1 {
			cur.WriteString(strings.TrimSuffix(l, ContinuationMark))
			continue
		}
		cur.WriteString(l)
		out = append(out, cur.String())
		cur.Reset()
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// jsChars is a line's length as JavaScript counts it: UTF-16 code units.
func jsChars(s string) int { return len(utf16.Encode([]rune(s))) }

func TestReadLimitsFor(t *testing.T) {
	cases := []struct {
		harness string
		want    ReadLimits
	}{
		{"claude-code", ReadLimits{MaxLines: 2000, MaxLineChars: 2000, MaxBytes: 32 << 10}},
		{"gemini", ReadLimits{MaxLines: 2000, MaxLineChars: 2000, MaxBytes: 32 << 10}},
		{"codex", ReadLimits{MaxLines: 200, MaxLineChars: 1000, MaxBytes: 8 << 10}},
		{"copilot", DefaultReadLimits},
		{"", DefaultReadLimits},
	}
	for _, c := range cases {
		got := ReadLimitsFor(c.harness)
		if got != c.want {
			t.Errorf("ReadLimitsFor(%q) = %+v, want %+v", c.harness, got, c.want)
		}
		if got.orDefault() != got {
			t.Errorf("%q: its own limits are refused", c.harness)
		}
		for _, l := range readLimits { // the default is the strictest of all
			if DefaultReadLimits.MaxLines > l.MaxLines || DefaultReadLimits.MaxLineChars > l.MaxLineChars || DefaultReadLimits.MaxBytes > l.MaxBytes {
				t.Errorf("DefaultReadLimits %+v is looser than %+v", DefaultReadLimits, l)
			}
		}
	}
	for _, l := range []ReadLimits{{}, {MaxLines: 39, MaxLineChars: 2000, MaxBytes: 1 << 20}, {MaxLines: 2000, MaxLineChars: 199, MaxBytes: 1 << 20},
		{MaxLines: 2000, MaxLineChars: 2000, MaxBytes: 4 << 10}} {
		if l.orDefault() != DefaultReadLimits {
			t.Errorf("%+v cannot lay out a bottle but was kept", l)
		}
	}
	if l := MinReadLimits; l.orDefault() != l {
		t.Errorf("MinReadLimits %+v are refused", l)
	}
}

func TestWrapLine(t *testing.T) {
	const w = 4
	cases := []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"abcd", []string{"abcd"}},
		{"abcde", []string{"abcd↵", "e"}},
		{"abcdefgh", []string{"abcd↵", "efgh"}},
		{"abcdefghi", []string{"abcd↵", "efgh↵", "i"}},
		{"é🎉漢ab", []string{"é🎉漢a↵", "b"}},
		{"abc↵", []string{"abc↵"}},          // w runes ending in the mark: not a piece
		{"abcd↵", []string{"abcd↵", "↵"}},   // w+1 runes ending in the mark: wrapped
		{"↵↵↵↵↵↵", []string{"↵↵↵↵↵", "↵↵"}}, // marks all the way
	}
	for _, c := range cases {
		got := wrapLine(nil, c.in, w)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("wrapLine(%q) = %q, want %q", c.in, got, c.want)
		}
		if back := unwrapLines(got, w); len(back) != 1 || back[0] != c.in {
			t.Errorf("unwrap(wrapLine(%q)) = %q", c.in, back)
		}
		for _, l := range got {
			if n := utf8.RuneCountInString(l); n > w+1 {
				t.Errorf("piece %q is %d runes", l, n)
			}
		}
	}
	// A text of many lines, each wrapped, comes back whole.
	text := "one\n\nabcdefghij\n" + strings.Repeat("🎉", 9) + "\nabcd↵\nabc↵"
	if got := strings.Join(unwrapLines(wrapText(nil, text, w), w), "\n"); got != text {
		t.Errorf("wrapText round trip = %q", got)
	}
}

// writeMarathon writes a Claude Code transcript of n turns for the
// readability tests: the benchmark's turns (writeTurn) with, every ninth
// turn, a turn whose prompt and reply go past every read limit — lines of
// thousands of characters of every width (accents, CJK, astral emoji),
// lines that end in the continuation mark at each harness's wrap width, a
// reply longer than a page — and a compaction every forty turns.
func writeMarathon(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	line := func(v any) {
		b, _ := json.Marshal(v)
		bw.Write(append(b, '\n'))
	}
	for turn := 0; turn < n; turn++ {
		if _, err := writeTurn(bw, turn, 512); err != nil {
			return err
		}
		ts := fmt.Sprintf("2026-11-01T%02d:%02d:30Z", turn/60%24, turn%60)
		if turn%9 == 4 {
			var p strings.Builder
			fmt.Fprintf(&p, "Long prompt %d, pasted from a log:\n\n", turn)
			p.WriteString(strings.Repeat("héllo wörld 🎉 漢字 ", 300) + "\n")
			for _, width := range []int{499, 999} {
				fmt.Fprintf(&p, "%s%s\n%s%s\n", strings.Repeat("y", width-1), ContinuationMark, strings.Repeat("y", width), ContinuationMark)
			}
			p.WriteString(ContinuationMark + "\n   indented, then trailing spaces   \n\n\nend")
			line(map[string]any{"type": "user", "timestamp": ts, "sessionId": "bench", "cwd": "/work/proj",
				"message": map[string]any{"role": "user", "content": p.String()}})
			var r strings.Builder
			for i := range 40 {
				fmt.Fprintf(&r, "Paragraph %d of the long reply. %s\n\n", i, strings.Repeat("Ünïcödé and plain words; ", 40))
			}
			r.WriteString(strings.Repeat("z", 9000))
			line(map[string]any{"type": "assistant", "timestamp": ts, "message": map[string]any{"id": fmt.Sprintf("long_%d", turn), "role": "assistant",
				"content": []map[string]any{{"type": "text", "text": r.String()}}}})
		}
		if turn%40 == 39 {
			line(map[string]any{"type": "system", "subtype": "compact_boundary", "timestamp": ts, "content": "Conversation compacted"})
			line(map[string]any{"type": "user", "isCompactSummary": true, "timestamp": ts,
				"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation."}})
		}
	}
	return bw.Flush()
}

// spoken is one message of a conversation: who said it and the text.
type spoken struct {
	user bool
	text string
}

// transcriptMessages reads the user and assistant texts of a Claude Code
// transcript with encoding/json alone, independently of the readers, and
// scrubs them as every bottle must.
func transcriptMessages(t *testing.T, path string) []spoken {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []spoken
	for sc.Scan() {
		var l struct {
			Type             string `json:"type"`
			IsCompactSummary bool   `json:"isCompactSummary"`
			Message          struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		var texts []string
		var s string
		var blocks []struct{ Type, Text string }
		switch {
		case l.Type != "user" && l.Type != "assistant", l.IsCompactSummary:
			continue
		case json.Unmarshal(l.Message.Content, &s) == nil:
			texts = append(texts, s)
		case json.Unmarshal(l.Message.Content, &blocks) == nil:
			for _, b := range blocks {
				if b.Type == "text" {
					texts = append(texts, b.Text)
				}
			}
		}
		for _, x := range texts {
			if x = privacy.Scrub(x); x != "" {
				out = append(out, spoken{user: l.Type == "user", text: x})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// bottleMessages reads the user and assistant texts back out of a
// bottle's pages, in page order: page headers dropped, continuation marks
// removed.
func bottleMessages(t *testing.T, dir string, w int) []spoken {
	t.Helper()
	names, err := pageFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, name := range names {
		data := readString(t, filepath.Join(dir, name))
		ls := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		if len(ls) < pageHeaderLines || !strings.HasPrefix(ls[0], "# Session bottle — page ") || ls[1] != "" {
			t.Fatalf("%s has no page header", name)
		}
		lines = append(lines, ls[pageHeaderLines:]...)
	}
	// The last page ends with its footer: when it was rendered, the task.
	for len(lines) > 0 && (strings.HasPrefix(lines[len(lines)-1], renderedPrefix) || strings.HasPrefix(lines[len(lines)-1], taskPrefix)) {
		lines = lines[:len(lines)-1]
	}
	opens := func(i int) bool {
		l := lines[i]
		next := func(k int) string {
			if i+k < len(lines) {
				return lines[i+k]
			}
			return ""
		}
		return strings.HasPrefix(l, "**Assistant**") || l == whatHappened ||
			l == "---" && next(1) == "" && (strings.HasPrefix(next(2), "**User** (turn ") || strings.HasPrefix(next(2), "*Recent activity"))
	}
	var out []spoken
	for i := 0; i < len(lines); i++ {
		user := strings.HasPrefix(lines[i], "**User** (turn ")
		if !user && !strings.HasPrefix(lines[i], "**Assistant**") {
			continue
		}
		j := i + 1
		for j < len(lines) && !opens(j) {
			j++
		}
		body := lines[i+1 : j]
		if len(body) == 0 || body[len(body)-1] != "" {
			t.Fatalf("message at line %d does not end with its blank line", i)
		}
		out = append(out, spoken{user: user, text: strings.Join(unwrapLines(body[:len(body)-1], w), "\n")})
		i = j - 1
	}
	return out
}

var tableRow = regexp.MustCompile(`^\| (page-\d+\.md)(?: … (page-\d+\.md))? \|`)

// walk makes the reads a pointer's plan names, then every older page the
// index lists, newest first, as a reader limited by lim would: it fails the
// test on a read beyond the limits, and returns the lines read of each file.
func walk(t *testing.T, plan ReadPlan, lim ReadLimits) map[string][]bool {
	t.Helper()
	read := map[string][]bool{}
	do := func(r PageRead) {
		data := readString(t, r.Path)
		if len(data) > 256<<10 {
			t.Errorf("%s is %d bytes: Claude Code refuses a file over 256 KB", r.Path, len(data))
		}
		lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
		if read[r.Path] == nil {
			read[r.Path] = make([]bool, len(lines))
		}
		if r.Offset < 1 || r.Limit < 1 || r.Limit > lim.MaxLines {
			t.Errorf("read %+v asks for more lines than %d", r, lim.MaxLines)
		}
		end := min(r.Offset-1+r.Limit, len(lines))
		cost := 0
		for i := r.Offset - 1; i < end; i++ {
			read[r.Path][i] = true
			cost += len(lines[i]) + lineCost
			if n := jsChars(lines[i]); n > lim.MaxLineChars {
				t.Errorf("%s line %d is %d characters, over %d", r.Path, i+1, n, lim.MaxLineChars)
			}
		}
		if cost > lim.MaxBytes {
			t.Errorf("read %s lines %d–%d returns %d bytes (with line numbers), over %d", r.Path, r.Offset, end, cost, lim.MaxBytes)
		}
	}
	if plan.Index.Path == "" || plan.Last.Path == "" {
		t.Fatalf("plan %+v names no index or last page", plan)
	}
	do(plan.Index)
	do(plan.Last)
	if plan.Previous.Path != "" {
		do(plan.Previous)
	}
	dir := filepath.Dir(plan.Index.Path)
	for l := range strings.Lines(readString(t, plan.Index.Path)) {
		m := tableRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		first, last := pageNumber(m[1]), pageNumber(m[1])
		if m[2] != "" {
			last = pageNumber(m[2])
		}
		for n := last; n >= first; n-- {
			if p := filepath.Join(dir, PageName(n)); read[p] == nil {
				do(PageRead{Path: p, Offset: 1, Limit: lim.MaxLines})
			}
		}
	}
	return read
}

// TestMarathonReadable renders a generated marathon for each harness's
// limits and walks the pointer's reads: every read is within the limits,
// every byte of the bottle is reached, and every user and assistant text
// reads back byte for byte once the continuation marks are removed.
func TestMarathonReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "marathon.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeMarathon(f, 200); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	want := transcriptMessages(t, path)
	for _, harness := range []string{"claude-code", "codex", "gemini", "cursor"} {
		t.Run(harness, func(t *testing.T) {
			lim := ReadLimitsFor(harness)
			b := &Bottler{Home: t.TempDir(), Agent: harness, Clock: newFakeClock()}
			res, err := b.Render(context.Background(), session, path)
			if err != nil {
				t.Fatal(err)
			}
			if res.Plan.Pages < 3 {
				t.Fatalf("%d pages: the marathon should not fit in a few", res.Plan.Pages)
			}
			if disk, err := PlanReads(res.Path); err != nil || disk != res.Plan {
				t.Errorf("plan read from disk %+v (%v) differs from the render's %+v", disk, err, res.Plan)
			}
			read := walk(t, res.Plan, lim)
			dir := filepath.Dir(res.Path)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				lines, ok := read[filepath.Join(dir, e.Name())]
				if !ok {
					t.Errorf("%s is never read", e.Name())
				}
				for i, r := range lines {
					if !r {
						t.Errorf("%s line %d is never read", e.Name(), i+1)
						break
					}
				}
			}
			got := bottleMessages(t, dir, lim.wrapWidth())
			if len(got) != len(want) {
				t.Fatalf("bottle holds %d messages, transcript %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("message %d differs from the transcript:\n got %.200q\nwant %.200q", i, got[i].text, want[i].text)
				}
			}
		})
	}
}

// growth is a transcript written line by line by a scripted random session:
// prompts, messages split over several lines (text joined across tool
// calls), calls answered late, out of order, with errors or twice, or
// never, compactions, lines that are not JSON, and text long enough to
// wrap and to fill pages.
func growth(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var lines []string
	var l transcriptLines
	take := func() {
		for _, s := range strings.SplitAfter(l.String(), "\n") {
			if s != "" {
				lines = append(lines, s)
			}
		}
		l = transcriptLines{min: l.min}
	}
	words := func() string {
		var b strings.Builder
		for range 1 + r.IntN(40) {
			switch r.IntN(12) {
			case 0:
				b.WriteString("\n")
			case 1:
				b.WriteString(strings.Repeat("ü🎉", 20+r.IntN(200)))
			case 2:
				b.WriteString(strings.Repeat("w", 98+r.IntN(4)) + ContinuationMark)
			default:
				b.WriteString("word ")
			}
		}
		return strings.TrimSpace(b.String()) + "."
	}
	var open []string
	msg, calls := "", 0
	for len(lines) < n {
		switch k := r.IntN(20); {
		case k < 3:
			l.user(words())
			msg = ""
		case k < 8:
			if msg == "" || r.IntN(3) == 0 {
				msg = fmt.Sprintf("m%d", len(lines))
			}
			l.assistant(msg, words())
		case k < 12:
			calls++
			id := fmt.Sprintf("tu%d", calls)
			open = append(open, id)
			l.call(id, "Bash", fmt.Sprintf(`{"command":"step %d"}`, calls))
		case k < 16 && len(open) > 0:
			i := r.IntN(len(open))
			if r.IntN(4) > 0 {
				i = len(open) - 1
			}
			l.result(open[i], r.IntN(5) == 0)
			if r.IntN(8) > 0 {
				open = append(open[:i], open[i+1:]...)
			}
		case k == 16:
			fmt.Fprintf(&l.b, `{"type":"system","subtype":"compact_boundary","timestamp":%q}`+"\n", l.ts())
		case k == 17:
			l.b.WriteString("not json\n")
		}
		take()
	}
	return lines
}

// sameBottle fails unless the bottle directories a and b hold the same files
// with the same bytes.
func sameBottle(t *testing.T, a, b string) {
	t.Helper()
	list := func(dir string) map[string]string {
		out := map[string]string{}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out[e.Name()] = readString(t, filepath.Join(dir, e.Name()))
		}
		return out
	}
	x, y := list(a), list(b)
	if len(x) != len(y) {
		var xs, ys []string
		for k := range x {
			xs = append(xs, k)
		}
		for k := range y {
			ys = append(ys, k)
		}
		sort.Strings(xs)
		sort.Strings(ys)
		for _, name := range ys {
			if x[name] != y[name] {
				t.Errorf("first difference in %s:\n--- routine\n%s\n--- fresh\n%s", name, x[name], y[name])
				break
			}
		}
		t.Fatalf("files %v, want %v\n%s", xs, ys, y[IndexName])
	}
	for name, data := range y {
		if x[name] != data {
			t.Fatalf("%s differs from a fresh render:\n--- routine\n%s\n--- fresh\n%s", name, x[name], data)
		}
	}
}

// touched matches what a transcript line may refer back to: a tool-use id
// answered, or a message id continued.
var touched = regexp.MustCompile(`"(?:tool_use_id|id)":"([^"]+)"`)

// TestIncrementalEqualsFull grows scripted sessions a few lines at a time
// (sometimes stopping inside a line) and renders after each step: the
// bottle a routine render leaves is byte for byte the one a fresh render of
// the same transcript writes, and every page before the window the cache
// kept is left as it was unless a new line reaches before the window; no
// page is rewritten with the bytes it had.
func TestIncrementalEqualsFull(t *testing.T) {
	lim := ReadLimits{MaxLines: 40, MaxLineChars: 200, MaxBytes: 4096}
	ctx := context.Background()
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			lines := growth(seed, 200)
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: lim}
			dir, _ := b.bottleDir(session)
			statePath := filepath.Join(b.Dir(), session+".lock")
			var head, tail string // a torn line: its written head, its tail still to come
			windowed := 0
			for i := 0; i < len(lines); {
				step := 1 + r.IntN(12)
				chunk := tail + strings.Join(lines[i:min(i+step, len(lines))], "")
				whole := head + chunk // the lines this step completes
				i += step
				head, tail = "", ""
				if r.IntN(3) == 0 && i < len(lines) {
					head, tail = lines[i][:len(lines[i])/2], lines[i][len(lines[i])/2:]
					chunk += head
					i++
				}
				appendFile(t, path, chunk)
				type file struct {
					fi   os.FileInfo
					data string
				}
				before := map[string]file{}
				frozen, reaches := 0, false
				if st := stateAt(t, statePath); st != nil && st.Past != nil {
					frozen = st.Frozen
					for _, m := range touched.FindAllStringSubmatch(whole, -1) {
						reaches = reaches || st.Past.Open[m[1]] || st.Past.Msgs[m[1]]
					}
				}
				if entries, err := os.ReadDir(dir); err == nil {
					for _, e := range entries {
						fi, _ := e.Info()
						before[e.Name()] = file{fi, readString(t, filepath.Join(dir, e.Name()))}
					}
				}
				if _, err := b.Render(ctx, session, path); err != nil {
					t.Fatal(err)
				}
				for name, old := range before {
					now, err := os.Stat(filepath.Join(dir, name))
					if err != nil {
						continue
					}
					data := readString(t, filepath.Join(dir, name))
					if !os.SameFile(old.fi, now) && data == old.data {
						t.Fatalf("%s was rewritten unchanged", name)
					}
					if n := pageNumber(name); n > 0 && n <= frozen && data != old.data && !reaches {
						t.Fatalf("frozen %s changed, though no new line reaches before the window:\n%s\n--- was\n%s", name, data, old.data)
					}
				}
				if frozen > 0 {
					windowed++
				}
				fresh := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: lim}
				if res, err := fresh.Render(ctx, session, path); err != nil || res.Mode == ModeTimeline {
					continue
				}
				freshDir, _ := fresh.bottleDir(session)
				sameBottle(t, dir, freshDir)
			}
			if windowed == 0 {
				t.Error("no render ever kept a window: the test proves nothing")
			}
		})
	}
}

// TestSealSyncsWhatChanged: the cache remembers which pages were synced, a
// routine render forgets the ones it rewrites, and a seal syncs those again.
func TestSealSyncsWhatChanged(t *testing.T) {
	var l transcriptLines
	for i := range 30 {
		l.user(fmt.Sprintf("prompt %d %s", i, strings.Repeat("long words ", 60))).assistant(fmt.Sprintf("a%d", i), "answer")
	}
	path := writeTranscript(t, l.String())
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: MinReadLimits}
	statePath := filepath.Join(b.Dir(), session+".lock")
	ctx := context.Background()
	synced := func() (int, int) {
		st := stateAt(t, statePath)
		if st == nil {
			t.Fatal("no cache")
		}
		return st.Synced, len(st.Pages)
	}
	if _, err := b.Render(ctx, session, path); err != nil {
		t.Fatal(err)
	}
	if s, _ := synced(); s != 0 {
		t.Errorf("a routine render claims %d pages synced", s)
	}
	if _, err := b.Seal(ctx, session, path, 0); err != nil {
		t.Fatal(err)
	}
	if s, n := synced(); s != n || n < 4 {
		t.Errorf("after a seal %d of %d pages synced", s, n)
	}
	appendFile(t, path, (&transcriptLines{min: 100}).user("one more").String())
	if _, err := b.Render(ctx, session, path); err != nil {
		t.Fatal(err)
	}
	if s, n := synced(); s != n-1 {
		t.Errorf("after appending to the last page, %d of %d pages synced, want all but the last", s, n)
	}
}

// TestRenderResultAfterCacheLoad: a call read by one render and answered
// after a later call, in the next render's bytes, is answered (the cache's
// call index covers the calls read before it was loaded).
func TestRenderResultAfterCacheLoad(t *testing.T) {
	var l transcriptLines
	l.user("run both").call("tu1", "Bash", `{"command":"make"}`)
	path := writeTranscript(t, l.String())
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
	ctx := context.Background()
	if _, err := b.Render(ctx, session, path); err != nil {
		t.Fatal(err)
	}
	m := transcriptLines{min: l.min}
	m.call("tu2", "Bash", `{"command":"make test"}`).result("tu1", true).result("tu2", false).assistant("a1", "both ran")
	appendFile(t, path, m.String())
	r, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	if out := readBottleAt(t, r.Path); !strings.Contains(out, "`make` (failed)") || strings.Contains(out, "⏳") {
		t.Errorf("the first call is not answered:\n%s", out)
	}
}

// TestShrunkBottleDropsPages: when a transcript is replaced by a shorter
// one, the pages past the new last one are removed, whatever the cache
// says (here it is lost, as after a crash between the pages and the cache).
func TestShrunkBottleDropsPages(t *testing.T) {
	var l transcriptLines
	for i := range 40 {
		l.user(fmt.Sprintf("prompt %d %s", i, strings.Repeat("long words ", 60)))
	}
	full := l.String()
	path := writeTranscript(t, full)
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: MinReadLimits}
	ctx := context.Background()
	long, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, lose := range []bool{false, true} {
		if err := os.WriteFile(path, []byte(full[:len(full)/3]), 0o600); err != nil {
			t.Fatal(err)
		}
		if lose {
			if err := os.Remove(filepath.Join(b.Dir(), session+".lock")); err != nil {
				t.Fatal(err)
			}
		}
		short, err := b.Render(ctx, session, path)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := pageFiles(filepath.Dir(short.Path))
		if len(names) != short.Plan.Pages || short.Plan.Pages >= long.Plan.Pages {
			t.Errorf("lost cache %v: %d page files for a bottle of %d pages (was %d)", lose, len(names), short.Plan.Pages, long.Plan.Pages)
		}
		if err := os.WriteFile(path, []byte(full), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Render(ctx, session, path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIndexNamesTheTranscript pins issue 9 §4.10: an observation id ([#…])
// can be followed because the index names the transcript it came from, and
// no text promises a timeline that does not exist.
func TestIndexNamesTheTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	data, err := os.ReadFile(filepath.Join("testdata", "claude-synthetic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b := &Bottler{Home: t.TempDir(), Agent: "claude-code"}
	if _, err := b.Render(context.Background(), "s-1", path); err != nil {
		t.Fatal(err)
	}
	body, err := b.Read("s-1")
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	if !strings.Contains(text, "transcript: "+path+" (observation ids [#…] are its tool call ids)") {
		t.Errorf("the index does not name the transcript:\n%s", text[:min(len(text), 600)])
	}
	if strings.Contains(text, "timeline") {
		t.Errorf("the bottle promises a timeline:\n%s", text)
	}
}
