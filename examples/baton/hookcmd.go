package main

import (
	"context"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity"
)

// HookCmd is `baton hook [EVENT] --harness NAME`: one hook event of a
// coding-agent harness, its JSON on stdin, its envelope on stdout. It always
// exits 0 (a hook never blocks the person's work); what failed is one line
// on stderr and, when the store can be reached, a failure in the ledger.
type HookCmd struct {
	Event string `arg:"" optional:"" help:"start, prompt, stop, precompact or end, or the harness's own event name; the payload's own event name wins when it has one."`
	// Harness is checked against the harness table by the hook itself, so
	// that no other command pays for reading the table.
	Harness string `help:"The harness that runs the hook, as adapters/hook's table names it; a wrong name is answered with the known ones."`
}

// Run runs the hook. The store is opened only once the event is known to
// be the main agent's, through the bound API (kctx resolves it on demand).
func (c *HookCmd) Run(ctx context.Context, env *Env, kctx *kong.Context) error {
	// A harness that closed its end of stdout or stderr (it gave up
	// waiting, or reads neither for this event) must not kill the hook
	// with SIGPIPE, a non-zero exit: the write fails instead, and says so.
	signal.Ignore(syscall.SIGPIPE)
	home, homeErr := env.bottleHome()
	inv := hook.Invocation{
		Harness: c.Harness, Event: c.Event,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr,
		Dir: env.Dir, Home: home, HomeErr: homeErr, Role: env.HookRole, Nudge: env.StopNudge,
		Open: func(ctx context.Context) (continuity.API, error) {
			// A statement waits for a locked database a third of what is
			// left of the event's budget: the retries that follow still
			// end within it, with the lock named on stderr.
			if deadline, ok := ctx.Deadline(); ok {
				env.LockWait = max(time.Until(deadline)/3, 10*time.Millisecond)
			}
			var api continuity.API
			_, err := kctx.Call(func(a continuity.API) { api = a })
			return api, err
		},
	}
	inv.Run(ctx)
	return nil
}
