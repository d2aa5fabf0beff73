package hook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

// The hook latency benchmarks run the built `baton` binary as a whole
// process per hook event, as a harness does, beside benchbase (a program
// that opens the same SQLite file and performs one write) measured in the
// same run. bench.sh builds both binaries and the marathon transcript into
// one directory and names it in BATON_BENCH_DIR; without it they skip.

// benchDir is where bench.sh put baton, benchbase and marathon.jsonl.
var benchDir = os.Getenv("BATON_BENCH_DIR")

// benchSession is the session id of the captured Claude Code payloads.
const benchSession = "c96e6033-0cbe-4890-a588-1160d3853949"

// benchEvents are the lifecycle's events, in the order a session sends
// them: the real Claude Code payloads, and `baton version` (the binary's
// own start).
var benchEvents = []struct{ name, payload string }{
	{"start", "stdin-SessionStart-startup.json"},
	{"prompt", "stdin-UserPromptSubmit.json"},
	{"stop", "stdin-Stop.json"},
	{"precompact", "stdin-PreCompact.json"},
	{"end", "stdin-SessionEnd.json"},
	{"version", ""},
}

// procBench runs the processes of one benchmark in a temporary capture
// home (the transcripts at the payloads' paths, the project a git
// repository when git is installed) with its own BATON_HOME.
type procBench struct {
	b                 *testing.B
	home, baton, base string
	stack             string // benchstack
	db                string
	env               []string
	n                 int // payload files written
}

func newProcBench(b *testing.B) *procBench {
	b.Helper()
	if benchDir == "" {
		b.Skip("BATON_BENCH_DIR is unset: run sh adapters/hook/bench.sh")
	}
	home := captureDir(b)
	project := filepath.Join(home, "project")
	if git, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "--allow-empty", "-m", "bench"}} {
			cmd := exec.Command(git, args...)
			cmd.Dir = project
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	p := &procBench{b: b, home: home, baton: filepath.Join(benchDir, "baton"), base: filepath.Join(benchDir, "benchbase"),
		stack: filepath.Join(benchDir, "benchstack"),
		db:    filepath.Join(home, ".baton", "baton.db")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BATON_") && !strings.HasPrefix(kv, "HOME=") {
			p.env = append(p.env, kv)
		}
	}
	p.env = append(p.env, "HOME="+home, "BATON_HOME="+filepath.Join(home, ".baton"))
	return p
}

// payload returns claudePayload written to a file that is a process's
// stdin.
func (p *procBench) payload(file, session, transcript string) string {
	p.b.Helper()
	out := claudePayload(p.b, p.home, file, session, transcript)
	p.n++
	path := filepath.Join(p.home, fmt.Sprintf("stdin-%d.json", p.n))
	if err := os.WriteFile(path, out, 0o600); err != nil {
		p.b.Fatal(err)
	}
	return path
}

// hook times `baton hook EVENT --harness claude-code` over the payload in
// stdin, or `baton version` without one.
func (p *procBench) hook(event, stdin string) time.Duration {
	if stdin == "" {
		return p.run(p.baton, nil, "version")
	}
	f, err := os.Open(stdin)
	if err != nil {
		p.b.Fatal(err)
	}
	defer f.Close()
	return p.run(p.baton, f, "hook", event, "--harness", "claude-code")
}

// create times creating one new empty file in the capture home, kept: the
// file system's cost of a file, which some pay far more for than others
// (ext4 without a journal checks each inode freed in the last half
// minute, and every process here frees its SQLite -wal and -shm), and
// which an event pays for each file it creates (a first Stop: its bottle's
// lock file, directory, pages and index) and benchbase for two (-wal,
// -shm).
func (p *procBench) create() time.Duration {
	p.b.Helper()
	p.n++
	path := filepath.Join(p.home, fmt.Sprintf("created-%d", p.n))
	start := time.Now()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		err = f.Close()
	}
	d := time.Since(start)
	if err != nil {
		p.b.Fatal(err)
	}
	return d
}

// baseline times benchbase writing once to the store's SQLite file.
func (p *procBench) baseline() time.Duration { return p.run(p.base, nil, p.db) }

// stackline times benchstack writing once to the store's SQLite file.
func (p *procBench) stackline() time.Duration { return p.run(p.stack, nil, p.db) }

// run times one process from its start to its exit. A process that fails
// or says anything on stderr is not a measurement: the benchmark stops.
func (p *procBench) run(name string, stdin *os.File, args ...string) time.Duration {
	p.b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = p.env, filepath.Join(p.home, "project")
	if stdin != nil {
		cmd.Stdin = stdin
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil || stderr.Len() > 0 {
		p.b.Fatalf("%s %v: %v %s", filepath.Base(name), args, err, stderr.String())
	}
	return d
}

// fillLedger fills the store's ledger to its retention
// (continuity.DefaultLedgerRetention lines of the hook's tenant), as a
// store in use holds it, so every append the events make trims one line.
func (p *procBench) fillLedger() {
	p.b.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, p.db)
	if err != nil {
		p.b.Fatal(err)
	}
	defer st.Close()
	lines := make([]continuity.LedgerEntry, continuity.DefaultLedgerRetention)
	at := time.Now().Add(-time.Hour)
	for i := range lines {
		lines[i] = continuity.LedgerEntry{ID: uuid.Must(uuid.NewV7()), Event: "bench.fill", At: at, Session: "bench-fill"}
	}
	err = st.Write(ctx, "local", func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, continuity.DefaultLedgerRetention, lines...)
	})
	if err != nil {
		p.b.Fatal(err)
	}
}

