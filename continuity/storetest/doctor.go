package storetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/lease"
)

// The doctor's thresholds, by the names they are declared under.
var (
	stale     = freshness.Default.Stale
	leaseSpan = lease.Default.Lease
)

// testDoctor runs the doctor over a real store: the episode-lifecycle ADR's
// outage end to end, then each check at its thresholds.
func testDoctor(t *testing.T, h Harness) {
	t.Run("OutageOfTheADR", func(t *testing.T) { t.Parallel(); testDoctorOutage(t, h) })
	t.Run("TooFewSessions", func(t *testing.T) { t.Parallel(); testDoctorTooFew(t, h) })
	t.Run("WriterStopped", func(t *testing.T) { testDoctorWriterStopped(t, h) })
	t.Run("UnclosedSessions", func(t *testing.T) { t.Parallel(); testDoctorUnclosed(t, h) })
	t.Run("UnansweredReceipt", func(t *testing.T) { t.Parallel(); testDoctorUnanswered(t, h) })
	t.Run("RepeatedEndAfterTheWindow", func(t *testing.T) { t.Parallel(); testDoctorRepeatedEnd(t, h) })
	t.Run("FailedEvents", func(t *testing.T) { t.Parallel(); testDoctorFailed(t, h) })
	t.Run("StuckTriage", func(t *testing.T) { t.Parallel(); testDoctorStuckTriage(t, h) })
	t.Run("CloserFailures", func(t *testing.T) { t.Parallel(); testDoctorCloser(t, h) })
	t.Run("UnclaimedBottle", func(t *testing.T) { t.Parallel(); testDoctorUnclaimed(t, h) })
	t.Run("UnclaimedBottleOfASkewedSealer", func(t *testing.T) { t.Parallel(); testDoctorUnclaimedSkewed(t, h) })
}

// doctorAt runs the doctor of tenant A with the clock at now.
func doctorAt(t *testing.T, f *fixture, now time.Time) continuity.DoctorReport {
	t.Helper()
	f.clock.Set(now)
	r, err := f.svc.For(tenantA).Doctor(context.Background())
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	if !r.GeneratedAt.Equal(now) || r.Findings == nil {
		t.Fatalf("report generated at %v with findings %v, want at %v and a non-nil list", r.GeneratedAt, r.Findings, now)
	}
	return r
}

