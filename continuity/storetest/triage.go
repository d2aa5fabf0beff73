package storetest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

var tkey = continuity.TriageParams{Agent: agent, SessionID: "s1"}

func begin(t *testing.T, f *fixture) continuity.TriageBeginResult {
	t.Helper()
	r, err := f.svc.TriageBegin(context.Background(), tenantA, tkey)
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	return r
}

func complete(t *testing.T, f *fixture, attempt uuid.UUID) continuity.TriageCompleteResult {
	t.Helper()
	r, err := f.svc.TriageComplete(context.Background(), tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: attempt.String()})
	if err != nil {
		t.Fatalf("complete: %v", err)
	}
	return r
}

func stops(t *testing.T, f *fixture, n int) {
	t.Helper()
	for range n {
		if _, err := f.svc.Heartbeat(context.Background(), tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true}); err != nil {
			t.Fatal(err)
		}
	}
}

func testTriage(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("Debounce", func(t *testing.T) {
		cases := []struct {
			name   string
			setup  func(t *testing.T, f *fixture, run uuid.UUID)
			armed  bool
			reason triage.Reason
		}{
			{"first stop of a fresh session", func(t *testing.T, f *fixture, _ uuid.UUID) { stops(t, f, 1) }, false, triage.ReasonDebounce},
			{"two stops", func(t *testing.T, f *fixture, _ uuid.UUID) { stops(t, f, 2) }, false, triage.ReasonDebounce},
			{"three stops", func(t *testing.T, f *fixture, _ uuid.UUID) { stops(t, f, 3) }, true, ""},
			{"just under ten minutes", func(t *testing.T, f *fixture, _ uuid.UUID) {
				f.clock.Advance(10*time.Minute - time.Microsecond)
				stops(t, f, 1)
			}, false, triage.ReasonDebounce},
			{"ten minutes since open", func(t *testing.T, f *fixture, _ uuid.UUID) { f.clock.Advance(10 * time.Minute); stops(t, f, 1) }, true, ""},
			{"an untriaged provenance event", func(t *testing.T, f *fixture, run uuid.UUID) {
				mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "x", "baton", run.String()))
			}, true, ""},
			{"closed session", func(t *testing.T, f *fixture, _ uuid.UUID) {
				stops(t, f, 3)
				if _, err := f.svc.Close(ctx, tenantA, continuity.CloseParams{Agent: agent, SessionID: "s1"}); err != nil {
					t.Fatal(err)
				}
			}, false, triage.ReasonNotLive},
			{"lapsed session", func(t *testing.T, f *fixture, _ uuid.UUID) { stops(t, f, 3); f.clock.Advance(afterLease) }, false, triage.ReasonNotLive},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
				tc.setup(t, f, run)
				r := begin(t, f)
				if r.Armed != tc.armed || r.Reason != tc.reason || r.SessionRunID != run {
					t.Fatalf("begin = %+v, want armed %v reason %q", r, tc.armed, tc.reason)
				}
				if tc.armed && (r.AttemptID == uuid.Nil || r.TriageStatus != triage.Pending) {
					t.Fatalf("armed without a pending attempt: %+v", r)
				}
				if v := view(t, f, tenantA, "s1"); tc.armed != (v.TriageStatus == string(triage.Pending)) {
					t.Fatalf("row status %s", v.TriageStatus)
				}
			})
		}
	})

	t.Run("Handshake", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		pre := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "c", "pre-attempt write", "baton", run.String()))
		armed := begin(t, f)
		if !armed.Armed {
			t.Fatalf("begin = %+v", armed)
		}
		again := begin(t, f)
		if again.Armed || again.Reason != triage.ReasonPending || again.AttemptID != armed.AttemptID {
			t.Fatalf("second begin while pending = %+v, want pending with %v", again, armed.AttemptID)
		}
		_, err := f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: uuid.NewString()})
		wantCode(t, err, continuity.CodeConflict)
		// The model writes during the continuation.
		mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "decided during debrief", "baton", run.String()))
		done := complete(t, f, armed.AttemptID)
		if done.TriageStatus != triage.Completed || done.SinceBeginCount != 1 || done.EventCount != 2 || done.Truncated {
			t.Fatalf("complete = %+v, want completed with 1 since begin of 2", done)
		}
		_, err = f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: armed.AttemptID.String()})
		wantCode(t, err, continuity.CodeConflict)
		v := view(t, f, tenantA, "s1")
		if len(v.TriagedEventIDs) != 2 || v.TriagedEventIDs[0] != pre.EventID {
			t.Fatalf("watermark = %v, want both events (cumulative)", v.TriagedEventIDs)
		}
		// Completed never arms by itself.
		stops(t, f, 5)
		if r := begin(t, f); r.Armed || r.Reason != triage.ReasonNoSignal {
			t.Fatalf("completed begin = %+v, want no-signal", r)
		}
		// An attaching write re-arms a completed row atomically.
		mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "later", "baton", run.String()))
		if v := view(t, f, tenantA, "s1"); v.TriageStatus != string(triage.Idle) {
			t.Fatalf("after an attaching write, status %s, want idle", v.TriageStatus)
		}
		if r := begin(t, f); !r.Armed || r.AttemptID == armed.AttemptID {
			t.Fatalf("begin after re-arm = %+v", r)
		}
	})

	t.Run("ZeroWriteContinuationExpires", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		stops(t, f, 3)
		armed := begin(t, f)
		done := complete(t, f, armed.AttemptID)
		if done.TriageStatus != triage.Expired || done.SinceBeginCount != 0 {
			t.Fatalf("complete = %+v, want expired", done)
		}
		// Expired never re-arms on elapsed time or stops.
		f.clock.Advance(time.Hour)
		stops(t, f, 10)
		if r := begin(t, f); r.Armed || r.Reason != triage.ReasonNoSignal {
			t.Fatalf("expired begin = %+v, want no-signal", r)
		}
		// An attaching write leaves expired in place; begin re-arms on it.
		mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "x", "baton", run.String()))
		if v := view(t, f, tenantA, "s1"); v.TriageStatus != string(triage.Expired) {
			t.Fatalf("expired row flipped to %s by a write", v.TriageStatus)
		}
		if r := begin(t, f); !r.Armed {
			t.Fatalf("begin after a new event = %+v", r)
		}
	})

	t.Run("SinceBeginIsASetDifference", func(t *testing.T) {
		// A write that commits late can hold an id that sorts before the
		// ids of the begin stamp (assigned at insert, visible after). It
		// is since begin all the same, and the watermark takes it; and
		// once stamped, a later one sorting before every stamped id still
		// re-arms: membership decides, never an id or a time comparison.
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		w := mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "before the attempt", "baton", run.String()))
		late := func(id uuid.UUID) {
			t.Helper()
			err := f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
				return tx.InsertMemoryEvents(ctx, continuity.MemoryEvent{ID: id, Tenant: tenantA, MemoryID: w.ID, Kind: continuity.EventResolve,
					ActorKind: continuity.ActorUserAPI, SessionRunID: run, CreatedAt: f.clock.Now()})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		armed := begin(t, f)
		if !armed.Armed {
			t.Fatalf("begin = %+v, want armed on the untriaged write", armed)
		}
		early := nextTo(w.EventID, -1)
		late(early)
		done := complete(t, f, armed.AttemptID)
		if done.TriageStatus != triage.Completed || done.SinceBeginCount != 1 || done.EventCount != 2 {
			t.Fatalf("complete = %+v, want completed with the late write since begin", done)
		}
		if v := view(t, f, tenantA, "s1"); len(v.TriagedEventIDs) != 2 || v.TriagedEventIDs[0] != w.EventID || v.TriagedEventIDs[1] != early {
			t.Fatalf("watermark = %v, want the begin stamp then the late write", v.TriagedEventIDs)
		}
		if r := begin(t, f); r.Armed || r.Reason != triage.ReasonNoSignal {
			t.Fatalf("begin with every id stamped = %+v, want no-signal", r)
		}
		late(nextTo(early, -1))
		if r := begin(t, f); !r.Armed {
			t.Fatalf("begin on an id outside the watermark that sorts before it = %+v, want armed", r)
		}
	})

	t.Run("TruncatedOverflowsForGood", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		flood(t, f, run, provenance.Ceiling+1)
		for i := range 2 {
			if r := begin(t, f); r.Armed || r.Reason != triage.ReasonOverflowed || r.TriageStatus != triage.Overflowed {
				t.Fatalf("begin %d on a truncated run = %+v", i, r)
			}
		}
		mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "x", "baton", run.String()))
		if r := begin(t, f); r.Armed {
			t.Fatalf("an overflowed row re-armed: %+v", r)
		}
	})

	t.Run("CompleteOverflowsWhenTheRunOutgrowsTheCeiling", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		stops(t, f, 3)
		armed := begin(t, f)
		flood(t, f, run, provenance.Ceiling+1)
		if done := complete(t, f, armed.AttemptID); done.TriageStatus != triage.Overflowed || !done.Truncated {
			t.Fatalf("complete = %+v, want overflowed", done)
		}
	})

	t.Run("ConcurrentBeginsArmOnce", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		stops(t, f, 3)
		const n = 6
		var wg sync.WaitGroup
		results := make(chan continuity.TriageBeginResult, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := f.svc.TriageBegin(ctx, tenantA, tkey)
				if err != nil {
					t.Error(err)
				}
				results <- r
			}()
		}
		wg.Wait()
		close(results)
		armed := 0
		var ids []uuid.UUID
		for r := range results {
			if r.Armed {
				armed++
			}
			ids = append(ids, r.AttemptID)
		}
		if armed != 1 {
			t.Fatalf("%d concurrent begins armed, want exactly 1", armed)
		}
		for _, id := range ids {
			if id != ids[0] {
				t.Fatalf("begins answered different attempts: %v", ids)
			}
		}
	})

	t.Run("Errors", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		_, err := f.svc.TriageBegin(ctx, tenantA, tkey)
		wantCode(t, err, continuity.CodeNotFound)
		mustOpen(t, f, tenantA, startup("s1"))
		_, err = f.svc.TriageBegin(ctx, tenantB, tkey)
		wantCode(t, err, continuity.CodeNotFound)
		for _, id := range []string{"", "x", uuid.Nil.String()} {
			_, err = f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: id})
			if _, ok := continuity.ErrorFields(err)["attemptId"]; !ok {
				t.Fatalf("attempt %q: %v", id, err)
			}
		}
		_, err = f.svc.TriageComplete(ctx, tenantA, continuity.TriageCompleteParams{Agent: agent, SessionID: "s1", AttemptID: uuid.NewString()})
		wantCode(t, err, continuity.CodeConflict)
	})
}

