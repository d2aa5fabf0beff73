package hook_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity"
)

func str(s string) *string { return &s }

// Session ids of the payloads.
const (
	claudeSID   = "c96e6033-0cbe-4890-a588-1160d3853949"
	codexSID    = "01a22a09-db6a-7732-9f59-56d2b83ea053"
	geminiSID   = "f7cf3951-07ce-4e3e-a906-0b9b1f4c13f0"
	synClaude   = "7f3c2a9e-4b1d-4e8a-9c2f-1a6b5d8e0f42"
	synCodex    = "019a2d7a-41c4-78b1-b7cc-a45d62a89cd5"
	copilotSID  = "3c9a6f0e-2b7d-4f1a-8e55-0d4c2b9a7e61"
	pascalSID   = "8d1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b"
	cursorSID   = "cdefee2d-2727-4b73-bf77-d9d830f31d2a"
	projectCwd  = "<home>/project"
	projCwd     = "<home>/proj"
	gemini2Chnk = "FAKE-REPLY #2 (you said: <session_context> This is the Gemini CLI. We are setting up the context for our )"
)

// norm is what a payload normalizes to.
type norm struct {
	file, harness, arg string

	kind                 continuity.HookKind
	event, session, cwd  string
	source               continuity.Source
	prompt, trig, reason string
	last                 *string
	active, provisional  bool
	subagent, transcript bool
	// unhandled: Normalize refuses the event as not baton's.
	unhandled bool
}