// ofCheck returns the report's findings of one check.
func ofCheck(r continuity.DoctorReport, check string) []continuity.Finding {
	var out []continuity.Finding
	for _, f := range r.Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// boundary is one instant of a check's table and whether the check fires.
type boundary struct {
	name  string
	at    time.Time
	fires bool
}

// wantBoundaries runs the doctor at each instant and asserts whether the
// check fired, once, with the severity.
func wantBoundaries(t *testing.T, f *fixture, check string, sev continuity.Severity, cases []boundary) []continuity.Finding {
	t.Helper()
	var fired []continuity.Finding
	for _, tc := range cases {
		got := ofCheck(doctorAt(t, f, tc.at), check)
		switch {
		case tc.fires && (len(got) != 1 || got[0].Severity != sev):
			t.Errorf("%s: %s findings %+v, want one %s", tc.name, check, got, sev)
		case !tc.fires && len(got) != 0:
			t.Errorf("%s: %s findings %+v, want none", tc.name, check, got)
		case tc.fires:
			fired = append(fired, got[0])
		}
	}
	return fired
}

// must fails the test on err, naming what failed.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// testDoctorOutage reproduces the ADR's outage: two episodes write their
// checkpoints and handovers; then, for six days, sessions keep opening and
// closing (session.started and session.closed keep arriving) while no
// checkpoint or handover is written, as when the ADR's end adapter closed
// the episode and skipped its record. The doctor reports the stopped writer
// from the second session opened after the newest record went stale, until
// an episode writes a handover again; then it reports nothing.
func testDoctorOutage(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	e := episodes(t, f)
	api := f.svc.For(tenantA)
	dir := filepath.Join(t.TempDir(), "baton")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	msg := "Migrated half the rows.\n\nNext: migrate the rest."
	episode := func(sid string) {
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: sid, Cwd: dir})
		f.clock.Advance(time.Minute)
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: sid, Cwd: dir, LastMessage: &msg})
		handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: sid, Cwd: dir, Trigger: "auto"})
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceCompact, SessionID: sid, Cwd: dir})
		f.clock.Advance(time.Minute)
		handle(t, e, continuity.HookEvent{Kind: continuity.HookEnd, SessionID: sid, Cwd: dir, Reason: "exit"})
	}
	episode("day0-a")
	episode("day0-b")
	if r := doctorAt(t, f, f.clock.Now()); len(r.Findings) != 0 || r.Sessions != 2 {
		t.Fatalf("day 0: %+v, want two sessions and no finding", r)
	}
	rs, err := api.Records(ctx, continuity.RecordQuery{Limit: 1})
	must(t, "records", err)
	newest := rs[0]
	if newest.Kind != continuity.RecordHandover || newest.Project != "baton" {
		t.Fatalf("newest record %+v, want day 0's handover of project baton", newest)
	}

	// The writer stops: sessions open and close, no record is written.
	var opened []time.Time
	day0 := f.clock.Now()
	for day := 1; day <= 6; day++ {
		f.clock.Set(day0.Add(time.Duration(day) * 24 * time.Hour))
		sid := "day" + string(rune('0'+day))
		opened = append(opened, f.clock.Now())
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: sid, Cwd: dir})
		f.clock.Advance(time.Hour)
		_, err := api.Close(ctx, continuity.CloseParams{Agent: agent, SessionID: sid})
		must(t, "close", err)
		f.clock.Advance(time.Minute)

		whileStale := 0
		for _, at := range opened {
			if !at.Before(newest.CreatedAt.Add(stale)) {
				whileStale++
			}
		}
		r := doctorAt(t, f, f.clock.Now())
		got := ofCheck(r, continuity.CheckWriterStopped)
		if whileStale < continuity.DoctorMinSessions {
			if len(r.Findings) != 0 || !r.Healthy() {
				t.Errorf("day %d (%d sessions opened while stale): %+v, want no finding yet", day, whileStale, r.Findings)
			}
			continue
		}
		if len(r.Findings) != 1 || len(got) != 1 || r.Healthy() {
			t.Fatalf("day %d (%d sessions opened while stale): %+v, want the stopped writer alone, a failure", day, whileStale, r.Findings)
		}
		w := got[0]
		if w.Severity != continuity.SeverityFailure || w.Project != "baton" ||
			!strings.Contains(w.Sentence, "handovers (SessionEnd) has stopped") || !strings.Contains(w.Sentence, "sessions opened while") {
			t.Errorf("day %d: %+v", day, w)
		}
	}
	if r := doctorAt(t, f, f.clock.Now()); r.Healthy() {
		t.Fatal("the outage ended without being reported")
	}

	// The writer resumes: one episode writes its handover.
	f.clock.Advance(time.Hour)
	episode("resumed")
	if r := doctorAt(t, f, f.clock.Now()); len(r.Findings) != 0 || !r.Healthy() || r.Sessions != 9 {
		t.Fatalf("after the writer resumed: %+v, want nine sessions and no finding", r)
	}
}

func testDoctorTooFew(t *testing.T, h Harness) {
	f := newFixture(t, h)
	now := f.clock.Now()
	for n := 0; n <= continuity.DoctorMinSessions; n++ {
		if n > 0 {
			mustOpen(t, f, tenantA, startup("s"+string(rune('0'+n))))
		}
		r := doctorAt(t, f, now)
		got := ofCheck(r, continuity.CheckTooFewSessions)
		if r.Sessions != n {
			t.Errorf("%d sessions reported as %d", n, r.Sessions)
		}
		if n < continuity.DoctorMinSessions {
			if len(r.Findings) != 1 || len(got) != 1 || got[0].Severity != continuity.SeverityInfo || !r.Healthy() ||
				!strings.Contains(got[0].Sentence, "judges from 2 sessions on") {
				t.Errorf("%d sessions: %+v, want one info finding alone", n, r.Findings)
			}
			continue
		}
		if len(r.Findings) != 0 {
			t.Errorf("%d sessions: %+v, want none", n, r.Findings)
		}
	}
}

