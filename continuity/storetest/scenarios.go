package storetest

import (
	"context"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/inject"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// ScenarioHarness tells RunScenarios how to make an implementation of
// continuity.API.
type ScenarioHarness struct {
	// New returns two tenants of one fresh, empty backend whose clock is
	// clock, so isolation scenarios can run and lease and boundary
	// scenarios need no sleeps. It registers its own cleanup.
	New func(t *testing.T, clock func() time.Time) (tenantA, tenantB continuity.API)
}

// LocalScenarios is the scenario harness of the local implementation:
// Service.For over a fresh store of h.
func LocalScenarios(h Harness) ScenarioHarness {
	return ScenarioHarness{New: func(t *testing.T, clock func() time.Time) (continuity.API, continuity.API) {
		st, _ := h.New(t)
		svc := continuity.New(st, continuity.WithClock(clock))
		return svc.For(tenantA), svc.For(tenantB)
	}}
}

// RunScenarios runs the scenario suite: hook events and their outcomes,
// asserted only through continuity.API, so every implementation of it (the
// local service, the HTTP client over the handler) runs the same scenarios.
func RunScenarios(t *testing.T, h ScenarioHarness) {
	t.Run("Receipts", func(t *testing.T) { scenarioReceipts(t, h) })
	t.Run("EpisodeInput", func(t *testing.T) { scenarioEpisodeInput(t, h) })
	t.Run("Startup", func(t *testing.T) { scenarioStartup(t, h) })
	t.Run("Resume", func(t *testing.T) { scenarioResume(t, h) })
	t.Run("Compact", func(t *testing.T) { scenarioCompact(t, h) })
	t.Run("Clear", func(t *testing.T) { scenarioClear(t, h) })
	t.Run("SameIDClear", func(t *testing.T) { scenarioSameIDClear(t, h) })
	t.Run("UserPrompt", func(t *testing.T) { scenarioUserPrompt(t, h) })
	t.Run("Stop", func(t *testing.T) { scenarioStop(t, h) })
	t.Run("Nudge", func(t *testing.T) { scenarioNudge(t, h) })
	t.Run("PreCompact", func(t *testing.T) { scenarioPreCompact(t, h) })
	t.Run("SessionEnd", func(t *testing.T) { scenarioSessionEnd(t, h) })
	t.Run("Records", func(t *testing.T) { scenarioRecords(t, h) })
	t.Run("Isolation", func(t *testing.T) { scenarioIsolation(t, h) })
	t.Run("Attribution", func(t *testing.T) { scenarioAttribution(t, h) })
	t.Run("Doctor", func(t *testing.T) { scenarioDoctor(t, h) })
	t.Run("Activations", func(t *testing.T) { scenarioActivations(t, h) })
	t.Run("LifecycleTable", func(t *testing.T) { scenarioLifecycleTable(t, h) })
	t.Run("NudgeActivations", func(t *testing.T) { scenarioNudgeActivations(t, h) })
	t.Run("Chaos", func(t *testing.T) { scenarioChaos(t, h) })
	t.Run("HandoverAcrossSkewedClocks", func(t *testing.T) { scenarioHandoverSkew(t, h) })
	t.Run("StopAfterClockStep", func(t *testing.T) { scenarioStopClockStep(t, h) })
	t.Run("OneConversationRace", func(t *testing.T) { scenarioOneConversationRace(t, h) })
	t.Run("StopNudgeRace", func(t *testing.T) { scenarioStopNudgeRace(t, h) })
}

// scene is one scenario's backend: two tenants and their clock.
type scene struct {
	t     *testing.T
	ctx   context.Context
	clock *Clock
	a, b  continuity.API
}

func newScene(t *testing.T, h ScenarioHarness) *scene {
	t.Helper()
	t.Parallel()
	c := NewClock()
	a, b := h.New(t, c.Now)
	return &scene{t: t, ctx: context.Background(), clock: c, a: a, b: b}
}

// The provider and event names a scenario's events carry (data, as a hook
// adapter passes them).
const (
	evStart      = "SessionStart"
	evPrompt     = "UserPromptSubmit"
	evStop       = "Stop"
	evPreCompact = "PreCompact"
	evEnd        = "SessionEnd"
)

func hookEvent(name, sid string) continuity.EventParams {
	return continuity.EventParams{Provider: agent, ProviderEvent: name, Agent: agent, SessionID: sid}
}

func startOf(sid string, src continuity.Source, project string) continuity.StartParams {
	return continuity.StartParams{EventParams: hookEvent(evStart, sid), Source: src, Project: project}
}

func stopOf(sid, msg string) continuity.StopParams {
	p := continuity.StopParams{EventParams: hookEvent(evStop, sid)}
	if msg != "" {
		p.LastMessage = &msg
	}
	return p
}

func sealedOf(sid string) *bottle.Marker {
	return &bottle.Marker{SessionID: sid, Path: "/home/u/.baton/bottles/" + sid + ".md", Gap: 2, Mode: bottle.ModeFull, Task: "parse the body"}
}

// succeed runs one API method that must succeed.
func succeed[P, R any](s *scene, name string, method func(context.Context, P) (R, error), p P) R {
	s.t.Helper()
	r, err := method(s.ctx, p)
	if err != nil {
		s.t.Fatalf("%s %+v: %v", name, p, err)
	}
	return r
}

func (s *scene) start(api continuity.API, p continuity.StartParams) continuity.StartResult {
	s.t.Helper()
	return succeed(s, "SessionStart", api.SessionStart, p)
}

func (s *scene) startup(sid, project string) continuity.StartResult {
	s.t.Helper()
	return s.start(s.a, startOf(sid, continuity.SourceStartup, project))
}

func (s *scene) prompt(sid, text string) continuity.PromptEventResult {
	s.t.Helper()
	return succeed(s, "UserPrompt", s.a.UserPrompt, promptOf(sid, text))
}

func (s *scene) stop(p continuity.StopParams) continuity.StopResult {
	s.t.Helper()
	return succeed(s, "Stop", s.a.Stop, p)
}

func (s *scene) preCompact(p continuity.PreCompactParams) continuity.PreCompactResult {
	s.t.Helper()
	return succeed(s, "PreCompact", s.a.PreCompact, p)
}

func (s *scene) end(sid string) continuity.EndResult {
	s.t.Helper()
	return succeed(s, "SessionEnd", s.a.SessionEnd, continuity.EndParams{EventParams: hookEvent(evEnd, sid), Reason: "exit"})
}

func (s *scene) session(api continuity.API, sid string) continuity.SessionView {
	s.t.Helper()
	v, err := api.Session(s.ctx, agent, sid)
	if err != nil {
		s.t.Fatalf("session %s: %v", sid, err)
	}
	return v
}

func (s *scene) records(api continuity.API, q continuity.RecordQuery) []continuity.Record {
	s.t.Helper()
	return succeed(s, "Records", api.Records, q)
}

func (s *scene) remember(api continuity.API, kind continuity.MemoryKind, topic, project, run string) continuity.WriteResult {
	s.t.Helper()
	p := remember(kind, topic, topic+" content", project, run)
	p.Actor = continuity.ActorUserAPI
	return succeed(s, "Remember", api.Remember, p)
}

// ledger returns api's ledger lines after the line after (uuid.Nil: all).
func (s *scene) ledger(api continuity.API, after uuid.UUID) []continuity.LedgerEntry {
	s.t.Helper()
	const page = 1000
	var out []continuity.LedgerEntry
	for {
		es, err := api.Ledger(s.ctx, after, page)
		if err != nil {
			s.t.Fatalf("ledger: %v", err)
		}
		out = append(out, es...)
		if len(es) < page {
			return out
		}
		after = es[len(es)-1].ID
	}
}

// mark returns the id of api's newest ledger line, uuid.Nil when it has none.
func (s *scene) mark(api continuity.API) uuid.UUID {
	s.t.Helper()
	es := s.ledger(api, uuid.Nil)
	if len(es) == 0 {
		return uuid.Nil
	}
	return es[len(es)-1].ID
}

// wantReceipt asserts what an episode call left in api's ledger after mark:
// its receipt first, naming the provider's event, then exactly one
// provider.event.failed line per wanted reason prefix, each naming the
// receipt. It returns the lines after mark.
func (s *scene) wantReceipt(api continuity.API, mark, receipt uuid.UUID, name string, failures ...string) []continuity.LedgerEntry {
	s.t.Helper()
	es := s.ledger(api, mark)
	if receipt == uuid.Nil {
		s.t.Fatalf("the %s call returned no receipt id; ledger after it: %v", name, events(es))
	}
	if len(es) == 0 || es[0].Event != continuity.EventReceived || es[0].ID != receipt {
		s.t.Fatalf("the %s call's first ledger line is not its receipt %v: %v", name, receipt, events(es))
	}
	if f := es[0].Fields; f["provider"] != agent || f["provider_event"] != name || f["agent"] != agent {
		s.t.Fatalf("the receipt's fields = %v, want provider %s and provider_event %s", f, agent, name)
	}
	var got []string
	for _, e := range es[1:] {
		if e.Event != continuity.EventFailed {
			continue
		}
		if e.Fields["receipt"] != receipt.String() || e.Fields["provider_event"] != name || e.Fields["provider"] != agent || e.Session != es[0].Session {
			s.t.Fatalf("a failure line does not name the receipt %v of %s: %v", receipt, name, e.Fields)
		}
		got = append(got, e.Fields["reason"])
	}
	left := slices.Clone(got)
	for _, want := range failures {
		i := slices.IndexFunc(left, func(r string) bool { return strings.HasPrefix(r, want) })
		if i < 0 {
			s.t.Fatalf("failure reasons %q, want one per prefix %q", got, failures)
		}
		left = slices.Delete(left, i, i+1)
	}
	if len(left) > 0 {
		s.t.Fatalf("failure reasons %q, want one per prefix %q", got, failures)
	}
	return es
}

// An eventCall makes one episode call as tenant A and returns its receipt.
type eventCall func(s *scene) (uuid.UUID, error)

func startCall(p continuity.StartParams) eventCall {
	return func(s *scene) (uuid.UUID, error) { r, err := s.a.SessionStart(s.ctx, p); return r.ReceiptID, err }
}

func promptCall(p continuity.PromptParams) eventCall {
	return func(s *scene) (uuid.UUID, error) { r, err := s.a.UserPrompt(s.ctx, p); return r.ReceiptID, err }
}

func stopCall(p continuity.StopParams) eventCall {
	return func(s *scene) (uuid.UUID, error) { r, err := s.a.Stop(s.ctx, p); return r.ReceiptID, err }
}

func preCompactCall(p continuity.PreCompactParams) eventCall {
	return func(s *scene) (uuid.UUID, error) { r, err := s.a.PreCompact(s.ctx, p); return r.ReceiptID, err }
}

func endCall(p continuity.EndParams) eventCall {
	return func(s *scene) (uuid.UUID, error) { r, err := s.a.SessionEnd(s.ctx, p); return r.ReceiptID, err }
}

// edited returns p changed by edit.
func edited[P any](p P, edit func(p *P)) P {
	edit(&p)
	return p
}

func promptOf(sid, text string) continuity.PromptParams {
	return continuity.PromptParams{EventParams: hookEvent(evPrompt, sid), Prompt: text}
}

func preCompactOf(sid string) continuity.PreCompactParams {
	return continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, sid)}
}

