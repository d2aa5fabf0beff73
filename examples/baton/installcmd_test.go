package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
)

// installEnv is the environment of a baton run with home as the user's home,
// no variable moving a harness's directory, and git kept from finding a
// repository above the temporary directories.
func installEnv(home string) []string {
	return []string{userHomeVar() + "=" + home, "CLAUDE_CONFIG_DIR=", "CODEX_HOME=",
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(filepath.Dir(home))}
}

// TestInstallCommand runs `baton install` and `baton uninstall` as a person
// does, in a temporary home: the dry run prints the diff and writes nothing,
// install registers this very binary (by the path it was run by) and backs up what
// it changes, and uninstall takes it out again.
func TestInstallCommand(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := installEnv(home)
	settings := filepath.Join(home, ".claude", "settings.json")
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}

	out, errOut, status := baton(t, dir, env, "install", "--harness", "claude-code", "--dry-run")
	if status != 0 || !strings.Contains(out, "+++ "+settings+"\n") || !strings.Contains(out, exe) {
		t.Fatalf("install --dry-run: status %d\n%s\n%s", status, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude")); !os.IsNotExist(err) {
		t.Fatal("the dry run wrote to the home")
	}

	orig := "{\n  \"model\": \"opus\"\n}\n"
	writeTestFile(t, settings, orig)
	out, errOut, status = baton(t, dir, env, "install", "--harness", "claude-code")
	if status != 0 || !strings.HasPrefix(out, "updated "+settings+" (backup "+settings+".baton-backup-") {
		t.Fatalf("install: status %d\n%s\n%s", status, out, errOut)
	}
	if strings.Contains(exe, "go-build") && !strings.Contains(errOut, "temporary build") {
		t.Errorf("no warning that the test binary is a temporary build: %q", errOut)
	}
	got, _ := os.ReadFile(settings)
	for _, kind := range []string{"start", "prompt", "stop", "precompact", "end"} {
		if !strings.Contains(string(got), exe+" hook "+kind+" --harness claude-code") {
			t.Errorf("settings do not run %s hook %s:\n%s", exe, kind, got)
		}
	}
	if out, _, status = baton(t, dir, env, "install", "--harness", "claude-code", "--dry-run"); status != 0 || out != "" {
		t.Errorf("a second install would change: %s", out)
	}

	if out, errOut, status = baton(t, dir, env, "uninstall", "--harness", "claude-code"); status != 0 {
		t.Fatalf("uninstall: status %d\n%s\n%s", status, out, errOut)
	}
	if got, _ := os.ReadFile(settings); string(got) != orig {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, orig)
	}
}

// TestInstallCommandScopes: the project scope writes under the working
// directory (no git here), and a harness that reads only the project's
// hooks defaults to it.
func TestInstallCommandScopes(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := installEnv(home)
	for _, args := range [][]string{
		{"install", "--harness", "gemini", "--scope", "project"},
		{"install", "--harness", "copilot"},
	} {
		if out, errOut, status := baton(t, dir, env, args...); status != 0 {
			t.Fatalf("%v: status %d\n%s\n%s", args, status, out, errOut)
		}
	}
	for _, rel := range []string{".gemini/settings.json", ".github/hooks/baton.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Error("the project scope wrote to the home")
	}
}

// TestInstallCommandRefuses: a malformed configuration fails with status 1
// and a message naming it; a harness or scope install does not know is a
// usage error, status 2, the usage and the reason on stderr; nothing is
// written.
func TestInstallCommandRefuses(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	env := installEnv(home)
	settings := filepath.Join(home, ".gemini", "settings.json")
	writeTestFile(t, settings, "{\n  \"hooks\": {\n")
	_, errOut, status := baton(t, dir, env, "install", "--harness", "gemini")
	if status != 1 || !strings.Contains(errOut, settings+" is not valid JSON") {
		t.Errorf("malformed settings: status %d, %q", status, errOut)
	}
	if got, _ := os.ReadFile(settings); string(got) != "{\n  \"hooks\": {\n" {
		t.Errorf("the malformed file changed: %q", got)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"uninstall", "--harness", "emacs"}, `"emacs" is not one of claude-code`},
		{[]string{"install", "--harness", "GEMINI"}, `"GEMINI" is not one of claude-code`},
		{[]string{"install", "--harness", "gemini", "--scope", "galaxy"}, `"galaxy" is neither user nor project`},
		{[]string{"uninstall", "--harness", "copilot", "--scope", "user"}, "copilot reads hooks only from the project"},
		// A long value is quoted bounded, not echoed whole.
		{[]string{"install", "--harness", strings.Repeat("x", 100<<10)}, `"` + strings.Repeat("x", 63) + `…" is not one of claude-code`},
		{[]string{"install", "--harness", "gemini", "--scope", strings.Repeat("u", 100<<10)}, `"` + strings.Repeat("u", 63) + `…" is neither user nor project`},
	} {
		out, errOut, status := baton(t, dir, env, tc.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tc.says) || !strings.Contains(errOut, "Usage: baton "+tc.args[0]) {
			t.Errorf("baton %s: status %d, stdout %q, stderr %q", strings.Join(tc.args, " "), status, out, errOut)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(settings)); len(entries) != 1 {
		t.Errorf("a refused command wrote files: %v", entries)
	}
}

