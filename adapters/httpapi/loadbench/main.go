// Command loadbench is the team server's load benchmark: Stop heartbeats
// from concurrent clients against `baton serve` on Postgres, beside the
// same Postgres running the heartbeat's bare UPDATE from as many
// connections, measured in the same run.
//
//	go run ./adapters/httpapi/loadbench -dsn 'postgres://postgres@127.0.0.1:5432/baton_bench?sslmode=disable'
//
// It builds the baton binary, creates a fresh schema in the database, starts
// `baton serve --dsn` on it (a free loopback port, one API key), opens one
// session per client, then alternates, for -rounds rounds, two phases of
// -duration each (their order swapped every round, so drift in the
// machine's load falls on both). Each session is in a project of its own;
// with -shared-project they are all in one, and their heartbeats queue on
// the project's lock:
//
//   - serve: each of -clients goroutines, with its own session, sends
//     POST /api/v1/agent-sessions/heartbeat {"stop": true} (a Stop's
//     heartbeat: lease, floor, stop count, excerpt) through httpapi.Client
//     as fast as it is answered (or POST /api/v1/episodes/stop with
//     -route stop: the whole Stop hook, its receipt included);
//   - postgres: each of -clients connections runs
//     UPDATE agent_sessions SET last_seen_at = GREATEST(last_seen_at, now()) WHERE id = $1
//     on its own session's row, in autocommit.
//
// It prints each phase's count, throughput and p50/p99 latency, and the
// ratio of the serve throughput to the Postgres one; the targets are a
// ratio of at least 0.5 and a serve p99 under 20 ms. The schema is dropped
// at the end. This is a documented command, not a test: its figures depend
// on the machine.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/jackc/pgx/v5"
)

// The benchmark's tenant, key and agent.
const (
	benchKey    = "loadbench-key"
	benchTenant = "loadbench"
	benchAgent  = "claude-code"
)

// The targets the issue sets, declared once.
const (
	targetRatio = 0.5
	targetP99   = 20 * time.Millisecond
)

// The DB baseline's statement: a Stop heartbeat's essential write.
const baselineUpdate = `UPDATE agent_sessions SET last_seen_at = GREATEST(last_seen_at, now()) WHERE id = $1`

