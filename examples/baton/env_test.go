package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
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
		{"a relative BATON_DSN fails", []string{setHome, "BATON_DSN=rel.db"}, []string{"briefing"}, 1, "", "BATON_DSN: is neither"},
		{"a BATON_DSN in a subdirectory fails", []string{setHome, "BATON_DSN=" + filepath.Join("sub", "x.db")}, []string{"remember", "--topic", "t", "x"}, 1, "", "BATON_DSN: is neither"},
		{"a relative BATON_DSN: the hook keeps nothing here", []string{setHome, "BATON_DSN=./rel.db"}, []string{"hook", "end", "--harness", "codex"}, 0, "", "record the failure: invalid: invalid input (BATON_DSN: is neither"},
		{"a relative BATON_DSN: the worker fails", []string{setHome, "BATON_DSN=rel.db"}, []string{"worker", "--once"}, 1, "", "BATON_DSN: is neither"},
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
		{"BATON_HOME is a file", file, "", []string{"briefing"}, []string{"BATON_HOME: " + strconv.Quote(file) + " is not a directory"}},
		{"BATON_DSN is a directory", root, root, []string{"remember", "--topic", "t", "x"}, []string{root + " (BATON_DSN)", "cannot create or open the database file"}},
		{"--dsn is a directory", root, "", []string{"worker", "--once", "--dsn", root}, []string{root + " (--dsn)"}},
		{"serve --dsn is a directory", root, "", []string{"serve", "--addr", "127.0.0.1:0", "--no-worker", "--dsn", root}, []string{root + " (--dsn)"}},
		{"BATON_DSN is an unreachable Postgres", root, pgURL, []string{"doctor"}, []string{"the Postgres store BATON_DSN names", "cannot reach the Postgres server"}},
		{"BATON_DSN is another URL", root, "mysql://u:" + password + "@db/x", []string{"doctor"}, []string{"the store BATON_DSN names", "neither a postgres:// or postgresql:// URL"}},
		{"--dsn is a libpq string", root, "", []string{"worker", "--once", "--dsn", "host=db password=" + password}, []string{"the store --dsn names", "key=value"}},
		// A URL the store reads as a relative file path (a directory
		// before it) is still a URL to whoever typed it: named by the
		// variable, never echoed. (Space before its scheme is refused
		// before any store is opened: TestWorkerRefuses.)
		{"--dsn is a URL under a directory", root, "", []string{"worker", "--once", "--dsn", "x/postgres://u:" + password + "@127.0.0.1:1/x"}, []string{"the store --dsn names"}},
		{"BATON_DSN is a URL under a directory", root, root + "/x/postgres://u:" + password + "@db/x", []string{"doctor"}, []string{"the store BATON_DSN names"}},
		// A hook's one line says as much (it exits 0).
		{"hook: BATON_HOME is a file", file, "", []string{"hook", "end", "--harness", "codex"}, []string{"BATON_HOME: " + strconv.Quote(file) + " is not a directory"}},
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
			stderr, status, want := runRefused(t, env, args)
			if status != want || !strings.Contains(stderr, "BATON_TENANT") {
				t.Errorf("BATON_TENANT=%q %v: status %d, stderr %q; want %d naming BATON_TENANT", tenant, args, status, stderr, want)
			}
			if _, err := os.Stat(env.DSN); err == nil {
				t.Errorf("BATON_TENANT=%q %v: a store was opened", tenant, args)
			}
		}
	}
}

