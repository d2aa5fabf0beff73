package continuity

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity/brief"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/continuity/inject"
	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/runes"
	"github.com/google/uuid"
)

// HookKind is a hook event, whatever the harness calls it.
type HookKind string

// The hook event kinds.
const (
	HookStart      HookKind = "start"
	HookPrompt     HookKind = "prompt"
	HookStop       HookKind = "stop"
	HookPreCompact HookKind = "precompact"
	HookEnd        HookKind = "end"
)

// HookEvent is one harness event, normalized by an adapter: which harness
// sent which of its events about which conversation, with what it carried.
type HookEvent struct {
	// Provider and ProviderEvent name the harness and its own event name.
	Provider      string
	ProviderEvent string
	Kind          HookKind
	SessionID     string
	// TranscriptPath is the harness's transcript, read where it is.
	TranscriptPath string
	// Cwd is the working directory: the project facet and the git facts
	// are read from it.
	Cwd string
	// Source is a SessionStart's source (startup, resume, compact, clear).
	Source Source
	// Prompt is a UserPrompt's text.
	Prompt string
	// LastMessage is a Stop's last assistant message, when sent.
	LastMessage *string
	// StopHookActive says a Stop continues a turn a Stop hook blocked.
	StopHookActive bool
	// Trigger is a PreCompact's trigger; Reason a SessionEnd's reason.
	Trigger string
	Reason  string
	// Provisional marks a PreCompact the harness sends before deciding
	// whether to compact at all (Gemini CLI's PreCompress(auto) fires on
	// every turn, ahead of its threshold check): the bottle is kept current
	// and the checkpoint written, but no marker is armed, so no later
	// SessionStart injects a pointer for a compaction that never happened.
	Provisional bool
}

// HookOutcome is what the adapter writes back in its harness's envelope.
type HookOutcome struct {
	// Context is the text to inject at SessionStart; empty injects nothing.
	Context string
	// Block continues a Stop's turn with Reason (the nudge).
	Block  bool
	Reason string
	// SessionRunID is the run the event was about, when known.
	SessionRunID uuid.UUID
	// LocalFailure is what failed of the event's local half (the bottle's
	// render, seal or archive), in the safe form the ledger keeps; the
	// event's work still ran. "" when nothing failed.
	LocalFailure string
}

// Episodes runs each hook event where the transcript is: the bottle's
// render and seal and the working directory's git facts, around one call of
// the API per event (and one more only when the local half fails after or
// beside that call, to record the failure against the call's receipt; a
// Stop renders beside its call). An adapter normalizes its harness's input
// into a HookEvent, calls Handle once and writes the outcome.
type Episodes struct {
	// API is the tenant-bound API: the local service or a team server.
	API API
	// Agent is the agent name the conversation is keyed by.
	Agent string
	// Bottler renders and seals bottles under the baton home; nil keeps no
	// bottle. Its Marker is left nil: the seal is armed through the API in
	// the PreCompact call; its History is the API's.
	Bottler *bottle.Bottler
	// Nudge enables the Stop triage handshake.
	Nudge bool
	// SealBudget bounds PreCompact's wait for pending observations; 0 is
	// bottle.DefaultSealBudget.
	SealBudget time.Duration
	// EndBudget bounds SessionEnd's close and handover; 0 is
	// DefaultEndBudget.
	EndBudget time.Duration
	// Freshness is the freshness policy the handover is read against.
	Freshness freshness.Policy
	// Now is the clock the handover's age is read at; nil is time.Now.
	Now func() time.Time
}

// NewEpisodes returns the runner for one agent over api, keeping bottles
// under home (empty: no bottles).
func NewEpisodes(api API, agent, home string) *Episodes {
	e := &Episodes{API: api, Agent: agent, Freshness: freshness.Default}
	if home != "" {
		e.Bottler = &bottle.Bottler{Home: home, Agent: agent, History: BottlesOf(api, agent)}
	}
	return e
}

