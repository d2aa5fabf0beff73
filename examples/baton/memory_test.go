package main

import (
	"strings"
	"testing"
)

// TestFieldErrorsNameTheFlag: a value the service refuses is named by the
// flag or argument the person typed (--session-run, <memory-id>), not by
// the API's field (sessionRunId, id), which no command line has.
func TestFieldErrorsNameTheFlag(t *testing.T) {
	env := testEnv(t)
	out, stderr, status := run(t, env, []string{"remember", "--topic", "t", "x"})
	if status != exitOK {
		t.Fatalf("remember: %d %s", status, stderr)
	}
	id := strings.TrimSpace(out)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"remember", "--topic", "", "x"}, "(--topic: is required)"},
		{[]string{"remember", "--topic", " ", "x"}, "(--topic: is required)"},
		{[]string{"remember", "--topic", "t", ""}, "(<content>: is required)"},
		{[]string{"remember", "--topic", "t", "--session-run", "bad", "x"}, "(--session-run: must be a UUID)"},
		{[]string{"remember", "--topic", "t", "--scope", "\x00", "x"}, "(--scope: must not contain NUL bytes)"},
		{[]string{"remember", "--topic", "t", "--project", strings.Repeat("p", 201), "x"}, "(--project: must be at most 200 characters)"},
		{[]string{"remember", "--topic", "\xff", "--session-run", "bad", "x"}, "(--session-run: must be a UUID; --topic: must be valid UTF-8)"},
		{[]string{"resolve", "bad"}, "(<memory-id>: must be a UUID)"},
		{[]string{"archive", id, "--session-run", "bad"}, "(--session-run: must be a UUID)"},
		{[]string{"briefing", "--project", "\x00"}, "(--project: must not contain NUL bytes)"},
		{[]string{"briefing", "--json", "--project", "\x00"}, "(--project: must not contain NUL bytes)"},
	}
	for _, tc := range cases {
		_, stderr, status := run(t, env, tc.args)
		if status != exitFailure || !strings.Contains(stderr, "baton: invalid: invalid input "+tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d saying %q", tc.args, status, stderr, exitFailure, tc.want)
		}
	}
}

// TestBlankFlagsAreRefused: a --project, --scope or --session-run given as
// space alone would be trimmed by the service to none (a memory with no
// project, a write attributed to no run, the briefing of no project) where
// the person named one; each is a usage error naming the flag, and nothing
// is written. An empty value is the flag left out.
func TestBlankFlagsAreRefused(t *testing.T) {
	env := testEnv(t)
	out, stderr, status := run(t, env, []string{"remember", "--kind", "commitment", "--topic", "t", "x"})
	if status != exitOK {
		t.Fatalf("remember: %d %s", status, stderr)
	}
	id := strings.TrimSpace(out)
	cases := []struct {
		args []string
		flag string
	}{
		{[]string{"remember", "--kind", "commitment", "--topic", "t", "--project", " ", "x"}, "--project"},
		{[]string{"remember", "--kind", "commitment", "--topic", "t", "--project", "\t\n", "x"}, "--project"},
		{[]string{"remember", "--kind", "commitment", "--topic", "t", "--scope", "  ", "x"}, "--scope"},
		{[]string{"remember", "--kind", "commitment", "--topic", "t", "--session-run", " ", "x"}, "--session-run"},
		{[]string{"remember", "--kind", "commitment", "--topic", "t", "--scope", " ", "--project", " ", "x"}, "--project"},
		{[]string{"resolve", id, "--session-run", " "}, "--session-run"},
		{[]string{"unresolve", id, "--session-run", "\u00a0"}, "--session-run"},
		{[]string{"archive", id, "--session-run", "\r\n"}, "--session-run"},
		{[]string{"briefing", "--project", " "}, "--project"},
		{[]string{"briefing", "--json", "--project", "\u3000"}, "--project"},
	}
	for _, tc := range cases {
		out, stderr, status := run(t, env, tc.args)
		want := "(" + tc.flag + ": is blank: give a value, or leave the flag out)"
		if status != exitUsage || out != "" || !strings.Contains(stderr, want) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want %d saying %q", tc.args, status, out, stderr, exitUsage, want)
		}
	}
	// Nothing was written: the one memory is still open.
	out, stderr, status = run(t, env, []string{"briefing", "--json"})
	if status != exitOK || strings.Count(out, `"kind": "commitment"`) != 1 || !strings.Contains(out, id) {
		t.Fatalf("briefing after the refusals: %d %s %s", status, out, stderr)
	}
	// An empty value is the flag left out; padding around a value is trimmed.
	for _, args := range [][]string{
		{"remember", "--kind", "commitment", "--topic", "t", "--project", "", "--scope", "", "--session-run", "", "x"},
		{"briefing", "--project", ""},
		{"briefing", "--project", " p "},
	} {
		if _, stderr, status := run(t, env, args); status != exitOK {
			t.Errorf("%q: status %d, stderr %q; want 0", args, status, stderr)
		}
	}
}