// claudePayload returns the captured Claude Code payload file rehomed to
// home, with session_id set to session and transcript_path to transcript
// ("" drops it; "-" keeps the captured one).
func claudePayload(tb testing.TB, home, file, session, transcript string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payloads", "claude-code", file))
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(rehome(data, home), &m); err != nil {
		tb.Fatal(err)
	}
	m["session_id"] = session
	switch transcript {
	case "":
		delete(m, "transcript_path")
	case "-":
	default:
		m["transcript_path"] = transcript
	}
	out, err := json.Marshal(m)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// samples are one measure's times.
type samples []time.Duration

// quantile is the q-quantile (nearest rank) in milliseconds.
func (s samples) quantile(q float64) float64 {
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	i := max(0, int(float64(len(sorted))*q+0.999999)-1)
	return float64(sorted[min(i, len(sorted)-1)]) / float64(time.Millisecond)
}

func (s samples) median() float64 { return s.quantile(0.5) }

// sessions runs session(-1), the warm-up, then fill, then session(0),
// session(1) … as b's timed iterations.
func sessions(b *testing.B, session func(i int), fill func()) {
	session(-1)
	fill()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		session(i)
	}
	b.StopTimer()
}

// BenchmarkHookEvents is one session's lifecycle per iteration, a new
// session id each time: start (startup: the briefing, with the handovers
// of the sessions before), prompt, stop (heartbeat and the session's first
// bottle render, of the captured 300 KB transcript), precompact (seal,
// checkpoint), end (close, handover), then `baton version`. Each is paired
// with a benchbase run and a benchstack run, before it or after it
// (alternately); the ratio is the event's median over its benchbase runs'
// median (the target), and the stack ratio over its benchstack runs'.
func BenchmarkHookEvents(b *testing.B) {
	p := newProcBench(b)
	times := make([]samples, len(benchEvents))
	base := make([]samples, len(benchEvents))
	stack := make([]samples, len(benchEvents))
	var creates samples
	session := func(i int) {
		id := fmt.Sprintf("bench-%04d", i)
		for k, e := range benchEvents {
			stdin := ""
			if e.payload != "" {
				stdin = p.payload(e.payload, id, "-")
			}
			if i < 0 { // the warm-up: page cache, store file, schema
				p.hook(e.name, stdin)
				p.baseline()
				p.stackline()
				continue
			}
			if e.name == "stop" {
				creates = append(creates, p.create())
			}
			if i%2 == 0 {
				base[k] = append(base[k], p.baseline())
				stack[k] = append(stack[k], p.stackline())
				times[k] = append(times[k], p.hook(e.name, stdin))
			} else {
				times[k] = append(times[k], p.hook(e.name, stdin))
				stack[k] = append(stack[k], p.stackline())
				base[k] = append(base[k], p.baseline())
			}
		}
	}
	sessions(b, session, p.fillLedger)
	var report strings.Builder
	fmt.Fprintf(&report, "%d runs each, whole processes, wall time:\n%-11s %9s %9s %14s %7s %14s %7s\n",
		len(times[0]), "event", "median", "p99", "benchbase med", "ratio", "benchstack med", "ratio")
	for k, e := range benchEvents {
		med, p99, bmed, smed := times[k].median(), times[k].quantile(0.99), base[k].median(), stack[k].median()
		fmt.Fprintf(&report, "%-11s %6.2f ms %6.2f ms %11.2f ms %6.2fx %11.2f ms %6.2fx\n", e.name, med, p99, bmed, med/bmed, smed, med/smed)
		b.ReportMetric(med, e.name+"-p50-ms")
		b.ReportMetric(p99, e.name+"-p99-ms")
		b.ReportMetric(med/bmed, e.name+"-ratio")
		b.ReportMetric(med/smed, e.name+"-stack-ratio")
	}
	cmed := 1000 * creates.median()
	fmt.Fprintf(&report, "creating a file here (timed before each stop): median %.0f µs, p99 %.0f µs\n", cmed, 1000*creates.quantile(0.99))
	b.ReportMetric(cmed, "create-p50-us")
	b.Log("\n" + report.String())
}