// norms covers every payload under testdata/payloads (TestNormalize checks
// that none is left out).
var norms = []norm{
	{file: "claude-code/stdin-SessionStart-startup.json", harness: "claude-code", kind: "start", event: "SessionStart", session: claudeSID, cwd: projectCwd, source: "startup", transcript: true},
	{file: "claude-code/stdin-SessionStart-resume.json", harness: "claude-code", kind: "start", event: "SessionStart", session: claudeSID, cwd: projectCwd, source: "resume", transcript: true},
	{file: "claude-code/stdin-SessionStart-compact.json", harness: "claude-code", kind: "start", event: "SessionStart", session: claudeSID, cwd: projectCwd, source: "compact", transcript: true},
	{file: "claude-code/stdin-UserPromptSubmit.json", harness: "claude-code", kind: "prompt", event: "UserPromptSubmit", session: claudeSID, cwd: projectCwd, transcript: true,
		prompt: "please RUNTOOL now thanks"},
	{file: "claude-code/stdin-Stop.json", harness: "claude-code", kind: "stop", event: "Stop", session: claudeSID, cwd: projectCwd, transcript: true, last: str("Mock reply 2: done.")},
	{file: "claude-code/stdin-Stop-active.json", harness: "claude-code", kind: "stop", event: "Stop", session: claudeSID, cwd: projectCwd, transcript: true, last: str("Mock reply 3: done."), active: true},
	{file: "claude-code/stdin-PreCompact.json", harness: "claude-code", kind: "precompact", event: "PreCompact", session: claudeSID, cwd: projectCwd, transcript: true, trig: "manual"},
	{file: "claude-code/stdin-SessionEnd.json", harness: "claude-code", kind: "end", event: "SessionEnd", session: claudeSID, cwd: projectCwd, transcript: true, reason: "other"},

	{file: "codex/stdin-SessionStart-startup.json", harness: "codex", kind: "start", event: "SessionStart", session: codexSID, cwd: projectCwd, source: "startup", transcript: true},
	{file: "codex/stdin-SessionStart-resume.json", harness: "codex", kind: "start", event: "SessionStart", session: codexSID, cwd: projectCwd, source: "resume", transcript: true},
	{file: "codex/stdin-SessionStart-compact.json", harness: "codex", kind: "start", event: "SessionStart", session: codexSID, cwd: projectCwd, source: "compact", transcript: true},
	{file: "codex/stdin-UserPromptSubmit.json", harness: "codex", kind: "prompt", event: "UserPromptSubmit", session: codexSID, cwd: projectCwd, transcript: true, prompt: "hello RUN_TOOL please"},
	{file: "codex/stdin-Stop.json", harness: "codex", kind: "stop", event: "Stop", session: codexSID, cwd: projectCwd, transcript: true, last: str("FAKE-ANSWER seq 2: done.")},
	{file: "codex/stdin-Stop-stop_hook_active.json", harness: "codex", kind: "stop", event: "Stop", session: codexSID, cwd: projectCwd, transcript: true, last: str("FAKE-ANSWER seq 3: done."), active: true},
	{file: "codex/stdin-PreCompact-auto.json", harness: "codex", kind: "precompact", event: "PreCompact", session: codexSID, cwd: projectCwd, transcript: true, trig: "auto"},
	{file: "codex/stdin-PreCompact-manual.json", harness: "codex", kind: "precompact", event: "PreCompact", session: codexSID, cwd: projectCwd, transcript: true, trig: "manual"},
	{file: "codex/stdin-SessionEnd.json", harness: "codex", kind: "end", event: "SessionEnd", session: codexSID, cwd: projectCwd, transcript: true, reason: "other"},
	{file: "codex/stdin-PreToolUse.json", harness: "codex", unhandled: true},
	{file: "codex/stdin-PostToolUse.json", harness: "codex", unhandled: true},
	{file: "codex/stdin-PostCompact-auto.json", harness: "codex", unhandled: true},
	{file: "codex/stdin-PostCompact-manual.json", harness: "codex", unhandled: true},

	// Gemini: the transcript is handed to the bottle; AfterAgent prefers the
	// transcript's last model message only when the payload's garbled copy
	// contains it.
	{file: "gemini/stdin-SessionStart-startup.json", harness: "gemini", kind: "start", event: "SessionStart", session: geminiSID, cwd: projectCwd, transcript: true, source: "startup"},
	{file: "gemini/stdin-SessionStart-resume.json", harness: "gemini", kind: "start", event: "SessionStart", session: "d966a1ba-c122-4061-a1f4-f23726058424", cwd: projectCwd, transcript: true, source: "resume"},
	{file: "gemini/stdin-SessionStart-resume-headless.json", harness: "gemini", kind: "start", event: "SessionStart", session: geminiSID, cwd: projectCwd, transcript: true, source: "resume"},
	{file: "gemini/stdin-SessionStart-clear.json", harness: "gemini", kind: "start", event: "SessionStart", session: "d966a1ba-c122-4061-a1f4-f23726058424", cwd: projectCwd, transcript: true, source: "clear"},
	{file: "gemini/stdin-BeforeAgent.json", harness: "gemini", kind: "prompt", event: "BeforeAgent", session: "0d12431a-55c2-4f01-bf90-bd140d7062fe", cwd: projectCwd, transcript: true, prompt: "hello interactive"},
	{file: "gemini/stdin-BeforeAgent-headless-injected.json", harness: "gemini", kind: "prompt", event: "BeforeAgent", session: geminiSID, cwd: projectCwd, transcript: true, prompt: "hello"},
	{file: "gemini/stdin-BeforeAgent-continuation.json", harness: "gemini", kind: "prompt", event: "BeforeAgent", session: geminiSID, cwd: projectCwd, transcript: true, prompt: "NUDGE-MARKER"},
	{file: "gemini/stdin-AfterAgent.json", harness: "gemini", kind: "stop", event: "AfterAgent", session: geminiSID, cwd: projectCwd, transcript: true,
		last: str(gemini2Chnk + "  #2 (you said: <session_context> This is the Gemini CLI. We are setting up the context for our )")},
	{file: "gemini/stdin-AfterAgent-stop_hook_active.json", harness: "gemini", kind: "stop", event: "AfterAgent", session: geminiSID, cwd: projectCwd, transcript: true, active: true,
		last: str("FAKE-REPLY #3 (you said: NUDGE-MARKER)")},
	{file: "gemini/stdin-AfterAgent-1-sse-chunk.json", harness: "gemini", kind: "stop", event: "AfterAgent", session: "79ed8846-6341-4e84-b694-acd7b1a1df72", cwd: projectCwd, transcript: true, last: str(gemini2Chnk)},
	{file: "gemini/stdin-AfterAgent-4-sse-chunks.json", harness: "gemini", kind: "stop", event: "AfterAgent", session: "92f093d4-4417-4b90-b230-159a302c70db", cwd: projectCwd, transcript: true,
		last: str("FAKE-REPLY #4 (you said: <session_context> This is the Gemini CLI. We are setting up the context for our ) session_context> This is th e Gemini CLI. We are setti ng up the context for our )")},
	{file: "gemini/stdin-AfterAgent-interactive.json", harness: "gemini", kind: "stop", event: "AfterAgent", session: "d966a1ba-c122-4061-a1f4-f23726058424", cwd: projectCwd, transcript: true,
		last: str("FAKE-REPLY #19 (you said: resumed interactive)  #19 (you said: resumed interactive)")},
	{file: "gemini/stdin-PreCompress-auto.json", harness: "gemini", kind: "precompact", event: "PreCompress", session: geminiSID, cwd: projectCwd, transcript: true, trig: "auto", provisional: true},
	{file: "gemini/stdin-PreCompress-manual.json", harness: "gemini", kind: "precompact", event: "PreCompress", session: "0d12431a-55c2-4f01-bf90-bd140d7062fe", cwd: projectCwd, transcript: true, trig: "manual"},
	{file: "gemini/stdin-SessionEnd-exit.json", harness: "gemini", kind: "end", event: "SessionEnd", session: geminiSID, cwd: projectCwd, transcript: true, reason: "exit"},
	{file: "gemini/stdin-SessionEnd-clear.json", harness: "gemini", kind: "end", event: "SessionEnd", session: "0d12431a-55c2-4f01-bf90-bd140d7062fe", cwd: projectCwd, transcript: true, reason: "clear"},

	{file: "synthetic/claude-sessionstart-startup.json", harness: "claude-code", kind: "start", event: "SessionStart", session: synClaude, cwd: projCwd, source: "startup", transcript: true},
	{file: "synthetic/claude-sessionstart-compact.json", harness: "claude-code", kind: "start", event: "SessionStart", session: synClaude, cwd: projCwd, source: "compact", transcript: true},
	{file: "synthetic/claude-stop.json", harness: "claude-code", kind: "stop", event: "Stop", session: synClaude, cwd: projCwd, transcript: true,
		last: str("All 12 tests pass. I updated parser.go to skip torn trailing lines.")},
	{file: "synthetic/claude-subagentstop.json", harness: "claude-code", kind: "stop", event: "SubagentStop", session: synClaude, cwd: projCwd, transcript: true, subagent: true,
		last: str("Found 3 call sites of ParseLine in internal/transcript.")},
	{file: "synthetic/claude-precompact-auto.json", harness: "claude-code", kind: "precompact", event: "PreCompact", session: synClaude, cwd: projCwd, transcript: true, trig: "auto"},
	{file: "synthetic/claude-sessionend.json", harness: "claude-code", kind: "end", event: "SessionEnd", session: synClaude, cwd: projCwd, transcript: true, reason: "prompt_input_exit"},
	{file: "synthetic/codex-sessionstart.json", harness: "codex", kind: "start", event: "SessionStart", session: synCodex, cwd: projCwd, source: "startup", transcript: true},
	{file: "synthetic/codex-stop.json", harness: "codex", kind: "stop", event: "Stop", session: synCodex, cwd: projCwd, transcript: true,
		last: str("Implemented the heartbeat writer and added a unit test.")},
	{file: "synthetic/codex-precompact.json", harness: "codex", kind: "precompact", event: "PreCompact", session: synCodex, cwd: projCwd, transcript: true, trig: "auto"},
	{file: "synthetic/gemini-sessionstart.json", harness: "gemini", transcript: true, kind: "start", event: "SessionStart", session: "5d0c7a3e-91f2-4c6b-8a1e-2f7b9c4d6e10", cwd: projCwd, source: "resume"},
	{file: "synthetic/gemini-afteragent.json", harness: "gemini", transcript: true, kind: "stop", event: "AfterAgent", session: "5d0c7a3e-91f2-4c6b-8a1e-2f7b9c4d6e10", cwd: projCwd,
		last: str("Done. I added heartbeat.go and a test; go test ./... passes.")},
	// Copilot's camelCase payloads name no event: the EVENT argument does,
	// as a kind or as Copilot's own name.
	{file: "synthetic/copilot-agentstop.json", harness: "copilot", arg: "stop", kind: "stop", event: "agentStop", session: copilotSID, cwd: projCwd},
	{file: "written/copilot-sessionStart.json", harness: "copilot", arg: "start", kind: "start", event: "sessionStart", session: copilotSID, cwd: projCwd, source: "startup"},
	{file: "written/copilot-userPromptSubmitted.json", harness: "copilot", arg: "userPromptSubmitted", kind: "prompt", event: "userPromptSubmitted", session: copilotSID, cwd: projCwd, prompt: "Fix the flaky lease test."},
	{file: "written/copilot-subagentStop.json", harness: "copilot", arg: "stop", kind: "stop", event: "agentStop", session: copilotSID, cwd: projCwd, subagent: true},
	{file: "written/copilot-preCompact.json", harness: "copilot", arg: "precompact", kind: "precompact", event: "preCompact", session: copilotSID, cwd: projCwd, trig: "auto"},
	{file: "written/copilot-sessionEnd.json", harness: "copilot", arg: "end", kind: "end", event: "sessionEnd", session: copilotSID, cwd: projCwd, reason: "user_exit"},
	// Its PascalCase payloads name their event; the argument loses.
	{file: "written/copilot-pascal-SessionStart.json", harness: "copilot", arg: "stop", kind: "start", event: "SessionStart", session: pascalSID, cwd: projCwd, source: "startup"},
	{file: "written/copilot-pascal-UserPromptSubmit.json", harness: "copilot", kind: "prompt", event: "UserPromptSubmit", session: pascalSID, cwd: projCwd, prompt: "Split the bottle package."},
	{file: "written/copilot-pascal-Stop.json", harness: "copilot", kind: "stop", event: "Stop", session: pascalSID, cwd: projCwd},
	{file: "written/copilot-pascal-PreCompact.json", harness: "copilot", kind: "precompact", event: "PreCompact", session: pascalSID, cwd: projCwd, trig: "manual"},
	{file: "written/copilot-pascal-SessionEnd.json", harness: "copilot", kind: "end", event: "SessionEnd", session: pascalSID, cwd: projCwd, reason: "complete"},
	// Cursor: conversation_id, the first workspace root, loop_count.
	{file: "synthetic/cursor-sessionstart.json", harness: "cursor", kind: "start", event: "sessionStart", session: cursorSID, cwd: projCwd, source: "startup"},
	{file: "synthetic/cursor-stop.json", harness: "cursor", kind: "stop", event: "stop", session: cursorSID, cwd: projCwd},
	{file: "written/cursor-stop-loop1.json", harness: "cursor", kind: "stop", event: "stop", session: cursorSID, cwd: projCwd, active: true},
	{file: "written/cursor-subagentStop.json", harness: "cursor", kind: "stop", event: "subagentStop", session: cursorSID, cwd: projCwd, subagent: true},
	{file: "written/cursor-beforeSubmitPrompt.json", harness: "cursor", kind: "prompt", event: "beforeSubmitPrompt", session: cursorSID, cwd: projCwd, prompt: "Add a heartbeat test."},
	{file: "written/cursor-preCompact.json", harness: "cursor", kind: "precompact", event: "preCompact", session: cursorSID, cwd: projCwd, trig: "auto"},
	{file: "written/cursor-sessionEnd.json", harness: "cursor", kind: "end", event: "sessionEnd", session: cursorSID, cwd: projCwd, reason: "user_close"},
}

