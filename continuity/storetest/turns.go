package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
)

// scenarioStopClockStep: the clock steps between a prompt and the Stop that
// ends its turn (an NTP step, or the two hooks served by replicas of a team
// server whose clocks disagree), so the Stop may be stamped at, after or
// before its prompt. The Stop ends that prompt's turn whatever the stamps
// say: the history files its excerpt under the prompt it followed, a Stop
// before any prompt under none (0), and the reconstructed bottle shows
// each excerpt after its own prompt. The last Stop of each case lands on a
// lapsed row (the resurrecting path, not the live touch).
func scenarioStopClockStep(t *testing.T, h ScenarioHarness) {
	for _, tc := range []struct {
		name string
		step time.Duration // the Stop's clock minus the prompt's
	}{
		{"a microsecond after", time.Microsecond},
		{"the same instant", 0},
		{"a microsecond before", -time.Microsecond},
		{"a second before", -time.Second},
		{"before the previous Stop", -90 * time.Second},
		{"before every prompt", -time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			s.startup("s1", "baton")
			s.stop(stopOf("s1", "warming up"))
			s.clock.Advance(time.Minute)
			s.prompt("s1", "parse the header")
			s.clock.Advance(time.Minute)
			s.stop(stopOf("s1", "reply one"))
			s.clock.Advance(time.Minute)
			s.prompt("s1", "now the body")
			at := s.clock.Now()
			s.clock.Set(at.Add(tc.step))
			s.stop(stopOf("s1", "reply two"))
			// A day later the row has lapsed: the Stop resurrects it.
			s.clock.Set(at.Add(25 * time.Hour))
			s.prompt("s1", "and the trailer")
			s.clock.Set(at.Add(25*time.Hour + tc.step))
			if r := s.stop(stopOf("s1", "reply three")); !r.Resurrected {
				t.Fatalf("the Stop a day later = %+v, want it to resurrect the lapsed row", r)
			}

			hist, err := s.a.SessionHistory(s.ctx, agent, "s1")
			if err != nil {
				t.Fatal(err)
			}
			wantTurns(t, "", hist, map[string]int{"warming up": 0, "reply one": 1, "reply two": 2, "reply three": 3})

			md := string(bottle.Render(bottle.Page{SessionID: "s1", Record: &hist}, s.clock.Now()).Markdown)
			order := []string{"warming up", "(prompt 1,", "reply one", "(prompt 2,", "reply two", "(prompt 3,", "reply three"}
			last := -1
			for _, w := range order {
				i := strings.Index(md, w)
				if i <= last {
					t.Fatalf("the reconstructed bottle does not read %q in order (%q at %d):\n%s", order, w, i, md)
				}
				last = i
			}
		})
	}
}

// testExcerptTurns: the turn an excerpt is filed under, without a
// recorded number and after retention pruned the prompts.
func testExcerptTurns(t *testing.T, h Harness) {
	t.Run("WithoutANumber", func(t *testing.T) { testExcerptTurnsByTime(t, h) })
	t.Run("AfterThePromptsArePruned", func(t *testing.T) { testExcerptTurnsAfterPrune(t, h) })
}

// testExcerptTurnsAfterPrune: retention prunes a conversation's prompts by
// age and keeps its excerpts, which name their turns. The next prompt
// numbers on past them, so an old excerpt is never filed under a new
// prompt that took its turn's number again.
func testExcerptTurnsAfterPrune(t *testing.T, h Harness) {
	t.Parallel()
	f := newFixture(t, h)
	ctx := t.Context()
	stop := func(text string) {
		t.Helper()
		if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &text}); err != nil {
			t.Fatal(err)
		}
	}
	prompt := func(text string, want int) {
		t.Helper()
		r, err := f.svc.RecordPrompt(ctx, tenantA, agent, "s1", text)
		if err != nil || r.Number != want {
			t.Fatalf("prompt %q = %+v, %v; want number %d", text, r, err, want)
		}
	}
	mustOpen(t, f, tenantA, startup("s1"))
	prompt("first", 1)
	stop("reply one")
	f.clock.Advance(f.svc.Retention().Prompts + time.Hour)
	if r, err := f.svc.Prune(ctx, tenantA, f.clock.Now()); err != nil || r.Prompts != 1 {
		t.Fatalf("prune = %+v, %v; want the one prompt pruned", r, err)
	}
	prompt("second", 2)
	stop("reply two")
	hist := historyOf(t, f, "s1")
	wantTurns(t, "", hist, map[string]int{"reply one": 1, "reply two": 2})
	if len(hist.Prompts) != 1 || hist.Prompts[0].Number != 2 {
		t.Fatalf("prompts kept = %+v, want the second, numbered 2", hist.Prompts)
	}
}

// testExcerptTurnsByTime: an excerpt row without a prompt number (written before
// migration 018, or imported from an export of version 1) is filed under
// the last prompt not stamped after it, as every excerpt was: at the
// prompt's own instant it is that prompt's, a microsecond before it the
// previous one's, before every prompt none's. A row with a number is filed
// by it whatever its time, beside rows without one.
func testExcerptTurnsByTime(t *testing.T, h Harness) {
	t.Parallel()
	f := newFixture(t, h)
	ctx := t.Context()
	mustOpen(t, f, tenantA, startup("s1"))
	t0 := f.clock.Now()
	for _, text := range []string{"first", "second"} {
		f.clock.Advance(time.Minute)
		if _, err := f.svc.RecordPrompt(ctx, tenantA, agent, "s1", text); err != nil {
			t.Fatal(err)
		}
	}
	p1, p2 := t0.Add(time.Minute), t0.Add(2*time.Minute)
	rows := []struct {
		text   string
		at     time.Time
		number *int
		want   int
	}{
		{"before every prompt", p1.Add(-time.Microsecond), nil, 0},
		{"at the first prompt", p1, nil, 1},
		{"a microsecond before the second", p2.Add(-time.Microsecond), nil, 1},
		{"at the second prompt", p2, nil, 2},
		{"after the second", p2.Add(time.Microsecond), nil, 2},
		{"numbered before its prompt's time", p2.Add(-time.Hour), new(2), 2},
		{"numbered 0 after every prompt", p2.Add(time.Hour), new(0), 0},
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, r := range rows {
			e := excerpt(agent, "s1", r.text, r.at)
			e.PromptNumber = r.number
			if err := tx.InsertStopExcerpt(ctx, 0, &e); err != nil {
				return err
			}
		}
		return nil
	})
	want := map[string]int{}
	for _, r := range rows {
		want[r.text] = r.want
	}
	wantTurns(t, "", historyOf(t, f, "s1"), want)
}

// historyOf is tenant A's history of the conversation sid.
func historyOf(t *testing.T, f *fixture, sid string) bottle.Record {
	t.Helper()
	hist, err := f.svc.SessionHistory(t.Context(), tenantA, agent, sid)
	if err != nil {
		t.Fatal(err)
	}
	return hist
}

// wantTurns asserts the turn each Stop excerpt of hist is filed under, by
// its text.
func wantTurns(t *testing.T, what string, hist bottle.Record, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	for _, e := range hist.StopExcerpts {
		got[e.Text] = e.PromptNumber
	}
	same(t, what+"the turn of each excerpt", got, want)
}
