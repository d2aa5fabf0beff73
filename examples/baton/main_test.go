package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// runMainVar makes the test binary run baton's main instead of the tests, so
// a test can exec the command as a user would and read its exit status.
const runMainVar = "BATON_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainVar) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// userHomeVar is the variable os.UserHomeDir reads on this platform.
func userHomeVar() string {
	switch runtime.GOOS {
	case "windows":
		return "USERPROFILE"
	case "plan9":
		return "home"
	}
	return "HOME"
}

// baton execs the command in dir with the inherited environment minus every
// home and BATON_ variable, plus env, and returns its stdout, stderr and exit
// status.
func baton(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "HOME") || strings.EqualFold(k, "USERPROFILE") || strings.HasPrefix(strings.ToUpper(k), "BATON_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(append(cmd.Env, env...), runMainVar+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), status
}

// run parses args against a fresh CLI and runs the command in-process.
func run(t *testing.T, env *Env, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	env.Stdout, env.Stderr = &out, &out
	var cli CLI
	p, err := newParser(&cli, env, func(int) { t.Fatal("kong exited") })
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := p.Parse(args)
	if err != nil {
		return "", err
	}
	err = ctx.Run()
	return out.String(), err
}

func testEnv(t *testing.T) *Env {
	home := t.TempDir()
	return &Env{Home: home, DSN: filepath.Join(home, "baton.db"), Tenant: "local", Dir: t.TempDir()}
}