func endOf(sid string) continuity.EndParams {
	return continuity.EndParams{EventParams: hookEvent(evEnd, sid)}
}

// scenarioReceipts: every episode method records provider.event.received
// before anything else, and provider.event.failed naming that receipt when
// its work fails or the caller reports that its local half failed.
func scenarioReceipts(t *testing.T, h ScenarioHarness) {
	long := strings.Repeat("x", continuity.MaxFailureLen+1)
	const local = "internal: the transcript is unreadable"
	failing := func(reason string) func(p *continuity.StopParams) {
		return func(p *continuity.StopParams) { p.LocalFailure = reason }
	}
	cases := []struct {
		name     string
		event    string
		opened   bool
		call     eventCall
		code     continuity.Code
		failures []string
	}{
		{"SessionStart", evStart, false, startCall(startOf("s1", continuity.SourceStartup, "baton")), "", nil},
		{"SessionStart conflicting with the row", evStart, true, startCall(startOf("s1", continuity.SourceStartup, "other")), continuity.CodeConflict, []string{"conflict: "}},
		{"UserPrompt", evPrompt, true, promptCall(promptOf("s1", "go on")), "", nil},
		{"Stop", evStop, true, stopCall(stopOf("s1", "done")), "", nil},
		{"Stop of a conversation never opened", evStop, false, stopCall(stopOf("s1", "done")), continuity.CodeNotFound, []string{"not_found: "}},
		{"Stop whose local half failed", evStop, true, stopCall(edited(stopOf("s1", "done"), failing(local))), "", []string{"local: " + local}},
		{"Stop whose local half failed, its session id padded", evStop, true, stopCall(edited(stopOf(" s1\t", "done"), failing(local))), "", []string{"local: " + local}},
		{"Stop never opened whose local half failed", evStop, false, stopCall(edited(stopOf("s1", "done"), failing(local))), continuity.CodeNotFound, []string{"not_found: ", "local: " + local}},
		{"Stop reporting an over-long local failure", evStop, true, stopCall(edited(stopOf("s1", "done"), failing(long))), continuity.CodeInvalid, []string{"invalid: "}},
		{"PreCompact", evPreCompact, true, preCompactCall(edited(preCompactOf("s1"), func(p *continuity.PreCompactParams) { p.Sealed = sealedOf("s1") })), "", nil},
		{"PreCompact of a conversation never opened", evPreCompact, false, preCompactCall(preCompactOf("s1")), continuity.CodeNotFound, []string{"not_found: "}},
		{"SessionEnd", evEnd, true, endCall(endOf("s1")), "", nil},
		{"SessionEnd of a conversation never opened", evEnd, false, endCall(endOf("s1")), continuity.CodeNotFound, []string{"not_found: "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			if tc.opened {
				s.startup("s1", "baton")
			}
			mark := s.mark(s.a)
			receipt, err := tc.call(s)
			wantCode(t, err, tc.code)
			s.wantReceipt(s.a, mark, receipt, tc.event, tc.failures...)
		})
	}

	t.Run("RecordFailure", func(t *testing.T) {
		s := newScene(t, h)
		s.startup("s1", "baton")
		r := s.stop(stopOf("s1", "done"))
		mark := s.mark(s.a)
		fp := continuity.FailureParams{EventParams: hookEvent(evStop, "s1"), ReceiptID: r.ReceiptID.String(), Reason: "internal: the seal timed out"}
		if err := s.a.RecordFailure(s.ctx, fp); err != nil {
			t.Fatal(err)
		}
		es := s.ledger(s.a, mark)
		if len(es) != 1 || es[0].Event != continuity.EventFailed || es[0].Fields["receipt"] != r.ReceiptID.String() ||
			es[0].Fields["reason"] != "local: internal: the seal timed out" || es[0].Fields["provider_event"] != evStop {
			t.Fatalf("after RecordFailure the ledger holds %v, want one failure naming receipt %v", es, r.ReceiptID)
		}
		local := fp.EventParams
		local.LocalFailure = "a\x00b"
		for field, bad := range map[string]continuity.FailureParams{
			"receiptId":    {EventParams: fp.EventParams, ReceiptID: "not-a-uuid", Reason: fp.Reason},
			"reason":       {EventParams: fp.EventParams, ReceiptID: fp.ReceiptID, Reason: long},
			"localFailure": {EventParams: local, ReceiptID: fp.ReceiptID, Reason: fp.Reason},
		} {
			wantInvalid(t, s.a.RecordFailure(s.ctx, bad), field)
		}
		// Only a receipt the tenant's ledger keeps, of the event named, takes
		// a failure: a made-up id, another event's receipt, another
		// conversation's or another tenant's are not found, and write nothing.
		other := s.startup("s2", "baton")
		neighbours := []uuid.UUID{nextTo(r.ReceiptID, 1), nextTo(r.ReceiptID, -1)}
		for name, bad := range map[string]continuity.FailureParams{
			"a made-up receipt":                {EventParams: fp.EventParams, ReceiptID: uuid.Must(uuid.NewV7()).String(), Reason: fp.Reason},
			"the id just after the receipt":    {EventParams: fp.EventParams, ReceiptID: neighbours[0].String(), Reason: fp.Reason},
			"the id just before the receipt":   {EventParams: fp.EventParams, ReceiptID: neighbours[1].String(), Reason: fp.Reason},
			"the receipt as another event's":   {EventParams: hookEvent(evEnd, "s1"), ReceiptID: fp.ReceiptID, Reason: fp.Reason},
			"the receipt as another session's": {EventParams: hookEvent(evStop, "s2"), ReceiptID: fp.ReceiptID, Reason: fp.Reason},
			"another conversation's startup":   {EventParams: hookEvent(evStop, "s1"), ReceiptID: other.ReceiptID.String(), Reason: fp.Reason},
		} {
			mark := s.mark(s.a)
			if err := s.a.RecordFailure(s.ctx, bad); continuity.ErrorCode(err) != continuity.CodeNotFound {
				t.Errorf("%s: %v, want not_found", name, err)
			}
			if es := s.ledger(s.a, mark); len(es) != 0 {
				t.Errorf("%s wrote %v", name, es)
			}
		}
		markB := s.mark(s.b)
		if err := s.b.RecordFailure(s.ctx, fp); continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Errorf("tenant B recording a failure of A's receipt: %v, want not_found", err)
		}
		if es := s.ledger(s.b, markB); len(es) != 0 {
			t.Errorf("tenant B's failure of A's receipt wrote %v", es)
		}
	})
}

