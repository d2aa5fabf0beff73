package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

// DoctorCmd is `baton doctor [--json]`: what baton has stopped writing.
type DoctorCmd struct {
	JSON bool `name:"json" help:"Print the report's JSON."`
}

// unhealthyError is the doctor's answer when a finding is a failure: the
// report is printed, and the command exits 1 like any failed command.
type unhealthyError struct{ failures int }

func (e unhealthyError) Error() string {
	if e.failures == 1 {
		return "doctor: 1 finding is a failure"
	}
	return fmt.Sprintf("doctor: %d findings are failures", e.failures)
}

// Run prints each finding as "SEVERITY CHECK: SENTENCE" on one line of text
// (runes.OneLine, its invisible characters shown: runes.Visible), or "healthy" when there is none; with --json, the
// report as the API returns it. Either way it fails (exit 1) when a
// finding is a failure.
func (c *DoctorCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	r, err := api.Doctor(ctx)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = printFindings(env, r)
	}
	if err != nil || r.Healthy() {
		return err
	}
	failures := 0
	for _, f := range r.Findings {
		if f.Severity == continuity.SeverityFailure {
			failures++
		}
	}
	return unhealthyError{failures: failures}
}

func printFindings(env *Env, r continuity.DoctorReport) error {
	if len(r.Findings) == 0 {
		_, err := fmt.Fprintln(env.Stdout, "healthy")
		return err
	}
	for _, f := range r.Findings {
		// A sentence quotes the ledger (a provider event, a failure's
		// reason), which a team server's client may have written: one line
		// of text each, whatever it holds.
		line := fmt.Sprintf("%s %s: %s", runes.OneLine(string(f.Severity)), runes.OneLine(f.Check), runes.OneLine(f.Sentence))
		if _, err := fmt.Fprintln(env.Stdout, runes.Visible(line)); err != nil {
			return err
		}
	}
	return nil
}