// BenchmarkHookStopMarathon compares a Stop that renders the bottle of a
// ~50 MB transcript incrementally (one short turn appended before each,
// untimed) with a Stop of the same store whose payload names no transcript,
// paired run by run.
func BenchmarkHookStopMarathon(b *testing.B) {
	p := newProcBench(b)
	transcript := filepath.Join(p.home, "marathon.jsonl")
	if err := os.Link(filepath.Join(benchDir, "marathon.jsonl"), transcript); err != nil {
		data, err := os.ReadFile(filepath.Join(benchDir, "marathon.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(transcript, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for _, id := range []string{"bench-marathon", "bench-bare"} {
		p.hook("start", p.payload("stdin-SessionStart-startup.json", id, ""))
	}
	long := p.payload("stdin-Stop.json", "bench-marathon", transcript)
	bare := p.payload("stdin-Stop.json", "bench-bare", "")
	p.hook("stop", long) // the first render, from byte zero
	p.hook("stop", bare)
	turn := 0
	appendTurn := func() {
		f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		ts := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(turn) * time.Minute).Format(time.RFC3339Nano)
		_, err = fmt.Fprintf(f, `{"type":"user","timestamp":%q,"sessionId":"bench","cwd":"/work/proj","message":{"role":"user","content":"Appended turn %d: carry on."}}
{"type":"assistant","timestamp":%q,"message":{"id":"msg_appended_%d","role":"assistant","content":[{"type":"text","text":"Appended turn %d done."}]}}
`, ts, turn, ts, turn, turn)
		if err = errors.Join(err, f.Close()); err != nil {
			b.Fatal(err)
		}
		turn++
	}
	var withRender, without samples
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		appendTurn()
		b.StartTimer()
		if turn%2 == 0 {
			without = append(without, p.hook("stop", bare))
			withRender = append(withRender, p.hook("stop", long))
		} else {
			withRender = append(withRender, p.hook("stop", long))
			without = append(without, p.hook("stop", bare))
		}
	}
	b.StopTimer()
	med, bmed := withRender.median(), without.median()
	b.ReportMetric(med, "render-p50-ms")
	b.ReportMetric(withRender.quantile(0.99), "render-p99-ms")
	b.ReportMetric(bmed, "bare-p50-ms")
	b.ReportMetric(without.quantile(0.99), "bare-p99-ms")
	b.ReportMetric(med/bmed, "ratio")
	b.Logf("\n%d runs each, whole processes, wall time:\nstop, 50 MB transcript, incremental render: median %.2f ms, p99 %.2f ms\nstop, no transcript:                        median %.2f ms, p99 %.2f ms\nratio %.2fx",
		len(without), med, withRender.quantile(0.99), bmed, without.quantile(0.99), med/bmed)
}

// BenchmarkHookCompare times the built baton beside other builds of it,
// named (comma-separated paths) in BATON_BENCH_COMPARE, over the lifecycle
// of BenchmarkHookEvents: each binary runs its own sessions on a store of
// its own (one binary's way with the database files cannot help or hinder
// another's), the binaries take turns in a rotating order event by event,
// and benchbase writes to a store of its own after them. It prints each
// binary's median per event, as a ratio to the built baton's and to
// benchbase's. Copy every binary afresh before a run (`cp b b.new && mv
// b.new b`): a file written long ago starts measurably slower on some
// machines than one just written, page cache warm or not.
func BenchmarkHookCompare(b *testing.B) {
	others := os.Getenv("BATON_BENCH_COMPARE")
	if others == "" {
		b.Skip("BATON_BENCH_COMPARE names no other baton binary")
	}
	base := newProcBench(b)
	bins := append([]string{base.baton}, strings.Split(others, ",")...)
	procs := make([]*procBench, len(bins))
	times := make([][]samples, len(bins))
	for j, bin := range bins {
		if _, err := os.Stat(bin); err != nil {
			b.Fatalf("BATON_BENCH_COMPARE: %v", err)
		}
		procs[j] = newProcBench(b)
		procs[j].baton = bin
		times[j] = make([]samples, len(benchEvents))
	}
	if err := os.MkdirAll(filepath.Dir(base.db), 0o700); err != nil {
		b.Fatal(err)
	}
	baseTimes := make([]samples, len(benchEvents))
	session := func(i int) {
		for k, e := range benchEvents {
			for n := range bins {
				j := (n + i + len(bins)) % len(bins)
				stdin := ""
				if e.payload != "" {
					stdin = procs[j].payload(e.payload, fmt.Sprintf("bench-%04d", i+1), "-")
				}
				d := procs[j].hook(e.name, stdin)
				if i >= 0 {
					times[j][k] = append(times[j][k], d)
				}
			}
			if d := base.baseline(); i >= 0 {
				baseTimes[k] = append(baseTimes[k], d)
			}
		}
	}
	sessions(b, session, func() {
		for _, p := range procs {
			p.fillLedger()
		}
	})
	var report strings.Builder
	fmt.Fprintf(&report, "%d runs each, whole processes, wall time; per binary: median, ratio to benchbase, ratio to the first\n", len(baseTimes[0]))
	for j, bin := range bins {
		fmt.Fprintf(&report, "binary %d: %s\n", j, bin)
	}
	for k, e := range benchEvents {
		fmt.Fprintf(&report, "%-11s benchbase %6.2f ms", e.name, baseTimes[k].median())
		for j := range bins {
			med := times[j][k].median()
			fmt.Fprintf(&report, " | %6.2f ms %5.2fx %5.3f", med, med/baseTimes[k].median(), med/times[0][k].median())
		}
		report.WriteString("\n")
	}
	b.Log("\n" + report.String())
}
