package storetest

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// raceCall is what one call of scenarioOneConversationRace answered.
type raceCall struct {
	op      string
	receipt uuid.UUID
	err     error
	// epoch is the activation epoch the call answered (0: none); stopped
	// says the call was a Stop whose heartbeat was kept.
	epoch   int
	stopped bool
	// armed and completed are the triage attempt the call armed or
	// finalized (uuid.Nil: none).
	armed, completed uuid.UUID
}

// scenarioOneConversationRace: 32 callers send one conversation Stops (the
// nudge on and off, stop_hook_active or not), PreCompacts, SessionEnds and
// SessionStarts (resume, compact, clear) at once (on Postgres, Read
// Committed transactions of many connections; over HTTP, through the
// Client). Each call leaves exactly one receipt and fails for no reason of
// the store's own; no kept Stop is lost from the row's count; the epochs
// each caller is answered never go backwards and the row's is the newest
// any call saw; the row ends either closed or live, never both; no
// attempt is armed twice or finalized twice, and one is finalized only
// after it was armed.
func scenarioOneConversationRace(t *testing.T, h ScenarioHarness) {
	const callers, each, sid = 32, 8, "hot"
	s := newScene(t, h)
	run := s.startup(sid, "baton").SessionRunID
	ops := []struct {
		name string
		call func() raceCall
	}{
		{"stop", func() raceCall { return raceStop(s, stopOf(sid, "Did a step.")) }},
		{"stop.nudge", func() raceCall { return raceStop(s, nudgeStop(sid, false)) }},
		{"stop.active", func() raceCall { return raceStop(s, nudgeStop(sid, true)) }},
		{"precompact", func() raceCall {
			r, err := s.a.PreCompact(s.ctx, preCompactOf(sid))
			return raceCall{receipt: r.ReceiptID, err: err}
		}},
		{"end", func() raceCall {
			r, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, sid), Reason: "exit",
				BudgetMillis: int(continuity.MaxEndBudget / time.Millisecond)})
			return raceCall{receipt: r.ReceiptID, err: err, epoch: r.Close.ActivationEpoch}
		}},
		{"start.resume", func() raceCall { return raceStart(s, startOf(sid, continuity.SourceResume, "baton")) }},
		{"start.compact", func() raceCall { return raceStart(s, startOf(sid, continuity.SourceCompact, "baton")) }},
		{"start.clear", func() raceCall { return raceStart(s, startOf(sid, continuity.SourceClear, "baton")) }},
	}
	seen := make([][]raceCall, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				op := ops[(c*7+i*3)%len(ops)]
				r := op.call()
				r.op = op.name
				seen[c] = append(seen[c], r)
			}
		})
	}
	wg.Wait()

	v := s.session(s.a, sid)
	if v.ID != run {
		t.Fatalf("the conversation is run %v, want its startup's %v", v.ID, run)
	}
	stops, episodes := 0, 1 // the startup's receipt
	armed, completed := map[uuid.UUID]int{}, map[uuid.UUID]int{}
	for c, calls := range seen {
		last := 0
		for _, r := range calls {
			episodes++
			if code := continuity.ErrorCode(r.err); r.err != nil && (code == continuity.CodeInternal || code == "") {
				t.Errorf("caller %d: %s failed on the store's side: %v", c, r.op, r.err)
			}
			if r.receipt == uuid.Nil {
				t.Errorf("caller %d: %s returned no receipt (err %v)", c, r.op, r.err)
			}
			if r.epoch != 0 {
				if r.epoch < last {
					t.Errorf("caller %d: %s answered epoch %d after the caller was answered %d", c, r.op, r.epoch, last)
				}
				if r.epoch > v.ActivationEpoch {
					t.Errorf("caller %d: %s answered epoch %d, ahead of the row's %d", c, r.op, r.epoch, v.ActivationEpoch)
				}
				last = max(last, r.epoch)
			}
			stops += b2i(r.stopped)
			if r.armed != uuid.Nil {
				armed[r.armed]++
			}
			if r.completed != uuid.Nil {
				completed[r.completed]++
			}
		}
	}
	if v.StopCount != stops {
		t.Errorf("the row counts %d Stops, %d were kept: Stops were lost", v.StopCount, stops)
	}
	if closed := v.ClosedAt != nil; closed == (v.State == lease.Live) {
		t.Errorf("the row ends closed %v and %s", closed, v.State)
	}
	for id, n := range armed {
		if n > 1 {
			t.Errorf("attempt %v armed %d times", id, n)
		}
	}
	for id, n := range completed {
		if n > 1 || armed[id] == 0 {
			t.Errorf("attempt %v finalized %d times, armed %d", id, n, armed[id])
		}
	}
	received := 0
	for _, e := range s.ledger(s.a, uuid.Nil) {
		received += b2i(e.Event == continuity.EventReceived)
	}
	if received != episodes {
		t.Errorf("%d receipts in the ledger, want one per event, %d", received, episodes)
	}
	// The next Stop resurrects the row exactly when it ended closed.
	r := s.stop(stopOf(sid, "After the race."))
	if r.Resurrected != (v.ClosedAt != nil) || r.ActivationEpoch != v.ActivationEpoch+b2i(r.Resurrected) {
		t.Errorf("after the race (closed %v, epoch %d) a Stop answered resurrected %v at epoch %d", v.ClosedAt != nil, v.ActivationEpoch, r.Resurrected, r.ActivationEpoch)
	}
}

