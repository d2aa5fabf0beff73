package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestProjectFacet: an explicit project wins; without one, commands use the
// library's rule (its table is workdir's TestProject).
func TestProjectFacet(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "my-repo")
	sub := filepath.Join(repo, "internal", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cases := []struct {
		name, dir, explicit, want string
	}{
		{"git top-level from a subdirectory", sub, "", "my-repo"},
		{"explicit wins", sub, "chosen", "chosen"},
		{"no directory: no facet, never unknown", "", "", ""},
	}
	for _, tc := range cases {
		env := &Env{Dir: tc.dir}
		if got := env.ProjectOr(tc.explicit); got != tc.want {
			t.Errorf("%s: project = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestHomeResolution runs the command under each combination of BATON_HOME,
// BATON_DSN and the platform's home variable: the store lands in BATON_HOME,
// else in .baton under the home directory, else the command fails naming
// BATON_HOME; never in the working directory.
func TestHomeResolution(t *testing.T) {
	root := t.TempDir()
	batonHome, userHome, dsn := filepath.Join(root, "baton-home"), filepath.Join(root, "user-home"), filepath.Join(root, "x.db")
	setHome, setUser, setDSN := "BATON_HOME="+batonHome, userHomeVar()+"="+userHome, "BATON_DSN="+dsn
	cases := []struct {
		name   string
		env    []string
		args   []string
		status int
		store  string // the file the store must be in; "" means none is made
	}{
		{"BATON_HOME alone", []string{setHome}, []string{"briefing"}, 0, filepath.Join(batonHome, "baton.db")},
		{"the home directory alone", []string{setUser}, []string{"briefing"}, 0, filepath.Join(userHome, ".baton", "baton.db")},
		{"BATON_HOME wins over the home directory", []string{setHome, setUser}, []string{"briefing"}, 0, filepath.Join(batonHome, "baton.db")},
		{"an empty BATON_HOME is unset", []string{"BATON_HOME=", setUser}, []string{"briefing"}, 0, filepath.Join(userHome, ".baton", "baton.db")},
		{"BATON_DSN needs no home", []string{setDSN}, []string{"briefing"}, 0, dsn},
		// A relative BATON_HOME would put a store and verbatim bottles in
		// each directory a command runs in (a hook's is the project's).
		{"a relative BATON_HOME fails", []string{"BATON_HOME=.baton", setUser}, []string{"briefing"}, 1, ""},
		{"an unexpanded ~ in BATON_HOME fails", []string{"BATON_HOME=~/.baton", setUser}, []string{"remember", "--topic", "t", "x"}, 1, ""},
		{"a relative BATON_HOME: the hook keeps nothing here", []string{"BATON_HOME=rel", setUser}, []string{"hook", "end", "--harness", "codex"}, 0, ""},
		{"no home: briefing fails", nil, []string{"briefing"}, 1, ""},
		{"no home: remember fails", nil, []string{"remember", "--topic", "t", "x"}, 1, ""},
		{"no home: bottle show fails", []string{setDSN}, []string{"bottle", "show", "s1"}, 1, ""},
		{"no home: the demo makes its own", nil, []string{"demo"}, 0, ""},
		{"no home: version", nil, []string{"version"}, 0, ""},
	}
	for _, tc := range cases {
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		cwd := filepath.Join(root, "cwd")
		if err := os.MkdirAll(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		_, stderr, status := baton(t, cwd, tc.env, tc.args...)
		if status != tc.status {
			t.Errorf("%s: exit status %d, want %d\nstderr: %s", tc.name, status, tc.status, stderr)
		}
		if (tc.status != 0 || strings.Contains(tc.name, "relative")) && !strings.Contains(stderr, "set BATON_HOME") {
			t.Errorf("%s: stderr does not name BATON_HOME:\n%s", tc.name, stderr)
		}
		if left, _ := os.ReadDir(cwd); len(left) != 0 {
			t.Errorf("%s: the working directory holds %s", tc.name, left[0].Name())
		}
		for _, f := range []string{filepath.Join(batonHome, "baton.db"), filepath.Join(userHome, ".baton", "baton.db"), dsn} {
			if _, err := os.Stat(f); (err == nil) != (f == tc.store) {
				t.Errorf("%s: %s exists: %v, want %v", tc.name, f, err == nil, f == tc.store)
			}
		}
	}
}

// TestExplicitDSNDirectoryMustExist runs every command that opens the
// store with an explicit DSN (--dsn, BATON_DSN) naming a SQLite file in a
// directory that does not exist: each fails naming the flag or variable
// (the hook exits 0 with its one stderr line, printing nothing on stdout)
// and creates nothing; a mistyped path must not make a tree of
// directories. The default location, BATON_HOME's baton.db, is created
// with its directory, readable by its owner only.
func TestExplicitDSNDirectoryMustExist(t *testing.T) {
	root := t.TempDir()
	home, typo := filepath.Join(root, "home"), filepath.Join(root, "typo", "deeper", "baton.db")
	export := filepath.Join(root, "export.jsonl")
	cases := []struct {
		name   string
		env    []string
		args   []string
		status int
		names  string
	}{
		{"remember", []string{"BATON_DSN=" + typo}, []string{"remember", "--topic", "t", "x"}, 1, "BATON_DSN"},
		{"briefing", []string{"BATON_DSN=" + typo}, []string{"briefing"}, 1, "BATON_DSN"},
		{"resolve", []string{"BATON_DSN=" + typo}, []string{"resolve", "01a23cb6-459f-790c-877c-7a447f321ce4"}, 1, "BATON_DSN"},
		{"doctor", []string{"BATON_DSN=" + typo}, []string{"doctor"}, 1, "BATON_DSN"},
		{"export", []string{"BATON_DSN=" + typo}, []string{"export"}, 1, "BATON_DSN"},
		{"import", []string{"BATON_DSN=" + typo}, []string{"import", export}, 1, "BATON_DSN"},
		{"forget", []string{"BATON_DSN=" + typo}, []string{"forget", "--yes"}, 1, "BATON_DSN"},
		{"worker --dsn", nil, []string{"worker", "--once", "--dsn", typo}, 1, "--dsn"},
		{"worker BATON_DSN", []string{"BATON_DSN=" + typo}, []string{"worker", "--once"}, 1, "BATON_DSN"},
		{"--dsn wins over BATON_DSN", []string{"BATON_DSN=" + filepath.Join(root, "ok.db")}, []string{"worker", "--once", "--dsn", typo}, 1, "--dsn"},
		{"serve --dsn", nil, []string{"serve", "--addr", "127.0.0.1:0", "--dsn", typo}, 1, "--dsn"},
		{"serve BATON_DSN", []string{"BATON_DSN=" + typo}, []string{"serve", "--addr", "127.0.0.1:0"}, 1, "BATON_DSN"},
		{"hook", []string{"BATON_DSN=" + typo}, []string{"hook", "end", "--harness", "codex"}, 0, "BATON_DSN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.RemoveAll(root); err != nil {
				t.Fatal(err)
			}
			cwd := filepath.Join(root, "cwd")
			if err := os.MkdirAll(cwd, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(export, []byte("{}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			stdin := ""
			if tc.args[0] == "hook" {
				stdin = `{"hook_event_name":"SessionEnd","session_id":"s1","cwd":"` + filepath.ToSlash(cwd) + `"}`
			}
			stdout, stderr, status := batonIn(t, cwd, append(tc.env, "BATON_HOME="+home), stdin, tc.args...)
			if status != tc.status {
				t.Fatalf("exit status %d, want %d\nstderr: %s", status, tc.status, stderr)
			}
			if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(stderr, tc.names+": the SQLite file's directory does not exist") {
				t.Errorf("stderr does not say, on one line, that %s names a missing directory:\n%s", tc.names, stderr)
			}
			if tc.args[0] == "hook" && stdout != "" {
				t.Errorf("the hook printed %q", stdout)
			}
			if _, err := os.Stat(filepath.Join(root, "typo")); err == nil {
				t.Errorf("the mistyped directory was created")
			}
		})
	}

	t.Run("the default location is created", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "a", "home")
		if _, stderr, status := baton(t, t.TempDir(), []string{"BATON_HOME=" + home}, "doctor"); status != 0 {
			t.Fatalf("doctor: exit status %d\nstderr: %s", status, stderr)
		}
		fi, err := os.Stat(filepath.Join(home, "baton.db"))
		if err != nil {
			t.Fatal(err)
		}
		if di, err := os.Stat(home); runtime.GOOS != "windows" && (err != nil || di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600) {
			t.Errorf("home %v, store %v: want 0700 and 0600", di.Mode(), fi.Mode())
		}
	})
}

// TestStopNudgeVariable: BATON_STOP_NUDGE turns the Stop nudge on only when
// it is exactly 1; space around it, another spelling of true, 0 or nothing
// leave it off.
func TestStopNudgeVariable(t *testing.T) {
	for _, tc := range []struct {
		value string
		on    bool
	}{
		{"1", true},
		{" 1", false},
		{"1 ", false},
		{"true", false},
		{"yes", false},
		{"0", false},
		{"", false},
	} {
		t.Setenv("BATON_STOP_NUDGE", tc.value)
		if got := EnvFromOS().StopNudge; got != tc.on {
			t.Errorf("BATON_STOP_NUDGE=%q: the nudge is %v, want %v", tc.value, got, tc.on)
		}
	}
}
