package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

// memoryFlags names, for each field of the API that a flag or an argument
// of remember, resolve, unresolve, archive or briefing sets, that flag or
// argument.
var memoryFlags = map[string]string{
	"kind": "--kind", "topic": "--topic", "content": "<content>", "project": "--project",
	"scope": "--scope", "sessionRunId": "--session-run", "id": "<memory-id>",
}

// byFlag restates the fields an error names (an invalid value) by the
// flags and arguments that set them, so the person reads what they typed:
// --session-run, not sessionRunId.
func byFlag(err error) error {
	var ce *continuity.Error
	if !errors.As(err, &ce) || len(ce.Fields) == 0 {
		return err
	}
	fields := make(map[string]string, len(ce.Fields))
	for field, reason := range ce.Fields {
		if flag, ok := memoryFlags[field]; ok {
			field = flag
		}
		fields[field] = reason
	}
	return &continuity.Error{Code: ce.Code, Message: ce.Message, Fields: fields, Err: err}
}

// RememberCmd remembers one curated atom.
type RememberCmd struct {
	Kind       string   `default:"note" enum:"commitment,decision,preference,blocker,note" help:"Kind of atom."`
	Topic      string   `required:"" help:"Short topic."`
	Project    string   `help:"Project facet (default: the git top-level's name)."`
	Scope      string   `help:"Scope facet."`
	SessionRun string   `name:"session-run" help:"The sessionRunId of the run making the write."`
	Content    []string `arg:"" help:"Content (at most 2000 characters)."`
}

// Validate refuses a --project, --scope or --session-run given as space
// alone: the service trims each, so it would stand for none (no project
// facet, no scope, a write attributed to no run) where the person named
// one. kong reports it as a usage error.
func (c *RememberCmd) Validate() error {
	return blankFlags(map[string]string{"--project": c.Project, "--scope": c.Scope, "--session-run": c.SessionRun})
}

// blankFlags refuses, naming the first flag in order, a flag whose value is
// not empty but blank after trimming. An empty value is no value: the flag's
// default.
func blankFlags(flags map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; v != "" && strings.TrimSpace(v) == "" {
			return continuity.Invalid(name, "is blank: give a value, or leave the flag out")
		}
	}
	return nil
}

// Run writes the atom and prints its id.
func (c *RememberCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	r, err := api.Remember(ctx, continuity.RememberParams{
		Kind: continuity.MemoryKind(c.Kind), Topic: c.Topic, Content: strings.Join(c.Content, " "),
		Project: env.ProjectOr(c.Project), Scope: c.Scope, SessionRunID: c.SessionRun, Actor: continuity.ActorUserCLI,
	})
	if err != nil {
		return byFlag(err)
	}
	_, err = fmt.Fprintln(env.Stdout, r.Memory.ID)
	return err
}

// TransitionCmd holds what resolve, unresolve and archive take.
type TransitionCmd struct {
	ID         string `arg:"" name:"memory-id" help:"The memory's id."`
	SessionRun string `name:"session-run" help:"The sessionRunId of the run making the write."`
}

// transition is one of the API's memory transitions, as a method
// expression such as continuity.API.Resolve.
type transition func(api continuity.API, ctx context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error)

// Validate refuses a --session-run given as space alone (see
// RememberCmd.Validate).
func (c *TransitionCmd) Validate() error {
	return blankFlags(map[string]string{"--session-run": c.SessionRun})
}

func (c *TransitionCmd) run(ctx context.Context, env *Env, api continuity.API, verb transition) error {
	r, err := verb(api, ctx, c.ID, continuity.TransitionParams{SessionRunID: c.SessionRun, Actor: continuity.ActorUserCLI})
	if err != nil {
		return byFlag(err)
	}
	// The status is the answer's, and a team server's answer is its text.
	_, err = fmt.Fprintf(env.Stdout, "%s %s\n", r.Memory.ID, runes.VisibleInLine(string(r.Memory.Status)))
	return err
}

// ResolveCmd resolves a memory.
type ResolveCmd struct{ TransitionCmd }

// Run resolves the memory and prints its id and status.
func (c *ResolveCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	return c.run(ctx, env, api, continuity.API.Resolve)
}

// UnresolveCmd reopens a resolved memory.
type UnresolveCmd struct{ TransitionCmd }

// Run reopens the memory and prints its id and status.
func (c *UnresolveCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	return c.run(ctx, env, api, continuity.API.Unresolve)
}

// ArchiveCmd archives a memory.
type ArchiveCmd struct{ TransitionCmd }

// Run archives the memory and prints its id and status.
func (c *ArchiveCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	return c.run(ctx, env, api, continuity.API.Archive)
}

// BriefingCmd prints the briefing.
type BriefingCmd struct {
	Project string `help:"Project facet (default: the git top-level's name)."`
	JSON    bool   `name:"json" help:"Print the briefing's JSON (without the handover)."`
}

// Validate refuses a --project given as space alone (see
// RememberCmd.Validate).
func (c *BriefingCmd) Validate() error {
	return blankFlags(map[string]string{"--project": c.Project})
}

// Run prints what a startup would show for the working directory: the
// briefing and the project's newest handover with its freshness and its
// divergence from the working directory's HEAD; or, with --json, the
// briefing as the API returns it.
func (c *BriefingCmd) Run(ctx context.Context, env *Env, api continuity.API) error {
	if c.JSON {
		b, err := api.Briefing(ctx, continuity.BriefingParams{Project: env.ProjectOr(c.Project)})
		if err != nil {
			return byFlag(err)
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	e, err := episodes(api, env)
	if err != nil {
		return err
	}
	text, err := e.Briefing(ctx, env.Dir, c.Project)
	if err != nil {
		return byFlag(err)
	}
	_, err = fmt.Fprint(env.Stdout, text)
	return err
}
