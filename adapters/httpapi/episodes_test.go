package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// testClock adapts the suite's clock to bottle.Clock; waits are real.
type testClock struct{ c *storetest.Clock }

func (t testClock) Now() time.Time                         { return t.c.Now() }
func (t testClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// callLog records the routes a server was called on.
type callLog struct {
	mu   sync.Mutex
	seen []string
}

func (c *callLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.seen = append(c.seen, r.Method+" "+r.URL.Path)
		c.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (c *callLog) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = nil
}

func (c *callLog) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// TestEpisodesOverClient walks a conversation through continuity.Episodes
// over the Client, as a hook in team-server mode runs it: one round trip
// per event; the bottle rendered and sealed here, where the transcript is,
// from the prompts and Stop excerpts the server keeps; its marker armed and
// claimed on the server.
func TestEpisodesOverClient(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock()
	var calls callLog
	s := newServer(t, sqltest.SQLite, clock.Now, Options{}, calls.wrap)
	api := s.client(keyA)
	e := continuity.NewEpisodes(api, agent, t.TempDir())
	e.Now = clock.Now
	e.Bottler.Clock = testClock{clock}
	dir := t.TempDir()
	// handle runs one event, which must make exactly one episode call and
	// otherwise only read the history a bottle is rendered from.
	handle := func(ev continuity.HookEvent) continuity.HookOutcome {
		t.Helper()
		ev.Provider, ev.ProviderEvent, ev.Cwd = agent, string(ev.Kind), dir
		calls.reset()
		out, err := e.Handle(ctx, ev)
		if err != nil {
			t.Fatalf("%s %s: %v", ev.Kind, ev.Source, err)
		}
		if got := calls.list(); len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "POST /api/v1/episodes/") ||
			slices.ContainsFunc(got[:len(got)-1], func(c string) bool { return c != "GET /api/v1/bottles/history" }) {
			t.Fatalf("%s made the calls %v, want one episode call (after history reads)", ev.Kind, got)
		}
		return out
	}

	start := handle(continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1"})
	if start.SessionRunID == uuid.Nil || !strings.Contains(start.Context, start.SessionRunID.String()) {
		t.Fatalf("startup = %+v, want the run id injected", start)
	}
	handle(continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: "s1", Prompt: "Port the handler to the team server."})
	done := "Ported the handler; the suite passes through both transports."
	clock.Advance(time.Minute)
	handle(continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", LastMessage: &done})
	// The transcript is gone: the bottle is reconstructed from the
	// server's history, sealed here, and its marker armed there.
	handle(continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", TranscriptPath: "/nonexistent/transcript.jsonl", Trigger: "auto"})
	path, err := e.Bottler.Path("s1") // the index
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Bottler.Read("s1") // the index and every page
	if err != nil {
		t.Fatalf("the bottle was not written here: %v", err)
	}
	for _, want := range []string{"mode: reconstructed", "Port the handler to the team server.", done} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the bottle lacks %q:\n%s", want, b)
		}
	}
	hist, err := api.SessionHistory(ctx, agent, "s1")
	if err != nil || len(hist.Prompts) != 1 || len(hist.StopExcerpts) != 1 {
		t.Fatalf("the server's history = %+v %v, want the prompt and the Stop excerpt", hist, err)
	}

	// The compaction's SessionStart claims the marker on the server and
	// injects the pointer, once.
	compact := handle(continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceCompact, SessionID: "s1"})
	if compact.SessionRunID != start.SessionRunID || !strings.Contains(compact.Context, path) || strings.Contains(compact.Context, done) {
		t.Fatalf("compact context (run %v) lacks the pointer %s, or carries the payload:\n%s", compact.SessionRunID, path, compact.Context)
	}
	if m, ok, err := api.ClaimBottle(ctx, agent, "s1"); ok || err != nil {
		t.Fatalf("the marker was claimable again: %+v %v", m, err)
	}
	handle(continuity.HookEvent{Kind: continuity.HookEnd, SessionID: "s1", Reason: "exit"})

	rs, err := api.Records(ctx, continuity.RecordQuery{SessionID: "s1"})
	if err != nil || len(rs) != 2 || rs[0].Kind != continuity.RecordHandover || rs[1].Kind != continuity.RecordCheckpoint || rs[1].BottlePath != path {
		t.Fatalf("records = %+v %v, want the checkpoint naming the bottle, then the handover", rs, err)
	}
	es, err := api.Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, l := range es {
		counts[l.Event]++
	}
	if counts[continuity.EventReceived] != 6 || counts[continuity.EventFailed] != 0 || counts[continuity.EventBottleArmed] != 1 || counts[continuity.EventBottleClaimed] != 1 {
		t.Errorf("ledger counts %v: want 6 receipts, no failure, the marker armed and claimed once", counts)
	}
}

