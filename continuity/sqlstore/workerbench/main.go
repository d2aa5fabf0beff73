// Command workerbench times the cross-tenant worker on Postgres: it seeds
// lapsed sessions across tenants in a fresh schema (100,000 across 100 by
// default, in one bulk insert), lets several workers sweep them at once,
// each a Service over its own connection pool as separate replicas would
// be, and prints the time it took and the check that no row was claimed
// twice: the ledger holds exactly one session.swept line per row, and the
// workers' counts add up to the rows. With -baseline it first sweeps the
// same seed with one worker and prints the ratio.
//
//	go run ./continuity/sqlstore/workerbench -dsn 'postgres://postgres@127.0.0.1:5432/baton_bench?sslmode=disable'
//
// The DSN defaults to BATON_TEST_POSTGRES_DSN. It exits non-zero when a
// row was claimed twice or left unswept.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

func main() {
	dsn := flag.String("dsn", os.Getenv("BATON_TEST_POSTGRES_DSN"), "the Postgres database to run in (a fresh schema is made and dropped)")
	rows := flag.Int("rows", 100000, "lapsed sessions to seed")
	tenants := flag.Int("tenants", 100, "tenants to spread them across")
	workers := flag.Int("workers", 2, "workers sweeping at once")
	batch := flag.Int("batch", continuity.MaxDiscover, "rows a worker pass discovers")
	baseline := flag.Bool("baseline", false, "first sweep the same seed with one worker, and print the ratio")
	flag.Parse()
	if err := run(context.Background(), *dsn, *rows, *tenants, *workers, *batch, *baseline); err != nil {
		fmt.Fprintln(os.Stderr, "workerbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dsn string, rows, tenants, workers, batch int, baseline bool) error {
	if !sqlstore.IsPostgresDSN(dsn) {
		return errors.New("-dsn (or BATON_TEST_POSTGRES_DSN) must name a Postgres database")
	}
	if rows < 1 || tenants < 1 || workers < 1 {
		return errors.New("-rows, -tenants and -workers must be positive")
	}
	var single time.Duration
	if baseline {
		r, err := sweepOnce(ctx, dsn, rows, tenants, 1, batch)
		if err != nil {
			return err
		}
		single = r.elapsed
		fmt.Printf("baseline: 1 worker swept %d rows of %d tenants in %v\n", rows, tenants, r.elapsed.Round(time.Millisecond))
	}
	r, err := sweepOnce(ctx, dsn, rows, tenants, workers, batch)
	if err != nil {
		return err
	}
	fmt.Printf("%d workers swept %d rows of %d tenants in %v (%.0f rows/s); per worker %v\n",
		workers, rows, tenants, r.elapsed.Round(time.Millisecond), float64(rows)/r.elapsed.Seconds(), r.perWorker)
	if baseline {
		fmt.Printf("%d workers took %.2fx the time of one\n", workers, r.elapsed.Seconds()/single.Seconds())
	}
	fmt.Printf("ledger: %d session.swept lines for %d distinct rows; %d rows still open\n", r.lines, r.distinct, r.open)
	if r.lines != rows || r.distinct != rows || r.open != 0 || r.total != rows {
		return fmt.Errorf("a row was claimed twice or left unswept: %d lines, %d distinct, %d open, the workers counted %d", r.lines, r.distinct, r.open, r.total)
	}
	fmt.Println("no row was claimed twice")
	return nil
}

type outcome struct {
	elapsed                      time.Duration
	perWorker                    []int
	total, lines, distinct, open int
}

// sweepOnce seeds a fresh schema and times the workers sweeping it.
func sweepOnce(ctx context.Context, dsn string, rows, tenants, workers, batch int) (outcome, error) {
	var out outcome
	schema := "bt_workerbench_" + uuid.NewString()[:8]
	if err := sqlstore.CreateSchema(ctx, dsn, schema); err != nil {
		return out, err
	}
	defer sqlstore.DropSchema(context.WithoutCancel(ctx), dsn, schema)
	u, err := url.Parse(dsn)
	if err != nil {
		return out, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	sdsn := u.String()

	stores := make([]*sqlstore.Store, workers)
	for i := range stores {
		if stores[i], err = sqlstore.Open(ctx, sdsn); err != nil { // migrates the schema once
			return out, err
		}
		defer stores[i].Close()
	}
	admin, err := sql.Open("pgx", sdsn)
	if err != nil {
		return out, err
	}
	defer admin.Close()
	if err := seed(ctx, admin, rows, tenants); err != nil {
		return out, err
	}

	out.perWorker = make([]int, workers)
	errs := make([]error, workers)
	start := time.Now()
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Go(func() {
			w := continuity.NewWorker(continuity.New(st), continuity.WithWorkerBatch(batch))
			for {
				r, err := w.Tick(ctx)
				out.perWorker[i] += r.Swept
				if err != nil {
					errs[i] = err
					return
				}
				if r.Swept > 0 {
					continue
				}
				// Nothing swept: the rows left (if any) are another
				// worker's to finish.
				left, err := st.Lapsed(ctx, continuity.New(st).LeasePolicy().SweepFloor(time.Now()), 1)
				if err != nil || len(left) == 0 {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return out, err
	}
	for _, n := range out.perWorker {
		out.total += n
	}
	err = admin.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT fields->>'session_run_id') FROM ledger WHERE event = $1`,
		continuity.EventSessionSwept).Scan(&out.lines, &out.distinct)
	if err != nil {
		return out, err
	}
	err = admin.QueryRowContext(ctx, `SELECT count(*) FROM agent_sessions WHERE closed_at IS NULL`).Scan(&out.open)
	return out, err
}

// seed inserts the lapsed rows in one statement as the connecting (owner)
// user: three days unseen, spread round-robin over the tenants.
func seed(ctx context.Context, db *sql.DB, rows, tenants int) error {
	_, err := db.ExecContext(ctx, `
		INSERT INTO agent_sessions (id, user_id, agent, session_id, source, selector, opened_at, last_seen_at, activated_at,
			activation_epoch, triage_status, last_triaged_event_ids, briefed_memories)
		SELECT gen_random_uuid(), 'tenant-' || (g % $2), 'claude-code', 'session-' || g, 'startup', '{}'::jsonb,
			now() - interval '3 days' - g * interval '1 millisecond', now() - interval '3 days' - g * interval '1 millisecond',
			now() - interval '3 days', 1, 'idle', '[]'::jsonb, '[]'::jsonb
		FROM generate_series(1, $1) AS g`, rows, tenants)
	return err
}