func (e *Episodes) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e *Episodes) event(ev HookEvent) EventParams {
	return EventParams{Provider: ev.Provider, ProviderEvent: ev.ProviderEvent, Agent: e.Agent, SessionID: ev.SessionID}
}

// Handle runs one hook event. Its error is for the adapter's log and exit
// code policy; the receipt and the failure are already in the ledger when
// the API could be reached.
func (e *Episodes) Handle(ctx context.Context, ev HookEvent) (HookOutcome, error) {
	switch ev.Kind {
	case HookStart:
		return e.start(ctx, ev)
	case HookPrompt:
		_, err := e.API.UserPrompt(ctx, PromptParams{EventParams: e.event(ev), Prompt: ev.Prompt})
		return HookOutcome{}, err
	case HookStop:
		return e.stop(ctx, ev)
	case HookPreCompact:
		return e.preCompact(ctx, ev)
	case HookEnd:
		return HookOutcome{}, e.end(ctx, ev)
	}
	return HookOutcome{}, Invalid("kind", "must be one of start prompt stop precompact end")
}

// startBudget is the character budget of a SessionStart's injected text:
// the briefing's default budget. The briefing is rendered within what the
// id instruction and the largest handover block leave, so the rows the open
// records as briefed are exactly the rows the agent sees.
func (e *Episodes) startBudget() (total, briefing int) {
	total = DefaultBriefingPolicy.Budget
	overhead := inject.Overhead(inject.StartupInput{RunID: uuid.Nil.String(), Agent: e.Agent, Budget: total})
	return total, total - overhead - maxHandoverBlock
}

// handoverFieldLen bounds each of a handover's fields as a SessionStart
// shows it (the record keeps up to MaxRecordTextLen), and maxHandoverBlock
// the whole block: a heading and five lines.
const (
	handoverFieldLen = 400
	maxHandoverBlock = 3*handoverFieldLen + MaxTopicLen + 400
)

