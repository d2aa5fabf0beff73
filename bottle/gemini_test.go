package bottle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gm builds a Gemini CLI message record; extra holds further members with a
// trailing comma.
func gm(typ, id, extra, content string) string {
	return fmt.Sprintf(`{"id":%q,"timestamp":"2026-11-30T01:00:00.000Z","type":%q,%s"content":%s}`, id, typ, extra, content)
}

// gset builds a $set.messages replacement of message records.
func gset(msgs ...string) string {
	return `{"$set":{"messages":[` + strings.Join(msgs, ",") + `],"lastUpdated":"2026-11-30T01:00:01.000Z"}}`
}

const (
	gHeader  = `{"sessionId":"s-gem-1","projectHash":"abc","startTime":"2026-11-30T00:59:00.000Z","lastUpdated":"2026-11-30T00:59:00.000Z","kind":"main"}`
	gContext = `[{"text":"<session_context>\nThis is the Gemini CLI.\n- **Workspace Directories:**\n  - /home/dev/proj\n- **Directory Structure:**\n</session_context>"}]`
	gSnap    = `[{"text":"<state_snapshot>\n  <overall_goal>SUMMARY</overall_goal>\n</state_snapshot>"}]`
)

func TestGeminiReader(t *testing.T) {
	call := func(id, name, args, status string) string {
		return fmt.Sprintf(`{"id":%q,"name":%q,"args":%s,"result":[{"functionResponse":{"id":%q,"name":%q,"response":{"output":"BULK"}}}],"status":%q,"timestamp":"2026-11-30T01:00:02.000Z","resultDisplay":"BULK","displayName":"Shell"}`, id, name, args, id, name, status)
	}
	withCalls := func(calls ...string) string { return `"toolCalls":[` + strings.Join(calls, ",") + `],` }
	cases := []struct {
		name        string
		lines       []string
		want        string
		compactions int
	}{
		{"header and creation replacement hold no conversation", []string{gHeader, gset(gm("user", "ctx", "", gContext))}, "", 0},
		{"prompt and reply", []string{gHeader, gm("user", "u1", "", `[{"text":"fix it"}]`), gm("gemini", "g1", "", `"done"`)}, "user:fix it | assistant:done", 0},
		{"user content as a string", []string{gm("user", "u1", "", `"fix it"`)}, "user:fix it", 0},
		{"text parts joined", []string{gm("user", "u1", "", `[{"text":"fix "},{"text":"it"}]`)}, "user:fix it", 0},
		{"hook context prefix stripped", []string{gm("user", "u1", "", `[{"text":"<hook_context>INJECTED</hook_context>\n\nhello"}]`)}, "user:hello", 0},
		{"hook context alone", []string{gm("user", "u1", "", `[{"text":"<hook_context>INJECTED</hook_context>"}]`)}, "", 0},
		{"session context alone", []string{gm("user", "u1", "", gContext)}, "", 0},
		{"unclosed hook context fails closed", []string{gm("user", "u1", "", `[{"text":"before <hook_context>INJECTED and the rest"}]`)}, "user:before", 0},
		{"private scrubbed", []string{gm("user", "u1", "", `[{"text":"a <private>tok</private>b"}]`)}, "user:a b", 0},
		// The private blocks go before the injected ones: a block
		// straddling an injected block's end keeps all it holds.
		{"private block straddling a hook context's end", []string{gm("user", "u1", "", `[{"text":"<hook_context>I <private>SECRET</hook_context> SECRET</private> hello"}]`)}, "", 0},
		{"private block straddling a shown hook context's end", []string{gm("user", "u1", `"displayContent":[{"text":"<hook_context>I <private>SECRET</hook_context> SECRET</private> hello"}],`, `"hello"`)}, "user:hello", 0},
		{"state snapshot record counts a compaction", []string{gm("user", "u1", "", gSnap)}, "", 1},
		{"continuation repeating the prompt dropped", []string{
			gm("user", "u1", "", `[{"text":"<hook_context>I</hook_context>\n\nhello"}]`), gm("gemini", "g1", "", `"r1"`),
			gm("user", "u2", `"displayContent":[{"text":"<hook_context>I</hook_context>\n\nhello"}],`, `[{"text":"NUDGE"}]`), gm("gemini", "g2", "", `"r2"`),
		}, "user:hello | assistant:r1 | assistant:r2", 0},
		{"display content shown instead of content", []string{
			gm("user", "u1", `"displayContent":[{"text":"explain @a.go"}],`, `[{"text":"explain @a.go"},{"text":"\n--- Content from referenced files ---\nBULK"}]`),
		}, "user:explain @a.go", 0},
		{"empty display content: content shown", []string{gm("user", "u1", `"displayContent":[{"text":"<hook_context>I</hook_context>"}],`, `"hi"`)}, "user:hi", 0},
		{"a repeated prompt without display content kept", []string{gm("user", "u1", "", `"yes"`), gm("user", "u2", "", `"yes"`)}, "user:yes | user:yes", 0},
		{"reply parts: thoughts and calls skipped", []string{
			gm("gemini", "g1", "", `[{"text":"thinking","thought":true},{"text":"a"},{"functionCall":{"name":"x","args":{}}},{"text":"b"}]`),
		}, "assistant:ab", 0},
		{"tool calls by status", []string{gm("gemini", "g1", withCalls(
			call("c1", "run_shell_command", `{"command":"go test","description":"d"}`, "success"),
			call("c2", "write_file", `{"content":"BULK","file_path":"/a.go"}`, "error"),
			call("c3", "replace", `{"expected_replacements":1,"file_path":"/b.go","old_string":"x"}`, "cancelled"),
			call("c4", "read_file", `{"file_path":"/c.go"}`, "executing"),
		), `"running tests"`)}, "assistant:running tests | call:run_shell_command:c1:go test:done | call:write_file:c2:/a.go:done:failed | call:replace:c3:/b.go:done:failed | call:read_file:c4:/c.go", 0},
		{"upsert finishes a call and adds one, text once", []string{
			gm("gemini", "g1", withCalls(call("c1", "glob", `{"pattern":"*.go"}`, "executing")), `"looking"`),
			gm("gemini", "g1", withCalls(call("c1", "glob", `{"pattern":"*.go"}`, "success"), call("c2", "read_file", `{"file_path":"/a"}`, "scheduled")), `"looking"`),
		}, "assistant:looking | call:glob:c1:*.go:done | call:read_file:c2:/a", 0},
		{"upsert brings text to a message that had none", []string{
			gm("gemini", "g1", withCalls(call("c1", "glob", `{"pattern":"*.go"}`, "success")), `""`),
			gm("gemini", "g1", "", `"found them"`),
			gm("gemini", "g1", "", `"found them, rewritten"`),
		}, "call:glob:c1:*.go:done | assistant:found them", 0},
		{"a user record written again is not a new prompt", []string{gm("user", "u1", "", `"hi"`), gm("user", "u1", "", `"hi"`)}, "user:hi", 0},
		{"notices dropped", []string{
			gm("info", "i1", "", `"This request failed."`), gm("warning", "w1", "", `"Agent execution blocked: NUDGE"`), gm("error", "e1", "", `"boom"`),
		}, "", 0},
		{"metadata updates ignored", []string{
			`{"$set":{"lastUpdated":"2026-11-30T01:00:00.000Z"}}`, `{"$set":{"sessionId":"s-gem-1"}}`,
			`{"$set":{"summary":"<state_snapshot> GENERATED </state_snapshot>","memoryScratchpad":{"version":1}}}`,
			`{"$set":{"messages":null}}`, `{"$set":"not an object"}`,
		}, "", 0},
		{"rewind keeps what was bottled", []string{
			gm("user", "u1", "", `"a"`), gm("gemini", "g1", "", `"b"`), `{"$rewindTo":"u1"}`, gm("user", "u2", "", `"c"`),
		}, "user:a | assistant:b | user:c", 0},
		{"superset replacement appends only its new tail", []string{
			gm("user", "u1", "", `"a"`), gm("gemini", "g1", "", `"b"`),
			gset(gm("user", "ctx", "", gContext), gm("user", "u1", "", `[{"text":"a"}]`), gm("gemini", "g1", "", `[{"text":"b"}]`), gm("user", "u2", "", `[{"text":"c"}]`), gm("gemini", "g2", "", `[{"text":"d"}]`)),
		}, "user:a | assistant:b | user:c | assistant:d", 0},
		{"replacement that drops turns keeps them", []string{
			gm("user", "u1", "", `"a"`), gm("gemini", "g1", "", `"b"`), gset(gm("user", "ctx", "", gContext)),
		}, "user:a | assistant:b", 0},
		{"compression: summary counted, acknowledgement and replays dropped", []string{
			gm("user", "u1", "", `"a"`), gm("gemini", "g1", "", `"b"`), gm("user", "u2", "", `[{"text":"<hook_context>I</hook_context>\n\nc"}]`), gm("gemini", "g2", "", `"d"`),
			gset(gm("user", "ctx", "", gContext), gm("user", "s1", "", gSnap), gm("gemini", "k1", "", `[{"text":"Got it. Thanks for the additional context!"}]`),
				gm("user", "n2", "", `[{"text":"<hook_context>I</hook_context>\n\nc"}]`), gm("gemini", "n3", "", `[{"text":"d"}]`)),
			gm("gemini", "g3", "", `"e"`),
		}, "user:a | assistant:b | user:c | assistant:d | assistant:e", 1},
		{"a replay of a continuation is not a prompt", []string{
			gm("user", "u1", "", `"hello"`), gm("gemini", "g1", "", `"r1"`),
			gm("user", "u2", `"displayContent":[{"text":"hello"}],`, `[{"text":"NUDGE"}]`), gm("gemini", "g2", "", `"r2"`),
			gset(gm("user", "n1", "", `[{"text":"NUDGE"}]`), gm("gemini", "n2", "", `[{"text":"r2"}]`)),
		}, "user:hello | assistant:r1 | assistant:r2", 0},
		{"a replay is matched once: a second copy is new", []string{
			gm("user", "u1", "", `"yes"`),
			gset(gm("user", "u1", "", `"yes"`), gm("user", "n1", "", `"yes"`)),
		}, "user:yes | user:yes", 0},
		{"a replayed summary is not a second compaction", []string{
			gset(gm("user", "s1", "", gSnap)), gset(gm("user", "s2", "", gSnap)),
		}, "", 1},
		{"malformed lines skipped", []string{
			`{"id":`, `not json`, `[]`, `{"id":"x","type":"user","content":42}`, `{"id":7,"type":"user","content":"no string id"}`, gm("user", "u1", "", `"ok"`),
		}, "user:ok", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := strings.Join(c.lines, "\n") + "\n"
			tr := Transcript{Format: FormatGemini}
			end, err := tr.ReadLines(strings.NewReader(data), 0)
			if err != nil || end != int64(len(data)) {
				t.Fatalf("end %d of %d, err %v", end, len(data), err)
			}
			if got := summary(tr.Entries); got != c.want {
				t.Errorf("entries\n got %q\nwant %q", got, c.want)
			}
			if tr.Compactions != c.compactions {
				t.Errorf("compactions %d, want %d", tr.Compactions, c.compactions)
			}
			// Read in two pieces across a cache round trip, at every line.
			for cut := 0; cut <= len(data); cut++ {
				if cut > 0 && data[cut-1] != '\n' {
					continue
				}
				split := splitRead(t, FormatGemini, []byte(data), int64(cut))
				if got := summary(split.Entries); got != c.want || split.Compactions != c.compactions {
					t.Errorf("read split at %d: %q (%d compactions)", cut, got, split.Compactions)
				}
			}
		})
	}
}

