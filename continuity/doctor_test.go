package continuity

import (
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// TestDiagnose judges facts the store would have read: what the storetest
// suite cannot reach through a store (which line answers which receipt,
// the order findings come in, how a place is named).
func TestDiagnose(t *testing.T) {
	now := time.Date(2026, 9, 11, 9, 0, 0, 0, time.UTC)
	pol := doctorPolicy{fresh: freshness.Default, lease: lease.Default}
	old := now.Add(-time.Hour)
	receipt := func(sid, ag, expects string) LedgerEntry {
		return LedgerEntry{ID: uuid.New(), Event: EventReceived, At: old, Session: sid,
			Fields: map[string]string{"provider": "claude-code", "provider_event": "SessionEnd", "agent": ag, receiptExpects: expects}}
	}
	line := func(event, sid, ag string) LedgerEntry {
		return LedgerEntry{ID: uuid.New(), Event: event, At: old, Session: sid, Fields: map[string]string{"agent": ag}}
	}
	handover := recordEvent(RecordHandover)
	r1 := receipt("s1", "claude-code", handover)
	cases := []struct {
		name  string
		facts doctorFacts
		want  []string // check names, in order
	}{
		{"nothing to say", doctorFacts{sessions: 2}, nil},
		{"answered by its line", doctorFacts{sessions: 2, lines: []LedgerEntry{line(handover, "s1", "claude-code"), r1}}, nil},
		{"answered by its failure", doctorFacts{sessions: 2, lines: []LedgerEntry{
			{ID: uuid.New(), Event: EventFailed, At: old, Session: "s1", Fields: map[string]string{"receipt": r1.ID.String()}}, r1}}, nil},
		{"another conversation's handover answers nothing", doctorFacts{sessions: 2, lines: []LedgerEntry{line(handover, "s2", "claude-code"), r1}},
			[]string{CheckUnansweredReceipt}},
		{"another agent's handover answers nothing", doctorFacts{sessions: 2, lines: []LedgerEntry{line(handover, "s1", "codex"), r1}},
			[]string{CheckUnansweredReceipt}},
		{"the other kind of record answers nothing", doctorFacts{sessions: 2, lines: []LedgerEntry{line(recordEvent(RecordCheckpoint), "s1", "claude-code"), r1}},
			[]string{CheckUnansweredReceipt}},
		{"a receipt expecting nothing", doctorFacts{sessions: 2, lines: []LedgerEntry{receipt("s1", "claude-code", "")}}, nil},
		{"failures first, then warnings", doctorFacts{sessions: 3,
			counts:   map[string]int{closerFailedEvent: 1},
			armed:    []BottleMarker{{Agent: "claude-code", SessionID: "s9", ArmedAt: old}},
			projects: []projectFacts{{ProjectActivity: ProjectActivity{Project: "", FirstOpenedAt: now.Add(-72 * time.Hour)}, openedWhileStale: 2}}},
			[]string{CheckWriterStopped, CheckCloserFailures, CheckUnclaimedBottle}},
		{"too few sessions says only that", doctorFacts{sessions: 1, counts: map[string]int{closerFailedEvent: 1}}, []string{CheckTooFewSessions}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := diagnose(tc.facts, pol, now)
			var got []string
			for _, f := range r.Findings {
				got = append(got, f.Check)
				if strings.TrimSpace(f.Sentence) == "" || !strings.HasSuffix(f.Sentence, ".") {
					t.Errorf("%s: sentence %q is not a sentence", f.Check, f.Sentence)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("checks %v, want %v", got, tc.want)
			}
			if r.Findings == nil || r.Sessions != tc.facts.sessions || !r.GeneratedAt.Equal(now) {
				t.Errorf("report %+v", r)
			}
		})
	}
	r := diagnose(cases[7].facts, pol, now)
	if w := r.Findings[0]; !strings.HasPrefix(w.Sentence, "Sessions without a project: 2 sessions opened while no checkpoint or handover was ever written in the 3d since its first session") {
		t.Errorf("writer stopped without a project: %q", w.Sentence)
	}
}
