package hook_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// captureHome is the home directory of the machine the payloads were
// captured on; the tests put a temporary directory in its place.
const captureHome = "/home/dev"

// transcripts are the transcripts at the paths the payloads name, relative
// to the capture home, and the files they are copied from.
var transcripts = map[string]string{
	".claude/projects/-home-dev-project/c96e6033-0cbe-4890-a588-1160d3853949.jsonl":                     "../../bottle/testdata/claude-2.1.328.jsonl",
	".codex/sessions/2026/11/30/rollout-2026-11-30T01-20-18-01a22a09-db6a-7732-9f59-56d2b83ea053.jsonl": "../../bottle/testdata/codex-0.169.0.jsonl",
	".gemini/tmp/project/chats/session-2026-11-30T01-18-f7cf3951.jsonl":                                 "testdata/transcripts/gemini/headless-session-after-run1.jsonl",
	".gemini/tmp/project/chats/session-2026-11-30T01-19-f7cf3951.jsonl":                                 "testdata/transcripts/gemini/headless-resume-stray-file.jsonl",
	".gemini/tmp/project/chats/session-2026-11-30T01-21-0d12431a.jsonl":                                 "testdata/transcripts/gemini/interactive-startup-then-clear.jsonl",
	".gemini/tmp/project/chats/session-2026-11-30T01-22-d966a1ba.jsonl":                                 "testdata/transcripts/gemini/interactive-after-clear-then-resume-nudge.jsonl",
}