// TestNormalize normalizes every payload, in a capture home that holds the
// captured transcripts at their paths.
func TestNormalize(t *testing.T) {
	home := captureDir(t)
	covered := map[string]bool{}
	for _, n := range norms {
		covered[n.file] = true
		t.Run(n.file, func(t *testing.T) {
			h, err := hook.Lookup(n.harness)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join("testdata", "payloads", filepath.FromSlash(n.file)))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := hook.Normalize(h, n.arg, rehome(data, home), "/fallback")
			if n.unhandled {
				if !errors.Is(err, hook.ErrUnhandled) {
					t.Fatalf("err = %v, want ErrUnhandled", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := n.want(h.Name, filepath.ToSlash(home))
			got := ev.HookEvent
			if (got.LastMessage == nil) != (want.LastMessage == nil) || got.LastMessage != nil && *got.LastMessage != *want.LastMessage {
				t.Errorf("last message = %v, want %v", deref(got.LastMessage), deref(want.LastMessage))
			}
			if (got.TranscriptPath != "") != n.transcript || got.TranscriptPath != "" && !strings.HasPrefix(got.TranscriptPath, filepath.ToSlash(home)) {
				t.Errorf("transcript path = %q, want one under the capture home: %v", got.TranscriptPath, n.transcript)
			}
			got.LastMessage, want.LastMessage, got.TranscriptPath = nil, nil, ""
			if got != want || ev.Subagent != n.subagent {
				t.Errorf("normalized\n%+v subagent %v\nwant\n%+v subagent %v", got, ev.Subagent, want, n.subagent)
			}
		})
	}
	err := filepath.WalkDir(filepath.Join("testdata", "payloads"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "payloads"), path)
		if !covered[filepath.ToSlash(rel)] {
			t.Errorf("payload %s has no normalization case", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (n norm) want(provider, home string) continuity.HookEvent {
	return continuity.HookEvent{Provider: provider, ProviderEvent: n.event, Kind: n.kind, SessionID: n.session,
		Cwd: strings.ReplaceAll(n.cwd, "<home>", home), Source: n.source, Prompt: n.prompt, LastMessage: n.last,
		StopHookActive: n.active, Trigger: n.trig, Reason: n.reason, Provisional: n.provisional}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestNormalizeFitsText: a prompt or last assistant message carrying NUL
// (JSON's \u0000) or invalid UTF-8 (from a transcript, or raw in the
// payload) is normalized with U+FFFD in each such place, so the store,
// which refuses both, takes the Stop's heartbeat and the prompt; clean
// text passes unchanged.
func TestNormalizeFitsText(t *testing.T) {
	h, err := hook.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, event, key, raw, want string
	}{
		{"a NUL in the last message", "Stop", "last_assistant_message", `"done\u0000here"`, "done\uFFFDhere"},
		{"only NULs", "Stop", "last_assistant_message", `"\u0000\u0000"`, "\uFFFD\uFFFD"},
		{"invalid UTF-8 in the last message", "Stop", "last_assistant_message", "\"done\xffhere\"", "done\uFFFDhere"},
		{"clean text", "Stop", "last_assistant_message", `"all tests pass ✓"`, "all tests pass ✓"},
		{"a NUL in the prompt", "UserPromptSubmit", "prompt", `"fix\u0000it"`, "fix\uFFFDit"},
		{"invalid UTF-8 in the prompt", "UserPromptSubmit", "prompt", "\"fix\xc3it\"", "fix\uFFFDit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload := `{"session_id":"s1","cwd":"/w","hook_event_name":"` + tc.event + `","` + tc.key + `":` + tc.raw + `}`
			ev, err := hook.Normalize(h, "", []byte(payload), "/fallback")
			if err != nil {
				t.Fatal(err)
			}
			got := ev.Prompt
			if tc.event == "Stop" {
				got = deref(ev.LastMessage)
			}
			if got != tc.want {
				t.Errorf("%s = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

// TestNormalizeTrimsTheSessionID: a session id with white space around it
// is the id without it, as the service reads it, so the bottle's files and
// the store's rows name one conversation; an id that is still no id after
// trimming is refused.
func TestNormalizeTrimsTheSessionID(t *testing.T) {
	h, err := hook.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, id, want string
		ok             bool
	}{
		{"a trailing space", "s1 ", "s1", true},
		{"a leading tab", "\tabc", "abc", true},
		{"a trailing no-break space", "abc\u00a0", "abc", true},
		{"a trailing newline", "abc\n", "abc", true},
		{"a slash inside", " a/b ", "", false},
	}
	for _, tc := range cases {
		payload, _ := json.Marshal(map[string]any{"session_id": tc.id, "hook_event_name": "Stop", "cwd": "/p", "stop_hook_active": false})
		ev, err := hook.Normalize(h, "", payload, "/p")
		switch {
		case tc.ok && (err != nil || ev.SessionID != tc.want):
			t.Errorf("%s: session id %q, %v; want %q", tc.name, ev.SessionID, err, tc.want)
		case !tc.ok && err == nil:
			t.Errorf("%s: taken as %q, want it refused", tc.name, ev.SessionID)
		}
	}
}

// TestNormalizeScrubsLabels: a PreCompact's trigger and a SessionEnd's
// reason are stored in records, so they pass the privacy filter first.
func TestNormalizeScrubsLabels(t *testing.T) {
	h, err := hook.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, event, key, value, want string
	}{
		{"a trigger with a private block", "PreCompact", "trigger", "auto <private>SECRET</private>", "auto"},
		{"a reason with an unclosed block", "SessionEnd", "reason", "logout <private>SECRET", "logout"},
		{"a reason nested", "SessionEnd", "reason", "a <private>x <private>y</private> SECRET</private> b", "a b"},
		{"a plain trigger", "PreCompact", "trigger", "manual", "manual"},
	}
	for _, tc := range cases {
		payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": tc.event, "cwd": "/p", tc.key: tc.value})
		ev, err := hook.Normalize(h, "", payload, "/p")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := ev.Trigger + ev.Reason; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestNormalizePayloadEventNames: a payload's event key names the event in
// its harness's own vocabulary. A kind (start, prompt, stop, precompact,
// end) is for the EVENT argument only, and a name of another harness's (or
// of the other dialect's) is a payload meant for another --harness: both
// are invalid naming the key, and the EVENT argument, when given, still
// names the event, so that its receipt and failure are written. A name no
// harness of the table uses stays unhandled.
func TestNormalizePayloadEventNames(t *testing.T) {
	cases := []struct {
		harness, name, arg string
		// event is the event normalized ("" when none is known); bad says
		// the event key is refused; unhandled, that the event is not baton's.
		event          string
		bad, unhandled bool
	}{
		{harness: "claude-code", name: "SessionStart", event: "SessionStart"},
		{harness: "claude-code", name: "SubagentStop", event: "SubagentStop"},
		{harness: "gemini", name: "BeforeAgent", event: "BeforeAgent"},
		{harness: "gemini", name: "AfterAgent", event: "AfterAgent"},
		{harness: "gemini", name: "PreCompress", arg: "stop", event: "PreCompress"},
		{harness: "cursor", name: "stop", event: "stop"},
		{harness: "copilot", name: "Stop", event: "Stop"},

		{harness: "claude-code", name: "stop", bad: true},
		{harness: "claude-code", name: "stop", arg: "stop", event: "Stop", bad: true},
		{harness: "claude-code", name: "start", arg: "SessionStart", event: "SessionStart", bad: true},
		{harness: "codex", name: "prompt", arg: "prompt", event: "UserPromptSubmit", bad: true},
		{harness: "codex", name: "precompact", bad: true},
		{harness: "gemini", name: "end", arg: "end", event: "SessionEnd", bad: true},
		{harness: "gemini", name: "Stop", arg: "stop", event: "AfterAgent", bad: true},
		{harness: "gemini", name: "PreCompact", bad: true},
		{harness: "gemini", name: "UserPromptSubmit", arg: "prompt", event: "BeforeAgent", bad: true},
		{harness: "claude-code", name: "BeforeAgent", bad: true},
		{harness: "claude-code", name: "sessionStart", arg: "start", event: "SessionStart", bad: true},
		{harness: "cursor", name: "Stop", arg: "stop", event: "stop", bad: true},
		{harness: "copilot", name: "agentStop", bad: true},
		{harness: "copilot", name: "stop", arg: "stop", event: "Stop", bad: true},

		{harness: "codex", name: "PreToolUse", arg: "stop", unhandled: true},
		{harness: "claude-code", name: "STOP", unhandled: true},
	}
	for _, tc := range cases {
		t.Run(tc.harness+" "+tc.name+" "+tc.arg, func(t *testing.T) {
			h, err := hook.Lookup(tc.harness)
			if err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": tc.name, "cwd": "/p"})
			ev, err := hook.Normalize(h, tc.arg, payload, "/p")
			if ev.ProviderEvent != tc.event {
				t.Errorf("event = %q, want %q", ev.ProviderEvent, tc.event)
			}
			if errors.Is(err, hook.ErrUnhandled) != tc.unhandled {
				t.Fatalf("err = %v, want unhandled %v", err, tc.unhandled)
			}
			why, refused := continuity.ErrorFields(err)["hook_event_name"]
			switch {
			case tc.unhandled:
			case !tc.bad && err != nil:
				t.Errorf("err = %v, want none", err)
			case tc.bad && (!refused || continuity.ErrorCode(err) != continuity.CodeInvalid):
				t.Errorf("err = %v, want the event key refused", err)
			case tc.bad && !strings.Contains(why, strconv.Quote(tc.name)):
				t.Errorf("the refusal %q does not name the value", why)
			case tc.event != "" && ev.SessionID != "s1":
				t.Errorf("session id = %q: the rest of the payload is still read for the receipt", ev.SessionID)
			}
		})
	}
}

// TestNormalizeRefusesArraysForStrings: a key of a string field holding an
// array (of strings or not), an object, a number or a boolean is invalid
// naming that key; null is absent. Cursor's workspace_roots alone is an
// array of strings, its first root the working directory, and it must be
// one.
func TestNormalizeRefusesArraysForStrings(t *testing.T) {
	cases := []struct {
		name, harness, arg, payload string
		// bad is the key refused, with its reason; "" wants none.
		bad, why string
		// cwd is the working directory normalized when nothing is refused.
		cwd string
	}{
		{"session_id an array", "claude-code", "", `{"hook_event_name":"Stop","session_id":["a"],"cwd":"/p"}`, "session_id", "must be a string", ""},
		{"cwd an array", "claude-code", "", `{"hook_event_name":"Stop","session_id":"s1","cwd":["/x"]}`, "cwd", "must be a string", ""},
		{"cwd an empty array", "codex", "", `{"hook_event_name":"Stop","session_id":"s1","cwd":[]}`, "cwd", "must be a string", ""},
		{"the event name an array", "claude-code", "stop", `{"hook_event_name":["Stop"],"session_id":"s1","cwd":"/p"}`, "hook_event_name", "must be a string", ""},
		{"the prompt an array", "gemini", "", `{"hook_event_name":"BeforeAgent","session_id":"s1","prompt":["p"]}`, "prompt", "must be a string", ""},
		{"the last message an array", "codex", "", `{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":["m"]}`, "last_assistant_message", "must be a string", ""},
		{"the transcript path an array", "claude-code", "", `{"hook_event_name":"Stop","session_id":"s1","transcript_path":["/t"]}`, "transcript_path", "must be a string", ""},
		{"the source an array", "claude-code", "", `{"hook_event_name":"SessionStart","session_id":"s1","source":["resume"]}`, "source", "must be a string", ""},
		{"the trigger an array", "codex", "", `{"hook_event_name":"PreCompact","session_id":"s1","trigger":["auto"]}`, "trigger", "must be a string", ""},
		{"the reason an array of numbers", "claude-code", "", `{"hook_event_name":"SessionEnd","session_id":"s1","reason":[1]}`, "reason", "must be a string", ""},
		{"Copilot's sessionId an array", "copilot", "stop", `{"sessionId":["a"],"cwd":"/p"}`, "sessionId", "must be a string", ""},
		{"Cursor's conversation_id an object", "cursor", "", `{"hook_event_name":"stop","conversation_id":{"a":1}}`, "conversation_id", "must be a string", ""},
		{"Cursor's cwd an array", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","cwd":["/x"]}`, "cwd", "must be a string", ""},
		{"a null session id is absent", "claude-code", "", `{"hook_event_name":"Stop","session_id":"s1","cwd":null,"transcript_path":null}`, "", "", "/fallback"},

		{"Cursor's workspace roots", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":["/r1","/r2"]}`, "", "", "/r1"},
		{"Cursor's cwd before its roots", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","cwd":"/c","workspace_roots":["/r1"]}`, "", "", "/c"},
		{"Cursor's empty workspace roots", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":[]}`, "", "", "/fallback"},
		{"Cursor's workspace roots not strings", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":[1]}`, "workspace_roots", "must be an array of strings", ""},
		{"Cursor's workspace roots a string", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":"/r1"}`, "workspace_roots", "must be an array of strings", ""},
		{"Cursor's workspace roots an object", "cursor", "", `{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":{"a":"/r"}}`, "workspace_roots", "must be an array of strings", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := hook.Lookup(tc.harness)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := hook.Normalize(h, tc.arg, []byte(tc.payload), "/fallback")
			switch got := continuity.ErrorFields(err); {
			case tc.bad == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tc.bad != "" && (len(got) != 1 || got[tc.bad] != tc.why):
				t.Fatalf("err = %v, want only %s: %s", err, tc.bad, tc.why)
			case tc.bad == "" && ev.Cwd != tc.cwd:
				t.Errorf("cwd = %q, want %q", ev.Cwd, tc.cwd)
			}
		})
	}
}

// TestNormalizeStringKeysOfTheTable: every key the table names for a
// string field, in every dialect, is refused naming it when it holds an
// array of strings, in an event of the kind that reads it.
func TestNormalizeStringKeysOfTheTable(t *testing.T) {
	for _, h := range hook.Harnesses() {
		for _, d := range h.Dialects {
			f := d.Fields
			fields := []struct {
				keys []string
				kind continuity.HookKind
			}{
				{f.Event, continuity.HookStart}, {f.SessionID, continuity.HookStart}, {f.TranscriptPath, continuity.HookStop},
				{f.Cwd, continuity.HookStart}, {f.Source, continuity.HookStart}, {f.LastMessage, continuity.HookStop},
				{f.Prompt, continuity.HookPrompt}, {f.Trigger, continuity.HookPreCompact}, {f.Reason, continuity.HookEnd},
			}
			for _, field := range fields {
				i := slices.IndexFunc(d.Events, func(e hook.EventName) bool { return e.Kind == field.kind && !e.Subagent })
				for _, key := range field.keys {
					p := map[string]any{}
					if d.Detect != "" {
						p[d.Detect] = "s1"
					}
					for _, k := range f.Event {
						p[k] = d.Events[i].Name
					}
					if !slices.Contains(f.SessionID, key) {
						// Else the first session id key, present, would win.
						p[f.SessionID[0]] = "s1"
					}
					p[key] = []string{"x"}
					payload, _ := json.Marshal(p)
					_, err := hook.Normalize(&h, string(field.kind), payload, "/p")
					if got := continuity.ErrorFields(err)[key]; got != "must be a string" {
						t.Errorf("%s %s: %s as an array: err = %v, want it refused", h.Name, d.Events[i].Name, key, err)
					}
				}
			}
		}
	}
}

// TestNormalizeLoopCount: Cursor's loop_count is read from its JSON number
// text as strconv.ParseFloat reads it, so no JSON number is refused for its
// spelling. Above zero (a fraction, an exponent, 3.0) the Stop is one a
// stop hook caused, and is never continued; zero (-0, or a value that
// rounds to it) or none is a person's turn. A negative count or one past
// float64's range (ParseFloat's ±Inf) counts nothing: invalid naming
// loop_count, so the failure posture records it and prints nothing. A
// value that is no JSON number is invalid as a type.
func TestNormalizeLoopCount(t *testing.T) {
	const count, number = "must be a finite count of zero or more", "must be a number"
	cases := []struct {
		raw    string
		active bool
		// why is loop_count's refusal; "" wants none.
		why string
	}{
		{raw: "", active: false},
		{raw: "null", active: false},
		{raw: "0", active: false},
		{raw: "-0", active: false},
		{raw: "0.0", active: false},
		{raw: "1e-400", active: false},
		{raw: "-1e-400", active: false},
		{raw: "1", active: true},
		{raw: "3.0", active: true},
		{raw: "0.5", active: true},
		{raw: "5e-324", active: true},
		{raw: "1E2", active: true},
		{raw: "1e300", active: true},
		{raw: "1e400", why: count},
		{raw: "-1e400", why: count},
		{raw: "-1", why: count},
		{raw: "-0.5", why: count},
		{raw: `"1"`, why: number},
		{raw: "true", why: number},
		{raw: "[1]", why: number},
		{raw: "{}", why: number},
	}
	h, err := hook.Lookup("cursor")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		payload := `{"hook_event_name":"stop","conversation_id":"c1"`
		if tc.raw != "" {
			payload += `,"loop_count":` + tc.raw
		}
		ev, err := hook.Normalize(h, "", []byte(payload+"}"), "/p")
		switch got := continuity.ErrorFields(err); {
		case tc.why == "" && err != nil:
			t.Errorf("loop_count %s: err = %v, want none", tc.raw, err)
		case tc.why != "" && (len(got) != 1 || got["loop_count"] != tc.why):
			t.Errorf("loop_count %s: err = %v, want only loop_count: %s", tc.raw, err, tc.why)
		case tc.why == "" && ev.StopHookActive != tc.active:
			t.Errorf("loop_count %s: a stop hook's follow-up = %v, want %v", tc.raw, ev.StopHookActive, tc.active)
		}
	}
}

// TestNormalizeMissingSessionID: a payload without its session id (no key,
// null, empty, only space) is invalid naming the key that harness's
// dialect carries it in, the one its people read in their payloads, not
// baton's own sessionId.
func TestNormalizeMissingSessionID(t *testing.T) {
	cases := []struct {
		harness, arg, payload, key string
	}{
		{"claude-code", "", `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, "session_id"},
		{"claude-code", "", `{"hook_event_name":"Stop","session_id":null}`, "session_id"},
		{"claude-code", "", `{"hook_event_name":"SessionEnd","session_id":""}`, "session_id"},
		{"codex", "", `{"hook_event_name":"SessionStart","session_id":"  "}`, "session_id"},
		{"gemini", "", `{"hook_event_name":"AfterAgent","prompt_response":"done"}`, "session_id"},
		{"copilot", "stop", `{"cwd":"/p"}`, "sessionId"},
		{"copilot", "stop", `{"sessionId":"","cwd":"/p"}`, "sessionId"},
		{"copilot", "", `{"hook_event_name":"Stop","cwd":"/p"}`, "session_id"},
		{"cursor", "", `{"hook_event_name":"stop","workspace_roots":["/p"]}`, "conversation_id"},
		{"cursor", "", `{"hook_event_name":"preCompact","conversation_id":" "}`, "conversation_id"},
	}
	for _, tc := range cases {
		h, err := hook.Lookup(tc.harness)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := hook.Normalize(h, tc.arg, []byte(tc.payload), "/p")
		if got := continuity.ErrorFields(err); len(got) != 1 || got[tc.key] != "is required" || continuity.ErrorCode(err) != continuity.CodeInvalid {
			t.Errorf("%s %s: err = %v, want only %s: is required", tc.harness, tc.payload, err, tc.key)
		}
		if ev.ProviderEvent == "" {
			t.Errorf("%s %s: no event: the failure could not be recorded", tc.harness, tc.payload)
		}
	}
}

// TestNormalizeScrubsThePromptFirst: a prompt loses its private blocks
// before the blocks its harness prefixed to it, so a private block that
// straddles the end of a prefixed block keeps all it holds from the
// prompt the store records.
// TestNormalizeScrubsTheLastMessage: a Stop's last assistant message
// leaves the hook privacy filtered, so no private block of it crosses the
// network to a team server.
func TestNormalizeScrubsTheLastMessage(t *testing.T) {
	cases := []struct{ harness, event, key, message, want string }{
		{"claude-code", "Stop", "last_assistant_message", "Done. <private>SECRET</private> Next: ship.", "Done. Next: ship."},
		{"codex", "Stop", "last_assistant_message", "Done <private>SECRET", "Done"},
		{"gemini", "AfterAgent", "prompt_response", "<PRIVATE>SECRET</Private>Done.", "Done."},
		{"claude-code", "Stop", "last_assistant_message", "no private text", "no private text"},
	}
	for _, tc := range cases {
		t.Run(tc.harness+"/"+tc.message, func(t *testing.T) {
			h, err := hook.Lookup(tc.harness)
			if err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": tc.event, "cwd": "/p", tc.key: tc.message})
			ev, err := hook.Normalize(h, "", payload, "/p")
			if err != nil {
				t.Fatal(err)
			}
			if ev.LastMessage == nil {
				t.Fatalf("no last message, want %q", tc.want)
			}
			if *ev.LastMessage != tc.want {
				t.Errorf("last message = %q, want %q", *ev.LastMessage, tc.want)
			}
		})
	}
}

func TestNormalizeScrubsThePromptFirst(t *testing.T) {
	cases := []struct{ name, harness, event, prompt, want string }{
		// The prefix's end is inside the private block: what is left of
		// the prefix is never closed, and stays, as stripTags leaves one.
		{"a private block straddling the prefix's end", "gemini", "BeforeAgent",
			"<hook_context>briefing <private>SECRET1</hook_context> SECRET2</private> fix it", "<hook_context>briefing fix it"},
		{"an unclosed private block in the prefix", "gemini", "BeforeAgent",
			"<hook_context>briefing <private>SECRET</hook_context> SECRET", "<hook_context>briefing"},
		{"a private block before the prefix", "gemini", "BeforeAgent",
			"<private>SECRET</private><hook_context>briefing</hook_context>\nfix it", "fix it"},
		{"a prefix and a private block after it", "gemini", "BeforeAgent",
			"<hook_context>briefing</hook_context>\nfix <private>SECRET</private> it", "fix it"},
		{"no prefix", "claude-code", "UserPromptSubmit",
			"fix <private>SECRET</hook_context> SECRET</private> it", "fix it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := hook.Lookup(tc.harness)
			if err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": tc.event, "cwd": "/p", "prompt": tc.prompt})
			ev, err := hook.Normalize(h, "", payload, "/p")
			if err != nil {
				t.Fatal(err)
			}
			if ev.Prompt != tc.want {
				t.Errorf("prompt = %q, want %q", ev.Prompt, tc.want)
			}
		})
	}
}

// TestUnhandledQuotesTheName: an event baton does not handle is named as
// given, on one line and bounded, a cut marked: the EVENT argument "a\nb"
// used to be shown as "a", and a long one cut without a sign.
func TestUnhandledQuotesTheName(t *testing.T) {
	h, err := hook.Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, arg, payloadEvent, says string }{
		{"an argument of two lines", "a\nb", "", `claude-code "a\nb": not an event`},
		{"a payload's event with a carriage return", "", "x\ry", `claude-code "x\ry": not an event`},
		{"a long argument", strings.Repeat("a", 100<<10), "", `claude-code "` + strings.Repeat("a", 63) + `…": not an event`},
		{"an argument not UTF-8", "st\xffart", "", `claude-code "st\xffart": not an event`},
	} {
		payload, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": tc.payloadEvent})
		_, err := hook.Normalize(h, tc.arg, payload, "/p")
		if !errors.Is(err, hook.ErrUnhandled) || err.Error() != tc.says+" baton handles" {
			t.Errorf("%s: err = %q, want %q", tc.name, err, tc.says+" baton handles")
		}
	}
}
