package httpapi

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// TestEveryRouteAnswers calls every continuity.API method once through the
// Client, each one succeeding: every route answers its described success
// status with a body of the described shape (the validating wrapper checks
// each exchange), and the Client reads it back.
func TestEveryRouteAnswers(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	answered := map[string]bool{}
	d := readDescription(t)
	s := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{}, d.validating(t, func(ex exchange) {
		mu.Lock()
		defer mu.Unlock()
		if ex.status < 300 {
			answered[ex.pattern] = true
		}
	}))
	c := s.client(keyA)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	resp, err := http.Get(s.URL + prefix + "/healthz")
	must("health", err)
	resp.Body.Close()

	open, err := c.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Project: "baton"})
	must("open", err)
	run := open.SessionRunID.String()
	_, err = c.Heartbeat(ctx, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", LastMessageExcerpt: ptr("Working."), Stop: true})
	must("heartbeat", err)
	_, err = c.Session(ctx, agent, "s1")
	must("session", err)
	m, err := c.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "ship", Content: "Ship it.", Project: "baton", SessionRunID: run})
	must("remember", err)
	begun, err := c.TriageBegin(ctx, continuity.TriageParams{Agent: agent, SessionID: "s1"})
	must("triage begin", err)
	_, err = c.TriageComplete(ctx, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: begun.AttemptID.String()})
	must("triage complete", err)
	_, err = c.RunEvents(ctx, run, "", 10)
	must("run events", err)
	_, err = c.Debrief(ctx, continuity.DebriefParams{Agent: agent, SessionID: "s1"})
	must("debrief", err)
	_, err = c.Import(ctx, continuity.ImportParams{Kind: continuity.KindNote, Topic: "imported", Content: "From elsewhere."}, continuity.ActorUserCLI)
	must("import", err)
	_, err = c.Memory(ctx, m.ID.String())
	must("memory", err)
	next, err := c.Revise(ctx, m.ID.String(), continuity.ReviseParams{Content: "Ship it today."})
	must("revise", err)
	_, err = c.Resolve(ctx, next.ID.String(), continuity.TransitionParams{})
	must("resolve", err)
	_, err = c.Unresolve(ctx, next.ID.String(), continuity.TransitionParams{SessionRunID: run})
	must("unresolve", err)
	_, err = c.Archive(ctx, next.ID.String(), continuity.TransitionParams{})
	must("archive", err)
	_, err = c.Briefing(ctx, continuity.BriefingParams{Project: "baton", Mode: continuity.BriefingFull})
	must("briefing", err)
	_, err = c.AppendReceipt(ctx, continuity.ReceiptParams{Provider: agent, ProviderEvent: "Notification"})
	must("receipt", err)
	must("arm", c.ArmBottle(ctx, agent, bottle.Marker{SessionID: "s1", Path: "/b/s1.md", Mode: bottle.ModeFull}))
	if _, ok, err := c.ClaimBottle(ctx, agent, "s1"); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	_, err = c.RecordPrompt(ctx, agent, "s1", "Go on.")
	must("record prompt", err)
	_, err = c.SessionHistory(ctx, agent, "s1")
	must("history", err)

	_, err = c.SessionStart(ctx, continuity.StartParams{EventParams: event("SessionStart"), Source: continuity.SourceResume, Project: "baton"})
	must("session start", err)
	_, err = c.UserPrompt(ctx, continuity.PromptParams{EventParams: event("UserPromptSubmit"), Prompt: "Next step."})
	must("user prompt", err)
	stop, err := c.Stop(ctx, continuity.StopParams{EventParams: event("Stop"), LastMessage: ptr("Done.")})
	must("stop", err)
	must("failure", c.RecordFailure(ctx, continuity.FailureParams{EventParams: event("Stop"), ReceiptID: stop.ReceiptID.String(), Reason: "internal: render failed"}))
	_, err = c.PreCompact(ctx, continuity.PreCompactParams{EventParams: event("PreCompact"), Sealed: &bottle.Marker{SessionID: "s1", Path: "/b/s1.md", Mode: bottle.ModeFull}})
	must("precompact", err)
	_, err = c.SessionEnd(ctx, continuity.EndParams{EventParams: event("SessionEnd"), Reason: "exit"})
	must("session end", err)
	_, err = c.Close(ctx, continuity.CloseParams{Agent: agent, SessionID: "s1"})
	must("close", err)
	rs, err := c.Records(ctx, continuity.RecordQuery{SessionID: "s1"})
	must("records", err)
	es, err := c.Ledger(ctx, uuid.Nil, 100)
	must("ledger", err)
	report, err := c.Doctor(ctx)
	must("doctor", err)
	if len(rs) != 2 || len(es) == 0 || report.Sessions != 1 || len(report.Findings) != 1 || report.Findings[0].Check != continuity.CheckTooFewSessions {
		t.Fatalf("%d records, %d ledger lines and a doctor's report of %d sessions read back", len(rs), len(es), report.Sessions)
	}
	sl, err := c.SessionLedger(ctx, "s1", uuid.Nil, 100)
	must("session ledger", err)
	if len(sl) == 0 || len(sl) >= len(es) {
		t.Fatalf("%d of the %d ledger lines are s1's", len(sl), len(es))
	}
	vs, err := c.Sessions(ctx, continuity.SessionQuery{ByProject: true, Project: "baton", States: []lease.State{lease.ExplicitlyClosed}})
	must("sessions", err)
	if len(vs) != 1 || vs[0].SessionID != "s1" || vs[0].State != lease.ExplicitlyClosed {
		t.Fatalf("sessions = %+v", vs)
	}

	for i := range routes {
		if !answered[routes[i].pattern()] {
			t.Errorf("%s never answered a success", routes[i].pattern())
		}
	}
}

