package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/internal/runes"
)

// BottleCmd groups the bottle commands: `baton bottle render` and
// `baton bottle show`.
type BottleCmd struct {
	Render BottleRenderCmd `cmd:"" help:"Render a transcript (Claude Code, Codex or Gemini CLI JSONL) to a bottle."`
	Show   BottleShowCmd   `cmd:"" help:"Print a session's current bottle from $BATON_HOME/bottles/<agent>."`
}

// BottleRenderCmd renders one transcript file to a bottle, with observations
// derived from its tool calls. It reads no store; only --keep writes under
// the baton home, as a hook does. It reads only a regular file, to the end
// it had when the render started, and never writes over it.
type BottleRenderCmd struct {
	Transcript string `required:"" type:"existingfile" help:"Path of the transcript JSONL (a regular file)."`
	Out        string `type:"path" xor:"dest" help:"Write the bottle here (atomically) instead of to stdout; never the transcript itself."`
	Keep       bool   `xor:"dest" help:"Write the bottle where the hooks keep the agent's bottles ($BATON_HOME/bottles/<agent>/<session>.bottle/, an index and its pages, what bottle show prints) and print the index's path, a control or invisible character in it as its code point."`
	Agent      string `default:"${defaultAgent}" help:"The agent whose bottle --keep writes."`

	// Now is the render time of a printed bottle; nil means time.Now.
	Now func() time.Time `kong:"-"`
}

// Help details what the command refuses, and its exit statuses.
func (c *BottleRenderCmd) Help() string {
	return `Exit status: 0 when the bottle is written; 1 when the render fails (the transcript cannot be read or holds no conversation, or the transcript is in the bottle directory --keep would write); 2 on a usage error, with the usage on stderr: a transcript path that is missing, a directory or not a regular file (a device, FIFO or socket is never read), an --out that is the transcript itself (by any path or link), a directory, -, a name with space at either end or a file in a directory that does not exist, an --agent that is empty or no agent name, or --out with --keep. A refusal writes nothing.`
}

// Validate refuses, before anything is opened, a transcript that is not a
// regular file and an --out that is the transcript: kong reports either as
// a usage error.
func (c *BottleRenderCmd) Validate() error {
	if err := agentFlag(c.Agent); err != nil {
		return err
	}
	if c.Transcript == "" {
		return nil // missing: kong's check of required flags says so
	}
	fi, err := os.Stat(c.Transcript)
	if err != nil {
		return err
	}
	if err := regularFile(c.Transcript, fi); err != nil {
		return err
	}
	if c.Out != "" {
		if out, err := os.Stat(c.Out); err == nil && os.SameFile(fi, out) {
			return fmt.Errorf("--out names the transcript %s: refusing to write over the input", c.Transcript)
		}
	}
	return outFile(c.Out)
}

// outFile refuses an --out that names a directory: the file written there
// would replace it, which a rename refuses only after the temporary file is
// written beside it. It refuses too, before anything is opened, what
// would write a file the person did not name: "-" (a file of that name, not
// stdout), a path holding a NUL byte (which none does), a name with space
// at either end (taken as typed, " " or "x.md " is a file beside the one
// meant), and a path in a directory that does not exist (the temporary
// file's error would name neither the flag nor the path).
func outFile(out string) error {
	if out == "" {
		return nil
	}
	if out == "-" {
		return errors.New("--out: - is no file: leave --out out to write to stdout")
	}
	if strings.IndexByte(out, 0) >= 0 {
		return errors.New("--out: holds a NUL byte: no path does")
	}
	if base := filepath.Base(out); strings.TrimSpace(base) != base {
		return fmt.Errorf("--out: %q has space at its start or end: the path is taken as typed, so give it without the space", base)
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("--out: %s is a directory: name the file to write", out)
	}
	dir := filepath.Dir(out)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out: the directory %s does not exist: create it, or name a file in one that does", dir)
	case err != nil:
		return fmt.Errorf("--out: the directory %s cannot be used: %s", dir, pathReason(err))
	case !fi.IsDir():
		return fmt.Errorf("--out: %s is not a directory", dir)
	}
	return nil
}

