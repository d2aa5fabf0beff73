package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/bottle"
)

const realTranscript = "../../bottle/testdata/claude-2.1.328.jsonl"

// realSession is realTranscript's session id.
const realSession = "c96e6033-0cbe-4890-a588-1160d3853949"

func TestBottleCommands(t *testing.T) {
	env := testEnv(t)
	out, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", realTranscript})
	if status != exitOK {
		t.Fatalf("render: status %d: %s", status, stderr)
	}
	for _, want := range []string{"# Session bottle — " + realSession, "mode: full", "echo hi-from-tool"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q", want)
		}
	}
	for _, leak := range []string{"secret-token-123", "<command-name>", "INJECTED-CONTEXT-MARKER"} {
		if strings.Contains(out, leak) {
			t.Errorf("render leaks %q", leak)
		}
	}

	// --out writes the file and prints nothing.
	dst := filepath.Join(t.TempDir(), "bottle.md")
	if out, _, status := run(t, env, []string{"bottle", "render", "--transcript", realTranscript, "--out", dst}); status != exitOK || out != "" {
		t.Fatalf("render --out: status %d, stdout %q", status, out)
	}
	if data, err := os.ReadFile(dst); err != nil || !strings.Contains(string(data), "echo hi-from-tool") {
		t.Fatalf("render --out wrote %q: %v", data, err)
	}

	// --keep writes the agent's bottle under BATON_HOME, where show reads
	// it; another agent's conversation with the same id has none.
	for _, agent := range []string{defaultAgent, "codex"} {
		kept, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", realTranscript, "--keep", "--agent", agent})
		want := filepath.Join(env.Home, "bottles", agent, realSession+".bottle", bottle.IndexName)
		if status != exitOK || strings.TrimSpace(kept) != want {
			t.Fatalf("render --keep --agent %s: status %d, printed %q, want %q: %s", agent, status, kept, want, stderr)
		}
	}
	if err := os.RemoveAll(filepath.Join(env.Home, "bottles", "codex", realSession+".bottle")); err != nil {
		t.Fatal(err)
	}
	shown, stderr, status := run(t, env, []string{"bottle", "show", realSession})
	if status != exitOK || !strings.Contains(shown, "echo hi-from-tool") {
		t.Fatalf("show: status %d: %s\n%s", status, stderr, shown)
	}

	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, []byte("{\"type\":\"queue-operation\"}\n{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"bottle", "show", "--agent", "codex", realSession}, exitFailure, "no bottle for session " + realSession},
		{[]string{"bottle", "show", "never-bottled"}, exitFailure, "no bottle for session never-bottled"},
		// A session id or an agent no bottle can have is a malformed
		// argument: a usage error naming it, as an empty --agent is.
		{[]string{"bottle", "show", "../etc/passwd"}, exitUsage, `<session-id>: "../etc/passwd" must be 1-`},
		{[]string{"bottle", "show", "  "}, exitUsage, `<session-id>: "  " must be`},
		{[]string{"bottle", "show", "a\x00b"}, exitUsage, `<session-id>: "a\x00b" must be`},
		{[]string{"bottle", "show", "a\xffb"}, exitUsage, `<session-id>: "a\xffb" must be`},
		{[]string{"bottle", "show", strings.Repeat("s", bottle.MaxSessionIDLen)}, exitFailure, "no bottle for session"},
		{[]string{"bottle", "show", strings.Repeat("s", bottle.MaxSessionIDLen+1)}, exitUsage, "<session-id>: "},
		{[]string{"bottle", "show", "--agent", strings.Repeat("a", 64), realSession}, exitFailure, "no bottle for session"},
		{[]string{"bottle", "show", "--agent", "  ", realSession}, exitUsage, `--agent: "  " is not an agent name`},
		{[]string{"bottle", "show", "--agent", "Codex", realSession}, exitUsage, `--agent: "Codex" is not an agent name`},
		{[]string{"bottle", "show", "--agent", strings.Repeat("a", 65), realSession}, exitUsage, "--agent: "},
		{[]string{"bottle", "render", "--transcript", realTranscript, "--keep", "--agent", "a\x00b"}, exitUsage, `--agent: "a\x00b" is not an agent name`},
		{[]string{"bottle", "render", "--transcript", realTranscript, "--keep", "--agent", "../x"}, exitUsage, `--agent: "../x" is not an agent name`},
		{[]string{"bottle", "render", "--transcript", empty}, exitFailure, "holds no conversation"},
		{[]string{"bottle", "render", "--transcript", empty, "--keep"}, exitFailure, "holds no conversation"},
		{[]string{"bottle", "render", "--transcript", realTranscript, "--keep", "--out", dst}, exitUsage, "--out and --keep can't be used together"},
		{[]string{"bottle", "render", "--transcript", filepath.Join(t.TempDir(), "missing.jsonl")}, exitUsage, "missing.jsonl"},
	}
	for _, tc := range cases {
		out, stderr, status := run(t, env, tc.args)
		if status != tc.status || out != "" || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want %d and %q", tc.args, status, out, stderr, tc.status, tc.stderr)
		}
	}
}

