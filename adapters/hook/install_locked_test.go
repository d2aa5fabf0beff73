//go:build unix || windows

package hook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// TestInstallConcurrentWritersConflict: the user's and a project's Codex
// install both edit config.toml. Run at the same time, the second to write
// waits for the first and then finds the file changed: a conflict, nothing
// written by it, and the first one's trust entries kept. Without the lock
// both checks passed and the last rename won, so one install's hooks were
// left untrusted (Codex skips them without a word) though it said it was
// done. It runs where lockDir locks: flock on Unix, LockFileEx on Windows.
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
