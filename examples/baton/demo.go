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

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/inject"
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
	ctx    context.Context
	w      io.Writer
	svc    *continuity.Service
	clock  *demoClock
	tenant string
	step   int
	err    error
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
	demoAgent  = "claude-code"
)

// receive runs a provider event's work behind its receipt, as a hook does:
// every provider event in the demo goes through here, so the ledger shows
// provider.event.received before whatever the event caused.
func (d *demo) receive(event, session string, work func(ctx context.Context) error) error {
	return d.svc.Receive(d.ctx, d.tenant, continuity.ReceiptParams{Provider: demoAgent, ProviderEvent: event, Agent: demoAgent, SessionID: session}, work)
}

// stop delivers a Stop a minute after the last turn, as the Stop hook runs
// it: the receipt, the heartbeat carrying the last assistant message (the
// unconditional half), then the nudge's part when there is one.
func (d *demo) stop(session, msg string, nudge func(ctx context.Context) error) (continuity.HeartbeatResult, error) {
	d.clock.advance(time.Minute)
	var hb continuity.HeartbeatResult
	err := d.receive("Stop", session, func(ctx context.Context) error {
		var err error
		hb, err = d.svc.Heartbeat(ctx, d.tenant, continuity.HeartbeatParams{Agent: demoAgent, SessionID: session, Stop: true, LastMessageExcerpt: &msg})
		if err != nil || nudge == nil {
			return err
		}
		return nudge(ctx)
	})
	return hb, err
}

// Run runs the script.
func (c *DemoCmd) Run(env *Env) error {
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
	denv := &Env{Home: home, DSN: filepath.Join(home, "baton.db"), Tenant: demoTenant, Dir: env.Dir, Stdout: env.Stdout, Stderr: env.Stderr}
	ctx := context.Background()
	svc, done, err := denv.Service(ctx, continuity.WithClock(clock.Now))
	if err != nil {
		return err
	}
	defer done()
	d := &demo{ctx: ctx, w: env.Stdout, svc: svc, clock: clock, tenant: denv.Tenant}
	d.say("baton demo — BATON_HOME=%s (embedded SQLite at baton.db, tenant %q)", home, d.tenant)
	if err := d.script(home); err != nil {
		return fmt.Errorf("demo step %d: %w", d.step, err)
	}
	if c.Keep {
		d.say("\nKept %s.", home)
	}
	return d.err
}