// scenarioEpisodeInput: bad input to an episode method is invalid naming
// the field as the method's params name it, the receipt and its failure
// are still recorded, and nothing else is written.
func scenarioEpisodeInput(t *testing.T, h ScenarioHarness) {
	over := func(n int) string { return strings.Repeat("a", n+1) }
	nul, badUTF8 := "a\x00b", "a\xffb"
	start := func(edit func(p *continuity.StartParams)) eventCall {
		return startCall(edited(startOf("s1", continuity.SourceStartup, "baton"), edit))
	}
	stop := func(edit func(p *continuity.StopParams)) eventCall { return stopCall(edited(stopOf("s1", ""), edit)) }
	preCompact := func(edit func(p *continuity.PreCompactParams)) eventCall {
		return preCompactCall(edited(preCompactOf("s1"), edit))
	}
	sealed := func(edit func(m *bottle.Marker)) eventCall {
		m := edited(*sealedOf("s1"), edit)
		return preCompact(func(p *continuity.PreCompactParams) { p.Sealed = &m })
	}
	end := func(edit func(p *continuity.EndParams)) eventCall { return endCall(edited(endOf("s1"), edit)) }
	checkpoint := func(e continuity.Episode) eventCall {
		return preCompact(func(p *continuity.PreCompactParams) { p.Episode = e })
	}
	handover := func(e continuity.Episode) eventCall { return end(func(p *continuity.EndParams) { p.Episode = e }) }
	cases := []struct {
		name, event, field string
		call               eventCall
	}{
		{"unknown source", evStart, "source", start(func(p *continuity.StartParams) { p.Source = "restart" })},
		{"negative briefing budget", evStart, "briefingBudget", start(func(p *continuity.StartParams) { p.BriefingBudget = -1 })},
		{"briefing budget over the cap", evStart, "briefingBudget", start(func(p *continuity.StartParams) { p.BriefingBudget = continuity.MaxBriefingBudget + 1 })},
		{"over-long project", evStart, "project", start(func(p *continuity.StartParams) { p.Project = over(continuity.MaxFacetLen) })},
		{"over-long local failure", evStart, "localFailure", start(func(p *continuity.StartParams) { p.LocalFailure = over(continuity.MaxFailureLen) })},
		{"prompt with a NUL byte", evPrompt, "prompt", promptCall(promptOf("s1", nul))},
		{"prompt that is not UTF-8", evPrompt, "prompt", promptCall(promptOf("s1", badUTF8))},
		{"last message with a NUL byte", evStop, "lastMessage", stop(func(p *continuity.StopParams) { p.LastMessage = &nul })},
		{"last message that is not UTF-8", evStop, "lastMessage", stop(func(p *continuity.StopParams) { p.LastMessage = &badUTF8 })},
		{"over-long trigger", evPreCompact, "trigger", preCompact(func(p *continuity.PreCompactParams) { p.Trigger = over(64) })},
		{"checkpoint commit not hex", evPreCompact, "episode.gitCommit", checkpoint(continuity.Episode{GitCommit: "not-a-commit"})},
		{"over-long checkpoint objective", evPreCompact, "episode.objective", checkpoint(continuity.Episode{Objective: over(continuity.MaxRecordTextLen)})},
		{"over-long checkpoint state", evPreCompact, "episode.state", checkpoint(continuity.Episode{State: over(continuity.MaxRecordTextLen)})},
		{"sealed marker without a path", evPreCompact, "sealed.path", sealed(func(m *bottle.Marker) { m.Path = "" })},
		{"sealed marker of an unknown mode", evPreCompact, "sealed.mode", sealed(func(m *bottle.Marker) { m.Mode = "timeline" })},
		{"sealed marker with a negative gap", evPreCompact, "sealed.gap", sealed(func(m *bottle.Marker) { m.Gap = -1 })},
		{"sealed marker of another conversation", evPreCompact, "sealed.sessionId", sealed(func(m *bottle.Marker) { m.SessionID = "s2" })},
		{"sealed marker of a provisional PreCompact", evPreCompact, "provisional", preCompact(func(p *continuity.PreCompactParams) {
			p.Sealed, p.Provisional = sealedOf("s1"), true
		})},
		{"over-long end reason", evEnd, "reason", end(func(p *continuity.EndParams) { p.Reason = over(64) })},
		{"negative end budget", evEnd, "budgetMs", end(func(p *continuity.EndParams) { p.BudgetMillis = -1 })},
		{"end budget over the cap", evEnd, "budgetMs", end(func(p *continuity.EndParams) { p.BudgetMillis = int(continuity.MaxEndBudget/time.Millisecond) + 1 })},
		{"handover commit not hex", evEnd, "episode.gitCommit", handover(continuity.Episode{GitCommit: "HEAD~1"})},
		{"over-long handover task", evEnd, "episode.task", handover(continuity.Episode{Task: over(continuity.MaxTopicLen)})},
		{"over-long handover next action", evEnd, "episode.nextAction", handover(continuity.Episode{NextAction: over(continuity.MaxRecordTextLen)})},
		{"over-long handover branch", evEnd, "episode.gitBranch", handover(continuity.Episode{GitBranch: over(256)})},
		{"over-long handover bottle path", evEnd, "episode.bottlePath", handover(continuity.Episode{BottlePath: over(continuity.MaxPathLen)})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			s.startup("s1", "baton")
			before := s.session(s.a, "s1")
			s.clock.Advance(time.Minute)
			mark := s.mark(s.a)
			receipt, err := tc.call(s)
			wantInvalid(t, err, tc.field)
			es := s.wantReceipt(s.a, mark, receipt, tc.event, "invalid: ")
			if got := events(es); len(got) != 2 {
				t.Fatalf("ledger after the refused call = %v, want only its receipt and failure", got)
			}
			// Nothing else was written: no row change, prompt, record or marker.
			v := s.session(s.a, "s1")
			if v.StopCount != before.StopCount || v.ActivationEpoch != before.ActivationEpoch || v.Compactions != 0 || v.ClosedAt != nil ||
				v.LastMessageExcerpt != "" || !v.LastSeenAt.Equal(before.LastSeenAt) {
				t.Fatalf("the refused call changed the row: %+v", v.Session)
			}
			if rs := s.records(s.a, continuity.RecordQuery{}); len(rs) != 0 {
				t.Fatalf("the refused call wrote %d records", len(rs))
			}
			hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
			if err != nil || len(hist.Prompts) != 0 || len(hist.StopExcerpts) != 0 {
				t.Fatalf("the refused call kept history: %+v %v", hist, err)
			}
			for _, sid := range []string{"s1", "s2"} {
				if m, ok, err := s.a.ClaimBottle(s.ctx, agent, sid); ok || err != nil {
					t.Fatalf("the refused call armed %s's marker: %+v %v", sid, m, err)
				}
			}
		})
	}
}

// scenarioStartup: briefing, then the open with the rows that survived the
// cut, then the project's newest handover; a retry changes nothing, and a
// startup with other values is conflict.
func scenarioStartup(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	s.remember(s.a, continuity.KindCommitment, "ship", "baton", "")
	s.remember(s.a, continuity.KindCommitment, "docs", "baton", "")

	// A budget that holds the header and one row: the open records that row.
	p := startOf("s1", continuity.SourceStartup, "baton")
	p.BriefingBudget = 100
	r := s.start(s.a, p)
	if !r.Created || r.ActivationEpoch != 1 || r.SessionRunID == uuid.Nil || r.Briefing == nil || r.Handover != nil || r.Marker != nil {
		t.Fatalf("startup = %+v, want a created row at epoch 1 with a briefing and no handover", r)
	}
	if n := len(r.Briefing.Briefed); n != 1 || len(r.Briefing.Items) != 2 || r.Briefing.Briefed[0].ID != r.Briefing.Items[0].ID {
		t.Fatalf("briefing cut = %d of %d rows, want the first of 2", n, len(r.Briefing.Items))
	}
	v := s.session(s.a, "s1")
	if v.ID != r.SessionRunID || v.Source != continuity.SourceStartup || v.Project != "baton" || v.BriefingDeliveredAt == nil ||
		!slices.Equal(v.BriefedMemories, r.Briefing.Briefed) || !v.Selector.Equal(r.Briefing.Selector) {
		t.Fatalf("row after startup = %+v, want the briefed rows %v and selector %v", v.Session, r.Briefing.Briefed, r.Briefing.Selector)
	}

	// A retry with the same values changes nothing, even when the briefing
	// it reads has grown since.
	s.clock.Advance(time.Minute)
	s.remember(s.a, continuity.KindCommitment, "later", "baton", "")
	again := s.start(s.a, p)
	if again.SessionRunID != r.SessionRunID || again.ActivationEpoch != 1 || again.Created || again.Reopened {
		t.Fatalf("retry = %+v, want the same row unchanged", again)
	}
	if w := s.session(s.a, "s1"); !w.BriefingDeliveredAt.Equal(*v.BriefingDeliveredAt) || !slices.Equal(w.BriefedMemories, v.BriefedMemories) || w.ActivationEpoch != 1 {
		t.Fatalf("the retry restamped the row: %+v", w.Session)
	}

	// Other values on the same key are conflict, and leave the row.
	_, err := s.a.SessionStart(s.ctx, startOf("s1", continuity.SourceStartup, "other"))
	wantCode(t, err, continuity.CodeConflict)
	if w := s.session(s.a, "s1"); w.Project != "baton" {
		t.Fatalf("a conflicting startup changed the row's project to %q", w.Project)
	}

	// The next startup of the project carries its newest handover; another
	// project's startup carries none.
	ended := s.end("s1")
	next := s.startup("s2", "baton")
	if next.Handover == nil || next.Handover.ID != ended.Handover.ID || next.Handover.Kind != continuity.RecordHandover {
		t.Fatalf("startup after a handover carries %+v, want handover %v", next.Handover, ended.Handover.ID)
	}
	if other := s.startup("s3", "other"); other.Handover != nil {
		t.Fatalf("startup of another project carries handover %+v", other.Handover)
	}
}

// scenarioResume: a new activation (epoch+1, reopening a closed row) that
// claims an armed marker, else returns a briefing; the briefing fields are
// never restamped.
func scenarioResume(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	r := s.startup("s1", "baton")
	stamped := s.session(s.a, "s1").BriefingDeliveredAt
	m := sealedOf("s1")
	if err := s.a.ArmBottle(s.ctx, agent, *m); err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(time.Minute)
	res := s.start(s.a, startOf("s1", continuity.SourceResume, "baton"))
	if res.SessionRunID != r.SessionRunID || res.ActivationEpoch != 2 || res.Created || res.Marker == nil || res.Briefing != nil {
		t.Fatalf("resume with an armed marker = %+v, want epoch 2 and the marker, no briefing", res)
	}
	if res.Marker.Path != m.Path || res.Marker.Mode != m.Mode || res.Marker.Gap != m.Gap || res.Marker.Task != m.Task {
		t.Fatalf("claimed marker = %+v, want %+v", res.Marker, m)
	}
	again := s.start(s.a, startOf("s1", continuity.SourceResume, "baton"))
	if again.ActivationEpoch != 3 || again.Marker != nil || again.Briefing == nil {
		t.Fatalf("second resume = %+v, want epoch 3, no marker (claimed once) and a briefing", again)
	}

	s.end("s1")
	s.clock.Advance(time.Hour)
	reopened := s.start(s.a, startOf("s1", continuity.SourceResume, "baton"))
	if !reopened.Reopened || reopened.ActivationEpoch != 4 || reopened.SessionRunID != r.SessionRunID {
		t.Fatalf("resume of a closed row = %+v, want it reopened at epoch 4", reopened)
	}
	v := s.session(s.a, "s1")
	if v.ClosedAt != nil || v.BriefingDeliveredAt == nil || !v.BriefingDeliveredAt.Equal(*stamped) {
		t.Fatalf("row after resumes = %+v, want open with the startup's briefing stamp %v", v.Session, stamped)
	}

	fresh := s.start(s.a, startOf("s2", continuity.SourceResume, "baton"))
	if !fresh.Created || fresh.ActivationEpoch != 1 || fresh.Briefing == nil {
		t.Fatalf("resume of an unknown conversation = %+v, want a created row and a briefing", fresh)
	}
}