// testDoctorWriterStopped: with the newest record (or, with none, the first
// open) at R, the check fires when two sessions opened at or after R+stale.
func testDoctorWriterStopped(t *testing.T, h Harness) {
	ctx := context.Background()
	for _, record := range []bool{true, false} {
		for _, tc := range []struct {
			name  string
			first time.Duration // the first later session's open, from R+stale
			fires bool
		}{
			{"a microsecond before the record went stale", -time.Microsecond, false},
			{"the instant it went stale", 0, true},
			{"a microsecond after", time.Microsecond, true},
		} {
			name := tc.name
			if !record {
				name = "no record: " + name
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				R := f.clock.Now()
				mustOpen(t, f, tenantA, startup("s0"))
				if record {
					_, err := f.svc.SessionEnd(ctx, tenantA, continuity.EndParams{EventParams: hookEvent(evEnd, "s0")})
					must(t, "end", err)
				}
				f.clock.Set(R.Add(stale + tc.first))
				mustOpen(t, f, tenantA, startup("s1"))
				f.clock.Set(R.Add(stale + time.Hour))
				mustOpen(t, f, tenantA, startup("s2"))
				fired := wantBoundaries(t, f, continuity.CheckWriterStopped, continuity.SeverityFailure,
					[]boundary{{name, f.clock.Now(), tc.fires}})
				// The finding names the instants it compared: the record's
				// (or the first open's), where staleness began and now.
				compared := fmt.Sprintf("%s, compared with the activations from %s and with now, %s)",
					stampOf(R), stampOf(R.Add(stale)), stampOf(f.clock.Now()))
				for _, w := range fired {
					want := "its newest checkpoint or handover is 2d old (stale from 2d; written " + compared
					if !record {
						want = "no checkpoint or handover was ever written in the 2d since its first session (opened " + compared
					}
					if w.Project != "baton" || !strings.Contains(w.Sentence, want) || !strings.Contains(w.Sentence, `Project "baton": 2 sessions`) {
						t.Errorf("finding %+v, want project baton, 2 sessions and %q", w, want)
					}
				}
			})
		}
	}
}

// stampOf is how a finding names an instant it compared.
func stampOf(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// testDoctorUnclosed: session.started minus session.closed over the window
// exceeds the sessions leased open.
func testDoctorUnclosed(t *testing.T, h Harness) {
	f := newFixture(t, h)
	T := f.clock.Now()
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	_, err := f.svc.Close(context.Background(), tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"})
	must(t, "close", err)
	us := time.Microsecond
	fired := wantBoundaries(t, f, continuity.CheckUnclosedSessions, continuity.SeverityWarning, []boundary{
		{"both open or closed", T, false},
		{"a microsecond inside s2's lease", T.Add(leaseSpan - us), false},
		{"s2's lease lapsed, no SessionEnd", T.Add(leaseSpan), true},
		{"its start is still in the window", T.Add(stale), true},
		{"its start left the window", T.Add(stale + us), false},
	})
	for _, w := range fired {
		if !strings.Contains(w.Sentence, "2 sessions started and 1 closed, but only 0 are open: 1 session never ended") {
			t.Errorf("sentence %q", w.Sentence)
		}
	}
}

// testDoctorUnanswered: a receipt whose work should write a record and
// left neither the record's line nor a failure, past MaxEndBudget.
func testDoctorUnanswered(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	// A SessionEnd answered by its handover, and a repeated delivery of
	// it, which writes no second handover.
	for range 2 {
		_, err := f.svc.SessionEnd(ctx, tenantA, continuity.EndParams{EventParams: hookEvent(evEnd, "s2")})
		must(t, "end", err)
	}
	// A SessionEnd whose hook was killed after its receipt.
	T := f.clock.Now()
	killed, err := f.svc.AppendEvent(ctx, tenantA, continuity.EventReceived, "s1", map[string]string{
		"provider": agent, "provider_event": evEnd, "agent": agent, "expects": "record.handover"})
	must(t, "receipt", err)
	us := time.Microsecond
	fired := wantBoundaries(t, f, continuity.CheckUnansweredReceipt, continuity.SeverityWarning, []boundary{
		{"a microsecond inside the end budget", T.Add(continuity.MaxEndBudget - us), false},
		{"the end budget spent", T.Add(continuity.MaxEndBudget), true},
	})
	for _, w := range fired {
		if w.SessionID != "s1" || w.Agent != agent || !strings.Contains(w.Sentence, "1 hook event arrived and left neither the record its work writes nor a failure (the newest: claude-code SessionEnd, which writes a handover, 1m ago: received 2026-11-30 09:00:00 UTC, now 2026-11-30 09:01:00 UTC)") {
			t.Errorf("finding %+v", w)
		}
	}
	// Its failure, recorded late, answers it.
	if err := f.svc.RecordFailure(ctx, tenantA, continuity.FailureParams{EventParams: hookEvent(evEnd, "s1"), ReceiptID: killed.String(), Reason: "killed"}); err != nil {
		t.Fatal(err)
	}
	wantBoundaries(t, f, continuity.CheckUnansweredReceipt, continuity.SeverityWarning, []boundary{{"answered by its failure", f.clock.Now(), false}})
}

// testDoctorRepeatedEnd: a SessionEnd repeated for a closed conversation
// writes no second handover; the doctor finds the handover it found
// though that handover's line has left the window and the repeat's
// receipt has not. A receipt of a conversation with no handover at all
// is still unanswered.
func testDoctorRepeatedEnd(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	end := func(sid string) {
		t.Helper()
		_, err := f.svc.SessionEnd(ctx, tenantA, continuity.EndParams{EventParams: hookEvent(evEnd, sid), Reason: "exit"})
		must(t, "end "+sid, err)
	}
	end("s2")
	window := freshness.Default.Stale
	f.clock.Advance(window / 2)
	end("s2") // repeated: the same handover, no second line
	repeat := f.clock.Now()
	us := time.Microsecond
	wantBoundaries(t, f, continuity.CheckUnansweredReceipt, continuity.SeverityWarning, []boundary{
		{"the handover's line in the window", repeat.Add(continuity.MaxEndBudget), false},
		{"the handover's line just left the window", repeat.Add(window/2 + us), false},
		{"the repeat's receipt at the window's edge", repeat.Add(window - us), false},
	})
	// A killed SessionEnd of s1, which never wrote a handover.
	f.clock.Set(repeat.Add(window / 2))
	_, err := f.svc.AppendEvent(ctx, tenantA, continuity.EventReceived, "s1", map[string]string{
		"provider": agent, "provider_event": evEnd, "agent": agent, "expects": "record.handover"})
	must(t, "receipt", err)
	fired := wantBoundaries(t, f, continuity.CheckUnansweredReceipt, continuity.SeverityWarning, []boundary{
		{"s1's receipt past the end budget", f.clock.Now().Add(continuity.MaxEndBudget), true},
	})
	for _, w := range fired {
		if w.SessionID != "s1" || !strings.Contains(w.Sentence, "1 hook event arrived") {
			t.Errorf("finding %+v, want s1's receipt alone", w)
		}
	}
}

// testDoctorFailed: failures over the window.
func testDoctorFailed(t *testing.T, h Harness) {
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	T := f.clock.Now()
	if _, err := f.svc.Stop(context.Background(), tenantA, stopOf("ghost", "")); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Fatalf("a Stop of no session: %v", err)
	}
	fired := wantBoundaries(t, f, continuity.CheckFailedEvents, continuity.SeverityWarning, []boundary{
		{"now", T, true},
		{"at the window's edge", T.Add(stale), true},
		{"out of the window", T.Add(stale + time.Microsecond), false},
	})
	for _, w := range fired {
		if !strings.Contains(w.Sentence, "1 hook event failed in the last 2d (the newest: claude-code Stop: not_found:") {
			t.Errorf("sentence %q", w.Sentence)
		}
	}
}

// testDoctorStuckTriage: a row pending a triage attempt past its lease.
func testDoctorStuckTriage(t *testing.T, h Harness) {
	f := newFixture(t, h)
	run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
	mustOpen(t, f, tenantA, startup("s2"))
	mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "x", "baton", run.String()))
	if b, err := f.svc.TriageBegin(context.Background(), tenantA, tkey); err != nil || !b.Armed {
		t.Fatalf("begin: %+v %v, want armed", b, err)
	}
	seen := view(t, f, tenantA, "s1").LastSeenAt
	us := time.Microsecond
	wantBoundaries(t, f, continuity.CheckStuckTriage, continuity.SeverityWarning, []boundary{
		{"a microsecond inside the lease", seen.Add(leaseSpan - us), false},
		{"the lease lapsed", seen.Add(leaseSpan), true},
		{"a microsecond inside the window past it", seen.Add(leaseSpan + stale - us), true},
		{"the window past it ended", seen.Add(leaseSpan + stale), false},
	})
}

