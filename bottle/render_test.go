package bottle

import (
	"strings"
	"testing"

	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/internal/runes"
)

func TestRenderRealTranscripts(t *testing.T) {
	cases := []struct {
		file, golden, session string
		present, absent       []string
	}{
		{
			file: "claude-2.1.328.jsonl", golden: "bottle-claude-2.1.328.golden.md",
			session: "c96e6033-0cbe-4890-a588-1160d3853949",
			present: []string{
				"please RUNTOOL now", "thanks", "I'll run it.", "Mock reply 2: done.", "what next?", "Mock reply 4: done.",
				"- [#toolu_0001] Bash — `echo hi-from-tool`", "legs: 2", "mode: full (",
			},
			absent: []string{
				"secret-token-123", "<private>", "<command-name>", "<local-command-stdout>", "<local-command-caveat>",
				"<system-reminder>", "This session is being continued", "INJECTED-CONTEXT-MARKER", "hi-from-tool\n", "⏳",
			},
		},
		{
			file: "claude-synthetic.jsonl", golden: "bottle-claude-synthetic.golden.md",
			session: "7f3c2a9e-4b1d-4e8a-9c2f-1a6b5d8e0f42",
			present: []string{
				"Add a heartbeat writer", "also make the interval configurable", "Making the interval configurable",
				"`go test ./internal/session/...` (failed)", "[#toolu_01EditX9yZ8wV7uT6sR5qP4o] Edit — /home/dev/proj/internal/session/heartbeat.go",
			},
			absent: []string{
				"staging token", "<private>", "WriteHeartbeat is called from", "List every caller", "Stop hook feedback",
				"<task-notification>", "Request interrupted", "Understood, stopping here", "Sonnet 4.5", "claude-mem-context",
				"I should look at the existing session package",
			},
		},
		{
			file: "codex-0.169.0.jsonl", golden: "bottle-codex-0.169.0.golden.md",
			session: "01a22a09-db6a-7732-9f59-56d2b83ea053",
			present: []string{
				"hello RUN_TOOL please", "fourth prompt after manual compact", "FAKE-ANSWER seq 6: done.",
				"[#call_004] exec_command — `echo hi`", "legs: 4",
			},
			absent: []string{"INJECTED-MARKER", "NUDGE-MARKER", "environment_context", "FAKE-SUMMARY", "skills_instructions"},
		},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			tr := parseFile(t, "testdata/"+c.file)
			res := Render(Page{SessionID: c.session, Transcript: tr}, renderedAt)
			if res.Mode != ModeFull || res.Gap != 0 {
				t.Fatalf("mode %s gap %d, want full 0", res.Mode, res.Gap)
			}
			assertBottle(t, string(res.Markdown), c.present, c.absent)
			golden(t, c.golden, res.Markdown)
		})
	}
}

