package hook_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

// failingAPI answers every episode call as a store that cannot be written
// (a database locked past its busy timeout, a full disk) answers it.
type failingAPI struct{ continuity.API }

var errStore = &continuity.Error{Code: continuity.CodeInternal, Message: "the store could not be written"}

func (failingAPI) SessionStart(context.Context, continuity.StartParams) (continuity.StartResult, error) {
	return continuity.StartResult{}, errStore
}
func (failingAPI) UserPrompt(context.Context, continuity.PromptParams) (continuity.PromptEventResult, error) {
	return continuity.PromptEventResult{}, errStore
}
func (failingAPI) Stop(context.Context, continuity.StopParams) (continuity.StopResult, error) {
	return continuity.StopResult{}, errStore
}
func (failingAPI) PreCompact(context.Context, continuity.PreCompactParams) (continuity.PreCompactResult, error) {
	return continuity.PreCompactResult{}, errStore
}
func (failingAPI) SessionEnd(context.Context, continuity.EndParams) (continuity.EndResult, error) {
	return continuity.EndResult{}, errStore
}
func (failingAPI) AppendReceipt(context.Context, continuity.ReceiptParams) (uuid.UUID, error) {
	return uuid.Nil, errStore
}

// opener opens the SQLite store of a baton home as the baton command does,
// and closes it when the test ends.
func opener(t *testing.T, home string) func(context.Context) (continuity.API, error) {
	return func(ctx context.Context) (continuity.API, error) {
		st, err := sqlstore.Open(ctx, filepath.Join(home, "baton.db"))
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { st.Close() })
		return continuity.New(st).For("local"), nil
	}
}

// never is an opener for the cases that must not touch a store.
func never(t *testing.T) func(context.Context) (continuity.API, error) {
	return func(context.Context) (continuity.API, error) {
		t.Error("the store was opened")
		return nil, errors.New("never")
	}
}

const startupJSON = `{"session_id":"s1","transcript_path":"","cwd":"%CWD%","hook_event_name":"SessionStart","source":"startup"}`

