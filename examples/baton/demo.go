package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/workdir"
	"github.com/google/uuid"
)

//go:embed testdata/demo-transcript.jsonl
var demoTranscript []byte

// DemoCmd runs a scripted session lifecycle against an embedded SQLite store
// in a temporary BATON_HOME and prints each step and the ledger.
type DemoCmd struct {
	Keep bool `help:"Keep the temporary BATON_HOME instead of removing it."`

	// Home, when set, is the BATON_HOME to run in instead of a temporary
	// one; it is kept, so a test can read the ledger the demo wrote.
	Home string `kong:"-"`
}

// demoClock is the demo's settable clock, so a lapsed lease takes no day.
type demoClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *demoClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// After waits in real time: the demo never waits on a drainer.
func (c *demoClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

func (c *demoClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// demo carries the script's state and prints each step.
type demo struct {
	ctx   context.Context
	w     io.Writer
	api   continuity.API
	ep    *continuity.Episodes
	clock *demoClock
	// cwd is the working directory the hooks run in; its base name is the
	// project facet.
	cwd  string
	step int
	err  error
}

func (d *demo) say(format string, args ...any) {
	if d.err == nil {
		_, d.err = fmt.Fprintf(d.w, format+"\n", args...)
	}
}

func (d *demo) title(s string) {
	d.step++
	d.say("\n%2d. %s", d.step, s)
}

// The demo's tenant, and the harness its provider events come from.
const (
	demoTenant = "demo"
	demoAgent  = defaultAgent
)

// providerEvents names each hook event as the demo's harness does.
var providerEvents = map[continuity.HookKind]string{
	continuity.HookStart:      "SessionStart",
	continuity.HookPrompt:     "UserPromptSubmit",
	continuity.HookStop:       "Stop",
	continuity.HookPreCompact: "PreCompact",
	continuity.HookEnd:        "SessionEnd",
}

// hook delivers one provider event as the hook adapter does: one call of
// the episode runner, which records the receipt before anything the event
// causes. Every provider event of the demo goes through here.
func (d *demo) hook(ev continuity.HookEvent) (continuity.HookOutcome, error) {
	ev.Provider, ev.ProviderEvent = demoAgent, providerEvents[ev.Kind]
	if ev.Cwd == "" {
		ev.Cwd = d.cwd
	}
	return d.ep.Handle(d.ctx, ev)
}

// stop delivers a Stop a minute after the last turn.
func (d *demo) stop(session, transcript, msg string, continuation bool) (continuity.HookOutcome, error) {
	d.clock.advance(time.Minute)
	return d.hook(continuity.HookEvent{Kind: continuity.HookStop, SessionID: session, TranscriptPath: transcript,
		LastMessage: &msg, StopHookActive: continuation})
}

// session reads the conversation's row, to show what an event did.
func (d *demo) session(session string) (continuity.SessionView, error) {
	return d.api.Session(d.ctx, demoAgent, session)
}

// Run runs the script.
func (c *DemoCmd) Run(ctx context.Context, env *Env) error {
	home := c.Home
	if home == "" {
		var err error
		if home, err = os.MkdirTemp("", "baton-demo-"); err != nil {
			return err
		}
		if !c.Keep {
			defer os.RemoveAll(home)
		}
	}
	clock := &demoClock{t: time.Now().UTC().Truncate(time.Second)}
	denv := &Env{Home: home, DSN: filepath.Join(home, "baton.db"), Tenant: demoTenant, Stdout: env.Stdout, Stderr: env.Stderr}
	api, done, err := denv.Open(ctx, continuity.WithClock(clock.Now))
	if err != nil {
		return err
	}
	defer done()
	ep := continuity.NewEpisodes(api, demoAgent, home)
	ep.Now, ep.Bottler.Clock = clock.Now, clock
	d := &demo{ctx: ctx, w: env.Stdout, api: api, ep: ep, clock: clock, cwd: filepath.Join(home, "work", "baton")}
	d.say("baton demo — BATON_HOME=%s (embedded SQLite at baton.db, tenant %q)", home, demoTenant)
	if err := d.script(home); err != nil {
		return fmt.Errorf("demo step %d: %w", d.step, err)
	}
	if c.Keep {
		d.say("\nKept %s.", home)
	}
	return d.err
}

func (d *demo) script(home string) error {
	ctx, api := d.ctx, d.api
	const agent = demoAgent
	sid := "7f3c2a9e-4b1d-4e8a-9c2f-1a6b5d8e0f42" // the demo transcript's session id
	other := filepath.Join(home, "work", "other")
	tpath := filepath.Join(home, "transcripts", sid+".jsonl")
	for _, dir := range []string{d.cwd, other, filepath.Dir(tpath)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(tpath, demoTranscript, 0o600); err != nil {
		return err
	}
	// The project facet is the hooks' rule, so the CLI's writes and the
	// hooks' session meet.
	project := workdir.Project(d.cwd)

	d.title("Curated memory from an earlier session")
	ship, err := api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "lease rules",
		Content: "Ship the lease rules with table tests at every boundary.", Project: project, Actor: continuity.ActorUserCLI})
	if err != nil {
		return err
	}
	if _, err := api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindPreference, Topic: "tests",
		Content: "Tests are tables at the boundaries.", Project: project, Actor: continuity.ActorUserCLI}); err != nil {
		return err
	}
	d.say("    remembered commitment %s in project %q (no session open: unattributed)", short(ship.Memory.ID), project)

	d.title("SessionStart startup: one call briefs, opens, and injects the briefing and the sessionRunId")
	start := continuity.HookEvent{Kind: continuity.HookStart, SessionID: sid, Source: continuity.SourceStartup, TranscriptPath: tpath}
	out, err := d.hook(start)
	if err != nil {
		return err
	}
	run := out.SessionRunID
	v, err := d.session(sid)
	if err != nil {
		return err
	}
	d.say("    sessionRunId %s, epoch %d, %d briefed rows; injected:", short(run), v.ActivationEpoch, len(v.BriefedMemories))
	d.say("%s", indent(out.Context))

	d.title("A retried startup with the same values changes nothing; different values conflict")
	retry, err := d.hook(start)
	if err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	moved := start
	moved.Cwd = other
	_, err = d.hook(moved)
	d.say("    retry: same run %v, epoch still %d; from project %q: %s, and the ledger records the failure",
		retry.SessionRunID == run, v.ActivationEpoch, workdir.Project(other), continuity.ErrorCode(err))

	d.title("The agent records a decision, passing the sessionRunId it was given")
	if _, err := d.hook(continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: sid,
		Prompt: "Use bun for storage? <private>my token is abc</private>"}); err != nil {
		return err
	}
	dec, err := api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindDecision, Topic: "storage",
		Content: "Use bun over SQLite and Postgres from one set of migrations.", Project: project, SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    decision %s attributed to %s", short(dec.Memory.ID), short(dec.SessionRunID))
	note, err := api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindNote, Topic: "ci",
		Content: "CI needs Postgres running.", Project: project, Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    a note without an id attaches to the one leased-open session of the project: %s", short(note.SessionRunID))

	d.title("Three Stops: heartbeats with the last assistant message, the bottle rendered as the transcript grows")
	for i := 1; i <= 3; i++ {
		if _, err := d.stop(sid, tpath, fmt.Sprintf("Turn %d done.", i), false); err != nil {
			return err
		}
		if v, err = d.session(sid); err != nil {
			return err
		}
		d.say("    Stop %d: last seen %s, epoch %d", i, v.LastSeenAt.Format(time.TimeOnly), v.ActivationEpoch)
	}

	d.title("The Stop nudge (BATON_STOP_NUDGE=1): a Stop blocks once, the model writes, the continuation's Stop completes")
	d.ep.Nudge = true
	nudge, err := d.stop(sid, tpath, "Turn 4 done.", false)
	if err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	attempt := v.TriageAttemptID
	d.say("    Stop 4 blocks the turn: %v; triage %s, attempt %s", nudge.Block, v.TriageStatus, short(attempt))
	d.say("    the reason, the debrief prompt (first lines):\n%s", indent(firstLines(nudge.Reason, 4)))
	if _, err := api.Resolve(ctx, ship.Memory.ID.String(), continuity.TransitionParams{SessionRunID: run.String(), Actor: continuity.ActorUserAPI}); err != nil {
		return err
	}
	d.say("    the model resolved %s", short(ship.Memory.ID))
	cont, err := d.stop(sid, tpath, "Recorded.", true)
	if err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	d.say("    Stop 5, the continuation (stop_hook_active): blocks %v; triage %s, same attempt %v", cont.Block, v.TriageStatus, v.TriageAttemptID == attempt)
	page, err := api.RunEvents(ctx, run.String(), "", 0)
	if err != nil {
		return err
	}
	var kinds []string
	for _, it := range page.Items {
		kinds = append(kinds, it.EventKind)
	}
	d.say("    this run's provenance events: %s", strings.Join(kinds, ", "))

	d.title("PreCompact: seal the bottle and write a checkpoint; SessionStart compact: inject the pointer once")
	if _, err := d.hook(continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: sid, TranscriptPath: tpath, Trigger: "auto"}); err != nil {
		return err
	}
	cps, err := api.Records(ctx, continuity.RecordQuery{Agent: agent, SessionID: sid, Kinds: []continuity.RecordKind{continuity.RecordCheckpoint}, Limit: 1})
	if err != nil || len(cps) == 0 {
		return fmt.Errorf("no checkpoint: %v", err)
	}
	d.say("    checkpoint %s, next action %q, bottle sealed at %s", short(cps[0].ID), cps[0].NextAction, cps[0].BottlePath)
	compact := continuity.HookEvent{Kind: continuity.HookStart, SessionID: sid, Source: continuity.SourceCompact, TranscriptPath: tpath}
	cp, err := d.hook(compact)
	if err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	d.say("    compact: same run %v, epoch %d, compactions %d; injected the pointer to the sealed bottle: %v",
		cp.SessionRunID == run, v.ActivationEpoch, v.Compactions, strings.Contains(cp.Context, cps[0].BottlePath))
	d.say("%s", indent(cp.Context))
	again, err := d.hook(compact)
	if err != nil {
		return err
	}
	d.say("    a doubled SessionStart finds the marker claimed and points at a bottle rendered on demand: %v",
		strings.Contains(again.Context, cps[0].BottlePath))
	if body, err := d.ep.Bottler.Read(sid); err == nil {
		d.say("    the bottle (first lines):\n%s", indent(firstLines(string(body), 12)))
	}

	d.title("SessionStart resume: epoch+1, briefing fields untouched")
	rs, err := d.hook(continuity.HookEvent{Kind: continuity.HookStart, SessionID: sid, Source: continuity.SourceResume, TranscriptPath: tpath})
	if err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	d.say("    same run %v, epoch %d, %d briefed rows kept", rs.SessionRunID == run, v.ActivationEpoch, len(v.BriefedMemories))

	d.title("SessionEnd: close and hand over, idempotent")
	end := continuity.HookEvent{Kind: continuity.HookEnd, SessionID: sid, Reason: "exit"}
	if _, err := d.hook(end); err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	closedAt := *v.ClosedAt
	if _, err := d.hook(end); err != nil {
		return err
	}
	if v, err = d.session(sid); err != nil {
		return err
	}
	d.say("    %s at %s; again: same time %v", v.State, closedAt.Format(time.TimeOnly), v.ClosedAt.Equal(closedAt))
	late, err := api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindNote, Topic: "late", Content: "Written after SessionEnd.",
		Project: project, SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    a write carrying the explicitly closed run succeeds unattributed: %v", late.SessionRunID == uuid.Nil)

	d.title("A second session starts with the handover, lapses overnight and is resurrected by its next Stop")
	sid2 := "demo-session-2"
	next, err := d.hook(continuity.HookEvent{Kind: continuity.HookStart, SessionID: sid2, Source: continuity.SourceStartup})
	if err != nil {
		return err
	}
	d.say("    injected:\n%s", indent(next.Context))
	d.clock.advance(25 * time.Hour)
	if v, err = d.session(sid2); err != nil {
		return err
	}
	d.say("    25 hours later, read: %s (no sweep ran)", v.State)
	if _, err := d.stop(sid2, "", "Back.", false); err != nil {
		return err
	}
	if v, err = d.session(sid2); err != nil {
		return err
	}
	d.say("    Stop: %s again, epoch %d", v.State, v.ActivationEpoch)
	_, err = d.stop("never-opened", "", "Hello?", false)
	d.say("    a Stop for a conversation never opened: %s, and the ledger records the failure", continuity.ErrorCode(err))
	brief, err := d.ep.Briefing(ctx, d.cwd, "")
	if err != nil {
		return err
	}
	d.say("    `baton briefing` now shows the handover's age:\n%s", indent(lastLines(brief, 6)))

	d.title("The ledger")
	es, err := api.Ledger(ctx, uuid.Nil, 1000)
	if err != nil {
		return err
	}
	for _, e := range es {
		d.say("    %s  %-24s %-38s %s", e.At.Format("Jan 02 15:04:05"), e.Event, e.Session, fields(e.Fields))
	}
	return nil
}

// short shows an id's random tail: UUIDv7s made in one second share their head.
func short(id uuid.UUID) string { return id.String()[28:] }

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "      | " + l
	}
	return strings.Join(lines, "\n")
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func fields(f map[string]string) string {
	var parts []string
	for _, k := range []string{"provider_event", "source", "epoch", "status", "reason", "by", "mode", "task"} {
		if v, ok := f[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