// scenarioCompact: not an open; the run id is recovered on the same epoch,
// the compaction counted, the marker claimed exactly once however many
// compacts race, else a briefing; an unknown conversation is taken up as a
// resume, once and at epoch 1 however many starts of it race.
func scenarioCompact(t *testing.T, h ScenarioHarness) {
	t.Run("RacingCompactsClaimOnce", func(t *testing.T) {
		s := newScene(t, h)
		r := s.startup("s1", "baton")
		s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: sealedOf("s1")})
		const n = 2
		results := make([]continuity.StartResult, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				res, err := s.a.SessionStart(s.ctx, startOf("s1", continuity.SourceCompact, "baton"))
				if err != nil {
					t.Errorf("compact %d: %v", i, err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		claimed := 0
		for _, res := range results {
			if res.SessionRunID != r.SessionRunID || res.ActivationEpoch != 1 || res.Created || res.ArchiveBottle {
				t.Fatalf("compact = %+v, want run %v recovered at epoch 1", res, r.SessionRunID)
			}
			switch {
			case res.Marker != nil && res.Briefing == nil:
				claimed++
				if res.Marker.Path != sealedOf("s1").Path {
					t.Fatalf("claimed marker %+v", res.Marker)
				}
			case res.Marker == nil && res.Briefing != nil:
			default:
				t.Fatalf("compact = %+v, want either the marker or a briefing", res)
			}
		}
		if claimed != 1 {
			t.Fatalf("%d of %d racing compacts claimed the marker, want exactly 1", claimed, n)
		}
		if v := s.session(s.a, "s1"); v.Compactions != n || v.ActivationEpoch != 1 || v.Source != continuity.SourceStartup {
			t.Fatalf("row after %d compacts = %+v, want them counted on epoch 1", n, v.Session)
		}
	})

	t.Run("UnknownConversationIsAResume", func(t *testing.T) {
		s := newScene(t, h)
		res := s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
		if !res.Created || res.ActivationEpoch != 1 || res.SessionRunID == uuid.Nil || res.Briefing == nil {
			t.Fatalf("compact of an unknown conversation = %+v, want a created row and a briefing", res)
		}
		if v := s.session(s.a, "s1"); v.Source != continuity.SourceResume || v.ID != res.SessionRunID || v.Project != "baton" {
			t.Fatalf("row = %+v, want it taken up as a resume", v.Session)
		}
	})

	t.Run("UnseenConversationTakenUpOnce", func(t *testing.T) {
		// Hooks installed mid-session: the first event baton sees of a
		// conversation is its compact SessionStart, perhaps several at
		// once, perhaps racing a startup of it. The take-up inserts the
		// conversation's first row or joins the one a concurrent start
		// inserted: one row, at epoch 1, whose run every start answers.
		const n = 16
		for _, tc := range []struct {
			name   string
			source func(i int) continuity.Source
		}{
			{"Compacts", func(int) continuity.Source { return continuity.SourceCompact }},
			{"CompactsAndStartups", func(i int) continuity.Source {
				if i%2 == 0 {
					return continuity.SourceStartup
				}
				return continuity.SourceCompact
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				results := make([]continuity.StartResult, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						var err error
						results[i], err = s.a.SessionStart(s.ctx, startOf("s1", tc.source(i), "baton"))
						if err != nil {
							t.Errorf("%s start %d: %v", tc.source(i), i, err)
						}
					})
				}
				wg.Wait()
				v := s.session(s.a, "s1")
				if v.ActivationEpoch != 1 || v.Project != "baton" {
					t.Fatalf("row after the racing starts = %+v, want it at epoch 1", v.Session)
				}
				created := 0
				for i, r := range results {
					if r.SessionRunID != v.ID || r.ActivationEpoch != 1 {
						t.Errorf("%s start %d = run %v at epoch %d, want the row's %v at epoch 1", tc.source(i), i, r.SessionRunID, r.ActivationEpoch, v.ID)
					}
					if r.Created {
						created++
					}
				}
				if created != 1 {
					t.Errorf("%d of %d starts created the row, want 1", created, n)
				}
				opens := 0
				for _, e := range s.ledger(s.a, uuid.Nil) {
					switch e.Event {
					case continuity.EventSessionStarted, continuity.EventSessionResumed, continuity.EventSessionReopened, continuity.EventSessionResurrect:
						opens++
						if e.Fields["epoch"] != "1" {
							t.Errorf("%s line at epoch %s, want none past 1", e.Event, e.Fields["epoch"])
						}
					}
				}
				if opens != 1 {
					t.Errorf("%d activation lines, want the one insert's", opens)
				}
			})
		}
	})

	t.Run("LapsedRowResurrects", func(t *testing.T) {
		s := newScene(t, h)
		r := s.startup("s1", "baton")
		s.clock.Advance(afterLease)
		res := s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
		if res.SessionRunID != r.SessionRunID || !res.Resurrected || res.ActivationEpoch != 2 {
			t.Fatalf("compact of a lapsed row = %+v, want it resurrected at epoch 2", res)
		}
	})
}

// scenarioClear: a probe. No row: started as a startup, with a briefing.
// A row: done, no briefing. Either way the bottle is archived and no
// marker is ever injected, then or later.
func scenarioClear(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	s.remember(s.a, continuity.KindCommitment, "ship", "baton", "")
	started := s.start(s.a, startOf("s1", continuity.SourceClear, "baton"))
	if !started.Started || started.SessionRunID == uuid.Nil || started.ActivationEpoch != 1 || started.Briefing == nil || !started.ArchiveBottle || started.Marker != nil {
		t.Fatalf("clear of an unknown conversation = %+v, want it started with a briefing", started)
	}
	if v := s.session(s.a, "s1"); v.Source != continuity.SourceStartup || v.BriefingDeliveredAt == nil || !slices.Equal(v.BriefedMemories, started.Briefing.Briefed) {
		t.Fatalf("row after a starting clear = %+v, want a startup with its briefing", v.Session)
	}

	s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: sealedOf("s1")})
	s.clock.Advance(time.Minute)
	found := s.start(s.a, startOf("s1", continuity.SourceClear, "baton"))
	if found.Started || found.SessionRunID != started.SessionRunID || found.ActivationEpoch != 1 || found.Briefing != nil || found.Marker != nil || !found.ArchiveBottle {
		t.Fatalf("clear of a live conversation = %+v, want the run on epoch 1, no briefing, no marker, the bottle archived", found)
	}
	if v := s.session(s.a, "s1"); !v.LastSeenAt.Equal(s.clock.Now()) {
		t.Fatalf("the probe did not heartbeat: last seen %v", v.LastSeenAt)
	}
	// The bottle the clear archived is never injected later.
	later := s.start(s.a, startOf("s1", continuity.SourceResume, "baton"))
	if later.Marker != nil {
		t.Fatalf("a resume after the clear claimed the archived bottle's marker %+v", later.Marker)
	}
}