// TestBottleRenderReadsTheWholeFile: a one-off render reads a finished file
// to its end, a last line without a newline included.
func TestBottleRenderReadsTheWholeFile(t *testing.T) {
	line := func(typ, content string) string {
		return `{"type":"` + typ + `","timestamp":"2026-11-30T01:00:00Z","sessionId":"s1","cwd":"/p","message":{"role":"` + typ + `","content":` + content + `}}`
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	data := line("user", `"fix the parser"`) + "\n" + line("assistant", `[{"type":"text","text":"the last words, unterminated"}]`)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, status := run(t, testEnv(t), []string{"bottle", "render", "--transcript", path})
	if status != exitOK || !strings.Contains(out, "the last words, unterminated") {
		t.Fatalf("status %d, stderr %q: the last line is missing:\n%s", status, stderr, out)
	}
}

// TestBottleRenderRefuses: what is not a regular transcript file, and an
// --out that names the transcript itself, are refused with a message on
// stderr and the usage status, and the transcript is never written over.
func TestBottleRenderRefuses(t *testing.T) {
	env := testEnv(t)
	dir := t.TempDir()
	transcript := filepath.Join(dir, "t.jsonl")
	original, err := os.ReadFile(realTranscript)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(transcript, original, 0o600); err != nil {
		t.Fatal(err)
	}
	type refusal struct {
		name   string
		args   []string
		status int
		stderr string
	}
	render := func(extra ...string) []string {
		return append([]string{"bottle", "render", "--transcript", transcript}, extra...)
	}
	// A directory --out is refused before its temporary sibling is
	// written; nothing may appear in outParent but outDir, empty.
	outParent := t.TempDir()
	outDir := filepath.Join(outParent, "out")
	if err := os.Mkdir(outDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []refusal{
		{"missing path", []string{"bottle", "render", "--transcript", filepath.Join(dir, "missing.jsonl")}, exitUsage, "missing.jsonl"},
		{"directory", []string{"bottle", "render", "--transcript", dir}, exitUsage, "is a directory"},
		{"out is the transcript", render("--out", transcript), exitUsage, "--out names the transcript"},
		{"out spelled differently", render("--out", filepath.Join(dir, ".", "..", filepath.Base(dir), "t.jsonl")), exitUsage, "--out names the transcript"},
		{"out is a directory", render("--out", outDir), exitUsage, "--out: " + outDir + " is a directory"},
		{"empty transcript path", []string{"bottle", "render", "--transcript", ""}, exitUsage, "--transcript: the path is empty"},
		{"empty out path", render("--out", ""), exitUsage, "--out: the path is empty"},
		{"empty agent", render("--keep", "--agent", ""), exitUsage, "--agent is empty"},
		{"empty agent shown", []string{"bottle", "show", "--agent", "", realSession}, exitUsage, "--agent is empty"},
	}
	if _, err := os.Stat("/dev/urandom"); err == nil {
		cases = append(cases, refusal{"device", []string{"bottle", "render", "--transcript", "/dev/urandom"}, exitUsage, "not a regular file"})
	}
	if link := filepath.Join(dir, "link.md"); os.Symlink(transcript, link) == nil {
		cases = append(cases, refusal{"out is a symbolic link to the transcript", render("--out", link), exitUsage, "--out names the transcript"})
	}
	if hard := filepath.Join(dir, "hard.md"); os.Link(transcript, hard) == nil {
		cases = append(cases, refusal{"out is a hard link to the transcript", render("--out", hard), exitUsage, "--out names the transcript"})
	}
	// --keep would write the agent's bottle: refused when the transcript is
	// one of its files, the index or a page.
	bottleDir := filepath.Join(env.Home, "bottles", defaultAgent, realSession+".bottle")
	if err := os.MkdirAll(bottleDir, 0o700); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, name := range []string{bottle.IndexName, bottle.PageName(1)} {
		p := filepath.Join(bottleDir, name)
		if err := os.WriteFile(p, original, 0o600); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, p)
		cases = append(cases, refusal{"keep would write the transcript " + name, []string{"bottle", "render", "--transcript", p, "--keep"}, exitFailure, "--keep would write over the input"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, status := run(t, env, c.args)
			if status != c.status || out != "" || !strings.Contains(stderr, c.stderr) {
				t.Errorf("status %d, stdout %q, stderr %q; want %d and %q", status, out, stderr, c.status, c.stderr)
			}
			if names := dirNames(t, outParent); len(names) != 1 || len(dirNames(t, outDir)) != 0 {
				t.Errorf("a refusal wrote beside --out: %v", names)
			}
			for _, p := range append([]string{transcript}, kept...) {
				if data, err := os.ReadFile(p); err != nil || !bytes.Equal(data, original) {
					t.Fatalf("%s was written over (%v)", p, err)
				}
			}
		})
	}
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestBottleShowPrintsNoControlCharacters: `baton bottle show` prints the
// bottle for a person, and the bottle is verbatim text a transcript wrote:
// an escape sequence, BEL, a backspace, a lone carriage return or a line
// separator in a prompt or a reply reaches the terminal as a space (the
// words around it kept), and a format character (a right-to-left
// override, an isolate, a zero-width character, a byte order mark) or
// another invisible or blank one (a Hangul filler, the blank Braille
// pattern, a variation selector, a tag) as its code point, as `baton briefing` prints a briefing. It wrote them as they
// were: a screen clear, a window title, an OSC 8 link, a line overwritten
// from its start, a line that reads backwards. The bottle's files keep
// them: the bottle is verbatim.
func TestBottleShowPrintsNoControlCharacters(t *testing.T) {
	cases := []struct{ name, text, shown string }{
		{"a right-to-left override", `\u202e`, "<U+202E>"},
		{"an isolate", `\u2067x\u2069`, "<U+2067>x<U+2069>"},
		{"zero-width characters", `\u200b\u200c\u200d\u200e\u200f`, "<U+200B><U+200C><U+200D><U+200E><U+200F>"},
		{"a byte order mark and a soft hyphen", `\ufeff\u00ad`, "<U+FEFF><U+00AD>"},
		{"Hangul fillers and the blank Braille pattern", `\u3164\u115f\u1160\uffa0\u2800`, "<U+3164><U+115F><U+1160><U+FFA0><U+2800>"},
		{"variation selectors and a tag", `\ufe0f\udb40\udd00\udb40\udc41`, "<U+FE0F><U+E0100><U+E0041>"},
		{"an override in an escape sequence", `\u001b[2J\u202d`, " [2J<U+202D>"},
		{"a screen clear", `\u001b[2J`, ""},
		{"a window title", `\u001b]0;pwned\u0007`, ""},
		{"an OSC 8 hyperlink", `\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\`, ""},
		{"a C1 control sequence", `\u009b2J`, ""},
		{"backspaces", `\b\b\b`, ""},
		{"a lone carriage return", `\r**User** (turn 9)`, ""},
		{"a line separator", `\u2028\u2029\u0085`, ""},
		{"a delete", `\u007f`, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			session := fmt.Sprintf("hostile-%d", i)
			line := func(typ, content string) string {
				return `{"type":"` + typ + `","timestamp":"2026-11-30T01:00:00Z","sessionId":"` + session + `","cwd":"/p","message":{"role":"` + typ + `","content":` + content + `}}`
			}
			transcript := filepath.Join(t.TempDir(), session+".jsonl")
			data := line("user", `"before`+tc.text+`after"`) + "\n" + line("assistant", `[{"type":"text","text":"said`+tc.text+`done"}]`) + "\n"
			if err := os.WriteFile(transcript, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", transcript, "--keep"}); status != exitOK {
				t.Fatalf("render --keep: status %d: %s", status, stderr)
			}
			shown, stderr, status := run(t, env, []string{"bottle", "show", session})
			if status != exitOK {
				t.Fatalf("show: status %d: %s", status, stderr)
			}
			for _, want := range []string{"before" + tc.shown, tc.shown + "after", "said" + tc.shown, tc.shown + "done", "**User** (turn 1"} {
				if !strings.Contains(shown, want) {
					t.Errorf("show lost %q:\n%s", want, shown)
				}
			}
			assertPrintable(t, "show", shown)
			if tc.shown != "" {
				var raw string
				if err := json.Unmarshal([]byte(`"`+tc.text+`"`), &raw); err != nil {
					t.Fatal(err)
				}
				data, err := (&bottle.Bottler{Home: env.Home, Agent: defaultAgent}).Read(session)
				if err != nil || !strings.Contains(string(data), "before"+raw+"after") {
					t.Errorf("the bottle's files do not keep %q verbatim (%v)", raw, err)
				}
			}
		})
	}
}