// splitRead reads data[:cut] (cut is a line boundary), passes the result
// through the parse cache's encoding and reads the rest from the cursor.
func splitRead(t testing.TB, format Format, data []byte, cut int64) *Transcript {
	t.Helper()
	tr := Transcript{Format: format}
	end, err := tr.ReadLines(bytes.NewReader(data[:cut]), 0)
	if err != nil || end != cut {
		t.Fatalf("first piece: end %d of %d, err %v", end, cut, err)
	}
	loaded := roundTrip(t, &tr)
	// ReadLines takes the whole file and the cursor: offsets are the file's.
	if _, err := loaded.ReadLines(bytes.NewReader(data), cut); err != nil {
		t.Fatal(err)
	}
	return loaded
}

func TestGeminiMetadata(t *testing.T) {
	tr := parseFile(t, "testdata/gemini/headless-session-3runs.jsonl")
	if tr.Format != FormatGemini || tr.SessionID != "f7cf3951-07ce-4e3e-a906-0b9b1f4c13f0" || tr.Project != "/home/dev/project" || tr.Compactions != 1 || tr.Skipped != 0 {
		t.Errorf("metadata format %s session %s project %s compactions %d skipped %d", tr.Format, tr.SessionID, tr.Project, tr.Compactions, tr.Skipped)
	}
	if want := time.Date(2026, 11, 30, 1, 18, 58, 898e6, time.UTC); !tr.Started.Equal(want) {
		t.Errorf("started %v, want %v", tr.Started, want)
	}
	// The header's own directories name the project when it has them.
	var sub Transcript
	line := `{"sessionId":"s","projectHash":"h","startTime":"2026-11-30T01:00:00Z","kind":"subagent","directories":["/w/one","/w/two"]}` + "\n"
	if _, err := sub.ReadLines(strings.NewReader(line), 0); err != nil || sub.Format != FormatGemini || sub.Project != "/w/one" {
		t.Errorf("subagent header: format %s project %q err %v", sub.Format, sub.Project, err)
	}
}

