//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// TestExportForgetSymbolicLinks: export and forget with symbolic links
// under BATON_HOME. A link inside the bottles directory (to a directory or
// a file outside the home) is neither archived nor followed: forget removes
// the link and nothing it points at. A bottles directory that is itself a
// link is where the bottler writes: export archived none of its files and
// forget removed the link alone, leaving every bottle where it points while
// saying they were removed; now export archives them and forget refuses
// before it erases anything.
func TestExportForgetSymbolicLinks(t *testing.T) {
	const bottleName = "bottles/claude-code/s1.bottle/index.md"
	cases := []struct {
		name string
		// lay makes home's bottles, with outside a directory beyond home.
		lay        func(t *testing.T, home, outside string)
		forgetOK   bool
		leftInside bool // the bottle is still there after forget
	}{
		{"links inside the bottles", func(t *testing.T, home, outside string) {
			write(t, filepath.Join(home, filepath.FromSlash(bottleName)), 0o400) // read-only
			link(t, outside, filepath.Join(home, "bottles", "claude-code", "out"))
			link(t, filepath.Join(outside, "keep.md"), filepath.Join(home, "bottles", "claude-code", "out.md"))
		}, true, false},
		{"the bottles directory a link", func(t *testing.T, home, outside string) {
			real := filepath.Join(outside, "real")
			write(t, filepath.Join(real, "claude-code", "s1.bottle", "index.md"), 0o600)
			link(t, real, filepath.Join(home, "bottles"))
		}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			if _, stderr, status := run(t, env, []string{"remember", "--topic", "note", "a note"}); status != exitOK {
				t.Fatalf("remember: %s", stderr)
			}
			outside := t.TempDir()
			write(t, filepath.Join(outside, "keep.md"), 0o600)
			tc.lay(t, env.Home, outside)

			out := filepath.Join(t.TempDir(), "export.jsonl")
			if _, stderr, status := run(t, env, []string{"export", "--out", out}); status != exitOK || !strings.Contains(stderr, "copied 1 bottle files") {
				t.Fatalf("export: %d %q", status, stderr)
			}
			if got := tarNames(t, out+bottlesTarSuffix); !slices.Equal(got, []string{bottleName}) {
				t.Errorf("the bottles tarball holds %v, want %v", got, []string{bottleName})
			}

			stdout, stderr, status := run(t, env, []string{"forget", "--yes"})
			if ok := status == exitOK; ok != tc.forgetOK {
				t.Fatalf("forget: %d %q %q", status, stdout, stderr)
			}
			if !tc.forgetOK && !strings.Contains(stderr, "symbolic link") {
				t.Errorf("forget refused with %q, which does not name the link", stderr)
			}
			if rows, _, _ := run(t, env, []string{"export"}); (rowsOf(t, rows) == "") != tc.forgetOK {
				t.Errorf("after forget (ok %v) the rows are %q", tc.forgetOK, rowsOf(t, rows))
			}
			if _, err := os.Stat(filepath.Join(outside, "keep.md")); err != nil {
				t.Errorf("forget removed a file outside the home: %v", err)
			}
			if _, err := os.Stat(filepath.Join(env.Home, filepath.FromSlash(bottleName))); (err == nil) != tc.leftInside {
				t.Errorf("the bottle after forget: %v", err)
			}
		})
	}
}

func write(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# bottle"), mode); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestExportForgetShowHostilePaths: the paths export and forget name come
// from --out and BATON_HOME, and a POSIX name may hold an escape sequence,
// a carriage return or a newline: the lines saying where the bottles went
// show each as its code point.
func TestExportForgetShowHostilePaths(t *testing.T) {
	env := testEnv(t)
	const hostile, shown = "x\x1b]0;t\x07\ry\nz\u202e", "x<U+001B>]0;t<U+0007><U+000D>y<U+000A>z<U+202E>"
	env.Home = filepath.Join(env.Home, hostile)
	if err := os.Mkdir(env.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), hostile)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := run(t, env, []string{"export", "--out", filepath.Join(dir, "e.jsonl")})
	if want := "copied 0 bottle files to " + filepath.Join(filepath.Dir(dir), shown, "e.jsonl") + bottlesTarSuffix + "\n"; status != exitOK || !strings.HasSuffix(stderr, want) {
		t.Errorf("export: status %d, stderr %q; want it to end %q", status, stderr, want)
	}
	stdout, stderr, status := run(t, env, []string{"forget", "--yes"})
	if want := "removed the bottles under " + filepath.Join(filepath.Dir(env.Home), shown, "bottles") + "\n"; status != exitOK || !strings.HasSuffix(stdout, want) {
		t.Errorf("forget: status %d, stdout %q, stderr %q; want it to end %q", status, stdout, stderr, want)
	}
}

// TestExportIntoAReadOnlyDirectory: an --out in a directory baton cannot
// write fails naming --out and the path given, not the temporary file it
// could not create, and leaves nothing there. Root writes anywhere, so the
// case needs another user.
func TestExportIntoAReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	env := testEnv(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	out := filepath.Join(dir, "e.jsonl")
	_, stderr, status := run(t, env, []string{"export", "--out", out})
	if want := "--out: " + out + " cannot be written: permission denied"; status != exitFailure || !strings.Contains(stderr, want) || strings.Contains(stderr, ".tmp-") {
		t.Errorf("status %d, stderr %q; want %d and %q", status, stderr, exitFailure, want)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("the failed export left %v", names)
	}
}

// TestExportOntoAFullDisk: an export whose file refuses a write (here the
// process's file size limit, as a full disk would) fails naming --out and
// the file system's reason, not "the export could not be written", and
// leaves the earlier export in place and no temporary file.
func TestExportOntoAFullDisk(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to set the file size limit with")
	}
	env := testEnv(t)
	svc, done, err := env.openService(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	content := strings.Repeat("x", 2000)
	for i := range 1200 { // an export of over 2.4 MB
		if _, err := svc.Remember(context.Background(), env.Tenant, continuity.RememberParams{Kind: continuity.KindNote,
			Topic: "t" + strconv.Itoa(i), Content: content, Actor: continuity.ActorUserCLI}); err != nil {
			t.Fatal(err)
		}
	}
	done()
	dir := t.TempDir()
	out := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(out, []byte("the earlier export\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// 4096 blocks of 512 bytes (POSIX sh): 2 MiB, under the export and
	// over what the store's read spills (its database file is read, never
	// grown).
	_, stderr, status := batonExec(t, sh, dir, []string{"BATON_HOME=" + env.Home, "BATON_DSN=" + env.DSN},
		"", "-c", `ulimit -f 4096 && exec "$0" "$@"`, os.Args[0], "export", "--out", out)
	if status != exitFailure || !strings.Contains(stderr, "--out: "+out+" cannot be written: file too large") {
		t.Errorf("status %d, stderr %q; want 1, naming --out and the reason", status, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "the earlier export\n" {
		t.Errorf("the earlier export holds %.40q", got)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("the failed export left %v", names)
	}
}