// testDoctorCloser: the closer's failures over the window, as it records
// them (closer.failed).
func testDoctorCloser(t *testing.T, h Harness) {
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	T := f.clock.Now()
	_, err := f.svc.AppendEvent(context.Background(), tenantA, "closer.failed", "s1", map[string]string{"reason": "internal: judge timed out"})
	must(t, "append", err)
	wantBoundaries(t, f, continuity.CheckCloserFailures, continuity.SeverityWarning, []boundary{
		{"now", T, true},
		{"at the window's edge", T.Add(stale), true},
		{"out of the window", T.Add(stale + time.Microsecond), false},
	})
}

// testDoctorUnclaimed: a bottle marker armed a lease ago and never claimed.
func testDoctorUnclaimed(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	mustOpen(t, f, tenantA, startup("s1"))
	mustOpen(t, f, tenantA, startup("s2"))
	T := f.clock.Now()
	for _, sid := range []string{"s1", "s2"} {
		if err := f.svc.ArmBottle(ctx, tenantA, agent, bottle.Marker{SessionID: sid, Path: "/b/" + sid + ".md", Mode: bottle.ModeFull}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, err := f.svc.ClaimBottle(ctx, tenantA, agent, "s2"); !ok || err != nil {
		t.Fatalf("claim: %v %v", ok, err)
	}
	us := time.Microsecond
	fired := wantBoundaries(t, f, continuity.CheckUnclaimedBottle, continuity.SeverityWarning, []boundary{
		{"a microsecond inside the lease", T.Add(leaseSpan - us), false},
		{"armed a lease ago", T.Add(leaseSpan), true},
		{"a microsecond inside the window past it", T.Add(leaseSpan + stale - us), true},
		{"the window past it ended", T.Add(leaseSpan + stale), false},
	})
	for _, w := range fired {
		if w.SessionID != "s1" || w.Agent != agent || !strings.Contains(w.Sentence, "`baton bottle show s1`") ||
			!strings.Contains(w.Sentence, "ago (armed "+stampOf(T)+", now ") {
			t.Errorf("finding %+v", w)
		}
	}
}

// testDoctorUnclaimedSkewed: a bottle sealed by a host whose clock is off
// (a Bottler over the API, on the host's clock) is aged by the store's
// clock, as the doctor's now is: a host 30 hours behind makes no finding
// of a marker armed just now, and a host 30 days ahead does not hide one
// left unclaimed a lease.
func testDoctorUnclaimedSkewed(t *testing.T, h Harness) {
	ctx := context.Background()
	for _, skew := range []time.Duration{-30 * time.Hour, 30 * 24 * time.Hour} {
		t.Run(fmt.Sprintf("sealer clock %+v", skew), func(t *testing.T) {
			f := newFixture(t, h)
			bs := f.svc.Bottles(tenantA, agent)
			mustOpen(t, f, tenantA, startup("s1"))
			mustOpen(t, f, tenantA, startup("s2"))
			must(t, "prompt", bs.RecordPrompt(ctx, "s1", "refactor the lease"))
			ex := "Refactored."
			_, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &ex})
			must(t, "stop", err)
			host := NewClock()
			host.Set(f.clock.Now().Add(skew))
			bt := &bottle.Bottler{Home: t.TempDir(), History: bs, Marker: bs, Clock: testClock{host}}
			if res, err := bt.Seal(ctx, "s1", "/nonexistent/transcript.jsonl", time.Second); err != nil || !res.Armed {
				t.Fatalf("seal = %+v, %v; want a marker armed", res, err)
			}
			T := f.clock.Now()
			wantBoundaries(t, f, continuity.CheckUnclaimedBottle, continuity.SeverityWarning, []boundary{
				{"just sealed", T, false},
				{"a microsecond inside the lease", T.Add(leaseSpan - time.Microsecond), false},
				{"armed a lease ago", T.Add(leaseSpan), true},
			})
		})
	}
}

