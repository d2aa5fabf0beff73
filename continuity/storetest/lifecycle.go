package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

const (
	tenantA = "tenant-a"
	tenantB = "tenant-b"
	agent   = "claude-code"
)

func startup(sid string) continuity.OpenParams {
	return continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup, Project: "baton", Scope: "core", Selector: continuity.Selector{"kind": "all"}}
}

func mustOpen(t *testing.T, f *fixture, tenant string, p continuity.OpenParams) continuity.OpenResult {
	t.Helper()
	r, err := f.svc.Open(context.Background(), tenant, p)
	if err != nil {
		t.Fatalf("open %+v: %v", p, err)
	}
	return r
}

func view(t *testing.T, f *fixture, tenant, sid string) continuity.SessionView {
	t.Helper()
	v, err := f.svc.Session(context.Background(), tenant, agent, sid)
	if err != nil {
		t.Fatalf("session %s: %v", sid, err)
	}
	return v
}

func wantCode(t *testing.T, err error, code continuity.Code) {
	t.Helper()
	if got := continuity.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

// rowState prepares a row in one of the lease states the matrix starts from.
type rowState string

const (
	rowNone     rowState = "none"
	rowLive     rowState = "live"
	rowClosed   rowState = "explicitly closed"
	rowLapsed   rowState = "lapsed"
	rowSwept    rowState = "swept"
	afterLease           = 24*time.Hour + time.Minute
	afterGraced          = 25*time.Hour + time.Minute
)

// prepare leaves the session sid in state st and returns its run id.
func prepare(t *testing.T, f *fixture, sid string, st rowState) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	if st == rowNone {
		return uuid.Nil
	}
	r := mustOpen(t, f, tenantA, startup(sid))
	switch st {
	case rowClosed:
		if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: sid}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
	case rowLapsed:
		f.clock.Advance(afterLease)
	case rowSwept:
		// A sweep stamps closed_at after lease + grace; a late SessionEnd
		// after the lease lapsed is the same row shape.
		f.clock.Advance(afterGraced)
		if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: sid}); err != nil {
			t.Fatal(err)
		}
	}
	return r.SessionRunID
}

