package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/continuity"
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
		says   string // what stderr must hold; "" means anything
	}{
		{"BATON_HOME alone", []string{setHome}, []string{"briefing"}, 0, filepath.Join(batonHome, "baton.db"), ""},
		{"the home directory alone", []string{setUser}, []string{"briefing"}, 0, filepath.Join(userHome, ".baton", "baton.db"), ""},
		{"BATON_HOME wins over the home directory", []string{setHome, setUser}, []string{"briefing"}, 0, filepath.Join(batonHome, "baton.db"), ""},
		{"an empty BATON_HOME is unset", []string{"BATON_HOME=", setUser}, []string{"briefing"}, 0, filepath.Join(userHome, ".baton", "baton.db"), ""},
		{"BATON_DSN needs no home", []string{setDSN}, []string{"briefing"}, 0, dsn, ""},
		// A relative BATON_HOME would put a store and verbatim bottles in
		// each directory a command runs in (a hook's is the project's).
		{"a relative BATON_HOME fails", []string{"BATON_HOME=.baton", setUser}, []string{"briefing"}, 1, "", "set BATON_HOME"},
		{"an unexpanded ~ in BATON_HOME fails", []string{"BATON_HOME=~/.baton", setUser}, []string{"remember", "--topic", "t", "x"}, 1, "", "set BATON_HOME"},
		{"a relative BATON_HOME: the hook keeps nothing here", []string{"BATON_HOME=rel", setUser}, []string{"hook", "end", "--harness", "codex"}, 0, "", "set BATON_HOME"},
		// So would a relative SQLite BATON_DSN, whatever the home.
		{"a relative BATON_DSN fails", []string{setHome, "BATON_DSN=rel.db"}, []string{"briefing"}, 1, "", "BATON_DSN is neither"},
		{"a BATON_DSN in a subdirectory fails", []string{setHome, "BATON_DSN=" + filepath.Join("sub", "x.db")}, []string{"remember", "--topic", "t", "x"}, 1, "", "BATON_DSN is neither"},
		{"a relative BATON_DSN: the hook keeps nothing here", []string{setHome, "BATON_DSN=./rel.db"}, []string{"hook", "end", "--harness", "codex"}, 0, "", "BATON_DSN is neither"},
		{"a relative BATON_DSN: the worker fails", []string{setHome, "BATON_DSN=rel.db"}, []string{"worker", "--once"}, 1, "", "BATON_DSN is neither"},
		{"a relative BATON_DSN: --dsn wins", []string{setHome, "BATON_DSN=rel.db"}, []string{"worker", "--once", "--dsn", dsn}, 0, dsn, ""},
		{"no home: briefing fails", nil, []string{"briefing"}, 1, "", "set BATON_HOME"},
		{"no home: remember fails", nil, []string{"remember", "--topic", "t", "x"}, 1, "", "set BATON_HOME"},
		{"no home: bottle show fails", []string{setDSN}, []string{"bottle", "show", "s1"}, 1, "", "set BATON_HOME"},
		{"no home: the demo makes its own", nil, []string{"demo"}, 0, "", ""},
		{"no home: version", nil, []string{"version"}, 0, "", ""},
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
		if !strings.Contains(stderr, tc.says) {
			t.Errorf("%s: stderr does not say %q:\n%s", tc.name, tc.says, stderr)
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
			if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(stderr, "("+tc.names+") cannot be opened: the SQLite file's directory does not exist") {
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

// TestStoreOpenErrorsNameTheStore: when the store cannot be opened, the
// error names the file and what named it (BATON_HOME, BATON_DSN or --dsn),
// so the person knows what to fix; a Postgres URL is named by its
// variable, never echoed (it may hold a password).
func TestStoreOpenErrorsNameTheStore(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const password = "s3cret-pw"
	pgURL := "postgres://u:" + password + "@127.0.0.1:1/x?sslmode=disable&connect_timeout=1"
	cases := []struct {
		name      string
		home, dsn string
		args      []string
		says      []string
	}{
		{"BATON_HOME is a file", file, "", []string{"briefing"}, []string{filepath.Join(file, "baton.db"), "BATON_HOME", "cannot create the database directory"}},
		{"BATON_DSN is a directory", root, root, []string{"remember", "--topic", "t", "x"}, []string{root + " (BATON_DSN)", "cannot create or open the database file"}},
		{"--dsn is a directory", file, "", []string{"worker", "--once", "--dsn", root}, []string{root + " (--dsn)"}},
		{"serve --dsn is a directory", file, "", []string{"serve", "--addr", "127.0.0.1:0", "--no-worker", "--dsn", root}, []string{root + " (--dsn)"}},
		{"BATON_DSN is an unreachable Postgres", root, pgURL, []string{"doctor"}, []string{"the Postgres store BATON_DSN names", "cannot reach the Postgres server"}},
		{"BATON_DSN is another URL", root, "mysql://u:" + password + "@db/x", []string{"doctor"}, []string{"the store BATON_DSN names", "neither a postgres:// or postgresql:// URL"}},
		{"--dsn is a libpq string", root, "", []string{"worker", "--once", "--dsn", "host=db password=" + password}, []string{"the store --dsn names", "key=value"}},
		// A URL the store reads as a relative file path (space before
		// its scheme, a directory before it) is still a URL to whoever
		// typed it: named by the flag, never echoed.
		{"--dsn is a Postgres URL after a space", root, "", []string{"worker", "--once", "--dsn", " postgres://u:" + password + "@127.0.0.1:1/x"}, []string{"the store --dsn names"}},
		{"serve --dsn is a Postgres URL after a space", root, "", []string{"serve", "--addr", "127.0.0.1:0", "--no-worker", "--dsn", "\tpostgres://u:" + password + "@127.0.0.1:1/x"}, []string{"the store --dsn names"}},
		{"BATON_DSN is a URL under a directory", root, root + "/x/postgres://u:" + password + "@db/x", []string{"doctor"}, []string{"the store BATON_DSN names"}},
		// A hook's one line says as much (it exits 0).
		{"hook: BATON_HOME is a file", file, "", []string{"hook", "end", "--harness", "codex"}, []string{filepath.Join(file, "baton.db") + " (BATON_HOME)", "not a directory"}},
	}
	for _, tc := range cases {
		env := testEnv(t)
		env.Home, env.DSN = tc.home, tc.dsn
		env.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"/tmp"}`)
		_, stderr, status := run(t, env, tc.args)
		want := exitFailure
		if tc.args[0] == "hook" {
			want = exitOK // a hook never blocks the person's work
		}
		if status != want {
			t.Errorf("%s: status %d, want %d; stderr %q", tc.name, status, want, stderr)
		}
		for _, want := range tc.says {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr %q does not say %q", tc.name, stderr, want)
			}
		}
		if strings.Contains(stderr, password) {
			t.Errorf("%s: stderr carries the password: %q", tc.name, stderr)
		}
	}
}

// TestBadTenantNamesTheVariable: a BATON_TENANT the service refuses (NUL,
// not UTF-8, too long, only space) fails each command that acts as the
// local tenant naming BATON_TENANT, before a store is opened; serve without
// keys used to start and answer every request 400 "tenant: is required",
// which no client can fix.
func TestBadTenantNamesTheVariable(t *testing.T) {
	tenants := []string{"a\x00b", "\xff", strings.Repeat("t", continuity.MaxTenantLen+1), " ", "\t\n"}
	commands := [][]string{
		{"remember", "--topic", "t", "x"},
		{"briefing"},
		{"export"},
		{"hook", "end", "--harness", "codex"},
		{"serve", "--addr", "127.0.0.1:0", "--no-worker"},
	}
	for _, tenant := range tenants {
		for _, args := range commands {
			env := testEnv(t)
			env.Tenant = tenant
			env.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"/tmp"}`)
			// A serve that starts stops when the context ends.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			_, stderr, status := run(t, env, args, kong.BindTo(ctx, (*context.Context)(nil)))
			cancel()
			want := exitFailure
			if args[0] == "hook" {
				want = exitOK // a hook never blocks the person's work
			}
			if status != want || !strings.Contains(stderr, "BATON_TENANT") {
				t.Errorf("BATON_TENANT=%q %v: status %d, stderr %q; want %d naming BATON_TENANT", tenant, args, status, stderr, want)
			}
			if _, err := os.Stat(env.DSN); err == nil {
				t.Errorf("BATON_TENANT=%q %v: a store was opened", tenant, args)
			}
		}
	}
}