// TestValidatorCatches: the check the scenario runs rely on fails where an
// answer is not as described: a member missing, one undescribed, a wrong
// type, a malformed UUID or time, a null list.
func TestValidatorCatches(t *testing.T) {
	d := readDescription(t)
	ref := func(name string) object { return object{"$ref": "#/components/schemas/" + name} }
	run := uuid.NewString()
	good := object{"receiptId": run, "sessionRunId": run, "activationEpoch": 1.0}
	if errs := d.validate(ref("continuity.StopResult"), good, "answer"); len(errs) != 0 {
		t.Fatalf("a good answer fails: %v", errs)
	}
	bad := map[string]any{
		"a required member missing": object{"receiptId": run, "activationEpoch": 1.0},
		"an undescribed member":     object{"receiptId": run, "sessionRunId": run, "activationEpoch": 1.0, "tenant": "a"},
		"a wrong type":              object{"receiptId": run, "sessionRunId": run, "activationEpoch": "1"},
		"a fraction for an integer": object{"receiptId": run, "sessionRunId": run, "activationEpoch": 1.5},
		"a malformed UUID":          object{"receiptId": "r-1", "sessionRunId": run, "activationEpoch": 1.0},
		"a nested wrong type":       object{"receiptId": run, "sessionRunId": run, "activationEpoch": 1.0, "triage": object{"status": 3.0}},
		"not an object":             []any{good},
	}
	for name, v := range bad {
		if errs := d.validate(ref("continuity.StopResult"), v, "answer"); len(errs) == 0 {
			t.Errorf("%s passes", name)
		}
	}
	if errs := d.validate(ref("httpapi.LedgerPage"), object{"items": nil}, "answer"); len(errs) == 0 {
		t.Error("a null list passes")
	}
	if errs := d.validate(ref("continuity.LedgerEntry"), object{"id": run, "event": "e", "at": "yesterday"}, "answer"); len(errs) == 0 {
		t.Error("a malformed time passes")
	}
}