func testLifecycle(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("Open", func(t *testing.T) {
		cases := []struct {
			name         string
			from         rowState
			source       continuity.Source
			project      string
			briefed      []continuity.BriefedMemory
			wantEpoch    int
			wantCreated  bool
			wantReopened bool
			wantProject  string
			wantBriefed  bool
			wantEvent    string
		}{
			{"startup/none inserts", rowNone, continuity.SourceStartup, "baton", nil, 1, true, false, "baton", false, continuity.EventSessionStarted},
			{"startup/live same params is a no-op", rowLive, continuity.SourceStartup, "baton", nil, 1, false, false, "baton", false, ""},
			{"startup/closed same values reopens and restamps", rowClosed, continuity.SourceStartup, "baton", []continuity.BriefedMemory{}, 2, false, true, "baton", true, continuity.EventSessionReopened},
			{"startup/lapsed same values reopens and restamps", rowLapsed, continuity.SourceStartup, "baton", []continuity.BriefedMemory{}, 2, false, true, "baton", true, continuity.EventSessionReopened},
			{"startup/swept same values reopens", rowSwept, continuity.SourceStartup, "baton", nil, 2, false, true, "baton", false, continuity.EventSessionReopened},
			{"resume/none inserts", rowNone, continuity.SourceResume, "moved", nil, 1, true, false, "moved", false, continuity.EventSessionResumed},
			{"resume/live bumps the epoch", rowLive, continuity.SourceResume, "moved", []continuity.BriefedMemory{}, 2, false, false, "baton", false, continuity.EventSessionResumed},
			{"resume/closed reopens", rowClosed, continuity.SourceResume, "", nil, 2, false, true, "baton", false, continuity.EventSessionResumed},
			{"resume/lapsed reopens", rowLapsed, continuity.SourceResume, "", nil, 2, false, true, "baton", false, continuity.EventSessionResumed},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				prepare(t, f, "s1", tc.from)
				before, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 1000)
				f.clock.Advance(time.Second)
				p := startup("s1")
				p.Source, p.Project, p.BriefedMemories = tc.source, tc.project, tc.briefed
				if tc.source == continuity.SourceResume {
					p.Scope, p.Selector = "moved-scope", continuity.Selector{"kind": "project"}
				}
				r := mustOpen(t, f, tenantA, p)
				if r.ActivationEpoch != tc.wantEpoch || r.Created != tc.wantCreated || r.Reopened != tc.wantReopened {
					t.Fatalf("open = epoch %d created %v reopened %v, want %d %v %v", r.ActivationEpoch, r.Created, r.Reopened, tc.wantEpoch, tc.wantCreated, tc.wantReopened)
				}
				v := view(t, f, tenantA, "s1")
				if v.State != lease.Live || v.ClosedAt != nil {
					t.Fatalf("state after open = %v closed %v, want live", v.State, v.ClosedAt)
				}
				if !v.LastSeenAt.Equal(f.clock.Now()) {
					t.Fatalf("last_seen_at = %v, want floored to now %v", v.LastSeenAt, f.clock.Now())
				}
				if v.Project != tc.wantProject {
					t.Fatalf("project = %q, want %q", v.Project, tc.wantProject)
				}
				if got := v.BriefingDeliveredAt != nil; got != tc.wantBriefed {
					t.Fatalf("briefing delivered = %v, want %v", got, tc.wantBriefed)
				}
				if r.SessionRunID != v.ID {
					t.Fatalf("run id %v does not match the row %v", r.SessionRunID, v.ID)
				}
				after, _ := f.svc.Ledger(ctx, tenantA, uuid.Nil, 1000)
				added := after[len(before):]
				if tc.wantEvent == "" {
					if len(added) != 0 {
						t.Fatalf("a no-op open appended %v", events(added))
					}
					return
				}
				if len(added) != 1 || added[0].Event != tc.wantEvent {
					t.Fatalf("ledger appended %v, want [%s]", events(added), tc.wantEvent)
				}
			})
		}
	})

	t.Run("StartupConflict", func(t *testing.T) {
		// The natural key is the request token whatever the row's state: a
		// startup carrying other values is a recycled id colliding, never a
		// takeover of a closed or lapsed conversation.
		for _, from := range []rowState{rowLive, rowClosed, rowLapsed, rowSwept} {
			t.Run(string(from), func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				base := prepare(t, f, "s1", from)
				before := view(t, f, tenantA, "s1")
				cases := []struct {
					name   string
					mutate func(*continuity.OpenParams)
					code   continuity.Code
				}{
					{"different project", func(p *continuity.OpenParams) { p.Project = "other" }, continuity.CodeConflict},
					{"project dropped", func(p *continuity.OpenParams) { p.Project = "" }, continuity.CodeConflict},
					{"different scope", func(p *continuity.OpenParams) { p.Scope = "ui" }, continuity.CodeConflict},
					{"different selector", func(p *continuity.OpenParams) { p.Selector = continuity.Selector{"kind": "scope"} }, continuity.CodeConflict},
					{"extra selector axis", func(p *continuity.OpenParams) { p.Selector = continuity.Selector{"kind": "all", "scope": "core"} }, continuity.CodeConflict},
				}
				for _, tc := range cases {
					p := startup("s1")
					tc.mutate(&p)
					_, err := f.svc.Open(ctx, tenantA, p)
					if continuity.ErrorCode(err) != tc.code {
						t.Fatalf("%s: code %q (%v), want %q", tc.name, continuity.ErrorCode(err), err, tc.code)
					}
				}
				v := view(t, f, tenantA, "s1")
				if v.ActivationEpoch != before.ActivationEpoch || v.Project != "baton" || v.Scope != "core" || v.ID != base ||
					(v.ClosedAt == nil) != (before.ClosedAt == nil) || !v.LastSeenAt.Equal(before.LastSeenAt) {
					t.Fatalf("row changed by conflicts: %+v, was %+v", v.Session, before.Session)
				}
			})
		}
		t.Run("retries", func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			base := mustOpen(t, f, tenantA, startup("s1"))
			for name, mutate := range map[string]func(*continuity.OpenParams){
				"same values":                         func(p *continuity.OpenParams) {},
				"surrounding whitespace is canonical": func(p *continuity.OpenParams) { p.Project = "  baton " },
				"selector in another key order":       func(p *continuity.OpenParams) { p.Selector = continuity.Selector{"kind": "all"} },
			} {
				p := startup("s1")
				mutate(&p)
				if _, err := f.svc.Open(ctx, tenantA, p); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if v := view(t, f, tenantA, "s1"); v.ActivationEpoch != 1 || v.ID != base.SessionRunID {
				t.Fatalf("row changed by retries: %+v", v.Session)
			}
		})
	})

	t.Run("ReopenStartsANewActivation", func(t *testing.T) {
		// A startup on a closed or lapsed row with the same values is a new
		// activation: the debounce counts its Stops and its time only, and
		// the handshake of the activation before it does not carry over.
		for _, from := range []rowState{rowClosed, rowLapsed} {
			t.Run(string(from), func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				mustOpen(t, f, tenantA, startup("s1"))
				for range 5 {
					f.clock.Advance(time.Minute)
					if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true}); err != nil {
						t.Fatal(err)
					}
				}
				armed, err := f.svc.TriageBegin(ctx, tenantA, continuity.TriageParams{Agent: agent, SessionID: "s1"})
				if err != nil || !armed.Armed {
					t.Fatalf("the first activation's fifth Stop should arm: %+v, %v", armed, err)
				}
				if from == rowClosed {
					if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
						t.Fatal(err)
					}
					f.clock.Advance(time.Hour)
				} else {
					f.clock.Advance(afterLease)
				}
				r := mustOpen(t, f, tenantA, startup("s1"))
				if !r.Reopened || r.ActivationEpoch != 2 {
					t.Fatalf("reopen = %+v, want reopened at epoch 2", r)
				}
				v := view(t, f, tenantA, "s1")
				if v.TriageStatus != "idle" || v.TriageAttemptID != uuid.Nil || v.ActivationStops != 0 || !v.ActivatedAt.Equal(f.clock.Now()) || v.StopCount != 5 {
					t.Fatalf("reopened row: triage %s attempt %v activation stops %d activated %v stops %d; want idle, none, 0, now, 5 in all",
						v.TriageStatus, v.TriageAttemptID, v.ActivationStops, v.ActivatedAt, v.StopCount)
				}
				f.clock.Advance(time.Second)
				if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true}); err != nil {
					t.Fatal(err)
				}
				first, err := f.svc.TriageBegin(ctx, tenantA, continuity.TriageParams{Agent: agent, SessionID: "s1"})
				if err != nil {
					t.Fatal(err)
				}
				if first.Armed || first.Reason != "debounce" {
					t.Fatalf("first Stop of the reopened conversation = %+v, want declined for debounce", first)
				}
			})
		}
	})

	t.Run("BriefedTopicsPrivacyFiltered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		cases := []struct{ topic, want string }{
			{"ship v1 <private>pw=SENTINEL</private>", "ship v1"},
			{"<private>SENTINEL</private>", ""},
			{"  ship v2  ", "ship v2"},
		}
		p := startup("s1")
		for _, tc := range cases {
			p.BriefedMemories = append(p.BriefedMemories, continuity.BriefedMemory{ID: uuid.New(), Topic: tc.topic, Status: "open"})
		}
		mustOpen(t, f, tenantA, p)
		v := view(t, f, tenantA, "s1")
		for i, tc := range cases {
			if i >= len(v.BriefedMemories) || v.BriefedMemories[i].Topic != tc.want || p.BriefedMemories[i].Topic != tc.topic {
				t.Fatalf("briefed memories = %+v (the caller's %+v), want topic %d %q and the caller's left as given", v.BriefedMemories, p.BriefedMemories, i, tc.want)
			}
		}
	})

	t.Run("ResumeNeverRestampsBriefing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		p := startup("s1")
		mem := continuity.BriefedMemory{ID: uuid.New(), Topic: "ship v1", Status: "open"}
		p.BriefedMemories = []continuity.BriefedMemory{mem}
		mustOpen(t, f, tenantA, p)
		delivered := f.clock.Now()
		f.clock.Advance(time.Hour)
		mustOpen(t, f, tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceResume,
			BriefedMemories: []continuity.BriefedMemory{{ID: uuid.New(), Topic: "other", Status: "open"}}})
		v := view(t, f, tenantA, "s1")
		if v.BriefingDeliveredAt == nil || !v.BriefingDeliveredAt.Equal(delivered) {
			t.Fatalf("briefing_delivered_at = %v, want %v", v.BriefingDeliveredAt, delivered)
		}
		if len(v.BriefedMemories) != 1 || v.BriefedMemories[0] != mem {
			t.Fatalf("briefed memories = %+v, want [%+v]", v.BriefedMemories, mem)
		}
		if v.Selector.Canonical() != `{"kind":"all"}` {
			t.Fatalf("selector = %s", v.Selector.Canonical())
		}
	})

	t.Run("BriefingOmittedIsNotDelivered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("omitted"))
		p := startup("empty")
		p.BriefedMemories = []continuity.BriefedMemory{}
		mustOpen(t, f, tenantA, p)
		if v := view(t, f, tenantA, "omitted"); v.BriefingDeliveredAt != nil || v.BriefedMemories != nil {
			t.Fatalf("omitted briefing stamped delivery: %v %v", v.BriefingDeliveredAt, v.BriefedMemories)
		}
		if v := view(t, f, tenantA, "empty"); v.BriefingDeliveredAt == nil || len(v.BriefedMemories) != 0 {
			t.Fatalf("an empty delivered briefing: %v %v", v.BriefingDeliveredAt, v.BriefedMemories)
		}
	})

	t.Run("Heartbeat", func(t *testing.T) {
		cases := []struct {
			name            string
			from            rowState
			stop            bool
			wantCode        continuity.Code
			wantEpoch       int
			wantResurrected bool
		}{
			{"none is not_found", rowNone, false, continuity.CodeNotFound, 0, false},
			{"live floors", rowLive, false, "", 1, false},
			{"live stop counts", rowLive, true, "", 1, false},
			{"explicitly closed resurrects", rowClosed, true, "", 2, true},
			{"lapsed resurrects", rowLapsed, false, "", 2, true},
			{"swept resurrects", rowSwept, false, "", 2, true},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run := prepare(t, f, "s1", tc.from)
				f.clock.Advance(time.Second)
				excerpt := "done: shipped the lease <private>token</private>"
				r, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: tc.stop, LastMessageExcerpt: &excerpt})
				wantCode(t, err, tc.wantCode)
				if tc.wantCode != "" {
					if _, err := f.svc.Session(ctx, tenantA, agent, "s1"); continuity.ErrorCode(err) != continuity.CodeNotFound {
						t.Fatalf("heartbeat on no row created one: %v", err)
					}
					return
				}
				if r.SessionRunID != run || r.ActivationEpoch != tc.wantEpoch || r.Resurrected != tc.wantResurrected {
					t.Fatalf("heartbeat = %+v, want run %v epoch %d resurrected %v", r, run, tc.wantEpoch, tc.wantResurrected)
				}
				v := view(t, f, tenantA, "s1")
				if v.State != lease.Live || v.ClosedAt != nil || !v.LastSeenAt.Equal(f.clock.Now()) {
					t.Fatalf("after heartbeat: state %v closed %v last_seen %v", v.State, v.ClosedAt, v.LastSeenAt)
				}
				if strings.Contains(v.LastMessageExcerpt, "token") || !strings.HasPrefix(v.LastMessageExcerpt, "done: shipped the lease") {
					t.Fatalf("excerpt = %q, want privacy-filtered text", v.LastMessageExcerpt)
				}
				wantStops := 0
				if tc.stop {
					wantStops = 1
				}
				if v.StopCount != wantStops {
					t.Fatalf("stop_count = %d, want %d", v.StopCount, wantStops)
				}
			})
		}
	})

	t.Run("HeartbeatFloorNeverGoesBack", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		latest := f.clock.Now().Add(time.Hour)
		f.clock.Set(latest)
		if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(-30 * time.Minute) // a slow writer carrying an older clock
		r, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.LastSeenAt.Equal(latest) {
			t.Fatalf("last_seen_at = %v, want the later %v kept", r.LastSeenAt, latest)
		}
	})

	t.Run("ExcerptBound", func(t *testing.T) {
		// The excerpt is bounded by cutting it, never by refusing the
		// heartbeat it rides on: the lease is refreshed and the Stop
		// counted whatever the message's length.
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		cases := []struct {
			n         int
			truncated bool
		}{{1, false}, {continuity.MaxExcerptLen - 1, false}, {continuity.MaxExcerptLen, false}, {continuity.MaxExcerptLen + 1, true}, {50 * continuity.MaxExcerptLen, true}}
		for i, tc := range cases {
			f.clock.Advance(time.Minute)
			s := strings.Repeat("é", tc.n-1) + "z" // characters, not bytes
			r, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", LastMessageExcerpt: &s, Stop: true})
			if err != nil {
				t.Fatalf("%d characters: %v", tc.n, err)
			}
			if r.ExcerptTruncated != tc.truncated || !r.LastSeenAt.Equal(f.clock.Now()) {
				t.Fatalf("%d characters: result %+v, want truncated %v and the lease refreshed", tc.n, r, tc.truncated)
			}
			v := view(t, f, tenantA, "s1")
			want := min(tc.n, continuity.MaxExcerptLen)
			if v.StopCount != i+1 || len([]rune(v.LastMessageExcerpt)) != want || strings.HasSuffix(v.LastMessageExcerpt, "z") == tc.truncated {
				t.Fatalf("%d characters: stop_count %d excerpt %d characters; want %d and %d, cut at the end", tc.n, v.StopCount, len([]rune(v.LastMessageExcerpt)), i+1, want)
			}
		}
		rec, err := f.svc.Bottles(tenantA, agent).SessionHistory(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.StopExcerpts) != len(cases) {
			t.Fatalf("%d Stop excerpts kept, want %d", len(rec.StopExcerpts), len(cases))
		}
	})

	t.Run("Close", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		_, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "nope"})
		wantCode(t, err, continuity.CodeNotFound)
		r := mustOpen(t, f, tenantA, startup("s1"))
		seen := f.clock.Now()
		f.clock.Advance(time.Minute)
		first, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if first.AlreadyClosed || !first.ClosedAt.Equal(f.clock.Now()) || first.SessionRunID != r.SessionRunID || first.ActivationEpoch != 1 {
			t.Fatalf("close = %+v", first)
		}
		v := view(t, f, tenantA, "s1")
		if !v.LastSeenAt.Equal(seen) || v.State != lease.ExplicitlyClosed {
			t.Fatalf("close touched last_seen_at (%v, want %v) or state %v", v.LastSeenAt, seen, v.State)
		}
		f.clock.Advance(time.Minute)
		second, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if !second.AlreadyClosed || !second.ClosedAt.Equal(first.ClosedAt) {
			t.Fatalf("second close = %+v, want alreadyClosed at %v", second, first.ClosedAt)
		}
		// Explicit close is forever: long after, the row still reads explicit.
		f.clock.Advance(1000 * time.Hour)
		if v := view(t, f, tenantA, "s1"); v.State != lease.ExplicitlyClosed {
			t.Fatalf("state long after an explicit close = %v", v.State)
		}
	})

	t.Run("Compact", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		p := startup("s1")
		p.BriefedMemories = []continuity.BriefedMemory{}
		r := mustOpen(t, f, tenantA, p)
		f.clock.Advance(time.Minute)
		c, err := f.svc.Compact(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if c.SessionRunID != r.SessionRunID || c.ActivationEpoch != 1 || c.Resurrected {
			t.Fatalf("compact = %+v, want run %v at epoch 1", c, r.SessionRunID)
		}
		v := view(t, f, tenantA, "s1")
		if v.BriefingDeliveredAt == nil || !v.BriefingDeliveredAt.Equal(r.OpenedAt) {
			t.Fatalf("compact restamped the briefing: %v", v.BriefingDeliveredAt)
		}
		if v.Compactions != 1 || v.StopCount != 0 {
			t.Fatalf("compactions %d stops %d, want 1 and 0", v.Compactions, v.StopCount)
		}
	})

	t.Run("Clear", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		c, err := f.svc.Clear(ctx, tenantA, startup("fresh"))
		if err != nil || !c.Started || c.ActivationEpoch != 1 {
			t.Fatalf("clear on no row = %+v, %v; want a startup", c, err)
		}
		f.clock.Advance(time.Minute)
		again, err := f.svc.Clear(ctx, tenantA, startup("fresh"))
		if err != nil || again.Started || again.ActivationEpoch != 1 || again.SessionRunID != c.SessionRunID {
			t.Fatalf("clear on a live row = %+v, %v; want done without an epoch bump", again, err)
		}
		f.clock.Advance(afterLease)
		late, err := f.svc.Clear(ctx, tenantA, startup("fresh"))
		if err != nil || late.Started || late.ActivationEpoch != 2 {
			t.Fatalf("clear on a lapsed row = %+v, %v; want the probe to resurrect once", late, err)
		}
	})
}