func TestDemo(t *testing.T) {
	out, err := run(t, testEnv(t), "demo")
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{
		"epoch 1, created true",
		"other project: conflict",
		"a second begin: armed false, reason pending, same attempt true",
		"complete: completed (1 since begin, 3 visible)",
		"sealed true, mode full",
		"pointer injected true",
		"a doubled SessionStart claims again: false",
		"epoch 2, reopened false",
		"alreadyClosed true, same time true",
		"succeeds unattributed: true",
		"read: implicitly_closed (no sweep ran)",
		"resurrected true, epoch 2",
		"provider.event.failed",
		"session.resurrected",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(out, "my token is abc") {
		t.Error("demo output leaks a private prompt")
	}
}

// TestDemoReceipts walks the ledger the demo wrote: every lifecycle event
// must come after a receipt, for the same conversation, of the provider event
// that causes it, because a hook records the receipt before any other work.
func TestDemoReceipts(t *testing.T) {
	causes := map[string]string{
		continuity.EventSessionStarted:   "SessionStart",
		continuity.EventSessionReopened:  "SessionStart",
		continuity.EventSessionResumed:   "SessionStart",
		continuity.EventBottleClaimed:    "SessionStart",
		continuity.EventSessionResurrect: "Stop",
		continuity.EventTriageArmed:      "Stop",
		continuity.EventTriageFinished:   "Stop",
		continuity.EventBottleArmed:      "PreCompact",
		continuity.EventSessionClosed:    "SessionEnd",
	}
	env := testEnv(t)
	var out bytes.Buffer
	env.Stdout, env.Stderr = &out, &out
	if err := (&DemoCmd{Home: env.Home}).Run(env); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	ctx := context.Background()
	svc, done, err := env.Service(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ledger, err := svc.Ledger(ctx, demoTenant, uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	lastReceipt := map[[2]string]string{} // (agent, session) -> provider event
	seen := map[string]bool{}
	for _, e := range ledger {
		key := [2]string{e.Fields["agent"], e.Session}
		if e.Event == continuity.EventReceived {
			lastReceipt[key] = e.Fields["provider_event"]
			continue
		}
		want, lifecycle := causes[e.Event]
		if !lifecycle {
			continue
		}
		seen[e.Event] = true
		if got, ok := lastReceipt[key]; !ok || got != want {
			t.Errorf("%s for %s/%s: the last receipt before it is %q, want %q", e.Event, key[0], key[1], got, want)
		}
	}
	for ev := range causes {
		if !seen[ev] && ev != continuity.EventSessionReopened {
			t.Errorf("the demo's ledger holds no %s", ev)
		}
	}
}

func TestMemoryCommands(t *testing.T) {
	env := testEnv(t)
	id, err := run(t, env, "remember", "--kind", "commitment", "--topic", "ship", "--project", "p", "ship", "it")
	if err != nil {
		t.Fatal(err)
	}
	id = strings.TrimSpace(id)
	if len(id) != 36 {
		t.Fatalf("remember printed %q, want an id", id)
	}
	out, err := run(t, env, "briefing", "--project", "p")
	if err != nil || !strings.Contains(out, "ship it") {
		t.Fatalf("briefing: %v\n%s", err, out)
	}
	cases := []struct {
		args []string
		want string
		code string
	}{
		{[]string{"resolve", id}, id + " resolved", ""},
		{[]string{"resolve", id}, "", "conflict"},
		{[]string{"unresolve", id}, id + " open", ""},
		{[]string{"archive", id}, id + " archived", ""},
		{[]string{"resolve", "nope"}, "", "invalid"},
		{[]string{"remember", "--topic", "t", "--kind", "idea", "x"}, "", "idea"},
		{[]string{"remember", "--topic", "t", "--session-run", "bad", "x"}, "", "sessionRunId"},
	}
	for _, tc := range cases {
		out, err := run(t, env, tc.args...)
		if tc.code != "" {
			if err == nil || !strings.Contains(err.Error(), tc.code) {
				t.Fatalf("%v: err %v, want %s", tc.args, err, tc.code)
			}
			continue
		}
		if err != nil || strings.TrimSpace(out) != tc.want {
			t.Fatalf("%v: %q %v, want %q", tc.args, out, err, tc.want)
		}
	}
	out, err = run(t, env, "briefing", "--project", "p", "--json")
	if err != nil || !strings.Contains(out, `"items": []`) {
		t.Fatalf("briefing --json after archive: %v\n%s", err, out)
	}
}

func TestVersion(t *testing.T) {
	out, err := run(t, testEnv(t), "version")
	if err != nil || !strings.HasPrefix(out, "baton ") {
		t.Fatalf("version: %q %v", out, err)
	}
}

// TestExitStatus pins the statuses --help documents: usage errors exit 2
// with the error and the usage on stderr and nothing on stdout.
func TestExitStatus(t *testing.T) {
	home := []string{"BATON_HOME=" + t.TempDir()}
	cases := []struct {
		name   string
		args   []string
		status int
		stdout string // a substring; "" means stdout must be empty
		stderr []string
	}{
		{"a wrong flag", []string{"briefing", "--nope"}, 2, "", []string{"baton: error: unknown flag --nope", "Usage: baton briefing"}},
		{"an unknown command", []string{"nope"}, 2, "", []string{"baton: error: unexpected argument nope", "Usage: baton"}},
		{"a missing argument", []string{"resolve"}, 2, "", []string{`baton: error: expected "<memory-id>"`, "Usage: baton resolve <memory-id>"}},
		{"a missing flag", []string{"bottle", "render"}, 2, "", []string{"baton: error: missing flags: --transcript", "Usage: baton bottle render"}},
		{"a value outside the enum", []string{"remember", "--kind", "idea", "--topic", "t", "x"}, 2, "", []string{`but got "idea"`}},
		{"a command that fails", []string{"bottle", "show", "never-bottled"}, 1, "", []string{"baton: bottle show: no bottle for session never-bottled"}},
		{"success", []string{"version"}, 0, "baton ", nil},
		{"--help documents the statuses", []string{"--help"}, 0, "Exit status: 0 on success; 1 when a command fails; 2 on a usage error", nil},
	}
	for _, tc := range cases {
		stdout, stderr, status := baton(t, t.TempDir(), home, tc.args...)
		if status != tc.status {
			t.Errorf("%s: exit status %d, want %d\nstderr: %s", tc.name, status, tc.status, stderr)
		}
		// Help is wrapped to the terminal's width: compare words, not lines.
		if tc.stdout == "" && stdout != "" || !strings.Contains(strings.Join(strings.Fields(stdout), " "), tc.stdout) {
			t.Errorf("%s: stdout %q, want %q", tc.name, stdout, tc.stdout)
		}
		if tc.stderr == nil && stderr != "" {
			t.Errorf("%s: stderr %q, want none", tc.name, stderr)
		}
		for _, want := range tc.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, want, stderr)
			}
		}
	}
}