// scenarioDoctor: through the API alone, the doctor names a project whose
// sessions keep opening past its stale handover, only to its own tenant,
// and stops once a handover is written.
func scenarioDoctor(t *testing.T, h ScenarioHarness) {
	s := newScene(t, h)
	end := func(sid string) {
		t.Helper()
		succeed(s, "SessionEnd", s.a.SessionEnd, continuity.EndParams{EventParams: hookEvent(evEnd, sid)})
	}
	doctor := func(api continuity.API) continuity.DoctorReport {
		t.Helper()
		r, err := api.Doctor(s.ctx)
		if err != nil {
			t.Fatalf("doctor: %v", err)
		}
		return r
	}
	s.startup("s0", "baton")
	end("s0")
	s.clock.Advance(stale)
	for _, sid := range []string{"s1", "s2"} {
		s.startup(sid, "baton")
		succeed(s, "Close", s.a.Close, continuity.CloseParams{Agent: agent, SessionID: sid})
		s.clock.Advance(time.Hour)
	}
	r := doctor(s.a)
	if r.Healthy() || r.Sessions != 3 || len(r.Findings) != 1 || r.Findings[0].Check != continuity.CheckWriterStopped ||
		r.Findings[0].Severity != continuity.SeverityFailure || r.Findings[0].Project != "baton" || !r.GeneratedAt.Equal(s.clock.Now()) {
		t.Fatalf("tenant A's report: %+v, want the stopped writer of baton", r)
	}
	if b := doctor(s.b); b.Sessions != 0 || len(b.Findings) != 1 || b.Findings[0].Check != continuity.CheckTooFewSessions {
		t.Fatalf("tenant B's report: %+v, want nothing of A's", b)
	}
	s.startup("s3", "baton")
	end("s3")
	if r := doctor(s.a); !r.Healthy() || len(r.Findings) != 0 {
		t.Fatalf("after a handover: %+v, want no finding", r)
	}
}
