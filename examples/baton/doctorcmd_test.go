package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/storetest"
)

// TestDoctorReportsTheOutage reproduces the episode-lifecycle ADR's outage
// through the baton command: hook events as a harness sends them, then, for
// six days, sessions that open and close while no checkpoint or handover is
// written (the ADR's end adapter closed the episode and skipped its
// record). `baton doctor` names the stopped writer and exits 1 from the
// second session opened while the newest handover was stale, until an
// episode writes a handover again; then it prints "healthy" and exits 0.
func TestDoctorReportsTheOutage(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t)
	env.Dir = filepath.Join(t.TempDir(), "baton")
	if err := os.MkdirAll(env.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, env.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := storetest.NewClock()
	api := continuity.New(st, continuity.WithClock(clock.Now)).For(env.Tenant)
	bound := kong.BindTo(api, (*continuity.API)(nil))

	hook := func(sid, event, extra string) {
		t.Helper()
		env.Stdin = strings.NewReader(`{"session_id":"` + sid + `","cwd":` + quote(env.Dir) + `,"hook_event_name":"` + event + `"` + extra + `}`)
		if _, stderr, status := run(t, env, []string{"hook", "--harness", "claude-code"}, bound); status != exitOK || stderr != "" {
			t.Fatalf("hook %s %s: status %d, stderr %q", sid, event, status, stderr)
		}
	}
	episode := func(sid string) {
		hook(sid, "SessionStart", `,"source":"startup"`)
		clock.Advance(time.Minute)
		hook(sid, "Stop", `,"last_assistant_message":"Moved the rows.\n\nNext: verify the counts."`)
		hook(sid, "PreCompact", `,"trigger":"auto"`)
		hook(sid, "SessionStart", `,"source":"compact"`)
		clock.Advance(time.Minute)
		hook(sid, "SessionEnd", `,"reason":"exit"`)
	}
	doctor := func(args ...string) (string, string, int) {
		t.Helper()
		return run(t, env, append([]string{"doctor"}, args...), bound)
	}
	healthy := func(when string) {
		t.Helper()
		if out, stderr, status := doctor(); status != exitOK || out != "healthy\n" || stderr != "" {
			t.Fatalf("%s: status %d, stdout %q, stderr %q; want healthy", when, status, out, stderr)
		}
	}

	episode("day0-a")
	episode("day0-b")
	healthy("day 0")
	handover := clock.Now()

	day0 := clock.Now()
	var opened []time.Time
	reported := 0
	for day := 1; day <= 6; day++ {
		clock.Set(day0.Add(time.Duration(day) * 24 * time.Hour))
		sid := "day" + string(rune('0'+day))
		opened = append(opened, clock.Now())
		hook(sid, "SessionStart", `,"source":"startup"`)
		clock.Advance(time.Hour)
		if _, err := api.Close(ctx, continuity.CloseParams{Agent: defaultAgent, SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		whileStale := 0
		for _, at := range opened {
			if !at.Before(freshness.Default.StaleAt(handover)) {
				whileStale++
			}
		}
		if whileStale < continuity.DoctorMinSessions {
			healthy("day " + sid)
			continue
		}
		reported++
		out, stderr, status := doctor()
		if status != exitFailure || stderr != "baton: doctor: 1 finding is a failure\n" ||
			!strings.HasPrefix(out, `failure writer_stopped: Project "baton": `) || strings.Count(out, "\n") != 1 ||
			!strings.Contains(out, "handovers (SessionEnd) has stopped") {
			t.Fatalf("%s: status %d, stdout %q, stderr %q; want the stopped writer and exit 1", sid, status, out, stderr)
		}
		out, _, status = doctor("--json")
		var r continuity.DoctorReport
		if status != exitFailure || json.Unmarshal([]byte(out), &r) != nil || r.Healthy() || len(r.Findings) != 1 ||
			r.Findings[0].Check != continuity.CheckWriterStopped || r.Findings[0].Project != "baton" {
			t.Fatalf("%s --json: status %d, %q", sid, status, out)
		}
	}
	if reported == 0 {
		t.Fatal("six days of outage were never reported")
	}

	clock.Advance(time.Hour)
	episode("resumed")
	healthy("after the writer resumed")
}

// TestDoctorCannotJudgeYet: with fewer than two sessions the doctor says
// so, as information, and exits 0.
func TestDoctorCannotJudgeYet(t *testing.T) {
	env := testEnv(t)
	out, stderr, status := run(t, env, []string{"doctor"})
	if status != exitOK || stderr != "" || !strings.HasPrefix(out, "info too_few_sessions: 0 sessions recorded: ") {
		t.Fatalf("status %d, stdout %q, stderr %q", status, out, stderr)
	}
}

// TestDoctorPrintsFindingsOnOneLineEach: a finding quotes what the
// ledger holds (a receipt's provider event, a failure's reason), which any
// holder of the tenant's key may have written through a team server; on a
// terminal its escape sequences, carriage returns and new lines reach no
// one: each finding is one line of text.
func TestDoctorPrintsFindingsOnOneLineEach(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t)
	st, err := sqlstore.Open(ctx, env.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	api := continuity.New(st).For(env.Tenant)
	for _, sid := range []string{"a", "b"} {
		if _, err := api.Open(ctx, continuity.OpenParams{Agent: defaultAgent, SessionID: sid, Source: continuity.SourceStartup}); err != nil {
			t.Fatal(err)
		}
	}
	rp := continuity.ReceiptParams{Provider: "claude-code", ProviderEvent: "\u202eStop\x1b]0;pwned\x07\u200b", Agent: defaultAgent, SessionID: "a"}
	id, err := api.AppendReceipt(ctx, rp)
	if err != nil {
		t.Fatal(err)
	}
	if err := api.RecordFailure(ctx, continuity.FailureParams{ReceiptID: id.String(), Reason: "boom\x1b[2J\r\nfailure writer_stopped: forged",
		EventParams: continuity.EventParams{Provider: rp.Provider, ProviderEvent: rp.ProviderEvent, Agent: rp.Agent, SessionID: rp.SessionID}}); err != nil {
		t.Fatal(err)
	}
	out, stderr, status := run(t, env, []string{"doctor"}, kong.BindTo(api, (*continuity.API)(nil)))
	if status != exitOK || stderr != "" || !strings.HasPrefix(out, "warning failed_events: ") {
		t.Fatalf("status %d, stdout %q, stderr %q; want the failed event", status, out, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07\r") || strings.Count(out, "\n") != 1 {
		t.Errorf("the findings are not one line of text each: %q", out)
	}
	// A format character shows as its code point: the line reads as it is.
	assertPrintable(t, "the doctor", out)
	if !strings.Contains(out, "<U+202E>Stop ]0;pwned <U+200B>") {
		t.Errorf("the finding does not show the provider event's format characters: %q", out)
	}
}