// TestHomeThatCannotBeUsed runs every command that keeps, reads or prunes
// bottles under BATON_HOME (and, with the default store, every command that
// opens it) with a home baton must not use: a regular file, a symbolic link
// loop or a link to nothing, a path with space at either end (which would
// create a directory beside the one meant), one holding a NUL, a relative
// one, and the file system's root (baton.db and bottles/ among the system's
// directories, forget removing that bottles/). Each fails naming
// BATON_HOME, the hook exiting 0 with its one line and, when the store is
// another (BATON_DSN), a receipt and its failure in the ledger; none
// creates anything.
func TestHomeThatCannotBeUsed(t *testing.T) {
	root := t.TempDir()
	file, loop, dangling := filepath.Join(root, "a-file"), filepath.Join(root, "loop"), filepath.Join(root, "dangling")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	links := os.Symlink(loop+"2", loop) == nil && os.Symlink(loop, loop+"2") == nil && os.Symlink(filepath.Join(root, "nothing"), dangling) == nil
	fsRoot := filepath.VolumeName(root) + string(filepath.Separator)
	homes := []struct {
		name, home, says string
		link, isRoot     bool
	}{
		{"a regular file", file, "is not a directory", false, false},
		{"a symbolic link loop", loop, "cannot be used", true, false},
		{"a link to nothing", dangling, "is a symbolic link to nothing", true, false},
		{"space after it", filepath.Join(root, "home") + " ", "has space at its start or end", false, false},
		{"a tab before it", "\t" + filepath.Join(root, "home"), "has space at its start or end", false, false},
		{"a NUL in it", filepath.Join(root, "a\x00b"), "holds a NUL byte", false, false},
		{"relative", "home", "is not an absolute path", false, false},
		{"the root", fsRoot, "is the root of the file system", false, true},
	}
	hookStdin := `{"session_id":"s1","hook_event_name":"SessionEnd","cwd":` + quote(root) + `}`
	commands := [][]string{
		{"hook", "end", "--harness", "codex"},
		{"briefing"},
		{"bottle", "show", "s1"},
		{"bottle", "render", "--transcript", file, "--keep"},
		{"export", "--out", filepath.Join(t.TempDir(), "export.jsonl")},
		{"forget", "--yes"},
		{"worker", "--once"},
		{"serve", "--addr", "127.0.0.1:0"},
	}
	before := dirNames(t, root)
	rootHad := map[string]bool{}
	for _, f := range []string{"baton.db", "bottles"} {
		_, err := os.Lstat(filepath.Join(fsRoot, f))
		rootHad[f] = err == nil
	}
	for _, h := range homes {
		if h.link && !links {
			continue // no symbolic links here (Windows without the privilege)
		}
		for _, store := range []string{"another", "the default"} {
			if store == "the default" && h.isRoot {
				continue // it would be at the root, and the other store shows the rule
			}
			for _, args := range commands {
				if h.isRoot && args[0] == "forget" {
					continue // it would remove the root's bottles/
				}
				name := fmt.Sprintf("%s, %s store: %v", h.name, store, args)
				env := testEnv(t)
				env.Home = h.home
				if store == "the default" {
					env.DSN = ""
				}
				env.Stdin = strings.NewReader(hookStdin)
				stderr, status, want := runRefused(t, env, args)
				if status != want || !strings.Contains(stderr, "BATON_HOME: ") || !strings.Contains(stderr, h.says) {
					t.Errorf("%s: status %d, stderr %q; want %d saying BATON_HOME %s", name, status, stderr, want, h.says)
				}
				if args[0] == "hook" && (strings.Count(stderr, "\n") != 1 || strings.Count(stderr, h.says) != 1) {
					t.Errorf("%s: stderr %q, want one line saying it once", name, stderr)
				}
				if args[0] == "hook" && store == "another" {
					hookLeftFailure(t, name, env.DSN, h.says)
				}
				if _, err := os.Lstat(h.home); err == nil && !strings.Contains(h.name, "link") && h.home != file && !h.isRoot {
					// A padded or relative home names a path beside (or
					// under the working directory of) the one meant.
					os.RemoveAll(h.home)
					t.Errorf("%s: %q was created", name, h.home)
				}
			}
		}
	}
	after := dirNames(t, root)
	if !slices.Equal(before, after) {
		t.Errorf("the commands created files: %q, was %q", after, before)
	}
	for f, had := range rootHad {
		if _, err := os.Lstat(filepath.Join(fsRoot, f)); !had && err == nil {
			t.Errorf("a command created %s at the root", f)
		}
	}
}

// hookLeftFailure checks that the store dsn holds one receipt and one
// failure whose reason says says.
func hookLeftFailure(t *testing.T, name, dsn, says string) {
	t.Helper()
	env := &Env{DSN: dsn, Tenant: "local"}
	api, done, err := env.Open(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer done()
	ledger, err := api.Ledger(context.Background(), uuid.Nil, 100)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var received, failed int
	for _, e := range ledger {
		switch e.Event {
		case continuity.EventReceived:
			received++
		case continuity.EventFailed:
			failed++
			if !strings.Contains(e.Fields["reason"], "BATON_HOME") || !strings.Contains(e.Fields["reason"], says) {
				t.Errorf("%s: the failure's reason is %q", name, e.Fields["reason"])
			}
		}
	}
	if received != 1 || failed != 1 {
		t.Errorf("%s: %d receipts and %d failures, want 1 and 1: %+v", name, received, failed, ledger)
	}
}

// runRefused runs args, bounded (a serve that starts stops when the context
// ends), and returns its stderr and status and the status a refusal has: a
// hook's is 0, as a hook never blocks the person's work.
func runRefused(t *testing.T, env *Env, args []string) (stderr string, status, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, stderr, status = run(t, env, args, kong.BindTo(ctx, (*context.Context)(nil)))
	if args[0] == "hook" {
		return stderr, status, exitOK
	}
	return stderr, status, exitFailure
}

// TestDSNVariable: a BATON_DSN that is neither a Postgres URL, an absolute
// SQLite path nor :memory: is refused naming it, a blank one as blank (it
// is not a relative path), one with space at an end as such (no variable holds a NUL byte),
// and a relative one as relative; the store is never opened from it.
func TestDSNVariable(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "baton.db")
	for _, tc := range []struct {
		value, says string
	}{
		{" ", "BATON_DSN: is blank"},
		{"\t\n", "BATON_DSN: is blank"},
		{"baton.db", "a relative path would name a store in each working directory"},
		{" " + abs, "BATON_DSN: has space at its start or end"},
		{abs + " ", "BATON_DSN: has space at its start or end"},
		{abs + "\n", "BATON_DSN: has space at its start or end"},
		{filepath.Join(t.TempDir(), "a\tb.db"), ""},
		{abs, ""},
		{":memory:", ""},
		{"postgres://u@127.0.0.1:1/x", ""},
	} {
		t.Setenv("BATON_DSN", tc.value)
		env := EnvFromOS()
		switch {
		case tc.says == "" && (env.badDSN != nil || env.DSN != tc.value):
			t.Errorf("BATON_DSN=%q: DSN %q, error %v; want it kept", tc.value, env.DSN, env.badDSN)
		case tc.says != "" && (env.badDSN == nil || !strings.Contains(env.badDSN.Error(), tc.says) || env.DSN != ""):
			t.Errorf("BATON_DSN=%q: DSN %q, error %v; want none, saying %q", tc.value, env.DSN, env.badDSN, tc.says)
		}
	}
}
