package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

// lapsedRow inserts, into the store at dsn, a session of tenant last seen
// two days ago and never closed.
func lapsedRow(t *testing.T, dsn, tenant, sid string) {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seen := time.Now().Add(-48 * time.Hour)
	err = st.Write(context.Background(), tenant, func(ctx context.Context, tx continuity.Tx) error {
		return tx.InsertSession(ctx, &continuity.Session{ID: uuid.Must(uuid.NewV7()), Agent: defaultAgent, SessionID: sid,
			Source: continuity.SourceStartup, OpenedAt: seen, LastSeenAt: seen, ActivationEpoch: 1, TriageStatus: "idle"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWorkerOnce(t *testing.T) {
	env := testEnv(t)
	lapsedRow(t, env.DSN, "team-a", "s1")
	lapsedRow(t, env.DSN, "team-b", "s1")
	out, stderr, status := run(t, env, []string{"worker", "--once"})
	if status != exitOK || !strings.HasPrefix(out, "swept 2, claimed 0,") {
		t.Fatalf("worker --once: status %d, stdout %q, stderr %q; want both tenants' rows swept", status, out, stderr)
	}
	out, _, status = run(t, env, []string{"worker", "--once", "--dsn", env.DSN})
	if status != exitOK || !strings.HasPrefix(out, "swept 0,") {
		t.Fatalf("a second pass: status %d, stdout %q", status, out)
	}
}

func TestWorkerRefuses(t *testing.T) {
	cases := []struct {
		name   string
		closer bool
		args   []string
		status int
		want   string
	}{
		{"an interval under a second", false, []string{"worker", "--every", "999ms"}, exitFailure, "--every must be at least 1s"},
		{"a malformed interval", false, []string{"worker", "--every", "soon"}, exitUsage, "--every"},
	}
	for _, cmd := range []string{"worker", "serve"} {
		for _, dsn := range []struct{ name, value, says string }{
			{"a blank --dsn", " ", "--dsn: is blank"},
			{"a --dsn with a trailing space", filepath.Join(os.TempDir(), "baton-x.db") + " ", "--dsn: has space at its start or end"},
			{"a --dsn with a leading tab", "\tpostgres://u:s3cret-pw@127.0.0.1:1/x", "--dsn: has space at its start or end"},
			{"a --dsn with a NUL byte", "postgres://u@127.0.0.1:1/x\x00y", "--dsn: holds a NUL byte"},
		} {
			cases = append(cases, struct {
				name   string
				closer bool
				args   []string
				status int
				want   string
			}{cmd + ": " + dsn.name, false, []string{cmd, "--dsn", dsn.value}, exitUsage, dsn.says})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := testEnv(t)
			env.Closer = tc.closer
			_, stderr, status := run(t, env, tc.args)
			if status != tc.status || !strings.Contains(stderr, tc.want) {
				t.Fatalf("status %d, stderr %q; want %d mentioning %q", status, stderr, tc.status, tc.want)
			}
			if _, err := os.Stat(env.DSN); err == nil {
				t.Error("the store was opened")
			}
			if strings.Contains(stderr, "s3cret-pw") {
				t.Errorf("stderr carries the password: %q", stderr)
			}
		})
	}
}

// doneJudge finds every commitment it is shown done.
type doneJudge struct{}

func (doneJudge) Judge(_ context.Context, c continuity.JudgeCase) (continuity.Verdict, error) {
	var v continuity.Verdict
	for _, m := range c.Commitments {
		v.Completed = append(v.Completed, m.ID)
	}
	return v, nil
}

// startWorker runs the worker as serve does, in the background, and
// returns the function that stops it and waits for its pass to end.
func startWorker(ctx context.Context, svc *continuity.Service, cfg WorkerConfig, log io.Writer) (stop func(), err error) {
	run, err := cfg.runner(log)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); run(ctx, svc) }()
	return func() { cancel(); <-done }, nil
}

func TestStartWorker(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t)
	svc, done, err := env.openService(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if _, err := startWorker(ctx, svc, WorkerConfig{Every: time.Second - time.Nanosecond}, &lockedBuffer{}); err == nil {
		t.Fatal("the worker accepted an interval under a second")
	}
	if _, err := startWorker(ctx, svc, WorkerConfig{Every: time.Second, Closer: true}, &lockedBuffer{}); err == nil {
		t.Fatal("the worker started the closer without a judge")
	}
	if _, err := startWorker(ctx, svc, WorkerConfig{Every: time.Second, Batch: continuity.MaxDiscover + 1}, &lockedBuffer{}); err == nil {
		t.Fatal("the worker accepted a batch over MaxDiscover")
	}

	// A conversation that briefed one commitment ended; the closer, on,
	// resolves it in the first pass, which runs at once.
	m, err := svc.Remember(ctx, "team-a", continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "t", Content: "ship", Actor: continuity.ActorUserCLI})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Open(ctx, "team-a", continuity.OpenParams{Agent: defaultAgent, SessionID: "s1", Source: continuity.SourceStartup,
		BriefedMemories: []continuity.BriefedMemory{{ID: m.ID, Topic: "t", Status: "open"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Close(ctx, "team-a", continuity.CloseParams{Agent: defaultAgent, SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	stop, err := startWorker(ctx, svc, WorkerConfig{Every: time.Hour, Closer: true, Judge: doneJudge{}, Batch: 10}, log)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(log.String(), "resolved 1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if got := log.String(); got != "baton worker: swept 0, claimed 1, finished 1, resolved 1, failed 0, abandoned 0, skipped 0, pruned 0, pruned bottles 0\n" {
		t.Fatalf("log = %q", got)
	}
	v, err := svc.For("team-a").Session(ctx, defaultAgent, "s1")
	if err != nil || v.LastMessageExcerpt != "" || v.CloserNextAt != nil {
		t.Fatalf("row after the pass: %+v %v", v, err)
	}
}

// TestReportPass: a pass that did something or failed is one line of the
// log, whatever its errors hold.
func TestReportPass(t *testing.T) {
	cases := []struct {
		name string
		r    continuity.WorkerResult
		err  error
		want string
	}{
		{"an idle pass says nothing", continuity.WorkerResult{}, nil, ""},
		{"a pass that swept", continuity.WorkerResult{Swept: 2}, nil, "baton worker: swept 2, claimed 0, finished 0, resolved 0, failed 0, abandoned 0, skipped 0, pruned 0, pruned bottles 0\n"},
		{"a failed pass says so", continuity.WorkerResult{Failed: 1}, continuity.Errorf(continuity.CodeInternal, "the closer's judge failed"),
			"baton worker: pass failed: internal: the closer's judge failed (swept 0, claimed 0, finished 0, resolved 0, failed 1, abandoned 0, skipped 0, pruned 0, pruned bottles 0)\n"},
		{"a pass's failures on one line, their characters shown", continuity.WorkerResult{Failed: 2},
			errors.Join(errors.New("tenant a: \x1b]0;t\x07\r\u202ex"), errors.New("tenant b: /home/d\nbaton worker: fine")),
			"baton worker: pass failed: tenant a: <U+001B>]0;t<U+0007><U+000D><U+202E>x; tenant b: /home/d<U+000A>baton worker: fine (swept 0, claimed 0, finished 0, resolved 0, failed 2, abandoned 0, skipped 0, pruned 0, pruned bottles 0)\n"},
	}
	for _, tc := range cases {
		var b bytes.Buffer
		reportPass(&b, tc.r, tc.err)
		if b.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestCloserNeedsAJudge: the closer never runs without a judge; the binary
// binds the reference judge, so BATON_CLOSER=1 runs it.
func TestCloserNeedsAJudge(t *testing.T) {
	if _, err := (WorkerConfig{Every: time.Minute, Closer: true}).options(io.Discard); err == nil || !strings.Contains(err.Error(), "BATON_CLOSER=1 needs a judge") {
		t.Fatalf("the closer without a judge: %v", err)
	}
	if closerJudge == nil {
		t.Fatal("the binary binds no judge for the closer")
	}
	env := testEnv(t)
	env.Closer = true
	stdout, stderr, status := run(t, env, []string{"worker", "--once"})
	if status != exitOK || !strings.HasPrefix(stdout, "swept 0, claimed 0") {
		t.Fatalf("worker --once with the closer on: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
}

// brokenStdout is a stdout whose every write fails, as /dev/full's does.
type brokenStdout struct{}

func (brokenStdout) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestStdoutWriteFails runs each command that prints with a stdout that
// refuses every write: the command fails (exit 1) naming the write, rather
// than exiting 0 with nothing printed, so a script sees that it holds no
// answer.
func TestStdoutWriteFails(t *testing.T) {
	transcript, err := filepath.Abs(filepath.Join("testdata", "demo-transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"version"},
		{"remember", "--topic", "t", "x"},
		{"briefing"},
		{"briefing", "--json"},
		{"doctor"},
		{"doctor", "--json"},
		{"export"},
		{"bottle", "render", "--transcript", transcript},
		{"worker", "--once"},
	} {
		env := testEnv(t)
		var stderr bytes.Buffer
		env.Stdout, env.Stderr = brokenStdout{}, &stderr
		if status := execute(args, env); status != exitFailure {
			t.Errorf("%v: status %d, want %d; stderr %q", args, status, exitFailure, stderr.String())
		}
		if !strings.Contains(stderr.String(), "baton: ") {
			t.Errorf("%v: stderr %q says nothing", args, stderr.String())
		}
	}
}