func (e *Episodes) start(ctx context.Context, ev HookEvent) (HookOutcome, error) {
	total, briefingBudget := e.startBudget()
	// One git run reads the project facet (the git top-level's base name)
	// and the HEAD a handover is compared with.
	wd, werr := workdir.Inspect(ctx, ev.Cwd)
	head := func() (workdir.Head, error) { return wd.Head, werr }
	r, err := e.API.SessionStart(ctx, StartParams{EventParams: e.event(ev), Source: ev.Source, Project: wd.Project(), BriefingBudget: briefingBudget})
	out := HookOutcome{SessionRunID: r.SessionRunID}
	if err != nil && r.SessionRunID == uuid.Nil {
		return out, err
	}
	run := r.SessionRunID.String()
	if r.SessionRunID == uuid.Nil {
		run = ""
	}
	local := func(lerr error) {
		if lerr == nil {
			return
		}
		out.LocalFailure = safeReason(lerr)
		if r.ReceiptID != uuid.Nil {
			_ = e.API.RecordFailure(ctx, FailureParams{EventParams: e.event(ev), ReceiptID: r.ReceiptID.String(), Reason: out.LocalFailure})
		}
	}
	briefing := ""
	if r.Briefing != nil {
		briefing = r.Briefing.Text
	}
	switch {
	case r.ArchiveBottle:
		// A clear: the bottle is archived and never injected.
		if e.Bottler != nil {
			// A clear that found the conversation (the harness kept its
			// id) bottles its transcript from here on; one that started
			// it (a new id, as every captured harness mints) owns all of
			// its transcript, whatever the harness wrote there first.
			transcript := ev.TranscriptPath
			if r.Started {
				transcript = ""
			}
			_, aerr := e.Bottler.Archive(ctx, ev.SessionID, transcript)
			local(aerr)
		}
		if !r.Started {
			briefing = ""
		}
		out.Context = inject.Startup(inject.StartupInput{RunID: run, Agent: e.Agent, Briefing: briefing,
			Handover: e.handover(ctx, ev.Cwd, r.Handover, briefedAt(r.Briefing), head), Budget: total})
	case r.Marker != nil && fileExists(r.Marker.Path):
		// The marker is of its seal. A compact claims the seal just done;
		// a resume may claim one armed many turns ago (Gemini CLI's
		// /compress has no compact SessionStart to claim it), and the
		// session's last turns may have reached no Stop: the bottle is
		// brought up to date, as a resume with no marker renders it, and
		// the pointer says what it holds now, never the seal's task as the
		// current one. Stores keep no plan: it is read where the bottle is.
		p := inject.FromMarker(bottle.AsItIs(*r.Marker))
		if e.Bottler != nil && ev.Source == SourceResume && ev.TranscriptPath != "" {
			b, rerr := e.Bottler.Render(ctx, ev.SessionID, ev.TranscriptPath)
			local(rerr)
			if rerr == nil && b.Mode != bottle.ModeTimeline && b.Path == p.Path {
				p = inject.PointerInput{Path: b.Path, Plan: b.Plan, Mode: b.Mode, Gap: b.Gap, Task: b.Task}
			}
		}
		out.Context = inject.Continuation(inject.ContinuationInput{RunID: run, Agent: e.Agent, Bottle: p})
	case ev.Source == SourceCompact || ev.Source == SourceResume:
		// No marker: render on demand (degraded when the transcript is
		// gone), else the briefing.
		in := inject.FallbackInput{RunID: run, Agent: e.Agent, Briefing: briefing, Budget: total}
		if e.Bottler != nil {
			b, rerr := e.Bottler.Render(ctx, ev.SessionID, ev.TranscriptPath)
			local(rerr)
			if rerr == nil && b.Mode != bottle.ModeTimeline {
				in.Bottle = inject.PointerInput{Path: b.Path, Plan: b.Plan, Mode: b.Mode, Gap: b.Gap, Task: b.Task}
			}
		}
		out.Context = inject.Fallback(in)
	default: // startup
		out.Context = inject.Startup(inject.StartupInput{RunID: run, Agent: e.Agent, Briefing: briefing,
			Handover: e.handover(ctx, ev.Cwd, r.Handover, briefedAt(r.Briefing), head), Budget: total})
	}
	return out, err
}

// Briefing renders what a startup would show for the project read from
// the working directory cwd (or project, when given): the briefing and the
// newest handover with its freshness and its divergence against cwd's HEAD,
// with no control character but the newline and the tab (inject.Briefing).
//
// Errors: those of API.Briefing and API.Records.
func (e *Episodes) Briefing(ctx context.Context, cwd, project string) (string, error) {
	if project == "" {
		project = workdir.Project(cwd)
	}
	_, budget := e.startBudget()
	b, err := e.API.Briefing(ctx, BriefingParams{Project: project, Budget: budget})
	if err != nil {
		return "", err
	}
	rs, err := e.API.Records(ctx, RecordQuery{ByProject: true, Project: project, Kinds: []RecordKind{RecordHandover}, Limit: 1})
	if err != nil {
		return "", err
	}
	var h *Record
	if len(rs) > 0 {
		h = &rs[0]
	}
	handover := e.handover(ctx, cwd, h, b.GeneratedAt, func() (workdir.Head, error) { return workdir.Git(ctx, cwd) })
	return inject.Briefing(b.Text, handover), nil
}