// captureDir makes a capture home: the transcripts at their paths and the
// projects the payloads' cwd names (outside any git repository).
func captureDir(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	for rel, src := range transcripts {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"project", "proj"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// rehome puts home in place of the capture home in a payload.
func rehome(data []byte, home string) []byte {
	return bytes.ReplaceAll(data, []byte(captureHome), []byte(filepath.ToSlash(home)))
}

// step is one hook invocation of a script: a payload file (under
// testdata/payloads) and the EVENT argument.
type step struct {
	file, arg string
}

// script is a sequence of hook invocations against one store.
type script struct {
	name, harness string
	nudge         bool
	steps         []step
	// sequences, when set, is a file of captured runs whose payloads are
	// the steps, in order.
	sequences string
}

func files(dir string, names ...string) []step {
	s := make([]step, len(names))
	for i, n := range names {
		s[i] = step{file: dir + "/" + n}
	}
	return s
}

var scripts = []script{
	{name: "claude-code", harness: "claude-code", steps: append(files("claude-code",
		"stdin-SessionStart-startup.json", "stdin-UserPromptSubmit.json", "stdin-Stop.json", "stdin-Stop-active.json"),
		append(files("synthetic", "claude-subagentstop.json"), files("claude-code",
			"stdin-PreCompact.json", "stdin-SessionStart-compact.json", "stdin-SessionStart-resume.json", "stdin-SessionEnd.json")...)...)},
	{name: "claude-code-nudge", harness: "claude-code", nudge: true, steps: files("claude-code",
		"stdin-SessionStart-startup.json", "stdin-Stop.json", "stdin-Stop.json", "stdin-Stop.json", "stdin-Stop-active.json")},
	{name: "codex", harness: "codex", steps: files("codex",
		"stdin-SessionStart-startup.json", "stdin-UserPromptSubmit.json", "stdin-PreToolUse.json", "stdin-PostToolUse.json",
		"stdin-Stop.json", "stdin-Stop-stop_hook_active.json", "stdin-SessionEnd.json",
		"stdin-SessionStart-resume.json", "stdin-UserPromptSubmit.json", "stdin-PreCompact-auto.json", "stdin-PostCompact-auto.json",
		"stdin-SessionStart-compact.json", "stdin-Stop.json", "stdin-PreCompact-manual.json", "stdin-PostCompact-manual.json", "stdin-SessionEnd.json")},
	{name: "codex-nudge", harness: "codex", nudge: true, steps: files("codex",
		"stdin-SessionStart-startup.json", "stdin-Stop.json", "stdin-Stop.json", "stdin-Stop.json", "stdin-Stop-stop_hook_active.json")},
	{name: "gemini", harness: "gemini", sequences: "gemini/hook-event-sequences.txt"},
	{name: "gemini-nudge", harness: "gemini", nudge: true, steps: files("gemini",
		"stdin-SessionStart-startup.json", "stdin-AfterAgent.json", "stdin-AfterAgent.json", "stdin-AfterAgent.json", "stdin-AfterAgent-stop_hook_active.json")},
	{name: "copilot", harness: "copilot", steps: []step{
		{"written/copilot-sessionStart.json", "sessionStart"}, {"written/copilot-userPromptSubmitted.json", "prompt"},
		{"synthetic/copilot-agentstop.json", "stop"}, {"written/copilot-subagentStop.json", "subagentStop"},
		{"written/copilot-preCompact.json", "precompact"}, {"written/copilot-sessionEnd.json", "end"}}},
	{name: "copilot-nudge", harness: "copilot", nudge: true, steps: []step{
		{"written/copilot-sessionStart.json", "start"}, {"synthetic/copilot-agentstop.json", "stop"},
		{"synthetic/copilot-agentstop.json", "stop"}, {"synthetic/copilot-agentstop.json", "stop"},
		{"synthetic/copilot-agentstop.json", "stop"}}},
	{name: "copilot-pascal", harness: "copilot", nudge: true, steps: files("written",
		"copilot-pascal-SessionStart.json", "copilot-pascal-UserPromptSubmit.json", "copilot-pascal-Stop.json", "copilot-pascal-Stop.json",
		"copilot-pascal-Stop.json", "copilot-pascal-PreCompact.json", "copilot-pascal-SessionEnd.json")},
	{name: "cursor", harness: "cursor", steps: append(files("synthetic", "cursor-sessionstart.json"),
		append(files("written", "cursor-beforeSubmitPrompt.json"), append(files("synthetic", "cursor-stop.json"),
			files("written", "cursor-stop-loop1.json", "cursor-subagentStop.json", "cursor-preCompact.json", "cursor-sessionEnd.json")...)...)...)},
	{name: "cursor-nudge", harness: "cursor", nudge: true, steps: append(files("synthetic",
		"cursor-sessionstart.json", "cursor-stop.json", "cursor-stop.json", "cursor-stop.json"), files("written", "cursor-stop-loop1.json")...)},
}

// payloads returns the script's steps with their payloads and labels.
func (s script) payloads(t *testing.T) (labels, args []string, data [][]byte) {
	t.Helper()
	if s.sequences == "" {
		for _, st := range s.steps {
			d, err := os.ReadFile(filepath.Join("testdata", "payloads", st.file))
			if err != nil {
				t.Fatal(err)
			}
			label := st.file
			if st.arg != "" {
				label += " (EVENT " + st.arg + ")"
			}
			labels, args, data = append(labels, label), append(args, st.arg), append(data, d)
		}
		return labels, args, data
	}
	f, err := os.Open(filepath.Join("testdata", "payloads", s.sequences))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	run, name := "", ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "##### "):
			run, _, _ = strings.Cut(strings.TrimPrefix(line, "##### "), ":")
		case strings.HasPrefix(line, "# "):
			name = strings.TrimPrefix(line, "# ")
		case strings.HasPrefix(line, "{"):
			labels, args, data = append(labels, run+" "+name), append(args, ""), append(data, []byte(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return labels, args, data
}

// fixedNow is the clock of the golden runs.
func fixedNow() time.Time { return time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC) }

// openStore opens a real SQLite store in a fresh baton home.
func openStore(t *testing.T) (api continuity.API, home string) {
	t.Helper()
	home = t.TempDir()
	st, err := sqlstore.Open(context.Background(), filepath.Join(home, "baton.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return continuity.New(st, continuity.WithClock(fixedNow)).For("local"), home
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestGolden runs every script against a real SQLite store in a temporary
// baton home, in-process, and compares what each step printed (stdout, and
// the one stderr line when there is one) and the ledger's receipts with the
// golden file. Every stdout is empty or exactly one JSON object.
func TestGolden(t *testing.T) {
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			ctx := context.Background()
			api, batonHome := openStore(t)
			home := captureDir(t)
			labels, args, payloads := s.payloads(t)
			var b strings.Builder
			keep := map[string]bool{} // the payloads' own ids stay readable
			for i, data := range payloads {
				for _, id := range uuidRE.FindAllString(string(data), -1) {
					keep[id] = true
				}
				var out, errOut bytes.Buffer
				inv := hook.Invocation{Harness: s.harness, Event: args[i], Stdin: bytes.NewReader(rehome(data, home)),
					Stdout: &out, Stderr: &errOut, Dir: filepath.Join(home, "project"), Home: batonHome, Nudge: s.nudge,
					Open: func(context.Context) (continuity.API, error) { return api, nil }, Now: fixedNow}
				inv.Run(ctx)
				checkStdout(t, labels[i], out.Bytes())
				fmt.Fprintf(&b, "=== %s\n", labels[i])
				if out.Len() == 0 {
					b.WriteString("(nothing)\n")
				} else {
					b.Write(out.Bytes())
				}
				if errOut.Len() > 0 {
					fmt.Fprintf(&b, "stderr: %s", errOut.String())
				}
			}
			b.WriteString("=== ledger\n")
			b.WriteString(ledgerSummary(t, api))
			got := b.String()
			for _, p := range []struct{ path, name string }{{batonHome, "<baton-home>"}, {home, "<home>"}} {
				got = strings.ReplaceAll(got, jsonEscaped(p.path), p.name)
				got = strings.ReplaceAll(got, filepath.ToSlash(p.path), p.name)
			}
			got = uuidRE.ReplaceAllStringFunc(got, func(id string) string {
				if keep[id] {
					return id
				}
				return "<run-id>"
			})
			golden(t, filepath.Join("testdata", "golden", s.name+".golden"), got)
		})
	}
}

// checkStdout fails unless out is empty or one JSON object and a newline,
// with no blank reason or context in it.
func checkStdout(t *testing.T, label string, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&v); err != nil || dec.More() || !bytes.HasSuffix(out, []byte("}\n")) {
		t.Errorf("%s: stdout is not one JSON object: %q", label, out)
	}
	if strings.Contains(string(out), `:""`) {
		t.Errorf("%s: stdout carries a blank value: %s", label, out)
	}
}

// ledgerSummary counts the receipts and failures per provider event and
// lists the failures' reasons.
func ledgerSummary(t *testing.T, api continuity.API) string {
	t.Helper()
	es, err := api.Ledger(context.Background(), uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	var lines []string
	for _, e := range es {
		switch e.Event {
		case continuity.EventReceived:
			counts[e.Fields["provider"]+" "+e.Fields["provider_event"]]++
		case continuity.EventFailed:
			lines = append(lines, fmt.Sprintf("failed %s %s: %s\n", e.Fields["provider"], e.Fields["provider_event"], e.Fields["reason"]))
		}
	}
	for k, n := range counts {
		lines = append(lines, fmt.Sprintf("received %s: %d\n", k, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s", path, got)
	}
}