func events(es []continuity.LedgerEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Event
	}
	return out
}

func testLease(t *testing.T, h Harness) {
	ctx := context.Background()
	lp := lease.Default
	cases := []struct {
		name            string
		after           time.Duration
		wantResurrected bool
	}{
		{"one microsecond inside the lease", lp.Lease - time.Microsecond, false},
		{"exactly at the lease", lp.Lease, true},
		{"past the lease", lp.Lease + time.Microsecond, true},
		{"past lease and grace, no sweep", lp.Lease + lp.SweepGrace + time.Hour, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			mustOpen(t, f, tenantA, startup("s1"))
			f.clock.Advance(tc.after)
			want := lease.Live
			if tc.wantResurrected {
				want = lease.ImplicitlyClosed
			}
			if v := view(t, f, tenantA, "s1"); v.State != want {
				t.Fatalf("state read at +%v = %v, want %v (implicit close is evaluated on read)", tc.after, v.State, want)
			}
			r, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Resurrected != tc.wantResurrected {
				t.Fatalf("resurrected = %v at +%v, want %v", r.Resurrected, tc.after, tc.wantResurrected)
			}
		})
	}

	// One boundary (lease.Policy.Expiry): a close stamped inside the lease
	// protects the row for good; a close stamped at the instant the lease
	// expires closed a lapsed row, so the row still resurrects, exactly as
	// an open row read at that instant does.
	for _, tc := range []struct {
		name     string
		at       time.Duration
		want     lease.State
		resurrct bool
	}{
		{"CloseOneMicrosecondBeforeLeaseEndIsExplicit", lp.Lease - time.Microsecond, lease.ExplicitlyClosed, false},
		{"CloseExactlyAtLeaseEndIsImplicit", lp.Lease, lease.ImplicitlyClosed, true},
		{"CloseOneMicrosecondAfterLeaseEndIsImplicit", lp.Lease + time.Microsecond, lease.ImplicitlyClosed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, h)
			run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
			f.clock.Advance(tc.at)
			if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
				t.Fatal(err)
			}
			if v := view(t, f, tenantA, "s1"); v.State != tc.want {
				t.Fatalf("close at +%v reads %v, want %v", tc.at, v.State, tc.want)
			}
			f.clock.Advance(time.Second)
			w, err := f.svc.Remember(ctx, tenantA, continuity.RememberParams{Kind: continuity.KindNote, Topic: "t", Content: "c",
				Project: "baton", SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
			if err != nil {
				t.Fatal(err)
			}
			if got := w.SessionRunID == run; got != tc.resurrct {
				t.Fatalf("a write by run id after a close at +%v attached = %v, want %v", tc.at, got, tc.resurrct)
			}
			if v := view(t, f, tenantA, "s1"); (v.State == lease.Live) != tc.resurrct {
				t.Fatalf("after the write the row reads %v", v.State)
			}
		})
	}
}

