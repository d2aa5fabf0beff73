package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// run parses args against a fresh CLI and runs the command in-process.
func run(t *testing.T, env *Env, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	env.Stdout, env.Stderr = &out, &out
	var cli CLI
	p, err := kong.New(&cli, kong.Name("baton"), kong.Bind(env), kong.Exit(func(int) { t.Fatal("kong exited") }))
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
