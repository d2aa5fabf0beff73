package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		want := filepath.Join(env.Home, "bottles", agent, realSession+".md")
		if status != exitOK || strings.TrimSpace(kept) != want {
			t.Fatalf("render --keep --agent %s: status %d, printed %q, want %q: %s", agent, status, kept, want, stderr)
		}
	}
	if err := os.Remove(filepath.Join(env.Home, "bottles", "codex", realSession+".md")); err != nil {
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
		{[]string{"bottle", "show", "../etc/passwd"}, exitFailure, "invalid session id"},
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