// scenarioSameIDClear: a harness that keeps the conversation's id across a
// /clear (SessionStart source clear under the id it had) starts the
// conversation over. The history a degraded bottle is reconstructed from
// holds only the prompts and Stop excerpts recorded after the last clear,
// whatever activation follows it and whatever the clock said: a clear in
// the instant of the last prompt, or as the id's first event, included.
// Its start is the first of them (never before the last clear, never
// after the first prompt kept) and its compactions are those since.
func scenarioSameIDClear(t *testing.T, h ScenarioHarness) {
	t.Parallel()
	type step func(s *scene)
	var clearedAt sync.Map // *scene → when s1 was last cleared
	start := func(src continuity.Source) step {
		return func(s *scene) {
			if src == continuity.SourceClear {
				clearedAt.Store(s, s.clock.Now())
			}
			s.start(s.a, startOf("s1", src, "baton"))
		}
	}
	compact := func(s *scene) {
		s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: sealedOf("s1")})
		s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
	}
	prompt := func(text string) step { return func(s *scene) { s.prompt("s1", text) } }
	stop := func(msg string) step { return func(s *scene) { s.stop(stopOf("s1", msg)) } }
	end := func(s *scene) { s.end("s1") }
	tick := func(s *scene) { s.clock.Advance(time.Second) }
	other := func(s *scene) { s.startup("s2", "baton"); s.prompt("s2", "other conversation") }
	startup, clear := start(continuity.SourceStartup), start(continuity.SourceClear)
	before := []step{startup, tick, prompt("before"), tick, compact, tick, stop("answered before"), tick}
	cases := []struct {
		name     string
		steps    [][]step
		prompts  []string
		excerpts []string
		// compactions the history holds: those since the last clear
		compactions int
	}{
		{"clear drops the turns before it", [][]step{before, {clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"nothing recorded since the clear", [][]step{before, {clear}}, nil, nil, 0},
		{"a resume after the clear", [][]step{before, {clear, tick, prompt("after"), tick, stop("answered after"), tick, start(continuity.SourceResume)}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"a compact after the clear", [][]step{before, {clear, tick, prompt("after"), tick, stop("answered after"), tick, start(continuity.SourceCompact)}},
			[]string{"after"}, []string{"answered after"}, 1},
		{"a second clear", [][]step{before, {clear, tick, prompt("between"), tick, stop("answered between"), tick, clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"a second clear right after the first", [][]step{before, {clear, tick, clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"a compaction after the clear", [][]step{before, {clear, tick, prompt("after"), tick, compact, tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 1},
		{"a SessionEnd before the clear", [][]step{before, {end, tick, clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"the clear as the id's first event", [][]step{{clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"a prompt recorded before any open, then the clear", [][]step{{prompt("before"), tick, clear, tick, prompt("after"), tick, stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"the clear in the instant of the last prompt", [][]step{{startup, prompt("before"), stop("answered before"), clear, prompt("after"), stop("answered after")}},
			[]string{"after"}, []string{"answered after"}, 0},
		{"another conversation's clear", [][]step{before, {other, func(s *scene) { s.start(s.a, startOf("s2", continuity.SourceClear, "baton")) }}},
			[]string{"before"}, []string{"answered before"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			for _, steps := range tc.steps {
				for _, st := range steps {
					st(s)
				}
			}
			hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
			if err != nil {
				t.Fatal(err)
			}
			if hist.Compactions != tc.compactions {
				t.Errorf("history holds %d compactions, want %d (those since the clear)", hist.Compactions, tc.compactions)
			}
			var cleared time.Time
			if at, ok := clearedAt.Load(s); ok {
				cleared = at.(time.Time)
			}
			// Nothing kept since the clear tells no start: unknown, never
			// the start of the conversation before it.
			known := len(hist.Prompts) > 0 || len(hist.StopExcerpts) > 0 || cleared.IsZero()
			if hist.Started.IsZero() == known || !hist.Started.IsZero() && hist.Started.Before(cleared) || len(hist.Prompts) > 0 && hist.Started.After(hist.Prompts[0].Time) {
				t.Errorf("history started %v: unknown, before the clear at %v, or after the first prompt kept (%+v)", hist.Started, cleared, hist.Prompts)
			}
			var prompts, excerpts []string
			for _, p := range hist.Prompts {
				prompts = append(prompts, p.Text)
			}
			for _, e := range hist.StopExcerpts {
				excerpts = append(excerpts, e.Text)
			}
			if !slices.Equal(prompts, tc.prompts) || !slices.Equal(excerpts, tc.excerpts) {
				t.Fatalf("history after the steps: prompts %q, excerpts %q; want %q and %q", prompts, excerpts, tc.prompts, tc.excerpts)
			}
		})
	}
}

// scenarioUserPrompt: each prompt is privacy filtered, bounded with its
// truncated flag, numbered, and read back through SessionHistory.
func scenarioUserPrompt(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	s.startup("s1", "baton")
	long := strings.Repeat("é", bottle.MaxPromptChars+1)
	cases := []struct {
		text      string
		kept      bool
		number    int
		truncated bool
		stored    string
	}{
		{"fix the parser <private>my token is hunter2</private> please", true, 1, false, "fix the parser please"},
		{long, true, 2, true, long[:len("é")*bottle.MaxPromptChars]},
		{"<private>only secret</private>", false, 0, false, ""},
		{"  and the <system-reminder>injected</system-reminder>tests  ", true, 3, false, "and the tests"},
	}
	for _, tc := range cases {
		r := s.prompt("s1", tc.text)
		if r.Prompt.Kept != tc.kept || r.Prompt.Number != tc.number || r.Prompt.Truncated != tc.truncated {
			t.Fatalf("prompt %.20q kept %+v, want kept %v number %d truncated %v", tc.text, r.Prompt, tc.kept, tc.number, tc.truncated)
		}
	}
	hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range hist.Prompts {
		got = append(got, strconv.Itoa(p.Number)+":"+p.Text)
		if strings.Contains(p.Text, "hunter2") || strings.Contains(p.Text, "injected") {
			t.Fatalf("a stored prompt kept filtered text: %q", p.Text)
		}
	}
	var want []string
	for _, tc := range cases {
		if tc.kept {
			want = append(want, strconv.Itoa(tc.number)+":"+tc.stored)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("history prompts = %.200q, want %.200q", got, want)
	}
	if hist.Project != "baton" || hist.SessionID != "s1" {
		t.Fatalf("history = %+v", hist)
	}
}

// scenarioStop: a heartbeat that counts Stops and keeps the bounded,
// filtered last message, and never creates a row.
func scenarioStop(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	_, err := s.a.Stop(s.ctx, stopOf("ghost", "hello"))
	wantCode(t, err, continuity.CodeNotFound)
	_, err = s.a.Session(s.ctx, agent, "ghost")
	wantCode(t, err, continuity.CodeNotFound)

	r := s.startup("s1", "baton")
	s.clock.Advance(time.Minute)
	first := s.stop(stopOf("s1", "Parsed the header <private>key=abc</private>."))
	if first.SessionRunID != r.SessionRunID || first.ActivationEpoch != 1 || first.ExcerptTruncated || first.Inject || first.Triage != nil {
		t.Fatalf("stop = %+v, want a plain heartbeat of run %v", first, r.SessionRunID)
	}
	v := s.session(s.a, "s1")
	if v.StopCount != 1 || !v.LastSeenAt.Equal(s.clock.Now()) || v.LastMessageExcerpt != "Parsed the header ." {
		t.Fatalf("row after a stop = %+v", v.Session)
	}

	long := strings.Repeat("z", continuity.MaxExcerptLen+10)
	cut := s.stop(stopOf("s1", long))
	if !cut.ExcerptTruncated {
		t.Fatalf("a message over %d characters was not flagged truncated", continuity.MaxExcerptLen)
	}
	s.stop(stopOf("s1", "")) // no message: the excerpt stays
	v = s.session(s.a, "s1")
	if v.StopCount != 3 || v.LastMessageExcerpt != long[:continuity.MaxExcerptLen] {
		t.Fatalf("row after three stops = stop count %d, excerpt of %d characters", v.StopCount, len(v.LastMessageExcerpt))
	}
	hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range hist.StopExcerpts {
		kept = append(kept, e.Text)
	}
	slices.Sort(kept)
	if want := []string{"Parsed the header .", long[:continuity.MaxExcerptLen]}; !slices.Equal(kept, want) {
		t.Fatalf("history kept %d stop excerpts, want the two that carried a message, filtered and cut", len(kept))
	}
}

// scenarioNudge: with Nudge set, Stop runs the triage handshake: debounce
// on the first Stops, one injection per attempt carrying the debrief,
// stop_hook_active never injects and completes the pending attempt, and a
// pending decline completes it too.
func scenarioNudge(t *testing.T, h ScenarioHarness) {
	nudge := func(sid string, active bool) continuity.StopParams {
		p := stopOf(sid, "turn done")
		p.Nudge, p.StopHookActive = true, active
		return p
	}
	// arm opens s1 with a briefed commitment and stops until the nudge
	// arms, asserting the debounce on the way.
	// armWith arms an attempt whose debrief names a briefed commitment of
	// topic (which holds "ship").
	armWith := func(s *scene, topic string) (uuid.UUID, continuity.StopResult) {
		t := s.t
		t.Helper()
		s.remember(s.a, continuity.KindCommitment, topic, "baton", "")
		run := s.startup("s1", "baton").SessionRunID
		for i := range triage.Default.MinStops - 1 {
			r := s.stop(nudge("s1", false))
			if r.Inject || r.Triage == nil || r.Triage.Declined != triage.ReasonDebounce || r.Triage.Armed {
				t.Fatalf("stop %d = %+v, want a debounce decline", i+1, r)
			}
		}
		r := s.stop(nudge("s1", false))
		want, err := s.a.Debrief(s.ctx, continuity.DebriefParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Inject || r.Reason != want || r.Triage == nil || !r.Triage.Armed || r.Triage.AttemptID == uuid.Nil || r.Triage.Status != triage.Pending {
			t.Fatalf("stop %d = %+v, want an armed attempt injecting the debrief", triage.Default.MinStops, r)
		}
		if !strings.Contains(r.Reason, run.String()) || !strings.Contains(r.Reason, "ship") {
			t.Fatalf("the debrief does not name the run and the briefed row: %q", r.Reason)
		}
		return run, r
	}
	arm := func(s *scene) (uuid.UUID, continuity.StopResult) { return armWith(s, "ship") }
	wantFinal := func(t *testing.T, r continuity.StopResult, attempt uuid.UUID, status triage.Status) {
		t.Helper()
		if r.Inject || r.Reason != "" || r.Triage == nil || !r.Triage.Completed || r.Triage.AttemptID != attempt || r.Triage.Status != status {
			t.Fatalf("stop = %+v, want attempt %v completed as %s without injecting", r, attempt, status)
		}
	}
	quiet := func(t *testing.T, s *scene, status triage.Status) {
		t.Helper()
		for range 3 {
			if r := s.stop(nudge("s1", false)); r.Inject || r.Triage == nil || r.Triage.Declined != triage.ReasonNoSignal {
				t.Fatalf("a later stop = %+v, want no second injection", r)
			}
		}
		if v := s.session(s.a, "s1"); v.TriageStatus != string(status) {
			t.Fatalf("triage status %s, want %s", v.TriageStatus, status)
		}
	}

	t.Run("StopHookActiveCompletes", func(t *testing.T) {
		s := newScene(t, h)
		run, armed := arm(s)
		// The continuation writes, attributed by the run id it was given.
		s.remember(s.a, continuity.KindDecision, "settled", "baton", run.String())
		wantFinal(t, s.stop(nudge("s1", true)), armed.Triage.AttemptID, triage.Completed)
		quiet(t, s, triage.Completed)
	})

	t.Run("PendingDeclineCompletes", func(t *testing.T) {
		s := newScene(t, h)
		_, armed := arm(s)
		// The continuation's stop_hook_active was lost: the next ordinary
		// Stop finds the attempt pending, completes it, and does not inject.
		wantFinal(t, s.stop(nudge("s1", false)), armed.Triage.AttemptID, triage.Expired)
		quiet(t, s, triage.Expired)
	})

	t.Run("RacingStopsFinalizeOnce", func(t *testing.T) {
		// Several Stops read the attempt pending and race to finalize it:
		// continuations carrying stop_hook_active, and ordinary Stops whose
		// begin declines as pending. One finalizes it; the others, finding
		// it finalized under them, report the row's status and succeed, and
		// none injects.
		const n = 16
		for _, tc := range []struct {
			name   string
			active func(i int) bool
		}{
			{"StopHookActive", func(int) bool { return true }},
			{"StopHookActiveLostOnSome", func(i int) bool { return i%2 == 0 }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				_, armed := arm(s)
				results := make([]continuity.StopResult, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						var err error
						results[i], err = s.a.Stop(s.ctx, nudge("s1", tc.active(i)))
						if err != nil {
							t.Errorf("stop %d: %v", i, err)
						}
					})
				}
				wg.Wait()
				completed := 0
				for i, r := range results {
					if r.Inject || r.Triage == nil || r.Triage.Status != triage.Expired || r.Triage.Armed {
						t.Errorf("stop %d = %+v, want the attempt reported expired, nothing injected", i, r)
						continue
					}
					if r.Triage.Completed {
						completed++
						if r.Triage.AttemptID != armed.Triage.AttemptID {
							t.Errorf("stop %d completed attempt %v, want %v", i, r.Triage.AttemptID, armed.Triage.AttemptID)
						}
					}
				}
				if completed != 1 {
					t.Errorf("%d of %d racing stops completed the attempt, want 1", completed, n)
				}
				finished := 0
				for _, e := range s.ledger(s.a, uuid.Nil) {
					if e.Event == continuity.EventTriageFinished && e.Fields["attempt_id"] == armed.Triage.AttemptID.String() {
						finished++
					}
				}
				if finished != 1 {
					t.Errorf("the attempt was finalized %d times, want once", finished)
				}
				quiet(t, s, triage.Expired)
			})
		}
	})

	t.Run("DebriefEchoIsNotThePrompt", func(t *testing.T) {
		// Gemini CLI continues a turn its AfterAgent hook denied by sending
		// the denial's reason, the debrief, as the next turn's prompt (the
		// hook has stripped its <hook_context> prefix; white space may
		// surround it). While the attempt that injected it is pending it is
		// not the person's prompt: not recorded, so the handover's
		// objective stays the person's. Anything else is recorded.
		const person = "ship the parser"
		for _, tc := range []struct {
			name     string
			topic    string // of the briefed commitment the debrief names; "" is "ship"
			prompt   func(debrief string) string
			finished bool // the attempt is finalized before the prompt
			skipped  bool
		}{
			{"AsInjected", "", func(d string) string { return d }, false, true},
			{"PaddedByTheHarness", "", func(d string) string { return " \n\t" + d + "\n\n" }, false, true},
			{"ReflowedByTheHarness", "", func(d string) string { return strings.ReplaceAll(d, "\n", "\r\n") }, false, true},
			// The hook emits the debrief as inject.Nudge cleans it, and
			// that is the text the harness sends back: a topic's control
			// character or line separator, which the data block's JSON
			// escapes, leaves it the debrief's words.
			{"AsTheHookSentIt", "ship\x01it\u2028now", inject.Nudge, false, true},
			{"ItsFirstParagraph", "", func(d string) string { return strings.SplitN(d, "\n\n", 2)[0] }, false, false},
			{"WithMore", "", func(d string) string { return d + " and the tests" }, false, false},
			{"AnotherPrompt", "", func(string) string { return "and the tests" }, false, false},
			{"AfterTheAttempt", "", func(d string) string { return d }, true, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				topic := tc.topic
				if topic == "" {
					topic = "ship"
				}
				_, armed := armWith(s, topic)
				s.prompt("s1", person)
				if tc.finished {
					wantFinal(t, s.stop(nudge("s1", true)), armed.Triage.AttemptID, triage.Expired)
				}
				mark := s.mark(s.a)
				text := tc.prompt(armed.Reason)
				r := s.prompt("s1", text)
				s.wantReceipt(s.a, mark, r.ReceiptID, evPrompt)
				if r.SkippedDebrief != tc.skipped || r.Prompt.Kept == tc.skipped {
					t.Fatalf("prompt = %+v, want skipped %v", r, tc.skipped)
				}
				hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
				if err != nil {
					t.Fatal(err)
				}
				prompts, want := 2, continuity.DeriveEpisode(continuity.Episode{}, text, "").Objective
				if tc.skipped {
					prompts, want = 1, person
				}
				if len(hist.Prompts) != prompts {
					t.Fatalf("%d prompts recorded, want %d", len(hist.Prompts), prompts)
				}
				if hv := s.end("s1").Handover; hv.Objective != want {
					t.Fatalf("handover objective = %.80q, want %.80q", hv.Objective, want)
				}
			})
		}
	})

	t.Run("StopHookActiveNeverInjects", func(t *testing.T) {
		s := newScene(t, h)
		s.startup("s1", "baton")
		for range triage.Default.MinStops + 2 {
			r := s.stop(nudge("s1", true))
			if r.Inject || r.Triage == nil || r.Triage.Armed || r.Triage.Status != triage.Idle {
				t.Fatalf("stop_hook_active stop = %+v, want no injection and no attempt", r)
			}
		}
		if v := s.session(s.a, "s1"); v.TriageStatus != string(triage.Idle) || v.StopCount != triage.Default.MinStops+2 {
			t.Fatalf("row = %+v, want idle with every stop counted", v.Session)
		}
	})

	t.Run("OffByDefault", func(t *testing.T) {
		s := newScene(t, h)
		s.startup("s1", "baton")
		for range triage.Default.MinStops + 2 {
			if r := s.stop(stopOf("s1", "turn done")); r.Inject || r.Triage != nil {
				t.Fatalf("a stop without the nudge = %+v, want a heartbeat only", r)
			}
		}
		if v := s.session(s.a, "s1"); v.TriageStatus != string(triage.Idle) {
			t.Fatalf("triage status %s without the nudge", v.TriageStatus)
		}
	})
}

// scenarioPreCompact: arm the sealed bottle's marker and write a
// checkpoint whatever the task: derived from the last prompt and the
// excerpt's snapshot, given values kept.
func scenarioPreCompact(t *testing.T, h ScenarioHarness) {
	const excerpt = "Parsed the header and the table.\n\nNext: parse the body."
	t.Run("SealedAndDerived", func(t *testing.T) {
		s := newScene(t, h)
		r := s.startup("s1", "baton")
		s.prompt("s1", "implement the parser <private>with key abc</private>")
		s.stop(stopOf("s1", excerpt))
		m := sealedOf("s1")
		pc := s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Trigger: "auto", Sealed: m})
		c := pc.Checkpoint
		if !pc.Armed || c.Kind != continuity.RecordCheckpoint || c.SessionRunID != r.SessionRunID || c.Project != "baton" || c.Agent != agent || c.SessionID != "s1" ||
			c.TaskName() != continuity.NoTask || c.Objective != "implement the parser" || c.State != excerpt || c.NextAction != "Next: parse the body." ||
			c.BottlePath != m.Path || c.Reason != "auto" || !c.CreatedAt.Equal(s.clock.Now()) {
			t.Fatalf("checkpoint = %+v (armed %v)", c, pc.Armed)
		}
		if rs := s.records(s.a, continuity.RecordQuery{SessionID: "s1"}); len(rs) != 1 || rs[0].ID != c.ID || rs[0].State != excerpt {
			t.Fatalf("records = %+v, want the checkpoint", rs)
		}
		// The excerpt was snapshotted: a later Stop does not change it.
		s.stop(stopOf("s1", "something else"))
		if rs := s.records(s.a, continuity.RecordQuery{SessionID: "s1"}); rs[0].State != excerpt {
			t.Fatalf("checkpoint state changed to %q", rs[0].State)
		}
		res := s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
		if res.Marker == nil || res.Marker.Path != m.Path || res.Marker.Gap != m.Gap || res.Marker.Mode != m.Mode || res.Marker.SessionID != "s1" {
			t.Fatalf("compact after the seal claimed %+v, want %+v", res.Marker, m)
		}
	})

	t.Run("GivenValuesKept", func(t *testing.T) {
		s := newScene(t, h)
		s.startup("s1", "baton")
		s.stop(stopOf("s1", excerpt))
		e := continuity.Episode{Task: "t-42", Objective: "ship 1.0", NextAction: "tag the release", GitCommit: "0123abcdef", GitBranch: "main", BottlePath: "/elsewhere/b.md"}
		c := s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: sealedOf("s1"), Episode: e}).Checkpoint
		if c.Task != e.Task || c.TaskName() != "t-42" || c.Objective != e.Objective || c.State != excerpt || c.NextAction != e.NextAction ||
			c.GitCommit != e.GitCommit || c.GitBranch != e.GitBranch || c.BottlePath != e.BottlePath {
			t.Fatalf("checkpoint = %+v, want the given values kept and the state derived", c)
		}
	})

	t.Run("GivenTextPrivacyFiltered", func(t *testing.T) {
		// An episode's text a caller gives (a host, a team server's
		// client) is privacy filtered as a prompt is: a <private> block
		// never reaches the record, its listing, or the next briefing.
		const secret = "sk-episode-SENTINEL"
		hidden := func(s string) string { return s + " <private>" + secret + "</private>" }
		cases := []struct {
			name string
			edit func(e *continuity.Episode)
			got  func(r continuity.Record) string
			want string
		}{
			{"task", func(e *continuity.Episode) { e.Task = hidden("t-42") }, func(r continuity.Record) string { return r.Task }, "t-42"},
			{"objective", func(e *continuity.Episode) { e.Objective = hidden("ship 1.0") }, func(r continuity.Record) string { return r.Objective }, "ship 1.0"},
			{"state", func(e *continuity.Episode) { e.State = hidden("tagged") }, func(r continuity.Record) string { return r.State }, "tagged"},
			{"next action", func(e *continuity.Episode) { e.NextAction = hidden("publish") }, func(r continuity.Record) string { return r.NextAction }, "publish"},
			{"only private", func(e *continuity.Episode) { e.NextAction = "<private>" + secret + "</private>" }, func(r continuity.Record) string { return r.NextAction }, "Next: parse the body."},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				s.startup("s1", "baton")
				s.stop(stopOf("s1", excerpt))
				var e continuity.Episode
				tc.edit(&e)
				c := s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Episode: e}).Checkpoint
				hv, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s1"), Episode: e})
				if err != nil {
					t.Fatalf("%s: SessionEnd: %v", tc.name, err)
				}
				b, err := s.a.Briefing(s.ctx, continuity.BriefingParams{Project: "baton"})
				if err != nil || b.Handover == nil {
					t.Fatalf("%s: briefing %+v: %v, want the handover", tc.name, b, err)
				}
				rs := append(s.records(s.a, continuity.RecordQuery{SessionID: "s1"}), c, hv.Handover, b.Handover.Record)
				for _, r := range rs {
					if got := tc.got(r); got != tc.want {
						t.Errorf("%s: the %s's field = %q, want %q", tc.name, r.Kind, got, tc.want)
					}
				}
				if strings.Contains(b.Text, secret) {
					t.Errorf("%s: the briefing's text shows the private block: %q", tc.name, b.Text)
				}
			})
		}
	})

	t.Run("SealedTaskPrivacyFiltered", func(t *testing.T) {
		// The sealed bottle's task a caller gives reaches the compacted
		// session's pointer: it is filtered as the episode's text is.
		cases := []struct{ name, task, want string }{
			{"text around it", "parse the body <private>pw=SENTINEL</private>", "parse the body"},
			{"only private", "<private>SENTINEL</private>", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				s.startup("s1", "baton")
				m := sealedOf("s1")
				m.Task = tc.task
				s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: m})
				res := s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
				if res.Marker == nil || res.Marker.Task != tc.want {
					t.Fatalf("the compact claimed %+v, want the task %q", res.Marker, tc.want)
				}
			})
		}
	})

	t.Run("UnseenConversationArmsItsMarker", func(t *testing.T) {
		// Hooks installed mid-session: baton never saw s9 open. Its
		// checkpoint has no row to name (not_found, recorded as the
		// event's failure), yet the marker, armed in its own transaction
		// before the checkpoint, is kept, and the compact SessionStart
		// that follows, taken up as a resume, claims it.
		s := newScene(t, h)
		m := sealedOf("s9")
		_, err := s.a.PreCompact(s.ctx, continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s9"), Trigger: "auto", Sealed: m})
		if continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Fatalf("PreCompact of an unseen conversation: %v, want not_found", err)
		}
		res := s.start(s.a, startOf("s9", continuity.SourceCompact, "baton"))
		if res.Marker == nil || res.Marker.Path != m.Path || res.Marker.Mode != m.Mode || !res.Created {
			t.Fatalf("compact after an unseen conversation's seal = %+v, want its row created and the marker %+v claimed", res, m)
		}
	})

	t.Run("AnEarlierSealOutlivesOnlyProvisionalPreCompacts", func(t *testing.T) {
		// A seal whose compaction reached no SessionStart (cancelled,
		// failed) leaves its marker armed. The next PreCompact that does
		// compact decides what the compact SessionStart shows: its own
		// seal, or, when it sealed nothing (its seal failed), no marker,
		// so the start renders on demand instead of pointing at the
		// earlier bottle as the record of this compaction. A provisional
		// PreCompact (no compaction decided) leaves the marker as it is.
		for _, tc := range []struct {
			name       string
			second     continuity.PreCompactParams
			wantMarker bool
		}{
			{"SealFailed", continuity.PreCompactParams{EventParams: edited(hookEvent(evPreCompact, "s1"), func(e *continuity.EventParams) {
				e.LocalFailure = "internal: bottle: no space left on device"
			}), Trigger: "auto"}, false},
			{"NoBottleKept", continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Trigger: "manual"}, false},
			{"Provisional", continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Trigger: "auto", Provisional: true}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s := newScene(t, h)
				s.startup("s1", "baton")
				first := s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Trigger: "manual", Sealed: sealedOf("s1")})
				if !first.Armed {
					t.Fatal("the first seal armed no marker")
				}
				s.clock.Advance(time.Minute)
				if pc := s.preCompact(tc.second); pc.Armed || pc.Checkpoint.ID == uuid.Nil {
					t.Fatalf("second PreCompact = %+v, want a checkpoint and nothing armed", pc)
				}
				res := s.start(s.a, startOf("s1", continuity.SourceCompact, "baton"))
				if got := res.Marker != nil; got != tc.wantMarker || got == (res.Briefing != nil) {
					t.Fatalf("compact after it = marker %+v, briefing %v; want the earlier marker claimed: %v", res.Marker, res.Briefing != nil, tc.wantMarker)
				}
			})
		}
	})

	t.Run("NothingRecordedNothingSealed", func(t *testing.T) {
		s := newScene(t, h)
		s.startup("s1", "")
		pc := s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1")})
		c := pc.Checkpoint
		if pc.Armed || c.BottlePath != "" || c.Project != "" || c.TaskName() != continuity.NoTask || c.Objective == "" || c.State == "" || c.NextAction == "" {
			t.Fatalf("checkpoint of an empty episode = %+v (armed %v), want it written, saying what was not recorded", c, pc.Armed)
		}
		if _, ok, err := s.a.ClaimBottle(s.ctx, agent, "s1"); ok || err != nil {
			t.Fatalf("nothing was sealed, yet a marker was armed (%v)", err)
		}
	})
}