func main() {
	dsn := flag.String("dsn", os.Getenv("BATON_DSN"), "the Postgres database (postgres://...; default $BATON_DSN): a fresh schema of it is used and dropped")
	clients := flag.Int("clients", 32, "concurrent clients (HTTP) and connections (Postgres)")
	duration := flag.Duration("duration", 5*time.Second, "length of each phase of each round")
	rounds := flag.Int("rounds", 2, "rounds of the two phases")
	shared := flag.Bool("shared-project", false, "open every session in one project (a Stop heartbeat takes its project's lock, so they queue on it) instead of one project per client")
	route := flag.String("route", "heartbeat", "the serve phase's route: heartbeat (POST /api/v1/agent-sessions/heartbeat, stop) or stop (POST /api/v1/episodes/stop)")
	batonBin := flag.String("baton", "", "a built baton binary (default: go build ./examples/baton into a temporary directory)")
	flag.Parse()
	if err := bench(*dsn, *clients, *duration, *rounds, *route, *batonBin, *shared); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// phase is one measured phase: every call's latency, and the calls that
// failed.
type phase struct {
	latencies []time.Duration
	elapsed   time.Duration
	errors    int
	firstErr  error
}

func (p *phase) add(q phase) {
	p.latencies = append(p.latencies, q.latencies...)
	p.elapsed += q.elapsed
	p.errors += q.errors
	if p.firstErr == nil {
		p.firstErr = q.firstErr
	}
}

func (p *phase) throughput() float64 { return float64(len(p.latencies)) / p.elapsed.Seconds() }

// quantile returns the q-quantile of the latencies (nearest rank).
func (p *phase) quantile(q float64) time.Duration {
	if len(p.latencies) == 0 {
		return 0
	}
	s := slices.Clone(p.latencies)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func bench(dsn string, clients int, duration time.Duration, rounds int, route, batonBin string, shared bool) error {
	if !sqlstore.IsPostgresDSN(dsn) {
		return errors.New("-dsn must be a postgres:// URL (or set BATON_DSN)")
	}
	if clients < 1 || rounds < 1 || duration <= 0 || (route != "heartbeat" && route != "stop") {
		return errors.New("-clients and -rounds must be at least 1, -duration positive, -route heartbeat or stop")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	tmp, err := os.MkdirTemp("", "baton-loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if batonBin == "" {
		batonBin = filepath.Join(tmp, "baton")
		if out, err := exec.Command("go", "build", "-o", batonBin, "github.com/batonhq/baton/examples/baton").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./examples/baton: %v\n%s", err, out)
		}
	}
	schema := "loadbench_" + randomHex(6)
	if err := sqlstore.CreateSchema(ctx, dsn, schema); err != nil {
		return err
	}
	defer func() {
		if err := sqlstore.DropSchema(context.Background(), dsn, schema); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench: drop schema:", err)
		}
	}()
	sdsn, err := withSearchPath(dsn, schema)
	if err != nil {
		return err
	}
	base, stopServe, err := serve(batonBin, sdsn, tmp)
	if err != nil {
		return err
	}
	defer stopServe()

	// One session per client, opened first; the client pool keeps a
	// connection per client.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	api := httpapi.NewClient(base, benchKey, httpapi.ClientOptions{HTTPClient: hc, Timeout: time.Minute, Retries: -1})
	sessions := make([]string, clients)
	runs := make([]string, clients)
	for i := range sessions {
		sessions[i] = fmt.Sprintf("loadbench-%d-%s", i, randomHex(4))
		project := fmt.Sprintf("loadbench-%d", i)
		if shared {
			project = "loadbench"
		}
		r, err := api.Open(ctx, continuity.OpenParams{Agent: benchAgent, SessionID: sessions[i], Source: continuity.SourceStartup, Project: project})
		if err != nil {
			return fmt.Errorf("open session %d: %w", i, err)
		}
		runs[i] = r.SessionRunID.String()
	}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		c, err := pgx.Connect(ctx, sdsn)
		if err != nil {
			return fmt.Errorf("connect to Postgres: %w", err)
		}
		defer c.Close(context.Background())
		// The connecting user may be subject to row-level security: the
		// rows are the benchmark tenant's.
		if _, err := c.Exec(ctx, "SELECT set_config('baton.tenant', $1, false)", benchTenant); err != nil {
			return err
		}
		tag, err := c.Exec(ctx, baselineUpdate, runs[i])
		if err != nil {
			return fmt.Errorf("the baseline UPDATE: %w", err)
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("the baseline UPDATE changed %d rows of session %d, want 1", tag.RowsAffected(), i)
		}
		conns[i] = c
	}
	// Statistics, as autovacuum keeps them on a table in use: a fresh
	// schema's tables hold fewer rows than its analyze threshold, and
	// without statistics the planner may reach the sessions through an
	// index that reads every open row instead of the natural key's.
	if _, err := conns[0].Exec(ctx, "ANALYZE agent_sessions, stop_excerpts, ledger"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}

	// The same calls in-process, on a store of this process over the same
	// schema: what serving over HTTP adds, apart.
	st, err := sqlstore.Open(ctx, sdsn)
	if err != nil {
		return err
	}
	defer st.Close()
	local := continuity.New(st).For(benchTenant)

	excerpt := "Done: the change is committed and the tests pass."
	callOn := func(api continuity.API) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			if route == "stop" {
				_, err := api.Stop(ctx, continuity.StopParams{EventParams: continuity.EventParams{Provider: "claude-code", ProviderEvent: "Stop",
					Agent: benchAgent, SessionID: sessions[i]}, LastMessage: &excerpt})
				return err
			}
			_, err := api.Heartbeat(ctx, continuity.HeartbeatParams{Agent: benchAgent, SessionID: sessions[i], LastMessageExcerpt: &excerpt, Stop: true})
			return err
		}
	}
	call, direct := callOn(api), callOn(local)
	update := func(ctx context.Context, i int) error {
		_, err := conns[i].Exec(ctx, baselineUpdate, runs[i])
		return err
	}
	// A short warm-up of each: connections, plans, caches.
	phases := []func(ctx context.Context, i int) error{call, direct, update}
	for _, fn := range phases {
		run(ctx, clients, time.Second, fn)
	}
	results := make([]phase, len(phases))
	for r := range rounds {
		for k := range phases {
			if r%2 == 1 {
				k = len(phases) - 1 - k
			}
			results[k].add(run(ctx, clients, duration, phases[k]))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	served, db := &results[0], &results[2]
	what := "POST /api/v1/agent-sessions/heartbeat (stop: true, an excerpt)"
	if route == "stop" {
		what = "POST /api/v1/episodes/stop (receipt, heartbeat, excerpt)"
	}
	projects := fmt.Sprintf("%d projects", clients)
	if shared {
		projects = "one project"
	}
	fmt.Printf("%d clients (%d sessions in %s), %d rounds of %s per phase, Postgres schema %s\n\n", clients, clients, projects, rounds, duration, schema)
	fmt.Printf("%-10s %-66s %9s %10s %9s %9s %7s\n", "phase", "what", "calls", "per s", "p50", "p99", "errors")
	print := func(name, what string, p *phase) {
		fmt.Printf("%-10s %-66s %9d %10.0f %9s %9s %7d\n", name, what, len(p.latencies), p.throughput(),
			p.quantile(0.50).Round(10*time.Microsecond), p.quantile(0.99).Round(10*time.Microsecond), p.errors)
	}
	print("serve", what, served)
	print("in-process", "the same calls on a store of this process (no HTTP)", &results[1])
	print("postgres", "UPDATE agent_sessions SET last_seen_at = GREATEST(...) WHERE id", db)
	ratio := served.throughput() / db.throughput()
	fmt.Printf("\nratio of throughputs (serve / postgres): %.2f (target at least %.1f: %s); in-process / postgres: %.2f\n",
		ratio, targetRatio, verdict(ratio >= targetRatio), results[1].throughput()/db.throughput())
	fmt.Printf("serve p99: %s (target under %s: %s)\n", served.quantile(0.99).Round(10*time.Microsecond), targetP99, verdict(served.quantile(0.99) < targetP99))
	for _, p := range results {
		if p.firstErr != nil {
			return fmt.Errorf("%d calls failed; the first: %w", p.errors, p.firstErr)
		}
	}
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// run calls fn from n goroutines, goroutine i with i, for d, and returns
// every call's latency.
func run(ctx context.Context, n int, d time.Duration, fn func(ctx context.Context, i int) error) phase {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	per := make([]phase, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			p := &per[i]
			for ctx.Err() == nil {
				t := time.Now()
				// A call in flight when the phase ends finishes: its
				// latency is not cut short.
				err := fn(context.WithoutCancel(ctx), i)
				switch {
				case err == nil:
					p.latencies = append(p.latencies, time.Since(t))
				default:
					p.errors++
					if p.firstErr == nil {
						p.firstErr = err
					}
				}
			}
		})
	}
	wg.Wait()
	all := phase{elapsed: time.Since(start)}
	for _, p := range per {
		all.latencies = append(all.latencies, p.latencies...)
		all.errors += p.errors
		if all.firstErr == nil {
			all.firstErr = p.firstErr
		}
	}
	return all
}

