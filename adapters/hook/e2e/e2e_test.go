//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

// gateVar turns the tests on; .ci/run sets it.
const gateVar = "BATON_E2E"

// client is one real client at its pinned version: where .ci/run installs
// it (npm install --prefix CACHE/dir pkg) and the variable it exports the
// binary's path in.
type client struct {
	name    string // as a person calls it, for messages
	pkg     string // the npm package at the pinned version
	version string // what `BIN --version` prints
	dir     string // the install prefix under the cache directory
	bin     string // the binary under node_modules/.bin
	envVar  string // the path .ci/run exports
}

var (
	claudeClient = client{name: "Claude Code", pkg: "@anthropic-ai/claude-code@2.1.328", version: "2.1.328",
		dir: "claude-code@2.1.328", bin: "claude", envVar: "BATON_E2E_CLAUDE"}
	codexClient = client{name: "Codex CLI", pkg: "@openai/codex@0.169.0", version: "0.169.0",
		dir: "codex@0.169.0", bin: "codex", envVar: "BATON_E2E_CODEX"}
	geminiClient = client{name: "Gemini CLI", pkg: "@google/gemini-cli@0.61.0", version: "0.61.0",
		dir: "gemini@0.61.0", bin: "gemini", envVar: "BATON_E2E_GEMINI"}
)

// cacheDir is where .ci/run installs the clients when it is not told
// otherwise: $BATON_E2E_CACHE, else baton-e2e in the user's cache directory.
func cacheDir() string {
	if d := os.Getenv("BATON_E2E_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "baton-e2e")
}

// loudSkip skips t and says why on stderr too, so that a skipped
// end-to-end test shows without -v.
func loudSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "SKIP %s: %s\n", t.Name(), msg)
	t.Skip(msg)
}

// requireClient returns the path of c's binary, or skips (outside CI) or
// fails (in CI) when the tests are off or the binary cannot be run.
func requireClient(t *testing.T, c client) string {
	t.Helper()
	if os.Getenv(gateVar) != "1" {
		loudSkip(t, "%s is not set: the end-to-end test against the real %s runs in .ci/run (set %s=1, and %s to the binary, to run it here)",
			gateVar, c.name, gateVar, c.envVar)
	}
	path := os.Getenv(c.envVar)
	if path == "" {
		path = filepath.Join(cacheDir(), c.dir, "node_modules", ".bin", c.bin)
	}
	fail := func(why error) {
		msg := fmt.Sprintf("the real %s cannot be run from %s (%v): install it with `npm install --prefix %s %s` or set %s",
			c.name, path, why, filepath.Join(cacheDir(), c.dir), c.pkg, c.envVar)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		loudSkip(t, "%s", msg)
	}
	if _, err := exec.LookPath(path); err != nil {
		fail(err)
	}
	// The pinned version, or the payloads the tests rely on may differ.
	cmd := exec.Command(path, "--version")
	cmd.Env = append(cleanEnv(), "HOME="+t.TempDir())
	out, err := runBounded(cmd, 60*time.Second)
	if err != nil {
		fail(fmt.Errorf("--version: %v: %s", err, tail(out, 400)))
	}
	if !strings.Contains(out, c.version) {
		fail(fmt.Errorf("--version printed %q, want %s", strings.TrimSpace(tail(out, 200)), c.version))
	}
	return path
}

// The baton binary, built once per test process into a directory TestMain
// removes.
var (
	batonOnce sync.Once
	batonDir  string
	batonPath string
	batonErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if batonDir != "" {
		os.RemoveAll(batonDir)
	}
	os.Exit(code)
}

// batonBinary builds examples/baton once, as the README's quick start
// does (with -tags cgosqlite where cgo can build), and returns its path.
func batonBinary(t *testing.T) string {
	t.Helper()
	batonOnce.Do(func() {
		batonDir, batonErr = os.MkdirTemp("", "baton-e2e-bin-")
		if batonErr != nil {
			return
		}
		batonPath = filepath.Join(batonDir, "baton")
		args := []string{"build", "-o", batonPath}
		if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err == nil && strings.TrimSpace(string(out)) == "1" {
			// The README's build: SQLite's C library where cgo can
			// build it.
			args = append(args, "-tags", "cgosqlite")
		}
		cmd := exec.Command("go", append(args, "github.com/batonhq/baton/examples/baton")...)
		out, err := runBounded(cmd, 5*time.Minute)
		if err != nil {
			batonErr = fmt.Errorf("go build ./examples/baton: %v\n%s", err, out)
		}
	})
	if batonErr != nil {
		t.Fatal(batonErr)
	}
	return batonPath
}