// scenarioSessionEnd: close by natural key (idempotent) and a handover for
// every episode, with or without a task.
func scenarioSessionEnd(t *testing.T, h ScenarioHarness) {
	t.Run("CloseAndHandover", func(t *testing.T) {
		s := newScene(t, h)
		r := s.startup("s1", "baton")
		s.prompt("s1", "write the changelog")
		s.stop(stopOf("s1", "Drafted the changelog.\n\nNext: review it."))
		s.clock.Advance(time.Minute)
		closedAt := s.clock.Now()
		first := s.end("s1")
		hv := first.Handover
		if first.Close.AlreadyClosed || !first.Close.ClosedAt.Equal(closedAt) || first.Close.SessionRunID != r.SessionRunID || first.Close.ActivationEpoch != 1 {
			t.Fatalf("close = %+v, want closed now", first.Close)
		}
		if hv.Kind != continuity.RecordHandover || hv.SessionRunID != r.SessionRunID || hv.TaskName() != continuity.NoTask || hv.Objective != "write the changelog" ||
			hv.State != "Drafted the changelog.\n\nNext: review it." || hv.NextAction != "Next: review it." || hv.Reason != "exit" {
			t.Fatalf("handover = %+v", hv)
		}
		if v := s.session(s.a, "s1"); v.ClosedAt == nil || !v.ClosedAt.Equal(closedAt) {
			t.Fatalf("row after SessionEnd = %+v, want closed", v.Session)
		}

		s.clock.Advance(time.Minute)
		second, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s1"), Episode: continuity.Episode{Task: "t-7", NextAction: "publish"}})
		if err != nil {
			t.Fatal(err)
		}
		if !second.Close.AlreadyClosed || !second.Close.ClosedAt.Equal(closedAt) {
			t.Fatalf("second end = %+v, want alreadyClosed with the first close's time", second.Close)
		}
		if hv2 := second.Handover; hv2.TaskName() != "t-7" || hv2.NextAction != "publish" || hv2.Objective != "write the changelog" {
			t.Fatalf("second handover = %+v, want the given task and next action kept", hv2)
		}
		rs := s.records(s.a, continuity.RecordQuery{SessionID: "s1", Kinds: []continuity.RecordKind{continuity.RecordHandover}})
		if len(rs) != 2 || rs[0].ID != second.Handover.ID || rs[1].ID != hv.ID {
			t.Fatalf("handovers = %+v, want both, newest first", rs)
		}
		// A repeated delivery of that SessionEnd writes no third handover.
		third, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s1"), Episode: continuity.Episode{Task: "t-7", NextAction: "publish"}})
		if err != nil {
			t.Fatal(err)
		}
		if third.Handover.ID != second.Handover.ID {
			t.Fatalf("a repeated SessionEnd wrote handover %v, want the second's %v returned", third.Handover.ID, second.Handover.ID)
		}
		if rs := s.records(s.a, continuity.RecordQuery{SessionID: "s1", Kinds: []continuity.RecordKind{continuity.RecordHandover}}); len(rs) != 2 {
			t.Fatalf("%d handovers after a repeated SessionEnd, want 2", len(rs))
		}

		// A conversation never opened is not_found, and gets no handover.
		_, err = s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "ghost")})
		wantCode(t, err, continuity.CodeNotFound)
		if rs := s.records(s.a, continuity.RecordQuery{SessionID: "ghost"}); len(rs) != 0 {
			t.Fatalf("a handover was written for a conversation never opened: %+v", rs)
		}
	})

	t.Run("RacingDeliveriesWriteOneHandover", func(t *testing.T) {
		// Gemini CLI delivers one SessionEnd up to three times within
		// 70 ms; a team server may see many more. However they
		// interleave, one closes the row and one handover is written, and
		// every delivery answers with that close and that handover.
		for _, n := range []int{3, 32} {
			t.Run(strconv.Itoa(n), func(t *testing.T) {
				s := newScene(t, h)
				r := s.startup("s1", "baton")
				s.prompt("s1", "write the changelog")
				s.stop(stopOf("s1", "Drafted the changelog."))
				s.clock.Advance(time.Minute)
				results := make([]continuity.EndResult, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						var err error
						results[i], err = s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s1"), Reason: "exit"})
						if err != nil {
							t.Errorf("SessionEnd %d: %v", i, err)
						}
					})
				}
				wg.Wait()
				hvs := s.records(s.a, continuity.RecordQuery{SessionID: "s1", Kinds: []continuity.RecordKind{continuity.RecordHandover}})
				if len(hvs) != 1 {
					t.Fatalf("%d racing SessionEnds wrote %d handovers, want 1", n, len(hvs))
				}
				closed := 0
				for i, res := range results {
					if !res.Close.AlreadyClosed {
						closed++
					}
					if res.Close.SessionRunID != r.SessionRunID || !res.Close.ClosedAt.Equal(s.clock.Now()) || res.Handover.ID != hvs[0].ID {
						t.Errorf("SessionEnd %d = close %+v, handover %v; want the one close and the one handover %v", i, res.Close, res.Handover.ID, hvs[0].ID)
					}
				}
				if closed != 1 {
					t.Errorf("%d of %d racing SessionEnds closed the row, want 1", closed, n)
				}
				counts := map[string]int{}
				for _, e := range s.ledger(s.a, uuid.Nil) {
					counts[e.Event]++
				}
				if counts[continuity.EventSessionClosed] != 1 || counts["record."+string(continuity.RecordHandover)] != 1 || counts[continuity.EventReceived] != n+3 {
					t.Errorf("ledger counts %v, want one close, one handover line and %d receipts", counts, n+3)
				}
			})
		}
	})

	t.Run("EpisodesOutliveTheirTask", func(t *testing.T) {
		// The episode-lifecycle ADR's outage: a task handed over days ago
		// must not stop the episodes after it from writing their records.
		s := newScene(t, h)
		s.startup("s1", "baton")
		prev := succeed(s, "SessionEnd", s.a.SessionEnd, edited(endOf("s1"), func(p *continuity.EndParams) {
			p.Episode = continuity.Episode{Task: "t-20260905", NextAction: "nothing: handed over"}
		})).Handover
		if prev.TaskName() != "t-20260905" {
			t.Fatalf("handover task = %q", prev.TaskName())
		}
		for _, sid := range []string{"s2", "s3"} {
			s.clock.Advance(3 * 24 * time.Hour)
			st := s.startup(sid, "baton")
			if st.Handover == nil || st.Handover.ID != prev.ID {
				t.Fatalf("startup of %s carries handover %+v, want the newest, %v", sid, st.Handover, prev.ID)
			}
			c := s.preCompact(preCompactOf(sid)).Checkpoint
			prev = s.end(sid).Handover
			for _, r := range []continuity.Record{c, prev} {
				if r.SessionRunID != st.SessionRunID || r.TaskName() != continuity.NoTask || r.Project != "baton" {
					t.Fatalf("%s of %s = %+v, want it written with no task", r.Kind, sid, r)
				}
			}
		}
		if rs := s.records(s.a, continuity.RecordQuery{ByProject: true, Project: "baton"}); len(rs) != 5 {
			t.Fatalf("%d records written, want a handover per episode and a checkpoint per compaction (5)", len(rs))
		}
	})
}

