package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
)

// BottleCmd groups the bottle commands: `baton bottle render` and
// `baton bottle show`.
type BottleCmd struct {
	Render BottleRenderCmd `cmd:"" help:"Render a transcript (Claude Code, Codex or Gemini CLI JSONL) to a bottle."`
	Show   BottleShowCmd   `cmd:"" help:"Print a session's current bottle from $BATON_HOME/bottles/<agent>."`
}

// BottleRenderCmd renders one transcript file to a bottle, with observations
// derived from its tool calls. It reads no store; only --keep writes under
// the baton home, as a hook does.
type BottleRenderCmd struct {
	Transcript string `required:"" type:"existingfile" help:"Path of the transcript JSONL."`
	Out        string `type:"path" xor:"dest" help:"Write the bottle here (atomically) instead of to stdout."`
	Keep       bool   `xor:"dest" help:"Write the bottle where the hooks keep the agent's bottles ($BATON_HOME/bottles/<agent>/<session>.md, what bottle show prints) and print its path."`
	Agent      string `default:"${defaultAgent}" help:"The agent whose bottle --keep writes."`

	// Now is the render time of a printed bottle; nil means time.Now.
	Now func() time.Time `kong:"-"`
}

// Run renders the transcript and writes the bottle.
func (c *BottleRenderCmd) Run(ctx context.Context, env *Env) error {
	f, err := os.Open(c.Transcript)
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	defer f.Close()
	var tr bottle.Transcript
	if _, err := tr.ReadLines(f, 0); err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	session := tr.SessionID
	if session == "" {
		session = strings.TrimSuffix(filepath.Base(c.Transcript), filepath.Ext(c.Transcript))
	}
	if c.Keep {
		return c.keep(ctx, env, session)
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	res := bottle.Render(bottle.Page{SessionID: session, Transcript: &tr}, now())
	if res.Mode == bottle.ModeTimeline {
		return fmt.Errorf("bottle render: %s holds no conversation to bottle", c.Transcript)
	}
	if c.Out != "" {
		return bottle.WriteFileAtomic(c.Out, res.Markdown, 0o600)
	}
	_, err = env.Stdout.Write(res.Markdown)
	return err
}

// keep renders through the agent's Bottler, under the session's render lock
// a hook takes too, and prints where the bottle is.
func (c *BottleRenderCmd) keep(ctx context.Context, env *Env, session string) error {
	home, err := env.home()
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	res, err := (&bottle.Bottler{Home: home, Agent: c.Agent}).Render(ctx, session, c.Transcript)
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	if res.Mode == bottle.ModeTimeline {
		return fmt.Errorf("bottle render: %s holds no conversation to bottle", c.Transcript)
	}
	_, err = fmt.Fprintln(env.Stdout, res.Path)
	return err
}

// BottleShowCmd prints the bottle kept for a session.
type BottleShowCmd struct {
	SessionID string `arg:"" name:"session-id" help:"The harness's session id."`
	Agent     string `default:"${defaultAgent}" help:"The agent the session belongs to."`
}

// Run prints $BATON_HOME/bottles/<agent>/<session>.md.
func (c *BottleShowCmd) Run(env *Env) error {
	home, err := env.home()
	if err != nil {
		return fmt.Errorf("bottle show: %w", err)
	}
	data, err := (&bottle.Bottler{Home: home, Agent: c.Agent}).Read(c.SessionID)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("bottle show: no bottle for session %s", c.SessionID)
	}
	if err != nil {
		return fmt.Errorf("bottle show: %w", err)
	}
	_, err = env.Stdout.Write(data)
	return err
}