func TestWorkspace(t *testing.T) {
	cases := []struct{ block, want string }{
		{"<session_context>\n- **Workspace Directories:**\n  - /home/dev/project\n  - /other\n</session_context>", "/home/dev/project"},
		{"<session_context>\n- **Workspace Directories:**\n\n  - C:\\work\\p\n</session_context>", `C:\work\p`},
		{"<session_context>\n- **Workspace Directories:**\n- **Directory Structure:**\n</session_context>", ""},
		{"<session_context>I'm currently working in the directory: /srv/app\nmore</session_context>", "/srv/app"},
		{"<session_context>nothing here</session_context>", ""},
	}
	for _, c := range cases {
		if got := workspace(c.block); got != c.want {
			t.Errorf("workspace(%q) = %q, want %q", c.block, got, c.want)
		}
	}
}

// geminiFixture says what the bottle of one real recording must and must
// not hold. sibling, when set, is a recording placed beside the fixture in
// a chats directory under the CLI's file names, the layout ResolveTranscript
// reads.
type geminiFixture struct {
	mode            Mode
	present, absent []string
	sibling         string
}

var geminiFixtures = map[string]geminiFixture{
	"headless-session-after-run1.jsonl": {
		mode:    ModeFull,
		present: []string{"## Original request\nhello\n", "**User** (turn 1, 01:18)\nhello\n", "FAKE-REPLY #2", "FAKE-REPLY #3", "legs: 1", "project: /home/dev/project"},
		absent:  []string{" 01:18)\nNUDGE-MARKER", "This is the Gemini CLI. We are setting up the context for our chat"},
	},
	"headless-session-3runs.jsonl": {
		mode: ModeFull,
		present: []string{"**User** (turn 1, 01:18)\nhello\n", "**User** (turn 2, 01:19)\nsecond prompt\n", "**User** (turn 3, 01:19)\nthird prompt\n",
			"FAKE-REPLY #2", "FAKE-REPLY #3", "FAKE-REPLY #5", "FAKE-REPLY #7", "FAKE-REPLY #10", "legs: 2", "current task: third prompt"},
		absent: []string{"FAKE-SUMMARY", "state_snapshot", "Got it. Thanks for the additional context!", "\nNUDGE-MARKER", "Today's date"},
	},
	"interactive-startup-then-clear.jsonl": {
		mode:    ModeFull,
		present: []string{"## Original request\nhello interactive\n", "FAKE-REPLY #12", "legs: 1"},
		absent:  []string{"INJECTED-MARKER", "FAKE-SUMMARY", "state_snapshot", "This request failed"},
	},
	"interactive-after-clear-then-resume-nudge.jsonl": {
		mode: ModeFull,
		present: []string{"## Original request\nafter clear\n", "**User** (turn 2, 01:22)\nresumed interactive\n", "FAKE-REPLY #16", "FAKE-REPLY #19", "FAKE-REPLY #20",
			"current task: resumed interactive"},
		absent: []string{"INJECTED-MARKER", "\nNUDGE-MARKER", "Agent execution blocked", "This request failed", "Today's date"},
	},
	// SessionStart(resume) of headless run 2 named the stray file; the
	// conversation was then in the original file as it stood after run 1.
	"headless-resume-stray-file.jsonl": {
		mode:    ModeFull,
		sibling: "headless-session-after-run1.jsonl",
		present: []string{"# Session bottle — f7cf3951-07ce-4e3e-a906-0b9b1f4c13f0", "**User** (turn 1, 01:18)\nhello\n", "FAKE-REPLY #3"},
	},
}

