package bottle

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const session = "0b7e2c51-8f3a-4d6e-a1c9-5e2f8b4d7a10"

// midTurn is a transcript whose tail is an unfinished turn: assistant text
// and a tool call with no result, and no Stop.
func midTurn() string {
	var l transcriptLines
	l.user("make the flaky test pass").
		assistant("a1", "Found it: the heartbeat never flushes.").
		call("tu1", "Edit", `{"file_path":"/work/proj/heartbeat.go","old_string":"a","new_string":"b"}`).
		result("tu1", false).
		assistant("a2", "Now I'll run the whole suite to confirm.").
		call("tu2", "Bash", `{"command":"go test ./...","description":"suite"}`)
	return l.String()
}

// TestSealMidTurn is the seed's test 1.
func TestSealMidTurn(t *testing.T) {
	stub := Stub{Tool: "Bash", Input: []byte(`{"command":"go test ./..."}`), ToolUseID: "tu2", Time: renderedAt.Add(-time.Minute)}
	cases := []struct {
		name     string
		drainer  *fakeDrainer
		obs      ObservationSource
		wantGap  int
		wantStub string
	}{
		{
			name: "buffer stubs from the drainer", wantGap: 1,
			drainer:  &fakeDrainer{states: []DrainState{{Pending: 1, Working: true, Stubs: []Stub{stub}}}},
			obs:      fakeObservations{obs: []Observation{{ID: "901", Title: "Fixed flush", Narrative: "Heartbeat now flushes. Tests next.", PromptNumber: 1, ToolUseID: "tu1"}}},
			wantStub: "- ⏳ Bash — `go test ./...` (01:59:00)",
		},
		{
			name: "transcript floor without a drainer", wantGap: 1,
			obs:      fakeObservations{obs: []Observation{{ID: "901", Title: "Fixed flush", Narrative: "Heartbeat now flushes", PromptNumber: 1, ToolUseID: "tu1"}}},
			wantStub: "- ⏳ Bash — `go test ./...` (",
		},
		{
			name: "derived observations, no host", wantGap: 1,
			wantStub: "- ⏳ Bash — `go test ./...` (",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			markers := newMemMarkers()
			b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Marker: markers, Observations: c.obs}
			if c.drainer != nil {
				b.Drainer = c.drainer
			}
			res, err := b.Seal(context.Background(), session, writeTranscript(t, midTurn()), 0)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Sealed || !res.Armed || res.Gap != c.wantGap || res.Mode != ModeFull {
				t.Fatalf("result %+v", res)
			}
			out := readBottleAt(t, res.Path)
			for _, want := range []string{"Now I'll run the whole suite to confirm.", "Found it: the heartbeat never flushes.", c.wantStub, "*Recent activity (observations not recorded yet"} {
				if !strings.Contains(out, want) {
					t.Errorf("bottle lacks %q:\n%s", want, out)
				}
			}
			if strings.Count(out, "go test ./...") != 1 {
				t.Errorf("pending call shown other than once:\n%s", out)
			}
			if m := markers.markers[session]; m == nil || m.Gap != c.wantGap || m.Path != res.Path || m.Mode != ModeFull {
				t.Errorf("marker %+v", m)
			}
		})
	}
}

// TestSealDrainWait covers the seed's tests 2 and 3 with a fake drainer and
// a fake clock: when Seal stops waiting, and what gap it reports.
func TestSealDrainWait(t *testing.T) {
	busy := func(n int) DrainState { return DrainState{Pending: n, Working: true} }
	dead := func(n int) DrainState { return DrainState{Pending: n} }
	cases := []struct {
		name        string
		states      []DrainState
		err         error
		budget      time.Duration
		wantGap     int
		wantDrained bool
		wantElapsed time.Duration
	}{
		{"drained at once", []DrainState{{}}, nil, 0, 0, true, 0},
		{"drains on the third check", []DrainState{busy(2), busy(1), {}}, nil, 0, 0, true, 2 * SealTick},
		{"quota pause: dead across two wake-ups", []DrainState{dead(3)}, nil, 0, 3, false, 2 * SealTick},
		{"fresh enqueue is not death", []DrainState{dead(1), busy(1), busy(1), {}}, nil, 0, 0, true, 3 * SealTick},
		{"dead twice then working", []DrainState{dead(1), dead(1), busy(1), dead(1), dead(1), {}}, nil, 0, 0, true, 5 * SealTick},
		{"working until the default budget", []DrainState{busy(2)}, nil, 0, 2, false, DefaultSealBudget},
		{"budget capped at the maximum", []DrainState{busy(2)}, nil, 5 * time.Minute, 2, false, MaxSealBudget},
		{"short budget ends between ticks", []DrainState{busy(4)}, nil, 300 * time.Millisecond, 4, false, 300 * time.Millisecond},
		{"drainer error falls back to the transcript", nil, errors.New("host down"), 0, 1, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newFakeClock()
			d := &fakeDrainer{states: c.states, err: c.err}
			b := &Bottler{Home: t.TempDir(), Clock: clk, Drainer: d, Marker: newMemMarkers(),
				Observations: fakeObservations{obs: []Observation{{ID: "1", Title: "Edited", ToolUseID: "tu1"}}}}
			res, err := b.Seal(context.Background(), session, writeTranscript(t, midTurn()), c.budget)
			if err != nil {
				t.Fatal(err)
			}
			if res.Gap != c.wantGap || res.Drained != c.wantDrained || clk.elapsed() != c.wantElapsed {
				t.Errorf("gap %d drained %v after %v; want %d %v after %v", res.Gap, res.Drained, clk.elapsed(), c.wantGap, c.wantDrained, c.wantElapsed)
			}
			for _, call := range d.calls {
				if call != "DrainState" && call != "Wake" {
					t.Errorf("seal called %s: it must only read", call)
				}
			}
		})
	}
}

