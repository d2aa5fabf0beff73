package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/batonhq/baton/continuity"
)

// RememberCmd remembers one curated atom.
type RememberCmd struct {
	Kind       string   `default:"note" enum:"commitment,decision,preference,blocker,note" help:"Kind of atom."`
	Topic      string   `required:"" help:"Short topic."`
	Project    string   `help:"Project facet (default: the git top-level's name)."`
	Scope      string   `help:"Scope facet."`
	SessionRun string   `name:"session-run" help:"The sessionRunId of the run making the write."`
	Content    []string `arg:"" help:"Content (at most 2000 characters)."`
}

// Run writes the atom and prints its id.
func (c *RememberCmd) Run(env *Env) error {
	ctx := context.Background()
	svc, done, err := env.Service(ctx)
	if err != nil {
		return err
	}
	defer done()
	project := env.ProjectOr(c.Project)
	r, err := svc.Remember(ctx, env.Tenant, continuity.RememberParams{
		Kind: continuity.MemoryKind(c.Kind), Topic: c.Topic, Content: strings.Join(c.Content, " "),
		Project: project, Scope: c.Scope, SessionRunID: c.SessionRun, Actor: continuity.ActorUserCLI,
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.Stdout, r.Memory.ID)
	return err
}

// TransitionCmd holds what resolve, unresolve and archive take.
type TransitionCmd struct {
	ID         string `arg:"" name:"memory-id" help:"The memory's id."`
	SessionRun string `name:"session-run" help:"The sessionRunId of the run making the write."`
}

// transition is one of the service's memory transitions, as a method
// expression such as (*continuity.Service).Resolve.
type transition func(s *continuity.Service, ctx context.Context, tenant, id string, p continuity.TransitionParams) (continuity.WriteResult, error)

func (c *TransitionCmd) run(env *Env, verb transition) error {
	ctx := context.Background()
	svc, done, err := env.Service(ctx)
	if err != nil {
		return err
	}
	defer done()
	r, err := verb(svc, ctx, env.Tenant, c.ID, continuity.TransitionParams{SessionRunID: c.SessionRun, Actor: continuity.ActorUserCLI})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "%s %s\n", r.Memory.ID, r.Memory.Status)
	return err
}

// ResolveCmd resolves a memory.
type ResolveCmd struct{ TransitionCmd }

// Run resolves the memory and prints its id and status.
func (c *ResolveCmd) Run(env *Env) error { return c.run(env, (*continuity.Service).Resolve) }

// UnresolveCmd reopens a resolved memory.
type UnresolveCmd struct{ TransitionCmd }

// Run reopens the memory and prints its id and status.
func (c *UnresolveCmd) Run(env *Env) error { return c.run(env, (*continuity.Service).Unresolve) }

// ArchiveCmd archives a memory.
type ArchiveCmd struct{ TransitionCmd }

// Run archives the memory and prints its id and status.
func (c *ArchiveCmd) Run(env *Env) error { return c.run(env, (*continuity.Service).Archive) }

// BriefingCmd prints the briefing.
type BriefingCmd struct {
	Project string `help:"Project facet (default: the git top-level's name)."`
	Scope   string `help:"Scope facet."`
	JSON    bool   `name:"json" help:"Print JSON."`
}

// Run prints the briefing as text or JSON.
func (c *BriefingCmd) Run(env *Env) error {
	ctx := context.Background()
	svc, done, err := env.Service(ctx)
	if err != nil {
		return err
	}
	defer done()
	project := env.ProjectOr(c.Project)
	b, err := svc.Briefing(ctx, env.Tenant, continuity.BriefingParams{Project: project, Scope: c.Scope})
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	_, err = fmt.Fprint(env.Stdout, b.Text)
	return err
}