// handover renders the newest handover with its freshness and its
// divergence against the HEAD of the working directory cwd, which head
// reads, or "" when there is none. The record was stamped by the serving
// Service's clock (the store's, a StoreClock's), which need not agree with
// this host's (a team server, a host whose clock is off, an NTP step): its
// age is read at served, that clock's instant of the answer that carried
// it, so neither a hook whose clock lags reads a handover just written as
// in the future nor one whose clock runs ahead reads it as stale at once.
// Only an answer that carried no instant (zero) is read at e.now().
func (e *Episodes) handover(ctx context.Context, cwd string, h *Record, served time.Time, head func() (workdir.Head, error)) string {
	if h == nil {
		return ""
	}
	now := served
	if now.IsZero() {
		now = e.now()
	}
	a := freshness.Assessment{Freshness: e.Freshness.Of(h.CreatedAt, now)}
	if cwd != "" {
		a.Divergence = divergence(ctx, cwd, h, head)
	}
	return strings.TrimLeft(brief.HandoverBlock(brief.Handover{
		Kind: string(h.Kind), CreatedAt: h.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), Task: h.TaskName(),
		Objective: first(h.Objective, handoverFieldLen), State: first(h.State, handoverFieldLen), NextAction: first(h.NextAction, handoverFieldLen),
		Label:   a.Freshness.Label.String() + ": " + a.Freshness.Reason + "; git: " + a.Divergence.String(),
		History: a.History(),
	}), "\n")
}

// briefedAt is the server's instant of a SessionStart's briefing, or the
// zero time when it carried none.
func briefedAt(b *Briefing) time.Time {
	if b == nil {
		return time.Time{}
	}
	return b.GeneratedAt
}

// divergence reads the record's git position against dir's HEAD, as head
// reads it. The ancestry is asked of git only when it decides the answer
// (the commits differ on one branch): the usual startup, on the commit the
// handover recorded, starts no git for it.
func divergence(ctx context.Context, dir string, h *Record, readHead func() (workdir.Head, error)) freshness.Divergence {
	head, err := readHead()
	if err != nil {
		return freshness.DivergenceUnknown
	}
	t := freshness.Topology{Git: head.InWorkTree, Recorded: freshness.Ref{Commit: h.GitCommit, Branch: h.GitBranch},
		Current: freshness.Ref{Commit: head.Commit, Branch: head.Branch}}
	if d := freshness.Diverge(t); d != freshness.Diverged {
		return d
	}
	t.RecordedIsAncestor, _ = workdir.IsAncestor(ctx, dir, h.GitCommit, head.Commit)
	return freshness.Diverge(t)
}

func (e *Episodes) stop(ctx context.Context, ev HookEvent) (HookOutcome, error) {
	p := StopParams{EventParams: e.event(ev), LastMessage: ev.LastMessage, StopHookActive: ev.StopHookActive, Nudge: e.Nudge}
	var rendered <-chan error
	if e.Bottler != nil && ev.TranscriptPath != "" {
		// The incremental render (the transcript read from its cursor)
		// runs beside the Stop call: nothing of the call depends on it, so
		// the process pays for the slower of the two, the store's writes
		// and syncs (or a team server's round trip) overlapping the read.
		rendered = e.renderAside(ctx, ev)
	}
	r, err := e.API.Stop(ctx, p)
	out := HookOutcome{SessionRunID: r.SessionRunID}
	if rendered != nil {
		if rerr := <-rendered; rerr != nil {
			// A failed render is the Stop's local failure, recorded against
			// its receipt as a SessionStart's is.
			out.LocalFailure = safeReason(rerr)
			if r.ReceiptID != uuid.Nil {
				_ = e.API.RecordFailure(ctx, FailureParams{EventParams: e.event(ev), ReceiptID: r.ReceiptID.String(), Reason: out.LocalFailure})
			}
		}
	}
	// Only a Stop that succeeded nudges: a failed one's result (the
	// service's so far, a team server's error answer) decides nothing. An
	// attempt it armed is completed by the next Stop, as a pending one is.
	if err == nil && r.Inject {
		if reason := inject.Nudge(r.Reason); reason != "" {
			out.Block, out.Reason = true, reason
		}
	}
	return out, err
}