func testValidation(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	long := strings.Repeat("x", continuity.MaxSessionIDLen+1)
	cases := []struct {
		name   string
		tenant string
		p      continuity.OpenParams
		field  string
	}{
		{"empty tenant", "", startup("s1"), "tenant"},
		{"tenant too long", strings.Repeat("t", continuity.MaxTenantLen+1), startup("s1"), "tenant"},
		{"agent uppercase", tenantA, continuity.OpenParams{Agent: "Claude", SessionID: "s1", Source: "startup"}, "agent"},
		{"agent leading dash", tenantA, continuity.OpenParams{Agent: "-x", SessionID: "s1", Source: "startup"}, "agent"},
		{"agent too long", tenantA, continuity.OpenParams{Agent: strings.Repeat("a", 65), SessionID: "s1", Source: "startup"}, "agent"},
		{"agent empty", tenantA, continuity.OpenParams{SessionID: "s1", Source: "startup"}, "agent"},
		{"session id blank", tenantA, continuity.OpenParams{Agent: agent, SessionID: "   ", Source: "startup"}, "sessionId"},
		{"session id too long", tenantA, continuity.OpenParams{Agent: agent, SessionID: long, Source: "startup"}, "sessionId"},
		{"source compact is not an open", tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: "compact"}, "source"},
		{"source unknown", tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: "fork"}, "source"},
		{"briefed row without id", tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: "startup", BriefedMemories: []continuity.BriefedMemory{{Topic: "x", Status: "open"}}}, "briefedMemories[0].id"},
	}
	for _, tc := range cases {
		_, err := f.svc.Open(ctx, tc.tenant, tc.p)
		wantCode(t, err, continuity.CodeInvalid)
		if _, ok := continuity.ErrorFields(err)[tc.field]; !ok {
			t.Fatalf("%s: error %v does not name %q", tc.name, err, tc.field)
		}
	}
	// Boundaries that are valid.
	for _, p := range []continuity.OpenParams{
		{Agent: strings.Repeat("a", 64), SessionID: "s1", Source: "startup"},
		{Agent: "0", SessionID: strings.Repeat("x", continuity.MaxSessionIDLen), Source: "startup"},
		{Agent: agent, SessionID: "  padded  ", Source: "startup"},
	} {
		if _, err := f.svc.Open(ctx, tenantA, p); err != nil {
			t.Fatalf("valid open %q/%q refused: %v", p.Agent, p.SessionID, err)
		}
	}
	if _, err := f.svc.Session(ctx, tenantA, agent, "padded"); err != nil {
		t.Fatalf("session id not trimmed: %v", err)
	}
	// Nothing invalid was written.
	es, err := f.svc.Ledger(ctx, tenantA, uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("ledger has %d lines, want the 3 valid opens only: %v", len(es), events(es))
	}
}
