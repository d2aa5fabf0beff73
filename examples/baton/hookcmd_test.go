package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHookCommand runs `baton hook` as a harness does, as a process: the
// envelope on stdout, and exit status 0 whatever goes wrong, with one line
// on stderr saying what.
func TestHookCommand(t *testing.T) {
	home := t.TempDir()
	cwd := t.TempDir()
	env := []string{"BATON_HOME=" + home}
	payload := func(event, extra string) string {
		return `{"session_id":"s1","cwd":` + quote(cwd) + `,"hook_event_name":"` + event + `"` + extra + `}`
	}
	oneLine := func(t *testing.T, stderr string) {
		t.Helper()
		if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "baton hook: ") {
			t.Errorf("stderr = %q, want one line", stderr)
		}
	}

	t.Run("startup injects the briefing and the run id", func(t *testing.T) {
		out, stderr, status := batonIn(t, cwd, env, payload("SessionStart", `,"source":"startup"`), "hook", "--harness", "codex")
		var v struct {
			HookSpecificOutput struct{ HookEventName, AdditionalContext string }
		}
		if status != exitOK || stderr != "" || json.Unmarshal([]byte(out), &v) != nil ||
			v.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(v.HookSpecificOutput.AdditionalContext, "baton remember --session-run ") {
			t.Fatalf("status %d, stderr %q, stdout %q", status, stderr, out)
		}
	})
	t.Run("the nudge is BATON_STOP_NUDGE=1", func(t *testing.T) {
		var last string
		for range 3 {
			out, stderr, status := batonIn(t, cwd, append(env, "BATON_STOP_NUDGE=1"), payload("Stop", `,"last_assistant_message":"done"`), "hook", "stop", "--harness", "codex")
			if status != exitOK || stderr != "" {
				t.Fatalf("status %d, stderr %q", status, stderr)
			}
			last = out
		}
		var v struct{ Decision, Reason string }
		if json.Unmarshal([]byte(last), &v) != nil || v.Decision != "block" || strings.TrimSpace(v.Reason) == "" {
			t.Errorf("the third Stop printed %q, want a block with a reason", last)
		}
	})
	t.Run("malformed stdin", func(t *testing.T) {
		out, stderr, status := batonIn(t, cwd, env, `{"session_id":`, "hook", "stop", "--harness", "claude-code")
		if status != exitOK || out != "" {
			t.Errorf("status %d, stdout %q", status, out)
		}
		oneLine(t, stderr)
	})
	t.Run("a corrupt database", func(t *testing.T) {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, "baton.db"), []byte(strings.Repeat("garbage ", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		out, stderr, status := batonIn(t, cwd, []string{"BATON_HOME=" + bad}, payload("SessionStart", `,"source":"startup"`), "hook", "--harness", "gemini")
		if status != exitOK || out != "" {
			t.Errorf("status %d, stdout %q", status, out)
		}
		oneLine(t, stderr)
	})
	t.Run("help goes to stderr", func(t *testing.T) {
		empty := t.TempDir()
		out, stderr, status := batonIn(t, cwd, []string{"BATON_HOME=" + empty}, "", "hook", "--harness", "gemini", "--help")
		if status != exitOK || out != "" || !strings.Contains(stderr, "Usage: baton hook") {
			t.Errorf("status %d, stdout %q, stderr %q: want the usage on stderr alone", status, out, stderr)
		}
	})

	// Nothing below may touch a store: each runs in a home of its own that
	// must stay empty.
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		quiet bool // nothing on stderr either
	}{
		{name: "an unknown harness", args: []string{"hook", "start", "--harness", "vim"}},
		{name: "no harness", args: []string{"hook", "start"}},
		{name: "an unknown flag", args: []string{"hook", "start", "--harness", "codex", "--frobnicate"}},
		{name: "too many arguments", args: []string{"hook", "start", "stop", "--harness", "codex"}},
		{name: "a flag whose name holds a newline", args: []string{"hook", "start", "--harness", "codex", "--x\ny"}},
		{name: "a subagent", env: []string{"BATON_HOOK_ROLE=subagent"}, args: []string{"hook", "start", "--harness", "codex"}, quiet: true},
		{name: "a subagent spelled with capitals and spaces", env: []string{"BATON_HOOK_ROLE= Subagent "}, args: []string{"hook", "start", "--harness", "codex"}, quiet: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			empty := t.TempDir()
			out, stderr, status := batonIn(t, cwd, append(tc.env, "BATON_HOME="+empty), payload("SessionStart", `,"source":"startup"`), tc.args...)
			if status != exitOK || out != "" {
				t.Errorf("status %d, stdout %q", status, out)
			}
			if tc.quiet && stderr != "" {
				t.Errorf("stderr = %q, want nothing", stderr)
			}
			if !tc.quiet {
				oneLine(t, stderr)
			}
			if entries, _ := os.ReadDir(empty); len(entries) != 0 {
				t.Errorf("the hook wrote into the baton home: %v", entries)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHookClosedPipes: a harness that closed its end of stdout (or of
// stderr too) before the hook wrote still sees the hook exit 0; the hook
// must not die of SIGPIPE.
func TestHookClosedPipes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGPIPE")
	}
	cwd := t.TempDir()
	startup := `{"session_id":"s1","cwd":` + quote(cwd) + `,"hook_event_name":"SessionStart","source":"startup"}`
	cases := []struct {
		name, stdin string
		args        []string
		// stderrClosed closes stderr's read end too; else stderr must be
		// the one line naming the failed write.
		stderrClosed bool
		stderr       string
	}{
		{name: "a start's envelope to a closed stdout", stdin: startup, args: []string{"hook", "--harness", "codex"},
			stderr: "baton hook: write stdout: "},
		{name: "a failure's line to a closed stderr", stdin: `{"session_id":`, args: []string{"hook", "stop", "--harness", "claude-code"}, stderrClosed: true},
		{name: "both closed", stdin: startup, args: []string{"hook", "--harness", "gemini"}, stderrClosed: true},
	}
	closed := func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		t.Cleanup(func() { w.Close() })
		return w
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Dir, cmd.Stdin, cmd.Stdout = cwd, strings.NewReader(tc.stdin), closed(t)
			cmd.Env = append(os.Environ(), "BATON_HOME="+t.TempDir(), runMainVar+"=1")
			var errOut strings.Builder
			if tc.stderrClosed {
				cmd.Stderr = closed(t)
			} else {
				cmd.Stderr = &errOut
			}
			if err := cmd.Run(); err != nil {
				t.Fatalf("the hook ended with %v, want exit status 0", err)
			}
			if !tc.stderrClosed && (strings.Count(errOut.String(), "\n") != 1 || !strings.HasPrefix(errOut.String(), tc.stderr)) {
				t.Errorf("stderr = %q, want one line starting %q", errOut.String(), tc.stderr)
			}
		})
	}
}