func (d *demo) script(home string) error {
	ctx, tenant := d.ctx, d.tenant
	const agent, project = demoAgent, "baton"
	sid := "7f3c2a9e-4b1d-4e8a-9c2f-1a6b5d8e0f42" // the demo transcript's session id

	d.title("Curated memory from an earlier session")
	ship, err := d.svc.Remember(ctx, tenant, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "lease rules",
		Content: "Ship the lease rules with table tests at every boundary.", Project: project, Actor: continuity.ActorUserCLI})
	if err != nil {
		return err
	}
	if _, err := d.svc.Remember(ctx, tenant, continuity.RememberParams{Kind: continuity.KindPreference, Topic: "tests",
		Content: "Tests are tables at the boundaries.", Project: project, Actor: continuity.ActorUserCLI}); err != nil {
		return err
	}
	d.say("    remembered commitment %s (no session open: unattributed)", short(ship.Memory.ID))

	d.title("SessionStart startup: briefing, then open")
	var open continuity.OpenResult
	var brief continuity.Briefing
	err = d.receive("SessionStart", sid, func(ctx context.Context) error {
		var err error
		brief, err = d.svc.Briefing(ctx, tenant, continuity.BriefingParams{Project: project})
		if err != nil {
			return err
		}
		open, err = d.svc.Open(ctx, tenant, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup,
			Project: project, Selector: brief.Selector, BriefedMemories: brief.Briefed})
		return err
	})
	if err != nil {
		return err
	}
	run := open.SessionRunID
	d.say("    sessionRunId %s, epoch %d, created %v, %d briefed rows", short(run), open.ActivationEpoch, open.Created, len(brief.Briefed))
	d.say("%s", indent(brief.Text))

	d.title("A retried startup with the same values changes nothing; different values conflict")
	var retry continuity.OpenResult
	if err := d.receive("SessionStart", sid, func(ctx context.Context) error {
		var err error
		retry, err = d.svc.Open(ctx, tenant, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup,
			Project: project, Selector: brief.Selector})
		return err
	}); err != nil || retry.ActivationEpoch != 1 {
		return fmt.Errorf("retry: %v", err)
	}
	err = d.receive("SessionStart", sid, func(ctx context.Context) error {
		_, err := d.svc.Open(ctx, tenant, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup, Project: "other"})
		return err
	})
	d.say("    retry: epoch still 1; other project: %s, and the ledger records the failure", continuity.ErrorCode(err))

	d.title("The agent records a decision, passing its sessionRunId")
	bs := d.svc.Bottles(tenant, agent)
	if err := d.receive("UserPromptSubmit", sid, func(ctx context.Context) error {
		return bs.RecordPrompt(ctx, sid, "Use bun for storage? <private>my token is abc</private>")
	}); err != nil {
		return err
	}
	dec, err := d.svc.Remember(ctx, tenant, continuity.RememberParams{Kind: continuity.KindDecision, Topic: "storage",
		Content: "Use bun over SQLite and Postgres from one set of migrations.", Project: project, SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    decision %s attributed to %s", short(dec.Memory.ID), short(dec.SessionRunID))
	note, err := d.svc.Remember(ctx, tenant, continuity.RememberParams{Kind: continuity.KindNote, Topic: "ci",
		Content: "CI needs Postgres running.", Project: project, Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    a note without an id attaches to the one leased-open session of the project: %s", short(note.SessionRunID))

	d.title("Three Stops: heartbeats with the last assistant message")
	for i := 1; i <= 3; i++ {
		hb, err := d.stop(sid, fmt.Sprintf("Turn %d done.", i), nil)
		if err != nil {
			return err
		}
		d.say("    Stop %d: last seen %s, epoch %d", i, hb.LastSeenAt.Format(time.TimeOnly), hb.ActivationEpoch)
	}

	d.title("The Stop nudge: a Stop arms it once, the model writes, the continuation's Stop completes")
	triageParams := continuity.TriageParams{Agent: agent, SessionID: sid}
	var b continuity.TriageBeginResult
	var prompt string
	if _, err := d.stop(sid, "Turn 4 done.", func(ctx context.Context) error {
		var err error
		if b, err = d.svc.TriageBegin(ctx, tenant, triageParams); err != nil || !b.Armed {
			return err
		}
		prompt, err = d.svc.Debrief(ctx, tenant, continuity.DebriefParams{Agent: agent, SessionID: sid})
		return err
	}); err != nil {
		return err
	}
	d.say("    Stop 4 begins: armed %v, attempt %s", b.Armed, short(b.AttemptID))
	d.say("    debrief prompt (first lines):\n%s", indent(firstLines(prompt, 4)))
	if _, err := d.svc.Resolve(ctx, tenant, ship.Memory.ID.String(), continuity.TransitionParams{SessionRunID: run.String(), Actor: continuity.ActorUserAPI}); err != nil {
		return err
	}
	d.say("    the model resolved %s", short(ship.Memory.ID))
	var again continuity.TriageBeginResult
	var c continuity.TriageCompleteResult
	if _, err := d.stop(sid, "Recorded.", func(ctx context.Context) error {
		// The continuation's Stop recovers the attempt from begin's decline.
		var err error
		if again, err = d.svc.TriageBegin(ctx, tenant, triageParams); err != nil {
			return err
		}
		c, err = d.svc.TriageComplete(ctx, tenant, continuity.TriageCompleteParams{Agent: agent, SessionID: sid, AttemptID: again.AttemptID.String()})
		return err
	}); err != nil {
		return err
	}
	d.say("    Stop 5, the continuation: a second begin: armed %v, reason %s, same attempt %v", again.Armed, again.Reason, again.AttemptID == b.AttemptID)
	d.say("    complete: %s (%d since begin, %d visible)", c.TriageStatus, c.SinceBeginCount, c.EventCount)
	page, err := d.svc.RunEvents(ctx, tenant, run.String(), "", 0)
	if err != nil {
		return err
	}
	var kinds []string
	for _, it := range page.Items {
		kinds = append(kinds, it.EventKind)
	}
	d.say("    this run's provenance events: %s", strings.Join(kinds, ", "))

	d.title("PreCompact: seal the bottle; SessionStart compact: claim it once")
	tpath := filepath.Join(home, "transcripts", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tpath), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(tpath, demoTranscript, 0o600); err != nil {
		return err
	}
	bt := &bottle.Bottler{Home: home, History: bs, Marker: bs, Clock: d.clock}
	var sealed bottle.SealResult
	if err := d.receive("PreCompact", sid, func(ctx context.Context) error {
		var err error
		sealed, err = bt.Seal(ctx, sid, tpath, time.Second)
		return err
	}); err != nil {
		return err
	}
	d.say("    sealed %v, mode %s, gap %d, at %s", sealed.Sealed, sealed.Mode, sealed.Gap, sealed.Path)
	// compactStart is SessionStart with source compact: recover the run,
	// then claim the armed bottle and inject its pointer.
	compactStart := func() (cp continuity.HeartbeatResult, pointer string, claimed bool, err error) {
		err = d.receive("SessionStart", sid, func(ctx context.Context) error {
			var err error
			if cp, err = d.svc.Compact(ctx, tenant, continuity.HeartbeatParams{Agent: agent, SessionID: sid}); err != nil {
				return err
			}
			var m bottle.Marker
			if m, claimed, err = bt.Continuation(ctx, bs, sid); claimed {
				pointer = inject.Continuation(inject.ContinuationInput{RunID: cp.SessionRunID.String(), Agent: agent, Bottle: inject.FromMarker(m)})
			}
			return err
		})
		return cp, pointer, claimed, err
	}
	cp, pointer, claimed, err := compactStart()
	if err != nil {
		return err
	}
	d.say("    compact: same run %v, epoch %d; pointer injected %v:\n%s", cp.SessionRunID == run, cp.ActivationEpoch, claimed, indent(firstLines(pointer, 6)))
	if _, _, claimed, err = compactStart(); err != nil {
		return err
	}
	d.say("    a doubled SessionStart claims again: %v", claimed)
	if body, err := bt.Read(sid); err == nil {
		d.say("    the bottle (first lines):\n%s", indent(firstLines(string(body), 12)))
	}

	d.title("SessionStart resume: epoch+1, briefing fields untouched")
	var rs continuity.OpenResult
	if err := d.receive("SessionStart", sid, func(ctx context.Context) error {
		var err error
		rs, err = d.svc.Open(ctx, tenant, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceResume})
		return err
	}); err != nil {
		return err
	}
	d.say("    epoch %d, reopened %v", rs.ActivationEpoch, rs.Reopened)

	d.title("SessionEnd: close, idempotent")
	end := func() (cl continuity.CloseResult, err error) {
		err = d.receive("SessionEnd", sid, func(ctx context.Context) error {
			var err error
			cl, err = d.svc.Close(ctx, tenant, continuity.CloseParams{Agent: agent, SessionID: sid})
			return err
		})
		return cl, err
	}
	cl, err := end()
	if err != nil {
		return err
	}
	cl2, err := end()
	if err != nil {
		return err
	}
	d.say("    closed at %s; again: alreadyClosed %v, same time %v", cl.ClosedAt.Format(time.TimeOnly), cl2.AlreadyClosed, cl2.ClosedAt.Equal(cl.ClosedAt))
	late, err := d.svc.Remember(ctx, tenant, continuity.RememberParams{Kind: continuity.KindNote, Topic: "late", Content: "Written after SessionEnd.",
		Project: project, SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
	if err != nil {
		return err
	}
	d.say("    a write carrying the explicitly closed run succeeds unattributed: %v", late.SessionRunID == uuid.Nil)

	d.title("A second session lapses overnight and is resurrected by its next Stop")
	sid2 := "demo-session-2"
	if err := d.receive("SessionStart", sid2, func(ctx context.Context) error {
		_, err := d.svc.Open(ctx, tenant, continuity.OpenParams{Agent: agent, SessionID: sid2, Source: continuity.SourceStartup, Project: project})
		return err
	}); err != nil {
		return err
	}
	d.clock.advance(25 * time.Hour)
	v, err := d.svc.Session(ctx, tenant, agent, sid2)
	if err != nil {
		return err
	}
	d.say("    25 hours later, read: %s (no sweep ran)", v.State)
	hb, err := d.stop(sid2, "Back.", nil)
	if err != nil {
		return err
	}
	d.say("    Stop: resurrected %v, epoch %d", hb.Resurrected, hb.ActivationEpoch)
	_, err = d.stop("never-opened", "Hello?", nil)
	d.say("    a Stop for a conversation never opened: %s, and the ledger records the failure", continuity.ErrorCode(err))

	d.title("The ledger")
	es, err := d.svc.Ledger(ctx, tenant, uuid.Nil, 1000)
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

func fields(f map[string]string) string {
	var parts []string
	for _, k := range []string{"provider_event", "source", "epoch", "status", "reason", "by", "mode"} {
		if v, ok := f[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	return strings.Join(parts, " ")
}