// TestFailurePosture: whatever goes wrong, the hook prints nothing or one
// whole envelope on stdout and one line on stderr naming what failed, and
// leaves a receipt and its failure where the store is reachable.
func TestFailurePosture(t *testing.T) {
	cwd := t.TempDir()
	startup := strings.ReplaceAll(startupJSON, "%CWD%", filepath.ToSlash(cwd))
	linked := t.TempDir()
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: /src/repo/.git/worktrees/wt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "baton.db"), bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	fileHome := filepath.Join(t.TempDir(), "home-is-a-file")
	if err := os.WriteFile(fileHome, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := io.MultiReader(strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"`),
		strings.NewReader(strings.Repeat("a", 8<<20)), strings.NewReader(`"}`))

	cases := []struct {
		name, harness, event string
		stdin                io.Reader
		role                 string
		open                 func(t *testing.T, home string) func(context.Context) (continuity.API, error)
		// stderr is what the one stderr line says; "" wants none.
		stderr string
		// ledger is the receipts and failures left: "received EVENT" and
		// "failed EVENT: reason" lines, sorted.
		ledger string
	}{
		{name: "a store that cannot be written", harness: "codex", stdin: strings.NewReader(startup),
			open: func(*testing.T, string) func(context.Context) (continuity.API, error) {
				return func(context.Context) (continuity.API, error) { return failingAPI{}, nil }
			},
			stderr: "codex SessionStart: internal: the store could not be written"},
		{name: "a corrupt database file", harness: "claude-code", stdin: strings.NewReader(startup),
			open:   func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return opener(t, corrupt) },
			stderr: "claude-code SessionStart: open the store: "},
		{name: "an unwritable baton home", harness: "gemini", stdin: strings.NewReader(startup),
			open:   func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return opener(t, fileHome) },
			stderr: "gemini SessionStart: open the store: "},
		{name: "malformed stdin", harness: "claude-code", event: "stop", stdin: strings.NewReader(`{"session_id": "s1", "hook_event_na`),
			stderr: "claude-code Stop: invalid: invalid input (stdin: must be one JSON object)",
			ledger: "failed claude-code Stop: local: stdin: invalid: invalid input (stdin: must be one JSON object)\nreceived claude-code Stop\n"},
		{name: "malformed stdin naming no event", harness: "claude-code", stdin: strings.NewReader(`[1, 2]`),
			stderr: "claude-code: invalid: invalid input (stdin: must be one JSON object)"},
		{name: "empty stdin", harness: "codex", event: "end", stdin: strings.NewReader(""),
			stderr: "codex SessionEnd: invalid: invalid input (stdin: must be one JSON object)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (stdin: must be one JSON object)\nreceived codex SessionEnd\n"},
		{name: "stdin over 8 MiB", harness: "claude-code", event: "stop", stdin: huge,
			stderr: "claude-code Stop: too_large: stdin is larger than 8388608 bytes",
			ledger: "failed claude-code Stop: local: stdin: too_large: stdin is larger than 8388608 bytes\nreceived claude-code Stop\n"},
		{name: "a key of the wrong type", harness: "codex", stdin: strings.NewReader(`{"session_id":42,"hook_event_name":"Stop","stop_hook_active":"yes"}`),
			stderr: "codex Stop: invalid: invalid input (session_id: must be a string; stop_hook_active: must be a boolean)",
			ledger: "failed codex Stop: local: stdin: invalid: invalid input (session_id: must be a string; stop_hook_active: must be a boolean)\nreceived codex Stop\n"},
		{name: "a missing session id", harness: "claude-code", stdin: strings.NewReader(`{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`),
			stderr: "claude-code UserPromptSubmit: invalid: invalid input (sessionId: is required)",
			ledger: "failed claude-code UserPromptSubmit: invalid: invalid input\nreceived claude-code UserPromptSubmit\n"},
		{name: "a missing transcript", harness: "claude-code", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/nonexistent/t.jsonl","last_assistant_message":"done"}`),
			stderr: "claude-code Stop: transcript not readable, the bottle is rebuilt from history; claude-code Stop: not_found",
			ledger: "failed claude-code Stop: not_found: session not found\nreceived claude-code Stop\n"},
		{name: "an unknown harness", harness: "vim", stdin: strings.NewReader(startup), open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) },
			stderr: "invalid: invalid input (harness: must be one of claude-code, codex, gemini, copilot, cursor)"},
		{name: "an event baton does not handle", harness: "codex", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"PreToolUse"}`),
			open:   func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) },
			stderr: `codex "PreToolUse": not an event baton handles`},
		{name: "a subagent role", harness: "claude-code", role: hook.RoleSubagent, stdin: strings.NewReader(startup),
			open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) }},
		{name: "a subagent's stop", harness: "claude-code", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"SubagentStop","agent_id":"a1"}`),
			open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) }},
		{name: "a subagent's payload", harness: "codex", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"PreCompact","agent_id":"a1","trigger":"auto"}`),
			open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) }},
		{name: "a linked worktree", harness: "claude-code", stdin: strings.NewReader(strings.ReplaceAll(startupJSON, "%CWD%", filepath.ToSlash(linked))),
			open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) }},
		{name: "a malformed payload in a linked worktree", harness: "claude-code", event: "start", stdin: strings.NewReader(`nope`),
			open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) }},
		{name: "a panic", harness: "codex", stdin: strings.NewReader(startup),
			open: func(*testing.T, string) func(context.Context) (continuity.API, error) {
				return func(context.Context) (continuity.API, error) { panic("boom") }
			},
			stderr: "internal error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			open := opener(t, home)
			if tc.open != nil {
				open = tc.open(t, home)
			}
			dir := cwd
			if strings.Contains(tc.name, "linked worktree") {
				dir = linked
			}
			var out, errOut bytes.Buffer
			inv := hook.Invocation{Harness: tc.harness, Event: tc.event, Stdin: tc.stdin, Stdout: &out, Stderr: &errOut,
				Dir: dir, Home: home, Role: tc.role, Open: open}
			inv.Run(context.Background())
			if out.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", out.String())
			}
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			switch {
			case tc.stderr == "" && errOut.Len() != 0:
				t.Errorf("stderr = %q, want nothing", errOut.String())
			case tc.stderr != "" && (len(lines) != 1 || !strings.HasPrefix(lines[0], "baton hook: "+tc.stderr)):
				t.Errorf("stderr = %q, want one line starting %q", errOut.String(), "baton hook: "+tc.stderr)
			}
			if tc.open == nil {
				if got := ledger(t, home); got != tc.ledger {
					t.Errorf("ledger:\n%s\nwant:\n%s", got, tc.ledger)
				}
			}
		})
	}
}

// ledger lists the receipts and failures of the store in home.
func ledger(t *testing.T, home string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(home, "baton.db")); err != nil {
		return ""
	}
	api, err := opener(t, home)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	es, err := api.Ledger(context.Background(), uuid.Nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range es {
		switch e.Event {
		case continuity.EventReceived:
			lines = append(lines, "received "+e.Fields["provider"]+" "+e.Fields["provider_event"]+"\n")
		case continuity.EventFailed:
			lines = append(lines, "failed "+e.Fields["provider"]+" "+e.Fields["provider_event"]+": "+e.Fields["reason"]+"\n")
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}