// TestSealWakesOnConfirm: with a clock that never ticks, only the drainer's
// wake-up can end the wait, so a prompt drained seal proves Seal listens.
func TestSealWakesOnConfirm(t *testing.T) {
	clk := newFakeClock()
	clk.stalled = true
	var mu sync.Mutex
	pending := 2
	d := &fakeDrainer{next: func(int) DrainState {
		mu.Lock()
		defer mu.Unlock()
		return DrainState{Pending: pending, Working: true}
	}}
	wake := d.Wake(session)
	b := &Bottler{Home: t.TempDir(), Clock: clk, Drainer: d}
	go func() {
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		pending = 0 // the host confirms the batch
		mu.Unlock()
		d.wake <- struct{}{}
	}()
	_ = wake
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := b.Seal(ctx, session, writeTranscript(t, midTurn()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Drained || res.Gap != 0 || ctx.Err() != nil {
		t.Fatalf("result %+v, ctx %v", res, ctx.Err())
	}
}

// TestDoubleSessionStart is the seed's test 4: of concurrent SessionStarts
// after one seal, exactly one injects.
func TestDoubleSessionStart(t *testing.T) {
	markers := newMemMarkers()
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Marker: markers}
	res, err := b.Seal(context.Background(), session, writeTranscript(t, midTurn()), 0)
	if err != nil || !res.Armed {
		t.Fatalf("seal %+v %v", res, err)
	}
	const starts = 8
	var wg sync.WaitGroup
	claimed := make(chan Marker, starts)
	for range starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, ok, err := b.Continuation(context.Background(), markers, session)
			if err != nil {
				t.Error(err)
			}
			if ok {
				claimed <- m
			}
		}()
	}
	wg.Wait()
	close(claimed)
	var got []Marker
	for m := range claimed {
		got = append(got, m)
	}
	if len(got) != 1 {
		t.Fatalf("%d injections, want exactly 1", len(got))
	}
	if m := got[0]; m.Path != res.Path || m.Task != "make the flaky test pass" || m.Gap != 1 || m.Mode != ModeFull {
		t.Errorf("claimed marker %+v, want the bottle at %s with its task and a gap of one", m, res.Path)
	}
}

// TestClear is the seed's test 10: /clear archives the bottle and nothing is
// injected afterwards, even though the marker was armed.
func TestClear(t *testing.T) {
	clk := newFakeClock()
	markers := newMemMarkers()
	b := &Bottler{Home: t.TempDir(), Clock: clk, Marker: markers}
	ctx := context.Background()
	if got, err := b.Archive(ctx, session, ""); got != "" || err != nil {
		t.Fatalf("archive with no bottle: %q %v", got, err)
	}
	res, err := b.Seal(ctx, session, writeTranscript(t, midTurn()), 0)
	if err != nil {
		t.Fatal(err)
	}
	before := readBottleAt(t, res.Path)
	archived, err := b.Archive(ctx, session, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(b.Dir(), "archive", "20261130T020000Z-"+session+".bottle"); archived != want {
		t.Errorf("archived to %s, want %s", archived, want)
	}
	if readBottleAt(t, filepath.Join(archived, IndexName)) != before {
		t.Error("archived bottle differs from the active one")
	}
	if _, err := b.Read(session); err == nil {
		t.Error("active bottle still present after clear")
	}
	if m, ok, err := b.Continuation(ctx, markers, session); ok || m != (Marker{}) || err != nil {
		t.Errorf("injected after clear: %+v %v %v", m, ok, err)
	}
	// A second clear in the same second keeps both archives.
	if _, err := b.Seal(ctx, session, writeTranscript(t, midTurn()), 0); err != nil {
		t.Fatal(err)
	}
	second, err := b.Archive(ctx, session, "")
	if err != nil || second == archived || !strings.HasSuffix(second, "-2-"+session+".bottle") {
		t.Errorf("second archive %q %v", second, err)
	}
}
