//go:build unix

package hook

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// TestInstallRefusesWhatIsNotAFile: a configuration that is not a regular
// file, or a link to one that is not (a FIFO, a device, a directory, a
// loop), is refused by install and uninstall with a malformed error naming
// it, before anything is read: a FIFO used to block the command forever,
// and a link to /dev/null read as empty and was planned to be replaced.
func TestInstallRefusesWhatIsNotAFile(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		msg  string
	}{
		{"a FIFO", func(t *testing.T, path string) { mkfifo(t, path) }, "is a FIFO"},
		{"a link to a FIFO", func(t *testing.T, path string) {
			mkfifo(t, path+".fifo")
			symlink(t, filepath.Base(path)+".fifo", path)
		}, "is a FIFO"},
		{"a link to /dev/null", func(t *testing.T, path string) { symlink(t, os.DevNull, path) }, "is a device"},
		{"a directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "is a directory"},
		{"a link in a loop", func(t *testing.T, path string) { symlink(t, filepath.Base(path), path) }, "cannot be followed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, path)
			before := snapshot(t, root)
			o := InstallOptions{Harness: "claude-code", Binary: testBinary, Home: root}
			for name, plan := range map[string]func(InstallOptions) (*InstallPlan, error){"install": PlanInstall, "uninstall": PlanUninstall} {
				done := make(chan error, 1)
				go func() {
					_, err := plan(o)
					done <- err
				}()
				select {
				case err := <-done:
					if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), filepath.Dir(path)) || !strings.Contains(err.Error(), tt.msg) {
						t.Errorf("%s: %v; want a malformed error naming the file and %q", name, err, tt.msg)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s: still reading after 5 s", name)
				}
			}
			if now := snapshot(t, root); !sameFiles(before, now) {
				t.Error("a refused plan wrote files")
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
}

// TestInstallConcurrentWritersConflict: the user's and a project's Codex
// install both edit config.toml. Run at the same time, the second to write
// waits for the first and then finds the file changed: a conflict, nothing
// written by it, and the first one's trust entries kept. Without the lock
// both checks passed and the last rename won, so one install's hooks were
// left untrusted (Codex skips them without a word) though it said it was
// done.
func TestInstallConcurrentWritersConflict(t *testing.T) {
	home, tomlPath, user := codexCase(t, "model = \"x\"\n")
	project := user
	project.Scope, project.Project = ScopeProject, filepath.Join(home, "project")
	pu, pp := mustPlan(t, PlanInstall, user), mustPlan(t, PlanInstall, project)

	second := make(chan error, 1)
	defer func(w func(string, []byte, os.FileMode) error) { writeAtomic = w }(writeAtomic)
	real := writeAtomic
	started := false
	writeAtomic = func(path string, data []byte, perm os.FileMode) error {
		if path == tomlPath && !started {
			// The project's install runs while the user's is about to
			// write config.toml, and has the time to finish unless it waits.
			started = true
			go func() { second <- pp.Apply(installNow) }()
			time.Sleep(300 * time.Millisecond)
		}
		return real(path, data, perm)
	}
	if err := pu.Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if err := <-second; continuity.ErrorCode(err) != continuity.CodeConflict {
		t.Fatalf("the install that wrote second: %v, want a conflict", err)
	}
	got, _ := os.ReadFile(tomlPath)
	if want := pu.Changes[0].After; string(got) != string(want) {
		t.Errorf("config.toml holds:\n%s\nwant the first install's:\n%s", got, want)
	}
	if _, err := os.Stat(pp.Changes[1].Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused install wrote its hooks.json (%v)", err)
	}
}