func testBriefing(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("SectionsAndCut", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		old := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "old promise", "reply to the vendor", "baton", ""))
		f.clock.Advance(15 * 24 * time.Hour)
		c := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "ship", "ship the lease rules", "baton", ""))
		b1 := mustRemember(t, f, tenantA, remember(continuity.KindBlocker, "ci", "postgres missing in CI", "baton", ""))
		d := mustRemember(t, f, tenantA, remember(continuity.KindDecision, "orm", "use bun", "", ""))
		p := mustRemember(t, f, tenantA, remember(continuity.KindPreference, "style", "tables in tests", "baton", ""))
		mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "elsewhere", "other project's", "other", ""))
		resolved := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "done", "finished", "baton", ""))
		if _, err := f.svc.Resolve(ctx, tenantA, resolved.Memory.ID.String(), continuity.TransitionParams{Actor: continuity.ActorUserCLI}); err != nil {
			t.Fatal(err)
		}
		full, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton"})
		if err != nil {
			t.Fatal(err)
		}
		want := []struct {
			id      uuid.UUID
			section string
		}{{c.Memory.ID, continuity.SectionCommitments}, {b1.Memory.ID, continuity.SectionBlockers}, {old.Memory.ID, continuity.SectionStale},
			{d.Memory.ID, continuity.SectionDecisions}, {p.Memory.ID, continuity.SectionPreferences}}
		if len(full.Items) != len(want) {
			t.Fatalf("items = %+v", full.Items)
		}
		for i, w := range want {
			if full.Items[i].ID != w.id || full.Items[i].Section != w.section {
				t.Fatalf("item %d = %s in %q, want %s in %q", i, full.Items[i].Topic, full.Items[i].Section, w.id, w.section)
			}
		}
		if len(full.Briefed) != len(want) || full.Selector["project"] != "baton" {
			t.Fatalf("briefed %d selector %v", len(full.Briefed), full.Selector)
		}
		for _, s := range []string{"ship the lease rules", "postgres missing in CI", "reply to the vendor", "use bun", "tables in tests"} {
			if !strings.Contains(full.Text, s) {
				t.Fatalf("text lacks %q:\n%s", s, full.Text)
			}
		}
		// A budget that fits the header and the first section only.
		cut := strings.Index(full.Text, "\n## "+continuity.SectionBlockers)
		small, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton", Budget: cut + 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(small.Briefed) != 1 || small.Briefed[0].ID != c.Memory.ID || len([]rune(small.Text)) > cut+1 {
			t.Fatalf("cut briefing survived %+v (%d chars):\n%s", small.Briefed, len(small.Text), small.Text)
		}
		// The open records what survived, and the debrief names it.
		p2 := startup("s1")
		p2.Selector, p2.BriefedMemories = small.Selector, small.Briefed
		mustOpen(t, f, tenantA, p2)
		v := view(t, f, tenantA, "s1")
		if len(v.BriefedMemories) != 1 || v.BriefedMemories[0].Topic != "ship" || v.BriefingDeliveredAt == nil {
			t.Fatalf("row recorded %+v", v.BriefedMemories)
		}
		text, err := f.svc.Debrief(ctx, tenantA, continuity.DebriefParams{Agent: agent, SessionID: "s1"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, c.Memory.ID.String()) || !strings.Contains(text, v.ID.String()) || strings.Contains(text, old.Memory.ID.String()) {
			t.Fatalf("debrief does not map exactly the briefed rows:\n%s", text)
		}
	})

	t.Run("Empty", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		b, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) != 0 || len(b.Briefed) != 0 || b.Text == "" || b.Briefed == nil {
			t.Fatalf("empty briefing = %+v", b)
		}
		_, err = f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Budget: -1})
		wantCode(t, err, continuity.CodeInvalid)
	})
}
