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