// regularFile refuses what is not a regular file: a device or a FIFO would
// be read forever, or an open would wait for a writer.
func regularFile(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--transcript: %s is not a regular file: only a transcript file is read, never a device, FIFO or socket", path)
	}
	return nil
}

// Run renders the transcript and writes the bottle.
func (c *BottleRenderCmd) Run(ctx context.Context, env *Env) error {
	f, err := os.Open(c.Transcript)
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	if err := regularFile(c.Transcript, fi); err != nil { // replaced since Validate
		return fmt.Errorf("bottle render: %w", err)
	}
	// A one-off render reads the whole file, a last line without its
	// newline included, up to the size it has now.
	var tr bottle.Transcript
	if err := tr.ReadAll(f, fi.Size()); err != nil {
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
// a hook takes too, and prints where the bottle's index is, its control and
// invisible characters as their code points. It refuses when
// the transcript lies in that bottle's directory, among the files a render
// writes.
func (c *BottleRenderCmd) keep(ctx context.Context, env *Env, session string) error {
	home, err := env.home()
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	bottler := &bottle.Bottler{Home: home, Agent: c.Agent}
	if path, err := bottler.Path(session); err == nil {
		dir := filepath.Dir(path)
		kept, err := os.Stat(dir)
		if in, ierr := os.Stat(filepath.Dir(c.Transcript)); err == nil && ierr == nil && os.SameFile(in, kept) {
			return fmt.Errorf("bottle render: the transcript is in the bottle directory %s: --keep would write over the input", dir)
		}
	}
	res, err := bottler.Render(ctx, session, c.Transcript)
	if err != nil {
		return fmt.Errorf("bottle render: %w", err)
	}
	if res.Mode == bottle.ModeTimeline {
		return fmt.Errorf("bottle render: %s holds no conversation to bottle", c.Transcript)
	}
	// The path is BATON_HOME's, whose POSIX name may hold an escape
	// sequence or a newline: it is shown as every path baton names is
	// (runes.VisibleInLine), on a terminal or not, so a script reads an
	// ordinary path as it is and a hostile one as no second line.
	_, err = fmt.Fprintln(env.Stdout, runes.VisibleInLine(res.Path))
	return err
}

// BottleShowCmd prints the bottle kept for a session.
type BottleShowCmd struct {
	SessionID string `arg:"" name:"session-id" help:"The harness's session id."`
	Agent     string `default:"${defaultAgent}" help:"The agent the session belongs to."`
}

// Validate refuses an --agent (see agentFlag) and a session id no bottle
// can have, before anything is read: kong reports either as a usage error.
func (c *BottleShowCmd) Validate() error {
	if err := agentFlag(c.Agent); err != nil {
		return err
	}
	if bottle.ValidateSessionID(c.SessionID) != nil {
		return fmt.Errorf("<session-id>: %q %s", c.SessionID, bottle.SessionIDRule)
	}
	return nil
}

// agentFlag refuses an empty --agent: the library reads an empty agent as
// the bottles directory itself, where no hook keeps a bottle, so --keep
// would write, and show read, a bottle no session has. It refuses, too, an
// agent the library refuses (space, a capital, a NUL, a slash), naming the
// flag, as a usage error rather than the library's failure.
func agentFlag(agent string) error {
	if agent == "" {
		return fmt.Errorf("--agent is empty: name the agent whose bottles to use (default %s)", defaultAgent)
	}
	if bottle.ValidateAgent(agent) != nil {
		return fmt.Errorf("--agent: %q is not an agent name: it %s", agent, bottle.AgentRule)
	}
	return nil
}

// Run prints $BATON_HOME/bottles/<agent>/<session>.bottle/ as one
// document: the index, then every page, for a person: the bottle is
// verbatim text a transcript wrote, so its lines are printed as
// runes.Lines leaves them (an escape sequence, a carriage return or a
// backspace in a prompt reaches the terminal as a space, not as a screen
// clear, a window title, a hyperlink or an overwritten line), each
// character that shows nothing or a blank shown as its code point
// (runes.Visible: a right-to-left override, a zero-width space, a Hangul
// filler), as `baton briefing` prints a briefing.
// The files keep the bottle as rendered, verbatim.
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
	_, err = io.WriteString(env.Stdout, runes.Visible(runes.Lines(string(data))))
	return err
}
