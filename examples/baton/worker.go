package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/judge"
)

// DefaultWorkerEvery is how often `baton worker` and `baton serve` run a
// worker pass.
const DefaultWorkerEvery = time.Minute

// closerJudge is the judge the closer asks when BATON_CLOSER=1: the
// deterministic reference judge (continuity/judge). `baton eval` measures it
// (and the LLM judge) against the validation bar before a team turns the
// closer on.
var closerJudge continuity.Judge = judge.Reference{}

// WorkerConfig is how the worker runs, whoever starts it (`baton worker`,
// `baton serve`).
type WorkerConfig struct {
	// Every is the interval between passes (at least one second).
	Every time.Duration
	// Closer turns the resolve-only closer on (BATON_CLOSER=1); it needs
	// Judge.
	Closer bool
	// Judge is what the closer asks.
	Judge continuity.Judge
	// Batch is how many rows a pass discovers for each of the sweep and the
	// closer; 0 means continuity.DefaultWorkerBatch.
	Batch int
	// Home is BATON_HOME, whose archived bottles retention prunes; empty
	// for none.
	Home string
}

// options returns the worker's options, or an error when the closer is on
// without a judge.
func (c WorkerConfig) options(log io.Writer) ([]continuity.WorkerOption, error) {
	var opts []continuity.WorkerOption
	if c.Closer {
		if c.Judge == nil {
			return nil, errors.New("BATON_CLOSER=1 needs a judge for the closer, and this binary has none built in")
		}
		opts = append(opts, continuity.WithCloser(c.Judge))
	}
	if c.Batch != 0 {
		if c.Batch < 1 || c.Batch > continuity.MaxDiscover {
			return nil, fmt.Errorf("the worker's batch must be 1 to %d", continuity.MaxDiscover)
		}
		opts = append(opts, continuity.WithWorkerBatch(c.Batch))
	}
	if c.Home != "" {
		opts = append(opts, continuity.WithBottleHome(c.Home))
	}
	opts = append(opts, continuity.WithWorkerReport(func(r continuity.WorkerResult, err error) { reportPass(log, r, err) }))
	return opts, nil
}

// runner returns the cross-tenant worker as serve runs it beside the
// server, one of its Background functions: a pass at once and then every
// cfg.Every until its context ends, logging each pass that did something or
// failed (counts and error codes only, never content). Every replica of
// `baton serve` runs one; the worker's claims keep them from working one row
// twice. It fails on a configuration the worker refuses.
func (c WorkerConfig) runner(log io.Writer) (func(ctx context.Context, svc *continuity.Service), error) {
	if c.Every < time.Second {
		return nil, errors.New("the worker's interval must be at least 1s")
	}
	opts, err := c.options(log)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, svc *continuity.Service) {
		_ = continuity.NewWorker(svc, opts...).Run(ctx, c.Every)
	}, nil
}

// reportPass writes one line for a pass that did something or failed (its
// error as errorText renders it: a pass's failures are joined, one a
// tenant, and may quote a path or a store's message).
func reportPass(log io.Writer, r continuity.WorkerResult, err error) {
	if err != nil {
		fmt.Fprintf(log, "baton worker: pass failed: %s (%s)\n", errorText(err), passLine(r))
		return
	}
	if r != (continuity.WorkerResult{}) {
		fmt.Fprintf(log, "baton worker: %s\n", passLine(r))
	}
}

func passLine(r continuity.WorkerResult) string {
	return fmt.Sprintf("swept %d, claimed %d, finished %d, resolved %d, failed %d, abandoned %d, skipped %d, pruned %d, pruned bottles %d",
		r.Swept, r.Claimed, r.Finished, r.Resolved, r.Failed, r.Abandoned, r.Skipped, r.Pruned, r.PrunedBottles)
}

// WorkerCmd runs the worker alone: it sweeps the lapsed sessions of every
// tenant of the store and, with BATON_CLOSER=1, runs the resolve-only
// closer over the closed ones, until interrupted.
type WorkerCmd struct {
	DSN   string        `help:"The store to serve (a Postgres URL or a SQLite path); default BATON_DSN, else baton.db in BATON_HOME."`
	Every time.Duration `help:"Time between passes (at least 1s)." default:"1m"`
	Once  bool          `help:"Run one pass, print what it did, and exit (non-zero when it failed)."`
}

// Validate refuses a --dsn that cannot be what the person meant, as
// ServeCmd.Validate does.
func (c *WorkerCmd) Validate() error { return dsnFlag(c.DSN) }

// dsnFlag refuses a --dsn flag's value that dsnProblem finds wrong,
// naming the flag; an empty value is the flag left out.
func dsnFlag(dsn string) error {
	if why := dsnProblem(dsn); dsn != "" && why != "" {
		return continuity.Invalid("--dsn", why)
	}
	return nil
}

// Run runs the worker.
func (c *WorkerCmd) Run(ctx context.Context, env *Env) error {
	if c.Every < time.Second {
		return errors.New("--every must be at least 1s")
	}
	home, err := env.bottleHome()
	if err != nil {
		return err
	}
	cfg := WorkerConfig{Every: c.Every, Closer: env.Closer, Judge: closerJudge, Home: home}
	opts, err := cfg.options(env.Stderr)
	if err != nil {
		return err
	}
	svc, done, err := env.openService(ctx, c.DSN, nil)
	if err != nil {
		return err
	}
	defer done()
	if c.Once {
		// The pass's counts are printed even when it failed, for what it
		// did before; a pass that ran but could not say so fails too.
		r, err := continuity.NewWorker(svc, opts...).Tick(ctx)
		_, werr := fmt.Fprintln(env.Stdout, passLine(r))
		return cmp.Or(err, werr)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(env.Stderr, "baton worker: a pass every %v, closer %s\n", c.Every, onOff(env.Closer))
	return continuity.NewWorker(svc, opts...).Run(ctx, c.Every)
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