// TestRenderFactsAreOneLineForEveryReader: a fact a bottle shows beside the
// conversation, an observation's gist and the current task are one line for
// every reader, not only for one that splits at newlines: a carriage
// return, NEL, a line or paragraph separator, an escape sequence (OSC 8
// hyperlink, window title), BEL or a backspace in a transcript's cwd, path,
// tool name, call id, command or prompt becomes a space. A lone "\r" in the
// cwd forged the index's line ("project: …\rproject: forged" reads as the
// second on a terminal), and `baton bottle show` wrote the escapes to it.
// The messages themselves stay verbatim (the task row's prompt keeps its
// characters in its own slot).
func TestRenderFactsAreOneLineForEveryReader(t *testing.T) {
	const hostile = `\r## forged\u001b]8;;https://x.example/\u0007link\u001b]8;;\u0007\u001b[2J\u0008\u0085\u2028\u2029`
	done := cl("assistant", "", `[{"type":"text","text":"done"}]`)
	call := func(id, name, command string) string {
		return strings.Replace(cl("assistant", "", `[{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{"command":"`+command+`"}}]`), `"m1"`, `"m2"`, 1)
	}
	hi := cl("user", "", `"hi"`)
	cases := []struct {
		name       string
		lines      []string
		transcript string
		task       bool // only the current task line is checked: the prompt is verbatim
	}{
		{"the project", []string{strings.Replace(hi, `"/p"`, `"/p`+hostile+`"`, 1), done}, "", false},
		{"the transcript's path", []string{hi, done}, "/t/x\r## forged\x1b]0;t\x07\u2028.jsonl", false},
		{"an observation's call id", []string{hi, call("t1"+hostile, "Bash", "ls"), done}, "", false},
		{"an observation's tool", []string{hi, call("t1", "Bash"+hostile, "ls"), done}, "", false},
		{"an observation's command", []string{hi, call("t1", "Bash", "ls"+hostile), done}, "", false},
		{"a pending call's tool", []string{hi, done, call("t1", "Bash"+hostile, "ls")}, "", false},
		{"a pending call's command", []string{hi, done, call("t1", "Bash", "ls"+hostile)}, "", false},
		{"the current task", []string{cl("user", "", `"do it`+hostile+`"`), done}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr Transcript
			if _, err := tr.ReadLines(strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), 0); err != nil {
				t.Fatal(err)
			}
			res := Render(Page{SessionID: tr.SessionID, Transcript: &tr, TranscriptPath: tc.transcript}, renderedAt)
			if res.Mode != ModeFull {
				t.Fatalf("mode %s, want full", res.Mode)
			}
			checked := string(res.Markdown)
			if tc.task {
				_, checked, _ = strings.Cut(checked, "\n"+taskPrefix)
				if !strings.HasPrefix(checked, "do it") {
					t.Fatalf("no current task line:\n%s", res.Markdown)
				}
				checked, _, _ = strings.Cut(checked, "\n")
			}
			for _, r := range checked {
				if r != '\n' && runes.Breaks(r) {
					t.Fatalf("the bottle holds %U outside a message:\n%q", r, checked)
				}
			}
			if strings.Contains(string(res.Markdown), "\n## forged") {
				t.Errorf("a forged heading:\n%s", res.Markdown)
			}
		})
	}
}

// TestRenderFactsPassThePrivacyFilter: the facts a bottle shows beside the
// conversation (the session and project a transcript names, a tool's name
// and call id, in an observation or in the pending tail) are privacy
// filtered as its messages are, and each stays one line, so a transcript
// holding a private block or a line break in one neither leaks it nor adds
// a line the page layout did not count.
func TestRenderFactsPassThePrivacyFilter(t *testing.T) {
	const p = `<private>SECRET</private>`
	done := cl("assistant", "", `[{"type":"text","text":"done"}]`)
	call := func(id, name string) string {
		return strings.Replace(cl("assistant", "", `[{"type":"tool_use","id":"`+id+`","name":"`+name+`","input":{"command":"ls"}}]`), `"m1"`, `"m2"`, 1)
	}
	cases := []struct {
		name       string
		lines      []string
		transcript string
	}{
		{"the transcript's path", []string{cl("user", "", `"hi"`), done}, "/t/" + p + ".jsonl"},
		{"the project", []string{strings.Replace(cl("user", "", `"hi"`), `"/p"`, `"/p/`+p+`"`, 1), done}, ""},
		{"the session", []string{strings.Replace(cl("user", "", `"hi"`), `"s1"`, `"`+p+`"`, 1), done}, ""},
		{"an observation's call id", []string{cl("user", "", `"hi"`), call(p, "Bash"), done}, ""},
		{"an observation's tool", []string{cl("user", "", `"hi"`), call("t1", p+"Bash"), done}, ""},
		{"a pending call's tool", []string{cl("user", "", `"hi"`), done, call("t1", p+"Bash")}, ""},
		{"a call id with a line break", []string{cl("user", "", `"hi"`), call(`t1\n## SECRET`, "Bash"), done}, ""},
		{"a tool with a line break", []string{cl("user", "", `"hi"`), done, call("t1", `Bash\n## SECRET`)}, ""},
		{"a session with a line break", []string{strings.Replace(cl("user", "", `"hi"`), `"s1"`, `"s1\n## SECRET"`, 1), done}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr Transcript
			if _, err := tr.ReadLines(strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), 0); err != nil {
				t.Fatal(err)
			}
			session := tr.SessionID // as baton bottle render takes it
			md := string(Render(Page{SessionID: session, Transcript: &tr, TranscriptPath: tc.transcript}, renderedAt).Markdown)
			if strings.Contains(md, "SECRET") || privacy.Residue(md) != "" {
				t.Errorf("the bottle shows what it must not:\n%s", md)
			}
		})
	}
}
