package storetest

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

func testBottle(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("DoubledSessionStartClaimsOnce", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		bs := f.svc.Bottles(tenantA, agent)
		if _, ok, err := bs.ClaimBottle(ctx, "s1"); ok || err != nil {
			t.Fatalf("claim with nothing armed: ok %v err %v", ok, err)
		}
		m := bottle.Marker{SessionID: "s1", Path: "/tmp/b/s1.md", Gap: 2, Mode: bottle.Mode("full"), ArmedAt: f.clock.Now()}
		if err := bs.ArmBottle(ctx, m); err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			const n = 8
			var wg sync.WaitGroup
			var mu sync.Mutex
			var won []bottle.Marker
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, ok, err := bs.ClaimBottle(ctx, "s1")
					if err != nil {
						t.Error(err)
					}
					if ok {
						mu.Lock()
						won = append(won, got)
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if len(won) != 1 {
				t.Fatalf("round %d: %d claims won, want exactly 1", round, len(won))
			}
			if won[0].Path != m.Path || won[0].Gap != 2 || won[0].Mode != m.Mode || !won[0].ArmedAt.Equal(m.ArmedAt) {
				t.Fatalf("claimed %+v, want %+v", won[0], m)
			}
			// A new seal re-arms a consumed marker.
			if err := bs.ArmBottle(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		// Another tenant cannot claim it.
		if _, ok, _ := f.svc.Bottles(tenantB, agent).ClaimBottle(ctx, "s1"); ok {
			t.Fatal("tenant B claimed A's bottle")
		}
		if _, ok, _ := bs.ClaimBottle(ctx, "s1"); !ok {
			t.Fatal("A's re-armed marker was lost")
		}
		if err := bs.ArmBottle(ctx, bottle.Marker{SessionID: " ", Path: "p"}); continuity.ErrorCode(err) != continuity.CodeInvalid {
			t.Fatalf("arm without a session id: %v", err)
		}
		if err := bs.ArmBottle(ctx, bottle.Marker{SessionID: "s2"}); continuity.ErrorCode(err) != continuity.CodeInvalid {
			t.Fatalf("arm without a path: %v", err)
		}
	})

	t.Run("ArmedAtWithinTheYearsAJSONTimeCarries", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		bs := f.svc.Bottles(tenantA, agent)
		west, east := time.FixedZone("-23:59", -(23*3600+59*60)), time.FixedZone("+00:01", 60)
		cases := []struct {
			name    string
			armedAt time.Time
			ok      bool
		}{
			{"the last microsecond of 9999", time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC), true},
			{"the first microsecond after the zero time", time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC), true},
			{"9999 in its zone, 10000 in UTC", time.Date(9999, 12, 31, 23, 59, 59, 0, west), false},
			{"year 1 in its zone, year 0 in UTC", time.Date(1, 1, 1, 0, 0, 0, 0, east), false},
		}
		for i, tc := range cases {
			sid := "s" + strconv.Itoa(i)
			err := bs.ArmBottle(ctx, bottle.Marker{SessionID: sid, Path: "/tmp/b/" + sid + ".md", Mode: bottle.Mode("full"), ArmedAt: tc.armedAt})
			got, claimed, cerr := bs.ClaimBottle(ctx, sid)
			switch {
			case cerr != nil:
				t.Errorf("%s: the claim after it: %v", tc.name, cerr)
			case tc.ok && (err != nil || !claimed || !got.ArmedAt.Equal(tc.armedAt)):
				t.Errorf("%s: arm %v, claimed %v %v: want it armed and claimed as it was", tc.name, err, claimed, got.ArmedAt)
			case !tc.ok && (!namesField(err, "armedAt") || claimed):
				t.Errorf("%s: arm %v, claimed %v: want invalid naming armedAt and nothing armed", tc.name, err, claimed)
			}
		}
	})

	t.Run("History", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		bs := f.svc.Bottles(tenantA, agent)
		mustOpen(t, f, tenantA, startup("s1"))
		if err := bs.RecordPrompt(ctx, "s1", "fix the lease <private>pw=hunter2</private> please"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Compact(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
		ex := "I fixed it."
		if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &ex}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
		if err := bs.RecordPrompt(ctx, "s1", strings.Repeat("y", bottle.MaxPromptChars+10)); err != nil {
			t.Fatal(err)
		}
		if err := bs.RecordPrompt(ctx, "s1", "<private>only secret</private>"); err != nil {
			t.Fatal(err)
		}
		rec, err := bs.SessionHistory(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Project != "baton" || rec.Compactions != 1 || len(rec.Prompts) != 2 || len(rec.StopExcerpts) != 1 {
			t.Fatalf("record = %+v", rec)
		}
		if strings.Contains(rec.Prompts[0].Text, "hunter2") || rec.Prompts[0].Number != 1 || rec.Prompts[0].Truncated {
			t.Fatalf("prompt 1 = %+v", rec.Prompts[0])
		}
		if !rec.Prompts[1].Truncated || len([]rune(rec.Prompts[1].Text)) != bottle.MaxPromptChars || rec.Prompts[1].Number != 2 {
			t.Fatalf("prompt 2 truncated %v len %d", rec.Prompts[1].Truncated, len(rec.Prompts[1].Text))
		}
		if rec.StopExcerpts[0].Text != ex || rec.StopExcerpts[0].PromptNumber != 1 {
			t.Fatalf("excerpt = %+v", rec.StopExcerpts[0])
		}
		other, err := f.svc.Bottles(tenantB, agent).SessionHistory(ctx, "s1")
		if err != nil || len(other.Prompts) != 0 || other.Project != "" {
			t.Fatalf("tenant B reads A's history: %+v %v", other, err)
		}
	})

	t.Run("StopExcerptsAreBounded", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		const keep = 3
		for i := range 5 {
			f.clock.Advance(time.Second)
			err := f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
				return tx.InsertStopExcerpt(ctx, keep, &continuity.StopExcerpt{ID: uuid.Must(uuid.NewV7()), Agent: agent, SessionID: "s1",
					Text: "stop " + string(rune('0'+i)), At: f.clock.Now()})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// Another conversation's excerpts are not trimmed by this one's.
		if err := f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			return tx.InsertStopExcerpt(ctx, keep, &continuity.StopExcerpt{ID: uuid.Must(uuid.NewV7()), Agent: agent, SessionID: "s2", Text: "other", At: f.clock.Now()})
		}); err != nil {
			t.Fatal(err)
		}
		var got, other []continuity.StopExcerpt
		err := f.store.Read(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			if got, err = tx.StopExcerpts(ctx, agent, "s1"); err != nil {
				return err
			}
			other, err = tx.StopExcerpts(ctx, agent, "s2")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != keep || got[0].Text != "stop 2" || got[keep-1].Text != "stop 4" || len(other) != 1 {
			t.Fatalf("kept %+v and %d of the other conversation, want the newest %d", got, len(other), keep)
		}
	})

	// The service reads a conversation's newest MaxStopExcerpts and trims
	// the stored ones to that many on every ExcerptTrimEvery-th Stop past
	// it: up to the Stop before a trim every excerpt is still stored (and
	// the history reads the newest MaxStopExcerpts); at the trim the
	// oldest go.
	t.Run("HeartbeatKeepsTheNewestExcerpts", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		stored := func() []continuity.StopExcerpt {
			t.Helper()
			return ofConversation(t, f, tenantA, agent, "s1", continuity.Tx.StopExcerpts)
		}
		read := func() []bottle.StopExcerpt {
			t.Helper()
			rec, err := f.svc.SessionHistory(ctx, tenantA, agent, "s1")
			if err != nil {
				t.Fatal(err)
			}
			return rec.StopExcerpts
		}
		stop := func(i int) {
			t.Helper()
			f.clock.Advance(time.Second)
			text := "stop " + strconv.Itoa(i)
			if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &text}); err != nil {
				t.Fatal(err)
			}
		}
		const bound, every = continuity.MaxStopExcerpts, continuity.ExcerptTrimEvery
		cases := []struct {
			upTo                         int // Stops so far
			storedFrom, readFrom, readTo int // the oldest stored, the oldest and newest read
		}{
			{bound, 1, 1, bound},                                 // at the bound: every one
			{bound + every - 1, 1, every, bound + every - 1},     // the Stop before the trim: stored, the newest read
			{bound + every, every + 1, every + 1, bound + every}, // the trim: the newest bound stored
			{bound + every + 1, every + 1, every + 2, bound + every + 1},
			{bound + 2*every, 2*every + 1, 2*every + 1, bound + 2*every}, // the next trim
		}
		done := 0
		for _, tc := range cases {
			for ; done < tc.upTo; done++ {
				stop(done + 1)
			}
			st, rd := stored(), read()
			if len(st) != tc.upTo-tc.storedFrom+1 || st[0].Text != "stop "+strconv.Itoa(tc.storedFrom) {
				t.Fatalf("after %d Stops: %d stored from %q; want from stop %d", tc.upTo, len(st), st[0].Text, tc.storedFrom)
			}
			if len(rd) != bound || rd[0].Text != "stop "+strconv.Itoa(tc.readFrom) || rd[len(rd)-1].Text != "stop "+strconv.Itoa(tc.readTo) {
				t.Fatalf("after %d Stops: %d read from %q to %q; want %d from stop %d to %d", tc.upTo, len(rd), rd[0].Text, rd[len(rd)-1].Text, bound, tc.readFrom, tc.readTo)
			}
		}
	})

	t.Run("DegradedBottleFromTheStore", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		bs := f.svc.Bottles(tenantA, agent)
		mustOpen(t, f, tenantA, startup("s1"))
		if err := bs.RecordPrompt(ctx, "s1", "refactor the lease <private>pw=hunter2</private> now"); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Minute)
		ex := "Refactored; tests pass."
		if _, err := f.svc.Heartbeat(ctx, tenantA, continuity.HeartbeatParams{Agent: agent, SessionID: "s1", Stop: true, LastMessageExcerpt: &ex}); err != nil {
			t.Fatal(err)
		}
		bt := &bottle.Bottler{Home: t.TempDir(), History: bs, Marker: bs, Clock: testClock{f.clock}}
		// The transcript is gone: the ladder reconstructs from the store.
		res, err := bt.Seal(ctx, "s1", "/nonexistent/transcript.jsonl", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Sealed || res.Mode != bottle.ModeReconstructed || !res.Armed {
			t.Fatalf("seal = %+v, want a reconstructed bottle with its marker armed", res)
		}
		body, err := bt.Read("s1")
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
		if !strings.Contains(text, "mode: reconstructed") || !strings.Contains(text, "refactor the lease") || !strings.Contains(text, ex) || strings.Contains(text, "hunter2") {
			t.Fatalf("reconstructed bottle:\n%s", text)
		}
		m, ok, err := bt.Continuation(ctx, bs, "s1")
		if err != nil || !ok || m.Path != res.Path || m.Mode != bottle.ModeReconstructed {
			t.Fatalf("continuation = %+v %v %v", m, ok, err)
		}
		if _, again, err := bt.Continuation(ctx, bs, "s1"); again || err != nil {
			t.Fatalf("a second continuation injected again: %v %v", again, err)
		}
		// Nothing stored for a session: the timeline rung, no marker.
		none, err := bt.Seal(ctx, "s2", "", time.Second)
		if err != nil || none.Sealed || none.Mode != bottle.ModeTimeline {
			t.Fatalf("seal with nothing stored = %+v %v", none, err)
		}
		if _, ok, _ := bs.ClaimBottle(ctx, "s2"); ok {
			t.Fatal("a timeline seal armed a marker")
		}
	})
}

// testClock adapts the suite's clock to bottle.Clock; waits are real.
type testClock struct{ c *Clock }

func (t testClock) Now() time.Time                         { return t.c.Now() }
func (t testClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// namesField reports whether err is invalid naming field.
func namesField(err error, field string) bool {
	return continuity.ErrorCode(err) == continuity.CodeInvalid && continuity.ErrorFields(err)[field] != ""
}