// runBounded runs cmd in its own process group with a deadline, kills the
// group when the deadline passes, and returns its combined output.
func runBounded(cmd *exec.Cmd, timeout time.Duration) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := startBounded(cmd, timeout)
	return out.String(), err
}

// startBounded runs cmd to its end within timeout. The command runs in a
// process group of its own so that a timeout kills what it started too
// (node children, hook processes); after it exits, the group's stragglers
// (a hook the client did not wait for) get a short grace, then are killed.
func startBounded(cmd *exec.Cmd, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("killed after %s: %w", timeout, ctx.Err())
	}
	awaitGroup(pgid, 10*time.Second)
	return err
}

// awaitGroup waits until no process of the group is left, at most grace,
// then kills what remains.
func awaitGroup(pgid int, grace time.Duration) {
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// cleanEnv is the test's environment without what would point a client or
// baton anywhere but the temporary world: the clients' and models'
// variables, baton's, HOME and the XDG directories.
func cleanEnv() []string {
	drop := []string{"ANTHROPIC_", "CLAUDE", "OPENAI_", "CODEX_", "GEMINI_", "GOOGLE_", "BATON_", "XDG_", "HOME=", "MOCK_API_KEY="}
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, p := range drop {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// world is one temporary machine: a HOME, a BATON_HOME, a project that is a
// git repository, the baton binary on PATH, and the log of every process
// run in it (printed when the test fails).
type world struct {
	t         *testing.T
	root      string
	home      string
	batonHome string
	project   string
	baton     string
	env       []string
	// team is the world's team server, when its baton processes use one.
	team *teamServer

	mu   sync.Mutex
	logs []string
}

// projectName is the project facet the hooks and the CLI derive from the
// project directory.
const projectName = "e2e-project"

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, root: root, home: filepath.Join(root, "home"), batonHome: filepath.Join(root, "baton-home"),
		project: filepath.Join(root, projectName), baton: batonBinary(t)}
	for _, d := range []string{w.home, w.batonHome, w.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = append(cleanEnv(),
		"HOME="+w.home,
		"BATON_HOME="+w.batonHome,
		"PATH="+filepath.Dir(w.baton)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(w.home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(w.home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(w.home, ".local", "state"),
		"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
	)
	w.must(w.run(30*time.Second, nil, "git", "init", "-q"))
	w.must(w.run(30*time.Second, nil, "git", "commit", "-q", "--allow-empty", "-m", "e2e: the first commit"))
	t.Cleanup(func() {
		if t.Failed() {
			w.mu.Lock()
			defer w.mu.Unlock()
			for _, l := range w.logs {
				t.Log(l)
			}
		}
	})
	return w
}

// exec runs name in the project directory with the world's environment
// plus extra, bounded by timeout, and returns its stdout; its stdout and
// stderr are kept for the failure log.
func (w *world) run(timeout time.Duration, extra []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = w.project
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := startBounded(cmd, timeout)
	w.mu.Lock()
	w.logs = append(w.logs, fmt.Sprintf("$ %s %s  (%s, err=%v)\n--- stdout\n%s\n--- stderr\n%s",
		name, strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err,
		tail(stdout.String(), 4000), tail(stderr.String(), 4000)))
	w.mu.Unlock()
	if err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w (stderr: %s)", filepath.Base(name), strings.Join(args, " "), err, tail(stderr.String(), 600))
	}
	return stdout.String(), nil
}

// must fails the test on err and returns out.
func (w *world) must(out string, err error) string {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

// runBaton runs the baton binary in the world.
func (w *world) runBaton(args ...string) string {
	w.t.Helper()
	return w.must(w.run(60*time.Second, nil, w.baton, args...))
}

// install runs `baton install --harness NAME` and returns the path of the
// config file it names, read back for the failure log.
func (w *world) install(harness string, files ...string) {
	w.t.Helper()
	w.runBaton("install", "--harness", harness)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			w.t.Fatalf("baton install --harness %s did not write %s: %v", harness, f, err)
		}
		w.mu.Lock()
		w.logs = append(w.logs, "--- "+f+" after baton install\n"+string(b))
		w.mu.Unlock()
	}
}

// writeFile writes a file of the world, creating its directory.
func (w *world) writeFile(path, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// store opens the world's store through the library, as the hooks do, and
// returns the local tenant's API; it is closed when the test ends. With a
// team server, it is the server's client for the world's key.
func (w *world) store() continuity.API {
	w.t.Helper()
	if w.team != nil {
		return w.team.client
	}
	st, err := sqlstore.Open(context.Background(), filepath.Join(w.batonHome, "baton.db"))
	if err != nil {
		w.t.Fatalf("open the store the hooks wrote: %v", err)
	}
	w.t.Cleanup(func() { st.Close() })
	return continuity.New(st).For("local")
}

// ledger reads the whole ledger, oldest first.
func ledger(t *testing.T, api continuity.API) []continuity.LedgerEntry {
	t.Helper()
	var all []continuity.LedgerEntry
	after := uuid.Nil
	for {
		page, err := api.Ledger(context.Background(), after, continuity.MaxLedgerRead)
		if err != nil {
			t.Fatalf("ledger: %v", err)
		}
		all = append(all, page...)
		if len(page) < continuity.MaxLedgerRead {
			return all
		}
		after = page[len(page)-1].ID
	}
}

// receipts returns the provider events received for the session, in order
// ("SessionStart", "Stop", ...), and the agent the receipts name.
func receipts(entries []continuity.LedgerEntry, sessionID string) []string {
	var out []string
	for _, e := range entries {
		if e.Event == continuity.EventReceived && e.Session == sessionID {
			out = append(out, e.Fields["provider_event"])
		}
	}
	return out
}

// failures returns the provider.event.failed lines, for messages.
func failures(entries []continuity.LedgerEntry) []string {
	var out []string
	for _, e := range entries {
		if e.Event == continuity.EventFailed {
			out = append(out, fmt.Sprintf("%s %s: %s", e.Fields["provider_event"], e.Session, e.Fields["reason"]))
		}
	}
	return out
}

// sessionsOf returns the session ids the ledger received events for, in
// order of first appearance, with the agent their receipts name.
func sessionsOf(entries []continuity.LedgerEntry) (ids []string, agent map[string]string) {
	agent = map[string]string{}
	for _, e := range entries {
		if e.Event != continuity.EventReceived || e.Session == "" {
			continue
		}
		if _, ok := agent[e.Session]; !ok {
			ids = append(ids, e.Session)
			agent[e.Session] = e.Fields["agent"]
		}
	}
	return ids, agent
}

// session reads a row, failing the test when there is none.
func session(t *testing.T, api continuity.API, agent, sessionID string) continuity.SessionView {
	t.Helper()
	v, err := api.Session(context.Background(), agent, sessionID)
	if err != nil {
		t.Fatalf("session %s/%s: %v", agent, sessionID, err)
	}
	return v
}

// records reads the session's records of a kind, newest first.
func records(t *testing.T, api continuity.API, agent, sessionID string, kind continuity.RecordKind) []continuity.Record {
	t.Helper()
	rs, err := api.Records(context.Background(), continuity.RecordQuery{Agent: agent, SessionID: sessionID,
		Kinds: []continuity.RecordKind{kind}, Limit: continuity.MaxRecords})
	if err != nil {
		t.Fatalf("records: %v", err)
	}
	return rs
}

// runIDPattern finds the sessionRunId a SessionStart injected.
var runIDPattern = regexp.MustCompile(`sessionRunId is ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)

// bottlePointer finds the bottle path a continuation injected: the
// indented line after "Read this file".
var bottlePointer = regexp.MustCompile(`Read (\S+\.md) \(lines`)

// marker returns a random marker for texts the test looks for.
func marker(prefix string) string {
	return prefix + "-" + strings.ReplaceAll(uuid.NewString()[:13], "-", "")
}

// filesContaining returns the files under dir whose bytes contain needle.
func filesContaining(t *testing.T, dir, needle string) []string {
	t.Helper()
	var hits []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(needle)) {
			hits = append(hits, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// readBottle returns a paged bottle whole: its index (at indexPath) and
// every page beside it, in name order.
func readBottle(t *testing.T, indexPath string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(filepath.Dir(indexPath), "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the bottle at %s: %v (%d files)", indexPath, err, len(files))
	}
	slices.Sort(files)
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