// chatsName is a fixture's file name in a chats directory: the stray file
// and the original it strays from, as the CLI named them.
func chatsName(fixture string) string {
	switch fixture {
	case "headless-resume-stray-file.jsonl":
		return "session-2026-11-30T01-19-f7cf3951.jsonl"
	case "headless-session-after-run1.jsonl", "headless-session-3runs.jsonl":
		return "session-2026-11-30T01-18-f7cf3951.jsonl"
	}
	return "session-" + fixture
}

// TestGeminiGoldens renders every recording under testdata/gemini, each
// from a chats directory through ResolveTranscript as a hook's render is,
// and compares it with its golden bottle.
func TestGeminiGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/gemini/*.jsonl")
	if err != nil || len(files) < len(geminiFixtures) {
		t.Fatalf("fixtures %v: %v", files, err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		c, ok := geminiFixtures[name]
		if !ok {
			t.Errorf("%s has no expectations in geminiFixtures", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := copyFixture(t, dir, name)
			if c.sibling != "" {
				copyFixture(t, dir, c.sibling)
			}
			tr := parseFile(t, ResolveTranscript(path))
			res := Render(Page{SessionID: tr.SessionID, Transcript: tr}, renderedAt)
			if res.Mode != c.mode || res.Gap != 0 {
				t.Fatalf("mode %s gap %d, want %s 0", res.Mode, res.Gap, c.mode)
			}
			assertBottle(t, string(res.Markdown), c.present, c.absent)
			// Injected context never reaches a User entry (the model's
			// replies quote it back, verbatim).
			for _, e := range tr.Entries {
				if e.Kind == KindUser && (strings.Contains(e.Text, "INJECTED-MARKER") || strings.Contains(e.Text, "_context>") || strings.Contains(e.Text, "NUDGE-MARKER")) {
					t.Errorf("injected text in a prompt: %q", e.Text)
				}
			}
			golden(t, "gemini/"+strings.TrimSuffix(name, ".jsonl")+".golden.md", res.Markdown)
		})
	}
}

func copyFixture(t testing.TB, dir, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/gemini", fixture))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, chatsName(fixture))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGeminiIncremental: reading any recording in two pieces across the
// parse cache, cut at any line, renders exactly what reading it whole does,
// including cuts on either side of a replacement.
func TestGeminiIncremental(t *testing.T) {
	files, _ := filepath.Glob("testdata/gemini/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		whole := Render(Page{SessionID: "s", Transcript: parseFile(t, file)}, renderedAt).Markdown
		for cut := 0; cut <= len(data); cut++ {
			if cut > 0 && data[cut-1] != '\n' {
				continue
			}
			got := Render(Page{SessionID: "s", Transcript: splitRead(t, "", data, int64(cut))}, renderedAt).Markdown
			if !bytes.Equal(got, whole) {
				t.Errorf("%s read split at %d renders differently:\n%s\n--- whole\n%s", file, cut, got, whole)
			}
		}
	}
}

// TestGeminiBottlerAppends renders through the Bottler after every line the
// CLI appends (torn halves included), replacements mid-file among them, and
// checks each bottle equals a fresh render of the file as it stands.
func TestGeminiBottlerAppends(t *testing.T) {
	for _, fixture := range []string{"headless-session-3runs.jsonl", "interactive-after-clear-then-resume-nudge.jsonl"} {
		t.Run(fixture, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/gemini", fixture))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), chatsName(fixture))
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			b := &Bottler{Home: t.TempDir(), Agent: "gemini", Clock: newFakeClock()}
			var last Bottle
			for written := 0; written < len(data); {
				next := written + bytes.IndexByte(data[written:], '\n') + 1
				for _, upto := range []int{written + (next-written)/2, next} {
					appendFile(t, path, string(data[written:upto]))
					written = upto
					inc, err := b.Render(ctx, session, path)
					if err != nil {
						t.Fatal(err)
					}
					fresh, err := (&Bottler{Home: t.TempDir(), Agent: "gemini", Clock: newFakeClock()}).Render(ctx, session, path)
					if err != nil {
						t.Fatal(err)
					}
					if inc.Mode != fresh.Mode || (inc.Mode != ModeTimeline && readBottleAt(t, inc.Path) != readBottleAt(t, fresh.Path)) {
						t.Fatalf("after %d bytes the incremental bottle differs from a fresh render", written)
					}
					last = inc
				}
			}
			if out := readBottleAt(t, last.Path); !strings.Contains(out, "FAKE-REPLY #") {
				t.Fatalf("final bottle:\n%s", out)
			}
		})
	}
}

// TestResolveTranscript: only a Gemini recording with no conversation of its
// own is redirected, and only to a sibling of the same session that has one.
func TestResolveTranscript(t *testing.T) {
	fixture := func(name string) string {
		data, err := os.ReadFile(filepath.Join("testdata/gemini", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	stray, original := fixture("headless-resume-stray-file.jsonl"), fixture("headless-session-after-run1.jsonl")
	other := strings.ReplaceAll(original, "f7cf3951-07ce-4e3e-a906-0b9b1f4c13f0", "f7cf3951-0000-0000-0000-000000000000")
	const (
		strayName = "session-2026-11-30T01-19-f7cf3951.jsonl"
		origName  = "session-2026-11-30T01-18-f7cf3951.jsonl"
	)
	cases := []struct {
		name  string
		files map[string]string
		from  string
		want  string
	}{
		{"stray to the original", map[string]string{strayName: stray, origName: original}, strayName, origName},
		{"the original stays", map[string]string{strayName: stray, origName: original}, origName, origName},
		{"stray alone stays", map[string]string{strayName: stray}, strayName, strayName},
		{"another session with the same short id is not it", map[string]string{strayName: stray, origName: other}, strayName, strayName},
		{"another stray is not it", map[string]string{strayName: stray, "session-2026-11-30T01-20-f7cf3951.jsonl": stray}, strayName, strayName},
		{"not a session file name", map[string]string{strayName: stray, "copy-f7cf3951.jsonl": original}, strayName, strayName},
		{"stray with a byte order mark to the original", map[string]string{strayName: "\uFEFF" + stray, origName: original}, strayName, origName},
		{"stray to the original with a byte order mark", map[string]string{strayName: stray, origName: "\uFEFF" + original}, strayName, origName},
		{"a Claude transcript stays", map[string]string{"t.jsonl": cl("user", "", `"hi"`) + "\n"}, "t.jsonl", "t.jsonl"},
		{"an empty file stays", map[string]string{"session-x.jsonl": ""}, "session-x.jsonl", "session-x.jsonl"},
		{"a missing file stays", map[string]string{}, strayName, strayName},
		{"a directory stays", map[string]string{}, ".", "."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := ResolveTranscript(filepath.Join(dir, c.from)), filepath.Join(dir, c.want); got != want {
				t.Errorf("ResolveTranscript(%s) = %s, want %s", c.from, filepath.Base(got), filepath.Base(want))
			}
		})
	}
	// With two recordings holding conversation, the newer one is it.
	dir := t.TempDir()
	for i, name := range []string{origName, "session-2026-11-30T01-17-f7cf3951.jsonl", strayName} {
		content := map[int]string{0: original, 1: original, 2: stray}[i]
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		at := renderedAt.Add(time.Duration(map[int]int{0: 2, 1: 1, 2: 3}[i]) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if got := ResolveTranscript(filepath.Join(dir, strayName)); filepath.Base(got) != origName {
		t.Errorf("newest sibling: got %s", filepath.Base(got))
	}
}

// TestGeminiStrayThroughBottler: a SessionStart(resume) render given the
// stray file writes the session's bottle from the original recording.
func TestGeminiStrayThroughBottler(t *testing.T) {
	dir := t.TempDir()
	stray := copyFixture(t, dir, "headless-resume-stray-file.jsonl")
	ctx := context.Background()
	alone, err := (&Bottler{Home: t.TempDir(), Clock: newFakeClock()}).Render(ctx, session, stray)
	if err != nil || alone.Mode != ModeTimeline {
		t.Fatalf("stray alone: mode %s err %v", alone.Mode, err)
	}
	original := copyFixture(t, dir, "headless-session-after-run1.jsonl")
	home := t.TempDir()
	got, err := (&Bottler{Home: home, Clock: newFakeClock()}).Render(ctx, session, stray)
	if err != nil || got.Mode != ModeFull {
		t.Fatalf("stray beside the original: mode %s err %v", got.Mode, err)
	}
	want, err := (&Bottler{Home: t.TempDir(), Clock: newFakeClock()}).Render(ctx, session, original)
	if err != nil {
		t.Fatal(err)
	}
	if readString(t, got.Path) != readString(t, want.Path) {
		t.Error("the stray's bottle differs from the original's")
	}
	// Later renders name the original; the cache the stray's render left is theirs.
	st := stateAt(t, filepath.Join(home, "bottles", session+".lock"))
	if st == nil || st.Cursor.Transcript != original {
		t.Errorf("cache cursor belongs to %v, want the original", st)
	}
}

func FuzzGeminiReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/gemini/*.jsonl")
	for _, file := range files {
		addLines(f, file)
		data, _ := os.ReadFile(file)
		f.Add(string(data))
	}
	f.Add(gm("gemini", "g1", `"toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"},"status":"success"}],`, `"x"`) + "\n")
	f.Add(gm("user", "u1", "", `"a"`) + "\n" + gset(gm("user", "s", "", gSnap), gm("gemini", "k", "", `"ack"`), gm("user", "n", "", `"a"`)) + "\n" + `{"$rewindTo":"u1"}` + "\n")
	f.Add("\uFEFF" + gHeader + "\r\n" + gm("user", "u1", "", `[{"text":"a"}]`) + "\r\n")
	f.Add(gm("user", "u1", `"displayContent":"<hook_context>x",`, `[{"text":"<private>p</private><session_context>`+"\n"+`"}]`) + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		fuzzReader(t, FormatGemini, data)
		// Read in two pieces across the cache, it renders as it does whole.
		end := int64(bytes.LastIndexByte(data, '\n') + 1)
		cut := int64(bytes.IndexByte(data[end/2:end], '\n')+1) + end/2
		if end == 0 {
			cut = 0
		}
		var whole Transcript
		whole.Format = FormatGemini
		if _, err := whole.ReadLines(bytes.NewReader(data), 0); err != nil {
			t.Fatal(err)
		}
		split := splitRead(t, FormatGemini, data[:end], cut)
		a := Render(Page{SessionID: "s", Transcript: &whole}, renderedAt)
		b := Render(Page{SessionID: "s", Transcript: split}, renderedAt)
		if !bytes.Equal(a.Markdown, b.Markdown) || whole.Compactions != split.Compactions {
			t.Fatalf("split at %d renders differently:\n%s\n--- whole\n%s", cut, b.Markdown, a.Markdown)
		}
	})
}
