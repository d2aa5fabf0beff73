package hook_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
	"github.com/uptrace/bun/driver/sqliteshim"
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
		// As the baton binary does for its default location: the store
		// creates no directory.
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, err
		}
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
	// A linked worktree as git writes one: its gitdir holds commondir.
	linked, gitDir := t.TempDir(), filepath.Join(t.TempDir(), ".git", "worktrees", "wt")
	if err := os.MkdirAll(gitDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "commondir"), []byte("../..\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: "+filepath.ToSlash(gitDir)+"\n"), 0o600); err != nil {
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
	// A pipe the harness wrote and keeps open, as a harness that never
	// closes stdin leaves it.
	heldOpen := func(payload string) io.Reader {
		r, w := io.Pipe()
		go w.Write([]byte(payload))
		t.Cleanup(func() { w.Close() })
		return r
	}
	huge := io.MultiReader(strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"`),
		strings.NewReader(strings.Repeat("a", 8<<20)), strings.NewReader(`"}`))

	cases := []struct {
		name, harness, event string
		stdin                io.Reader
		role                 string
		timeout              time.Duration
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
		{name: "a whole payload on a pipe never closed", harness: "codex", stdin: heldOpen(`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"other"}`),
			stderr: "codex SessionEnd: not_found: session not found",
			ledger: "failed codex SessionEnd: not_found: session not found\nreceived codex SessionEnd\n"},
		{name: "a whole payload and a trailing value on a pipe never closed", harness: "codex", event: "end", stdin: heldOpen(`{"session_id":"s1","hook_event_name":"SessionEnd"} {"x":1}`),
			stderr: "codex SessionEnd: invalid: invalid input (stdin: must be one JSON object)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (stdin: must be one JSON object)\nreceived codex SessionEnd\n"},
		{name: "a payload after a byte order mark", harness: "codex", stdin: strings.NewReader("\ufeff" + `{"session_id":"s1","hook_event_name":"SessionEnd","reason":"other"}`),
			stderr: "codex SessionEnd: not_found: session not found",
			ledger: "failed codex SessionEnd: not_found: session not found\nreceived codex SessionEnd\n"},
		{name: "a short payload after a byte order mark on a pipe never closed", harness: "codex", event: "end", stdin: heldOpen("\ufeff{}"),
			stderr: "codex SessionEnd: invalid: invalid input (session_id: is required)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (session_id: is required)\nreceived codex SessionEnd\n"},
		{name: "a short payload on a pipe never closed", harness: "codex", event: "end", stdin: heldOpen("{}"),
			stderr: "codex SessionEnd: invalid: invalid input (session_id: is required)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (session_id: is required)\nreceived codex SessionEnd\n"},
		{name: "two byte order marks", harness: "codex", event: "end", stdin: strings.NewReader("\ufeff\ufeff" + `{"session_id":"s1","hook_event_name":"SessionEnd"}`),
			stderr: "codex SessionEnd: invalid: invalid input (stdin: must be one JSON object)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (stdin: must be one JSON object)\nreceived codex SessionEnd\n"},
		{name: "a byte order mark cut short", harness: "codex", event: "end", stdin: strings.NewReader("\xef\xbb" + `{"session_id":"s1","hook_event_name":"SessionEnd"}`),
			stderr: "codex SessionEnd: invalid: invalid input (stdin: must be one JSON object)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (stdin: must be one JSON object)\nreceived codex SessionEnd\n"},
		{name: "half a payload on a pipe never closed", harness: "claude-code", event: "stop", timeout: time.Second,
			stdin:  heldOpen(`{"session_id":"s1","hook_event_name":"Stop"`),
			stderr: "claude-code Stop: invalid: invalid input (stdin: held no whole JSON object after 500ms and was not closed)",
			ledger: "failed claude-code Stop: local: stdin: invalid: invalid input (stdin: held no whole JSON object after 500ms and was not closed)\nreceived claude-code Stop\n"},
		{name: "nothing on a pipe never closed", harness: "codex", event: "end", timeout: time.Second, stdin: heldOpen(""),
			stderr: "codex SessionEnd: invalid: invalid input (stdin: held no whole JSON object after 500ms and was not closed)",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (stdin: held no whole JSON object after 500ms and was not closed)\nreceived codex SessionEnd\n"},
		{name: "a key of the wrong type", harness: "codex", stdin: strings.NewReader(`{"session_id":42,"hook_event_name":"Stop","stop_hook_active":"yes"}`),
			stderr: "codex Stop: invalid: invalid input (session_id: must be a string; stop_hook_active: must be a boolean)",
			ledger: "failed codex Stop: local: stdin: invalid: invalid input (session_id: must be a string; stop_hook_active: must be a boolean)\nreceived codex Stop\n"},
		{name: "a missing session id", harness: "claude-code", stdin: strings.NewReader(`{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`),
			stderr: "claude-code UserPromptSubmit: invalid: invalid input (session_id: is required)",
			ledger: "failed claude-code UserPromptSubmit: local: stdin: invalid: invalid input (session_id: is required)\nreceived claude-code UserPromptSubmit\n"},
		{name: "a missing session id, camelCase", harness: "copilot", event: "stop", stdin: strings.NewReader(`{"cwd":"/p"}`),
			stderr: "copilot agentStop: invalid: invalid input (sessionId: is required)",
			ledger: "failed copilot agentStop: local: stdin: invalid: invalid input (sessionId: is required)\nreceived copilot agentStop\n"},
		{name: "a missing conversation id", harness: "cursor", stdin: strings.NewReader(`{"hook_event_name":"sessionEnd","workspace_roots":["/p"]}`),
			stderr: "cursor sessionEnd: invalid: invalid input (conversation_id: is required)",
			ledger: "failed cursor sessionEnd: local: stdin: invalid: invalid input (conversation_id: is required)\nreceived cursor sessionEnd\n"},
		{name: "a missing transcript", harness: "claude-code", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/nonexistent/t.jsonl","last_assistant_message":"done"}`),
			stderr: "claude-code Stop: transcript not readable, the bottle is rebuilt from history; claude-code Stop: not_found",
			ledger: "failed claude-code Stop: not_found: session not found\nreceived claude-code Stop\n"},
		{name: "an invalid session id", harness: "claude-code", stdin: strings.NewReader(`{"session_id":"../etc","hook_event_name":"Stop","last_assistant_message":"x"}`),
			stderr: "claude-code Stop: invalid: invalid input (session_id: " + bottle.SessionIDRule + ")",
			ledger: "failed claude-code Stop: local: stdin: invalid: invalid input (session_id: " + bottle.SessionIDRule + ")\nreceived claude-code Stop\n"},
		{name: "a session id with a NUL byte", harness: "codex", stdin: strings.NewReader(`{"session_id":"a\u0000b","hook_event_name":"SessionEnd"}`),
			stderr: "codex SessionEnd: invalid: invalid input (session_id: " + bottle.SessionIDRule + ")",
			ledger: "failed codex SessionEnd: local: stdin: invalid: invalid input (session_id: " + bottle.SessionIDRule + ")\nreceived codex SessionEnd\n"},
		{name: "an event name of the wrong type beside an EVENT argument", harness: "claude-code", event: "stop", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":5}`),
			stderr: "claude-code Stop: invalid: invalid input (hook_event_name: must be a string)",
			ledger: "failed claude-code Stop: local: stdin: invalid: invalid input (hook_event_name: must be a string)\nreceived claude-code Stop\n"},
		{name: "an event name of the wrong type alone", harness: "claude-code", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":{}}`),
			stderr: "claude-code: invalid: invalid input (hook_event_name: must be a string)"},
		{name: "a kind as the payload's event name", harness: "claude-code", event: "stop", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"stop"}`),
			stderr: `claude-code Stop: invalid: invalid input (hook_event_name: must be one of claude-code's events (SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd): "stop" is a kind, which only the EVENT argument names)`,
			ledger: `failed claude-code Stop: local: stdin: invalid: invalid input (hook_event_name: must be one of claude-code's events (SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd): "stop" is a kind, which only the EVENT argument names)` + "\nreceived claude-code Stop\n"},
		{name: "another harness's event name", harness: "gemini", event: "prompt", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"the words"}`),
			stderr: `gemini BeforeAgent: invalid: invalid input (hook_event_name: must be one of gemini's events (SessionStart, BeforeAgent, AfterAgent, PreCompress, SessionEnd): "UserPromptSubmit" is not)`,
			ledger: `failed gemini BeforeAgent: local: stdin: invalid: invalid input (hook_event_name: must be one of gemini's events (SessionStart, BeforeAgent, AfterAgent, PreCompress, SessionEnd): "UserPromptSubmit" is not)` + "\nreceived gemini BeforeAgent\n"},
		{name: "another harness's event name and no EVENT argument", harness: "gemini", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop"}`),
			stderr: `gemini: invalid: invalid input (hook_event_name: must be one of gemini's events (SessionStart, BeforeAgent, AfterAgent, PreCompress, SessionEnd): "Stop" is not)`},
		{name: "a loop count past float64's range", harness: "cursor", stdin: strings.NewReader(`{"conversation_id":"c1","hook_event_name":"stop","loop_count":1e400}`),
			stderr: "cursor stop: invalid: invalid input (loop_count: must be a finite count of zero or more)",
			ledger: "failed cursor stop: local: stdin: invalid: invalid input (loop_count: must be a finite count of zero or more)\nreceived cursor stop\n"},
		{name: "an unknown harness", harness: "vim", stdin: strings.NewReader(startup), open: func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) },
			stderr: "invalid: invalid input (harness: must be one of claude-code, codex, gemini, copilot, cursor)"},
		{name: "an event baton does not handle", harness: "codex", stdin: strings.NewReader(`{"session_id":"s1","hook_event_name":"PreToolUse"}`),
			open:   func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) },
			stderr: `codex "PreToolUse": not an event baton handles`},
		// The stderr line is one line of text for a person (a harness
		// shows it in its own display): a payload's name is quoted, and
		// an error's text (a team server's message) has its format
		// characters shown and its control characters made spaces.
		{name: "an unhandled event's name with format and control characters", harness: "codex",
			stdin:  strings.NewReader(`{"session_id":"s1","hook_event_name":"\u202ePre\u2066Tool\u2069\u200bUse\u001b]0;t\u0007\ufeff"}`),
			open:   func(t *testing.T, _ string) func(context.Context) (continuity.API, error) { return never(t) },
			stderr: `codex "\u202ePre\u2066Tool\u2069\u200bUse\x1b]0;t\a\ufeff": not an event baton handles`},
		{name: "an error whose text holds format and control characters", harness: "codex", stdin: strings.NewReader(startup),
			open: func(*testing.T, string) func(context.Context) (continuity.API, error) {
				return func(context.Context) (continuity.API, error) {
					return nil, &continuity.Error{Code: continuity.CodeForbidden, Message: "\u202eevil\u2066x\u2069\x1b[2J\r\nline\u200b\ufeff\xff"}
				}
			},
			stderr: "codex SessionStart: open the store: forbidden: <U+202E>evil<U+2066>x<U+2069> [2J  line<U+200B><U+FEFF>\uFFFD"},
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
			} else if tc.timeout != 0 {
				// A short budget's second half records the failure in
				// the store of a hook that has run before, not in one
				// whose schema is still to be created (which a loaded
				// machine may not do within it).
				if _, err := open(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			dir := cwd
			if strings.Contains(tc.name, "linked worktree") {
				dir = linked
			}
			var out, errOut bytes.Buffer
			inv := hook.Invocation{Harness: tc.harness, Event: tc.event, Stdin: tc.stdin, Stdout: &out, Stderr: &errOut,
				Dir: dir, Home: home, Role: tc.role, Open: open, Timeout: tc.timeout}
			ran := make(chan struct{})
			go func() {
				defer close(ran)
				inv.Run(context.Background())
			}()
			select {
			case <-ran:
			case <-time.After(10 * time.Second):
				t.Fatal("the hook did not return within 10s")
			}
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

// TestLocalFailuresKeepTheWork: a transcript the hook cannot read (a
// directory, a named pipe, which would block the open, a path with a NUL
// byte) and junk labels (a trigger, a reason) cost the event its bottle at
// most, never its work: the heartbeat, the checkpoint and the close still
// happen, the hook returns, one stderr line says what failed, and the
// ledger keeps the failure beside the receipt.
func TestLocalFailuresKeepTheWork(t *testing.T) {
	cwd := t.TempDir()
	startup := strings.ReplaceAll(startupJSON, "%CWD%", filepath.ToSlash(cwd))
	dir := t.TempDir()
	quoted := func(path string) string { b, _ := json.Marshal(filepath.ToSlash(path)); return string(b) }
	cases := []struct {
		name  string
		stdin func(t *testing.T) string
		// stderr starts the one stderr line; "" wants none.
		stderr string
		// failed is the failure the ledger keeps; "" wants none.
		failed string
		check  func(t *testing.T, v continuity.SessionView, ledger string)
	}{
		{name: "a transcript that is a directory",
			stdin: func(*testing.T) string {
				return `{"session_id":"s1","hook_event_name":"Stop","transcript_path":` + quoted(dir) + `,"last_assistant_message":"done"}`
			},
			stderr: "claude-code Stop: the bottle: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a directory",
			failed: "local: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a directory",
			check:  stopped},
		{name: "a transcript that is a named pipe",
			stdin: func(t *testing.T) string {
				return `{"session_id":"s1","hook_event_name":"Stop","transcript_path":` + quoted(fifo(t)) + `,"last_assistant_message":"done"}`
			},
			stderr: "claude-code Stop: the bottle: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a named pipe",
			failed: "local: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a named pipe",
			check:  stopped},
		{name: "a named pipe sealed at PreCompact",
			stdin: func(t *testing.T) string {
				return `{"session_id":"s1","hook_event_name":"PreCompact","trigger":"manual","transcript_path":` + quoted(fifo(t)) + `}`
			},
			stderr: "claude-code PreCompact: the bottle: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a named pipe",
			failed: "local: internal: bottle: open transcript: bottle: the transcript is not a regular file: it is a named pipe",
			check:  checkpointed},
		{name: "a transcript path with a NUL byte",
			stdin: func(*testing.T) string {
				return `{"session_id":"s1","hook_event_name":"Stop","transcript_path":"/tmp/a\u0000b","last_assistant_message":"done"}`
			},
			stderr: "claude-code Stop: transcript not readable, the bottle is rebuilt from history",
			failed: "local: internal: bottle: open transcript: stat /tmp/ab: invalid argument",
			check:  stopped},
		{name: "a trigger with a NUL byte and invalid UTF-8",
			stdin: func(*testing.T) string {
				return "{\"session_id\":\"s1\",\"hook_event_name\":\"PreCompact\",\"trigger\":\"ma\\u0000nual\xff\"}"
			},
			check: checkpointed},
		{name: "a reason of 200 characters",
			stdin: func(*testing.T) string {
				return `{"session_id":"s1","hook_event_name":"SessionEnd","reason":"` + strings.Repeat("r", 200) + `"}`
			},
			check: func(t *testing.T, v continuity.SessionView, ledger string) {
				if v.ClosedAt == nil {
					t.Error("the session was not closed")
				}
			}},
		{name: "a reason with a NUL byte",
			stdin: func(*testing.T) string {
				return `{"session_id":"s1","hook_event_name":"SessionEnd","reason":"lo\u0000gout"}`
			},
			check: func(t *testing.T, v continuity.SessionView, ledger string) {
				if v.ClosedAt == nil {
					t.Error("the session was not closed")
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			open := opener(t, home)
			run := func(stdin string) string {
				var out, errOut bytes.Buffer
				runWithin(t, &hook.Invocation{Harness: "claude-code", Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Dir: cwd, Home: home, Open: open})
				if out.Len() != 0 && !json.Valid(out.Bytes()) {
					t.Errorf("stdout is not JSON: %q", out.String())
				}
				return errOut.String()
			}
			if e := run(startup); e != "" {
				t.Fatalf("startup: %s", e)
			}
			errOut := run(tc.stdin(t))
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			switch {
			case tc.stderr == "" && errOut != "":
				t.Errorf("stderr = %q, want nothing", errOut)
			case tc.stderr != "" && (len(lines) != 1 || !strings.HasPrefix(lines[0], "baton hook: "+tc.stderr)):
				t.Errorf("stderr = %q, want one line starting %q", errOut, "baton hook: "+tc.stderr)
			}
			api, err := open(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			v, err := api.Session(context.Background(), "claude-code", "s1")
			if err != nil {
				t.Fatal(err)
			}
			got := ledger(t, home)
			failed := strings.Contains(got, "failed ")
			switch {
			case tc.failed == "" && failed:
				t.Errorf("ledger has a failure:\n%s", got)
			case tc.failed != "" && !strings.Contains(got, ": "+tc.failed+"\n"):
				t.Errorf("ledger:\n%s\nwant the failure %q", got, tc.failed)
			}
			tc.check(t, v, got)
		})
	}
}

// TestLockedDatabase: a database another process holds the write lock of
// keeps a hook no longer than its budget (the harness kills it at its own
// timeout, later), and the one stderr line says the database was locked.
func TestLockedDatabase(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "baton.db")
	st, err := sqlstore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db, err := sql.Open(sqliteshim.ShimName, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	for _, stdin := range []string{
		`{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"the words"}`,
		`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"exit"}`,
	} {
		var out, errOut bytes.Buffer
		inv := hook.Invocation{Harness: "claude-code", Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Dir: t.TempDir(), Home: home,
			Timeout: 300 * time.Millisecond,
			Open: func(ctx context.Context) (continuity.API, error) {
				deadline, ok := ctx.Deadline()
				if !ok {
					t.Fatal("the open's context has no deadline")
				}
				st, err := sqlstore.Open(ctx, path, sqlstore.OneConnection(), sqlstore.BusyTimeout(time.Until(deadline)/3))
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { st.Close() })
				return continuity.New(st).For("local"), nil
			}}
		runWithin(t, &inv)
		if out.Len() != 0 {
			t.Errorf("stdout = %q, want nothing", out.String())
		}
		if lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "the database is locked by another process") {
			t.Errorf("stderr = %q, want one line saying the database is locked", errOut.String())
		}
		if strings.Contains(errOut.String(), "the words") {
			t.Errorf("stderr carries the prompt: %q", errOut.String())
		}
	}
}

// runWithin runs inv and fails the test when it does not return within a
// minute: a hook that blocks (on a named pipe, a lock) never returns.
func runWithin(t *testing.T, inv *hook.Invocation) {
	t.Helper()
	done := make(chan struct{})
	go func() { inv.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the hook did not return")
	}
}

// stopped checks that a Stop heartbeat ran and kept its last message.
func stopped(t *testing.T, v continuity.SessionView, _ string) {
	t.Helper()
	if v.StopCount != 1 || v.LastMessageExcerpt != "done" {
		t.Errorf("stop count %d, excerpt %q: want the Stop's heartbeat and message", v.StopCount, v.LastMessageExcerpt)
	}
}

// checkpointed checks that a PreCompact wrote its checkpoint.
func checkpointed(t *testing.T, _ continuity.SessionView, ledger string) {
	t.Helper()
	if !strings.Contains(ledger, "received claude-code PreCompact") {
		t.Errorf("no PreCompact receipt:\n%s", ledger)
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

// TestHookRole: BATON_HOOK_ROLE names the subagent role whatever its case
// and the space around it, and then the hook touches nothing and says
// nothing; any other value, a role with space inside it too, hooks as the
// main agent does.
func TestHookRole(t *testing.T) {
	cwd := t.TempDir()
	startup := strings.ReplaceAll(startupJSON, "%CWD%", filepath.ToSlash(cwd))
	cases := []struct {
		role    string
		skipped bool
	}{
		{"subagent", true},
		{" Subagent ", true},
		{"SUBAGENT", true},
		{"\tsubagent\n", true},
		{"", false},
		{"main", false},
		{"sub agent", false},
		{"subagents", false},
	}
	for _, tc := range cases {
		opened := false
		var out, errOut bytes.Buffer
		inv := hook.Invocation{Harness: "claude-code", Stdin: strings.NewReader(startup), Stdout: &out, Stderr: &errOut, Dir: cwd, Role: tc.role,
			Open: func(context.Context) (continuity.API, error) { opened = true; return talkativeAPI{}, nil }}
		inv.Run(context.Background())
		if skipped := !opened && out.Len() == 0 && errOut.Len() == 0; skipped != tc.skipped {
			t.Errorf("role %q: skipped %v (opened %v, stdout %q, stderr %q), want %v", tc.role, skipped, opened, out.String(), errOut.String(), tc.skipped)
		}
	}
}
