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