// TestInstallHelp: the help of install and uninstall lists the harnesses
// (read from the table when the help is printed, not by every parse).
func TestInstallHelp(t *testing.T) {
	dir := t.TempDir()
	env := installEnv(t.TempDir())
	want := "Harnesses: " + strings.Join(hook.InstallHarnesses(), ", ") + "."
	for _, args := range [][]string{{"install", "--help"}, {"uninstall", "--help"}} {
		out, errOut, _ := baton(t, dir, env, args...)
		if got := strings.Join(strings.Fields(out+errOut), " "); !strings.Contains(got, want) {
			t.Errorf("baton %s does not say %q:\n%s%s", strings.Join(args, " "), want, out, errOut)
		}
	}
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRunningBinary: the hooks run this binary by the path the person ran
// it by, a package manager's link kept, when that path is absolute (or the
// one PATH finds) and is this very file; else by the executable's own path.
func TestRunningBinary(t *testing.T) {
	h := t.TempDir()
	cellar := filepath.Join(h, "Cellar", "b", "1.0", "bin", "baton")
	link := filepath.Join(h, "bin", "baton")
	other := filepath.Join(h, "other", "baton")
	writeTestFile(t, cellar, "#!/bin/sh\n")
	writeTestFile(t, other, "#!/bin/sh\n")
	if err := os.Symlink(filepath.Join("..", "Cellar", "b", "1.0", "bin", "baton"), link); err != nil {
		t.Skip(err)
	}
	found := func(path string, err error) func(string) (string, error) {
		return func(string) (string, error) { return path, err }
	}
	tests := []struct {
		name, arg0 string
		lookPath   func(string) (string, error)
		want       string
	}{
		{"run by the link", link, found("", errors.New("unused")), link},
		{"found on PATH as the link", "baton", found(link, nil), link},
		{"another file", other, found("", errors.New("unused")), cellar},
		{"a relative path", filepath.Join(".", "bin", "baton"), found("", errors.New("unused")), cellar},
		{"not on PATH", "baton", found("", errors.New("not found")), cellar},
		{"PATH finds a relative one", "baton", found(filepath.Join(".", "baton"), nil), cellar},
		{"the link with dots", filepath.Join(h, "bin", "..", "bin", "baton"), found("", errors.New("unused")), link},
	}
	for _, tt := range tests {
		got, err := runningBinary(tt.arg0, func() (string, error) { return cellar, nil }, tt.lookPath)
		if err != nil || got != tt.want {
			t.Errorf("%s: runningBinary(%s) = %s, %v; want %s", tt.name, tt.arg0, got, err, tt.want)
		}
	}
	if _, err := runningBinary("baton", func() (string, error) { return "", errors.New("no /proc") }, found(link, nil)); err == nil {
		t.Error("no error when the executable cannot be found")
	}
}

// TestInstallCommandKeepsTheLinkRun: baton run through a symbolic link
// registers the link, not the file it points to.
func TestInstallCommandKeepsTheLinkRun(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "baton")
	exe, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, link); err != nil {
		t.Skip(err)
	}
	out, errOut, status := batonExec(t, link, dir, installEnv(home), "", "install", "--harness", "claude-code", "--dry-run")
	if status != 0 || !strings.Contains(out, link+" hook stop --harness claude-code") {
		t.Errorf("install run by %s: status %d\n%s\n%s", link, status, out, errOut)
	}
}