// TestStopRenderFailure runs a Stop whose bottle render fails (the
// transcript path names a directory) through continuity.Episodes, locally
// and over the Client: the render runs beside the Stop call, so its failure
// is recorded after it, against the call's receipt, whether the call did
// its work or failed on its own (a session never started: the receipt
// comes back with the error).
func TestStopRenderFailure(t *testing.T) {
	ctx := context.Background()
	done := "Done; the render could not read the transcript."
	for _, tc := range []struct {
		name    string
		client  bool
		started bool
		// want are the failure lines' reasons, in order, by prefix.
		want  []string
		calls []string
	}{
		{"local, the session started", false, true, []string{"local: "}, nil},
		{"local, the session never started", false, false, []string{"not_found: ", "local: "}, nil},
		{"client, the session started", true, true, []string{"local: "}, []string{"POST /api/v1/episodes/stop", "POST /api/v1/episodes/failure"}},
		{"client, the session never started", true, false, []string{"not_found: ", "local: "}, []string{"POST /api/v1/episodes/stop", "POST /api/v1/episodes/failure"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := storetest.NewClock()
			var calls callLog
			s := newServer(t, sqltest.SQLite, clock.Now, Options{}, calls.wrap)
			var api continuity.API = s.svc.For(tenantA)
			if tc.client {
				api = s.client(keyA)
			}
			e := continuity.NewEpisodes(api, agent, t.TempDir())
			e.Now = clock.Now
			e.Bottler.Clock = testClock{clock}
			ev := func(k continuity.HookKind) continuity.HookEvent {
				return continuity.HookEvent{Kind: k, Provider: agent, ProviderEvent: string(k), SessionID: "s1", Cwd: t.TempDir()}
			}
			if tc.started {
				start := ev(continuity.HookStart)
				start.Source = continuity.SourceStartup
				if _, err := e.Handle(ctx, start); err != nil {
					t.Fatal(err)
				}
			}
			stop := ev(continuity.HookStop)
			stop.TranscriptPath, stop.LastMessage = t.TempDir(), &done
			calls.reset()
			out, err := e.Handle(ctx, stop)
			if tc.started != (err == nil) {
				t.Fatalf("Stop: %v", err)
			}
			if out.LocalFailure == "" {
				t.Fatalf("Stop's outcome %+v: want its render's failure", out)
			}
			if tc.client && !slices.Equal(calls.list(), tc.calls) {
				t.Errorf("calls %v, want %v", calls.list(), tc.calls)
			}
			es, err := s.svc.For(tenantA).Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)
			if err != nil {
				t.Fatal(err)
			}
			var receipt string
			var reasons []string
			for _, l := range es {
				switch {
				case l.Event == continuity.EventReceived && l.Fields["provider_event"] == string(continuity.HookStop):
					receipt = l.ID.String()
				case l.Event == continuity.EventFailed:
					if l.Fields["receipt"] != receipt {
						t.Errorf("failure %v names receipt %s, want the Stop's %s", l.Fields, l.Fields["receipt"], receipt)
					}
					reasons = append(reasons, l.Fields["reason"])
				}
			}
			if len(reasons) != len(tc.want) {
				t.Fatalf("failure lines %q, want %q", reasons, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(reasons[i], w) {
					t.Errorf("failure %d = %q, want it to start %q", i, reasons[i], w)
				}
			}
			if reasons[len(reasons)-1] != "local: "+out.LocalFailure {
				t.Errorf("the local failure line %q, want %q", reasons[len(reasons)-1], "local: "+out.LocalFailure)
			}
			if tc.started {
				hist, err := api.SessionHistory(ctx, agent, "s1")
				if err != nil || len(hist.StopExcerpts) != 1 || hist.StopExcerpts[0].Text != done {
					t.Errorf("history %+v %v: want the Stop's excerpt, heartbeat done beside the failed render", hist, err)
				}
			}
		})
	}
}
