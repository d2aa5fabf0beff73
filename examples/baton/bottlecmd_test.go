package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/bottle"
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

	// --out writes the file; show reads back a bottle kept in BATON_HOME.
	dst := filepath.Join(t.TempDir(), "bottle.md")
	if out, err := run(t, env, "bottle", "render", "--transcript", realTranscript, "--out", dst); err != nil || out != "" {
		t.Fatalf("render --out: %q %v", out, err)
	}
	if written, err := os.ReadFile(dst); err != nil || !strings.Contains(string(written), "echo hi-from-tool") {
		t.Fatalf("render --out wrote %q: %v", written, err)
	}
	if _, err := (&bottle.Bottler{Home: env.Home}).Render(context.Background(), "c96e6033-0cbe-4890-a588-1160d3853949", realTranscript); err != nil {
		t.Fatal(err)
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