// servingLine is serve's log line saying where it listens.
var servingLine = regexp.MustCompile(`msg=serving url=(http://\S+)`)

// serve starts `baton serve` on dsn with the benchmark's key and returns
// its URL and the function that stops it (SIGINT, then waits). Its request
// log is read and dropped: writing it is part of what serving costs.
func serve(bin, dsn, home string) (string, func(), error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--dsn", dsn)
	cmd.Env = append(os.Environ(), "BATON_HOME="+home, "BATON_API_KEYS="+benchKey+"="+benchTenant)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	found := make(chan string, 1)
	drained := make(chan struct{})
	var mu sync.Mutex
	var head strings.Builder
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if len(found) == 0 && head.Len() < 8192 {
				mu.Lock()
				head.WriteString(sc.Text() + "\n")
				mu.Unlock()
				if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
					found <- m[1]
				}
			}
		}
		_, _ = io.Copy(io.Discard, stderr) // a line over the scanner's limit
	}()
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-drained
		_ = cmd.Wait()
	}
	select {
	case u := <-found:
		return u, stop, nil
	case <-drained:
	case <-time.After(2 * time.Minute):
	}
	_ = cmd.Process.Kill()
	<-drained
	_ = cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	return "", nil, fmt.Errorf("baton serve did not say where it listens:\n%s", head.String())
}

// withSearchPath returns dsn with its search_path set to schema.
func withSearchPath(dsn, schema string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", errors.New("-dsn is not a URL")
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