// renderAside renders ev's bottle incrementally on a goroutine of its own,
// within localBudget, and sends its error (nil once it rendered) on the
// channel it returns. A panic of the render is its error: it must not end
// the process, whose Stop call has its receipt to leave.
func (e *Episodes) renderAside(ctx context.Context, ev HookEvent) <-chan error {
	done := make(chan error, 1)
	lctx, cancel := localBudget(ctx, time.Now())
	go func() {
		defer cancel()
		defer func() {
			if r := recover(); r != nil {
				done <- errRenderPanicked
			}
		}()
		_, err := e.Bottler.Render(lctx, ev.SessionID, ev.TranscriptPath)
		done <- err
	}()
	return done
}

// errRenderPanicked is a render that panicked.
var errRenderPanicked = errors.New("bottle: the render panicked")

func (e *Episodes) preCompact(ctx context.Context, ev HookEvent) (HookOutcome, error) {
	p := PreCompactParams{EventParams: e.event(ev), Trigger: ev.Trigger, Provisional: ev.Provisional, Episode: gitEpisode(ctx, ev.Cwd)}
	lctx, cancel := localBudget(ctx, time.Now())
	defer cancel()
	switch {
	case e.Bottler == nil:
	case ev.Provisional:
		// The incremental render a Stop does, armed for nothing.
		b, err := e.Bottler.Render(lctx, ev.SessionID, ev.TranscriptPath)
		if err != nil {
			p.LocalFailure = safeReason(err)
		}
		p.Episode.BottlePath = b.Path
	default:
		s, err := e.Bottler.Seal(lctx, ev.SessionID, ev.TranscriptPath, e.SealBudget)
		switch {
		case err != nil:
			p.LocalFailure = safeReason(err)
		case s.Sealed:
			p.Sealed = &bottle.Marker{SessionID: ev.SessionID, Path: s.Path, Gap: s.Gap, Mode: s.Mode, Task: s.Task}
		}
	}
	_, err := e.API.PreCompact(ctx, p)
	return HookOutcome{LocalFailure: p.LocalFailure}, err
}

// localBudget bounds an event's local work (a Stop's render, a
// PreCompact's seal) to the first half of what is left, at now, of ctx's
// budget: the episode call that records the event's receipt and its work
// keeps the other half, however long the transcript (a render cut short
// reads on at the next event; see bottle.ErrReadCut).
func localBudget(ctx context.Context, now time.Time) (context.Context, context.CancelFunc) {
	d, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, now.Add(d.Sub(now)/2))
}

func (e *Episodes) end(ctx context.Context, ev HookEvent) error {
	p := EndParams{EventParams: e.event(ev), Reason: ev.Reason, BudgetMillis: int(e.EndBudget / time.Millisecond), Episode: gitEpisode(ctx, ev.Cwd)}
	if e.Bottler != nil {
		if path, err := e.Bottler.Path(ev.SessionID); err == nil && fileExists(path) {
			p.Episode.BottlePath = path
		}
	}
	_, err := e.API.SessionEnd(ctx, p)
	return err
}

// gitEpisode is the working directory's git position, for a record.
func gitEpisode(ctx context.Context, dir string) Episode {
	if dir == "" {
		return Episode{}
	}
	head, err := workdir.Git(ctx, dir)
	if err != nil || !head.InWorkTree {
		return Episode{}
	}
	return Episode{GitCommit: head.Commit, GitBranch: head.Branch}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// safeReason renders a local failure for the ledger: a baton error's code
// and safe message, else the error's class only (a bottle or file error may
// carry a path, never content).
//
// It is always storable as a failure reason: an error's text may carry a
// path from the harness's payload, so NUL bytes are dropped and invalid
// UTF-8 replaced.
func safeReason(err error) string {
	var be *Error
	if errors.As(err, &be) {
		return storable(string(be.Code) + ": " + be.Message)
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return string(ErrorCode(err)) + ": " + first(storable(msg), MaxFailureLen-16)
}

// storable is s without NUL bytes and with invalid UTF-8 replaced.
func storable(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
}

// first returns s's first n characters.
func first(s string, n int) string {
	s, _ = runes.Cut(s, n)
	return s
}