// scenarioRecords: newest first, each filter, the keyset cursor, the
// limit's bounds.
func scenarioRecords(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	s.startup("s1", "baton")
	s.startup("s2", "other")
	s.startup("s3", "")
	codex := startOf("s4", continuity.SourceStartup, "baton")
	codex.Agent = "codex"
	s.start(s.a, codex)
	var written []continuity.Record // oldest first
	written = append(written, s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1")}).Checkpoint)
	written = append(written, s.end("s1").Handover)
	written = append(written, s.end("s2").Handover)
	written = append(written, s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s3")}).Checkpoint)
	r, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: continuity.EventParams{Provider: "codex", ProviderEvent: evEnd, Agent: "codex", SessionID: "s4"}})
	if err != nil {
		t.Fatal(err)
	}
	written = append(written, r.Handover)
	ids := func(rs []continuity.Record) []uuid.UUID {
		out := []uuid.UUID{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	newest := func(idx ...int) []uuid.UUID {
		out := []uuid.UUID{}
		for _, i := range idx {
			out = append(out, written[i].ID)
		}
		return out
	}
	cases := []struct {
		name string
		q    continuity.RecordQuery
		want []uuid.UUID
	}{
		{"all, newest first", continuity.RecordQuery{}, newest(4, 3, 2, 1, 0)},
		{"by project", continuity.RecordQuery{ByProject: true, Project: "baton"}, newest(4, 1, 0)},
		{"without a project", continuity.RecordQuery{ByProject: true}, newest(3)},
		{"handovers", continuity.RecordQuery{Kinds: []continuity.RecordKind{continuity.RecordHandover}}, newest(4, 2, 1)},
		{"checkpoints and handovers", continuity.RecordQuery{Kinds: []continuity.RecordKind{continuity.RecordCheckpoint, continuity.RecordHandover}}, newest(4, 3, 2, 1, 0)},
		{"by agent", continuity.RecordQuery{Agent: "codex"}, newest(4)},
		{"by conversation", continuity.RecordQuery{Agent: agent, SessionID: "s1"}, newest(1, 0)},
		{"a project's newest handover", continuity.RecordQuery{ByProject: true, Project: "baton", Kinds: []continuity.RecordKind{continuity.RecordHandover}, Limit: 1}, newest(4)},
		{"limit", continuity.RecordQuery{Limit: 2}, newest(4, 3)},
		{"the largest limit", continuity.RecordQuery{Limit: continuity.MaxRecords}, newest(4, 3, 2, 1, 0)},
		{"before a record", continuity.RecordQuery{Before: written[3].ID}, newest(2, 1, 0)},
		{"before the oldest", continuity.RecordQuery{Before: written[0].ID}, newest()},
		{"no match", continuity.RecordQuery{SessionID: "s9"}, newest()},
	}
	for _, tc := range cases {
		if got := ids(s.records(s.a, tc.q)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: records %v, want %v", tc.name, got, tc.want)
		}
	}
	for field, q := range map[string]continuity.RecordQuery{
		"limit":     {Limit: continuity.MaxRecords + 1},
		"kinds":     {Kinds: []continuity.RecordKind{"note"}},
		"agent":     {Agent: "Claude Code"},
		"sessionId": {SessionID: "../s1"},
		"project":   {ByProject: true, Project: strings.Repeat("p", continuity.MaxFacetLen+1)},
	} {
		_, err := s.a.Records(s.ctx, q)
		wantInvalid(t, err, field)
	}
	_, err = s.a.Records(s.ctx, continuity.RecordQuery{Limit: -1})
	wantInvalid(t, err, "limit")
}

// scenarioIsolation: tenant B, addressing what tenant A wrote by the same
// keys and ids, never sees or changes any of it.
func scenarioIsolation(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	a := s.startup("s1", "baton")
	mem := s.remember(s.a, continuity.KindCommitment, "ship", "baton", a.SessionRunID.String())
	s.prompt("s1", "the secret plan")
	s.stop(stopOf("s1", "the secret answer"))
	s.preCompact(continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1"), Sealed: sealedOf("s1")})
	_, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s2")})
	wantCode(t, err, continuity.CodeNotFound) // a failure line in A's ledger too
	aLedger := s.ledger(s.a, uuid.Nil)
	aIDs := map[uuid.UUID]bool{}
	for _, e := range aLedger {
		aIDs[e.ID] = true
	}
	if rs := s.records(s.b, continuity.RecordQuery{}); len(rs) != 0 {
		t.Fatalf("tenant B reads A's records: %+v", rs)
	}
	if es := s.ledger(s.b, uuid.Nil); len(es) != 0 {
		t.Fatalf("tenant B reads A's ledger: %v", events(es))
	}
	_, err = s.b.Session(s.ctx, agent, "s1")
	wantCode(t, err, continuity.CodeNotFound)
	if hist, err := s.b.SessionHistory(s.ctx, agent, "s1"); err != nil || len(hist.Prompts) != 0 || len(hist.StopExcerpts) != 0 || hist.Project != "" {
		t.Fatalf("tenant B reads A's history: %+v %v", hist, err)
	}
	_, err = s.b.Memory(s.ctx, mem.ID.String())
	wantCode(t, err, continuity.CodeNotFound)
	_, err = s.b.RunEvents(s.ctx, a.SessionRunID.String(), "", 10)
	wantCode(t, err, continuity.CodeNotFound)
	bw := remember(continuity.KindNote, "n", "x", "baton", a.SessionRunID.String())
	bw.Actor = continuity.ActorUserAPI
	_, err = s.b.Remember(s.ctx, bw)
	wantCode(t, err, continuity.CodeForbidden)

	// B's events on A's keys touch only B.
	_, err = s.b.Stop(s.ctx, stopOf("s1", "b's message"))
	wantCode(t, err, continuity.CodeNotFound)
	_, err = s.b.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, "s1")})
	wantCode(t, err, continuity.CodeNotFound)
	_, err = s.b.PreCompact(s.ctx, continuity.PreCompactParams{EventParams: hookEvent(evPreCompact, "s1")})
	wantCode(t, err, continuity.CodeNotFound)
	if m, ok, err := s.b.ClaimBottle(s.ctx, agent, "s1"); ok || err != nil {
		t.Fatalf("tenant B claimed A's marker: %+v %v", m, err)
	}
	b := s.start(s.b, startOf("s1", continuity.SourceStartup, "baton"))
	if !b.Created || b.SessionRunID == a.SessionRunID || b.Handover != nil || len(b.Briefing.Items) != 0 {
		t.Fatalf("tenant B's startup = %+v, want its own row, no handover and an empty briefing", b)
	}
	if bes := s.ledger(s.b, uuid.Nil); len(bes) == 0 || slices.ContainsFunc(bes, func(e continuity.LedgerEntry) bool { return aIDs[e.ID] }) {
		t.Fatalf("tenant B's ledger = %v, want its own lines only", events(bes))
	}

	// A's conversation is as A left it.
	v := s.session(s.a, "s1")
	if v.ID != a.SessionRunID || v.StopCount != 1 || v.LastMessageExcerpt != "the secret answer" || v.ClosedAt != nil || v.Project != "baton" {
		t.Fatalf("tenant A's row changed: %+v", v.Session)
	}
	if got := s.ledger(s.a, uuid.Nil); len(got) != len(aLedger) {
		t.Fatalf("tenant A's ledger grew from %d to %d lines through B", len(aLedger), len(got))
	}
	if m, ok, err := s.a.ClaimBottle(s.ctx, agent, "s1"); !ok || err != nil || m.Path != sealedOf("s1").Path {
		t.Fatalf("tenant A's marker = %+v %v %v, want it still armed", m, ok, err)
	}
}