func raceStop(s *scene, p continuity.StopParams) raceCall {
	r, err := s.a.Stop(s.ctx, p)
	c := raceCall{receipt: r.ReceiptID, err: err, epoch: r.ActivationEpoch, stopped: r.SessionRunID != uuid.Nil}
	if tr := r.Triage; tr != nil {
		if tr.Armed {
			c.armed = tr.AttemptID
		}
		if tr.Completed {
			c.completed = tr.AttemptID
		}
	}
	return c
}

func raceStart(s *scene, p continuity.StartParams) raceCall {
	r, err := s.a.SessionStart(s.ctx, p)
	return raceCall{receipt: r.ReceiptID, err: err, epoch: r.ActivationEpoch}
}

// scenarioStopNudgeRace: the Stop triage handshake under Stops that race.
// Of Stops of one turn sent at once, the nudge on, exactly one arms (and
// injects), and at most one finalizes that attempt; an attempt id is
// complete only in its own conversation of its own tenant, a replay
// elsewhere refused and changing nothing; and of a stop_hook_active Stop
// and another racing an armed attempt, exactly one finalizes it and
// neither arms another.
func scenarioStopNudgeRace(t *testing.T, h ScenarioHarness) {
	for _, n := range []int{2, 8} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s := newScene(t, h)
			run := s.startup("s1", "baton").SessionRunID
			s.startup("s2", "baton")
			s.remember(s.a, continuity.KindDecision, "race", "baton", run.String()) // the signal that arms
			results := make([]raceCall, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() { results[i] = raceStop(s, nudgeStop("s1", false)) })
			}
			wg.Wait()
			var attempt uuid.UUID
			finalized := 0
			for i, r := range results {
				if r.err != nil {
					t.Fatalf("Stop %d: %v", i, r.err)
				}
				if r.armed != uuid.Nil {
					if attempt != uuid.Nil {
						t.Fatalf("two Stops of one turn armed: %v and %v", attempt, r.armed)
					}
					attempt = r.armed
				}
				finalized += b2i(r.completed != uuid.Nil)
			}
			if attempt == uuid.Nil {
				t.Fatalf("none of %d Stops of a turn with a signal armed: %+v", n, results)
			}
			// A sibling that found the attempt pending finalizes it (a
			// documented residual: the row carries no arm time to tell a
			// duplicate delivery from a continuation that lost
			// stop_hook_active), but only one does, and only that attempt.
			for _, r := range results {
				if r.completed != uuid.Nil && r.completed != attempt {
					t.Errorf("a Stop finalized %v, want the armed %v", r.completed, attempt)
				}
			}
			if finalized > 1 {
				t.Errorf("the armed attempt was finalized %d times", finalized)
			}
			// The attempt replayed from another conversation and another
			// tenant: refused, and the rows as they were.
			before1, before2 := s.session(s.a, "s1"), s.session(s.a, "s2")
			for _, tc := range []struct {
				api  continuity.API
				sid  string
				want continuity.Code
			}{{s.a, "s2", continuity.CodeConflict}, {s.b, "s1", continuity.CodeNotFound}} {
				_, err := tc.api.TriageComplete(s.ctx, continuity.TriageCompleteParams{Agent: agent, SessionID: tc.sid, AttemptID: attempt.String()})
				if continuity.ErrorCode(err) != tc.want {
					t.Errorf("the attempt replayed on %s: %v, want %s", tc.sid, err, tc.want)
				}
			}
			if a1, a2 := s.session(s.a, "s1"), s.session(s.a, "s2"); a1.TriageStatus != before1.TriageStatus || a1.TriageAttemptID != before1.TriageAttemptID || a2.TriageStatus != before2.TriageStatus {
				t.Errorf("a refused replay changed the rows: %+v %+v", a1, a2)
			}
			// A new signal arms the next attempt; its continuation
			// (stop_hook_active) and an ordinary Stop race to finalize it.
			s.remember(s.a, continuity.KindDecision, "race again", "baton", run.String())
			next := raceStop(s, nudgeStop("s1", false))
			if next.err != nil || next.armed == uuid.Nil {
				t.Fatalf("a Stop after a new signal: %+v, want it armed", next)
			}
			attempt = next.armed
			for i := range 2 {
				wg.Go(func() { results[i] = raceStop(s, nudgeStop("s1", i == 0)) })
			}
			wg.Wait()
			finalized = 0
			for i, r := range results[:2] {
				if r.err != nil {
					t.Fatalf("racing Stop %d: %v", i, r.err)
				}
				if r.armed != uuid.Nil {
					t.Errorf("racing Stop %d armed %v while %v was pending", i, r.armed, attempt)
				}
				if r.completed != uuid.Nil {
					finalized++
					if r.completed != attempt {
						t.Errorf("racing Stop %d finalized %v, want %v", i, r.completed, attempt)
					}
				}
			}
			if finalized != 1 {
				t.Errorf("the armed attempt was finalized %d times: %+v", finalized, results[:2])
			}
		})
	}
}
