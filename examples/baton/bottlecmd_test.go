package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const realTranscript = "../../bottle/testdata/claude-2.1.328.jsonl"

func TestBottleCommands(t *testing.T) {
	env := testEnv(t)
	out, err := run(t, env, "bottle", "render", "--transcript", realTranscript)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Session bottle — c96e6033-0cbe-4890-a588-1160d3853949", "mode: full", "echo hi-from-tool"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q", want)
		}
	}
	for _, leak := range []string{"secret-token-123", "<command-name>", "INJECTED-CONTEXT-MARKER"} {
		if strings.Contains(out, leak) {
			t.Errorf("render leaks %q", leak)
		}
	}

	// --out writes the file; show reads it back from BATON_HOME.
	dst := filepath.Join(env.Home, "bottles", "c96e6033-0cbe-4890-a588-1160d3853949.md")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, env, "bottle", "render", "--transcript", realTranscript, "--out", dst); err != nil || out != "" {
		t.Fatalf("render --out: %q %v", out, err)
	}
	shown, err := run(t, env, "bottle", "show", "c96e6033-0cbe-4890-a588-1160d3853949")
	if err != nil || !strings.Contains(shown, "echo hi-from-tool") {
		t.Fatalf("show: %v\n%s", err, shown)
	}

	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, []byte("{\"type\":\"queue-operation\"}\n{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bottle", "show", "never-bottled"}, "no bottle for session never-bottled"},
		{[]string{"bottle", "show", "../etc/passwd"}, "invalid session id"},
		{[]string{"bottle", "render", "--transcript", empty}, "holds no conversation"},
	}
	for _, tc := range cases {
		if _, err := run(t, env, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := run(t, env, "bottle", "render", "--transcript", filepath.Join(t.TempDir(), "missing.jsonl")); err == nil {
		t.Error("render of a missing transcript succeeded")
	}
}