// scenarioAttribution: a write carrying the run id the startup returned is
// attributed to it; an id-less write attaches to the single live run of
// its project, and to none when two are live or the run was ended.
func scenarioAttribution(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	run := s.startup("s1", "baton").SessionRunID
	byID := s.remember(s.a, continuity.KindDecision, "by id", "baton", run.String())
	idless := s.remember(s.a, continuity.KindNote, "id-less", "baton", "")
	if byID.SessionRunID != run || idless.SessionRunID != run {
		t.Fatalf("writes attributed to %v and %v, want run %v", byID.SessionRunID, idless.SessionRunID, run)
	}
	page, err := s.a.RunEvents(s.ctx, run.String(), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].ID != byID.EventID || page.Items[1].ID != idless.EventID || page.Items[0].SessionRunID != run {
		t.Fatalf("run events = %+v, want both writes", page.Items)
	}
	if other := s.remember(s.a, continuity.KindNote, "elsewhere", "other", ""); other.SessionRunID != uuid.Nil {
		t.Fatalf("an id-less write of another project attached to %v", other.SessionRunID)
	}

	s.startup("s2", "baton")
	if w := s.remember(s.a, continuity.KindNote, "ambiguous", "baton", ""); w.SessionRunID != uuid.Nil {
		t.Fatalf("an id-less write with two live runs attached to %v", w.SessionRunID)
	}
	s.end("s1")
	if w := s.remember(s.a, continuity.KindNote, "after the end", "baton", run.String()); w.SessionRunID != uuid.Nil {
		t.Fatalf("a write carrying an ended run's id attached to %v", w.SessionRunID)
	}
}

// nextTo is the id d places from id in the order ids sort in.
func nextTo(id uuid.UUID, d int64) uuid.UUID {
	n := new(big.Int).SetBytes(id[:])
	n.Add(n, big.NewInt(d))
	var out uuid.UUID
	n.FillBytes(out[:])
	return out
}
