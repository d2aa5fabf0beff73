package bottle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock advances by exactly the waited duration on every After, so a
// seal's timing is measured in clock time without real waiting. A stalled
// clock never fires, so only a drainer's wake-up can move a seal on.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	stalled bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: renderedAt} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if c.stalled {
		return ch
	}
	c.now = c.now.Add(d)
	ch <- c.now
	return ch
}

func (c *fakeClock) elapsed() time.Duration { return c.Now().Sub(renderedAt) }

// fakeDrainer replays a scripted sequence of states, repeating the last.
// It records every call, so a test can prove Seal never asked for more
// than a read.
type fakeDrainer struct {
	mu     sync.Mutex
	states []DrainState
	err    error
	calls  []string
	wake   chan struct{}
	next   func(call int) DrainState // overrides states when set
}

func (d *fakeDrainer) DrainState(_ context.Context, _ string) (DrainState, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.calls {
		if c == "DrainState" {
			n++
		}
	}
	d.calls = append(d.calls, "DrainState")
	if d.err != nil {
		return DrainState{}, d.err
	}
	if d.next != nil {
		return d.next(n), nil
	}
	return d.states[min(n, len(d.states)-1)], nil
}

func (d *fakeDrainer) Wake(string) <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, "Wake")
	if d.wake == nil {
		d.wake = make(chan struct{}, 1)
	}
	return d.wake
}

// memMarkers is an in-memory marker store whose claim is a compare-and-set,
// the contract the continuity Store meets with one UPDATE.
type memMarkers struct {
	mu      sync.Mutex
	markers map[string]*Marker
	claimed map[string]bool
}

func newMemMarkers() *memMarkers {
	return &memMarkers{markers: map[string]*Marker{}, claimed: map[string]bool{}}
}

func (s *memMarkers) ArmBottle(_ context.Context, m Marker) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markers[m.SessionID] = &m
	s.claimed[m.SessionID] = false
	return nil
}

func (s *memMarkers) ClaimBottle(_ context.Context, id string) (Marker, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.markers[id]
	if !ok || s.claimed[id] {
		return Marker{}, false, nil
	}
	s.claimed[id] = true
	return *m, true, nil
}

type fakeHistory struct{ rec Record }

func (h fakeHistory) SessionHistory(context.Context, string) (Record, error) { return h.rec, nil }

type fakeObservations struct {
	obs []Observation
	err error
}

func (f fakeObservations) Observations(context.Context, string) ([]Observation, error) {
	return f.obs, f.err
}

// transcriptLines builds Claude Code lines for tests.
type transcriptLines struct {
	b   strings.Builder
	min int
}

func (l *transcriptLines) ts() string {
	l.min++
	return renderedAt.Add(-time.Hour + time.Duration(l.min)*time.Minute).Format(time.RFC3339)
}

func (l *transcriptLines) user(text string) *transcriptLines {
	fmt.Fprintf(&l.b, `{"type":"user","timestamp":%q,"sessionId":"s","cwd":"/work/proj","message":{"role":"user","content":%q}}`+"\n", l.ts(), text)
	return l
}

func (l *transcriptLines) assistant(id, text string) *transcriptLines {
	fmt.Fprintf(&l.b, `{"type":"assistant","timestamp":%q,"message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}]}}`+"\n", l.ts(), id, text)
	return l
}

func (l *transcriptLines) call(id, tool, input string) *transcriptLines {
	fmt.Fprintf(&l.b, `{"type":"assistant","timestamp":%q,"message":{"id":"m-%s","role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}}`+"\n", l.ts(), id, id, tool, input)
	return l
}

func (l *transcriptLines) result(id string, isError bool) *transcriptLines {
	fmt.Fprintf(&l.b, `{"type":"user","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"output of %s","is_error":%v}]}}`+"\n", l.ts(), id, id, isError)
	return l
}

func (l *transcriptLines) String() string { return l.b.String() }

// writeTranscript writes content to a transcript file in a temp dir.
func writeTranscript(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func appendFile(t testing.TB, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func readString(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readBottleAt returns the bottle whose index is at indexPath as one
// document: the index, then every page.
func readBottleAt(t testing.TB, indexPath string) string {
	t.Helper()
	b, err := readBottle(filepath.Dir(indexPath))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addLines seeds a fuzz corpus with every line of a real transcript.
func addLines(f *testing.F, path string) {
	file, err := os.Open(path)
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f.Add(sc.Text() + "\n")
	}
}
