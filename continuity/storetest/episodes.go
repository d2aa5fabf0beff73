package storetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/internal/gittest"
	"github.com/google/uuid"
)

// testEpisodes runs hook events through continuity.Episodes over the API
// of a real store: one call per event, the local half (bottle, git facts)
// around it.
func testEpisodes(t *testing.T, h Harness) {
	t.Run("OutageOfTheADR", func(t *testing.T) { testOutage(t, h) })
	t.Run("CompactAndClear", func(t *testing.T) { testCompactAndClear(t, h) })
	t.Run("SameIDClear", func(t *testing.T) { testSameIDClear(t, h) })
	t.Run("StopNudge", func(t *testing.T) { testStopNudge(t, h) })
	t.Run("ResumeClaimsAnOldSeal", func(t *testing.T) { testResumeClaimsAnOldSeal(t, h) })
}

// episodes returns a runner over tenant A's API with the fixture's clock
// and a bottle home of its own.
func episodes(t *testing.T, f *fixture) *continuity.Episodes {
	e := continuity.NewEpisodes(f.svc.For(tenantA), agent, t.TempDir())
	e.Now = f.clock.Now
	e.Bottler.Clock = testClock{f.clock}
	return e
}

func handle(t *testing.T, e *continuity.Episodes, ev continuity.HookEvent) continuity.HookOutcome {
	t.Helper()
	ev.Provider = "claude-code"
	if ev.ProviderEvent == "" {
		ev.ProviderEvent = string(ev.Kind)
	}
	out, err := e.Handle(context.Background(), ev)
	if err != nil {
		t.Fatalf("%s %s: %v", ev.Kind, ev.Source, err)
	}
	return out
}

// gitRepo makes a work tree with one commit and returns its directory and a
// function that commits again.
func gitRepo(t *testing.T) (string, func()) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "baton")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) { t.Helper(); gittest.Run(t, dir, args...) }
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	return dir, func() { git("commit", "-q", "--allow-empty", "-m", "more") }
}

// testOutage reproduces the episode-lifecycle ADR's outage: a task handed
// over days ago, then new sessions keep opening. Checkpoints and handovers
// are still written for every episode (task none), and the stale handover
// is shown as history, with its age, without its next action — even though
// its commit is an ancestor of HEAD (advanced), the combination that caused
// the outage.
func testOutage(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	dir, commit := gitRepo(t)
	e := episodes(t, f)
	api := f.svc.For(tenantA)

	// Day 0: a task-aware session hands its task over.
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s0", Cwd: dir})
	head := gitEpisode(t, dir)
	if _, err := api.SessionEnd(ctx, continuity.EndParams{
		EventParams: continuity.EventParams{Provider: "claude-code", ProviderEvent: "SessionEnd", Agent: agent, SessionID: "s0"},
		Episode: continuity.Episode{Task: "t-20260905034523-a9f1", Objective: "Migrate the ledger.", State: "Half the rows moved.",
			NextAction: "Continue the ledger migration from row 5000.", GitCommit: head.GitCommit, GitBranch: head.GitBranch},
	}); err != nil {
		t.Fatal(err)
	}
	commit() // work went on: the handover's commit is now an ancestor of HEAD

	// Day 3 onwards: new sessions keep opening; each is an episode.
	f.clock.Advance(3 * 24 * time.Hour)
	start := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1", Cwd: dir})
	for _, want := range []string{"## Earlier handover — history", "stale: recorded 3d ago", "git: advanced", "Task: t-20260905034523-a9f1", "Objective: Migrate the ledger."} {
		if !strings.Contains(start.Context, want) {
			t.Errorf("day 3 startup context lacks %q:\n%s", want, start.Context)
		}
	}
	if strings.Contains(start.Context, "Continue the ledger migration") {
		t.Errorf("the stale handover's next action is quoted as current:\n%s", start.Context)
	}
	// The briefing read through the API labels it the same way.
	b, err := api.Briefing(ctx, continuity.BriefingParams{Project: "baton"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Handover == nil || !b.Handover.History || b.Handover.Freshness.Label.String() != "stale" || b.Handover.Record.TaskName() != "t-20260905034523-a9f1" {
		t.Errorf("API briefing handover = %+v, want the day-0 handover as stale history", b.Handover)
	}
	if !strings.Contains(start.Context, start.SessionRunID.String()) {
		t.Errorf("startup context lacks the run id instruction:\n%s", start.Context)
	}
	last := "Moved the rest.\n\nNext: verify the row counts."
	f.clock.Advance(time.Minute)
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", Cwd: dir, LastMessage: &last})
	handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", Cwd: dir, Trigger: "auto"})
	handle(t, e, continuity.HookEvent{Kind: continuity.HookEnd, SessionID: "s1", Cwd: dir, Reason: "exit"})

	// Every episode wrote its records, with no task open.
	rs, err := api.Records(ctx, continuity.RecordQuery{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Kind != continuity.RecordHandover || rs[1].Kind != continuity.RecordCheckpoint {
		t.Fatalf("s1 records = %+v, want a checkpoint then a handover", rs)
	}
	for _, r := range rs {
		if r.TaskName() != continuity.NoTask || r.State != "Moved the rest.\n\nNext: verify the row counts." || r.NextAction != "Next: verify the row counts." ||
			r.GitCommit == "" || r.GitBranch != "main" {
			t.Errorf("s1 %s = %+v", r.Kind, r)
		}
	}

	// The next session sees s1's handover as current, next action included.
	f.clock.Advance(time.Hour)
	next := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s2", Cwd: dir})
	for _, want := range []string{"## Last handover (fresh", "git: exact", "Next action: Next: verify the row counts."} {
		if !strings.Contains(next.Context, want) {
			t.Errorf("the next startup lacks %q:\n%s", want, next.Context)
		}
	}
	// Every event left its receipt and none failed.
	es, err := api.Ledger(ctx, uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, l := range es {
		counts[l.Event]++
	}
	if counts[continuity.EventReceived] != 7 || counts[continuity.EventFailed] != 0 {
		t.Errorf("ledger counts %v: want 7 receipts and no failure", counts)
	}
}

// testHandoverSkew: the hook's clock and the clock that stamped the
// handover (a team server's, or the same host's before an NTP step)
// disagree. A handover written a moment ago is current whichever clock is
// ahead: the hook ages it at the instant of the server that answered the
// SessionStart, never on its own clock, so a hook a microsecond or minutes
// behind does not see it "in the future", invalid, its next action withheld
// as history, and a hook hours or days ahead does not see it aging or
// stale.
func scenarioHandoverSkew(t *testing.T, h ScenarioHarness) {
	for _, tc := range []struct {
		name string
		skew time.Duration // the hook's clock minus the server's
	}{
		{"same clock", 0},
		{"hook one microsecond behind", -time.Microsecond},
		{"hook one second behind", -time.Second},
		{"hook five minutes behind", -5 * time.Minute},
		{"hook one microsecond ahead", time.Microsecond},
		{"hook five minutes ahead", 5 * time.Minute},
		{"hook a fresh threshold ahead", freshness.Default.Fresh},
		{"hook a stale threshold ahead", freshness.Default.Stale},
		{"hook a year ahead", 365 * 24 * time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScene(t, h)
			e := continuity.NewEpisodes(s.a, agent, "")
			e.Now = func() time.Time { return s.clock.Now().Add(tc.skew) }
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1"})
			if _, err := s.a.SessionEnd(s.ctx, continuity.EndParams{
				EventParams: continuity.EventParams{Provider: "claude-code", ProviderEvent: "SessionEnd", Agent: agent, SessionID: "s1"},
				Episode:     continuity.Episode{Objective: "Port the sweep.", State: "Half done.", NextAction: "Port the closer next."},
			}); err != nil {
				t.Fatal(err)
			}
			// The next session starts at once, as after /exit and a new
			// terminal, or a /clear.
			next := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s2"})
			for _, want := range []string{"## Last handover (fresh", "Next action: Port the closer next."} {
				if !strings.Contains(next.Context, want) {
					t.Errorf("the startup right after the handover lacks %q:\n%s", want, next.Context)
				}
			}
		})
	}
}

func gitEpisode(t *testing.T, dir string) continuity.Episode {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return continuity.Episode{GitCommit: strings.TrimSpace(string(out)), GitBranch: "main"}
}

// testCompactAndClear: a PreCompact seals the bottle (reconstructed, the
// transcript being gone) and the compact SessionStart injects the pointer
// exactly once; a second compact falls back to the briefing; a clear
// archives the bottle and never injects it.
func testCompactAndClear(t *testing.T, h Harness) {
	f := newFixture(t, h)
	e := episodes(t, f)
	dir := t.TempDir()
	start := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1", Cwd: dir})
	handle(t, e, continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: "s1", Prompt: "Refactor the lease rules."})
	done := "Refactored the lease; every test passes."
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", LastMessage: &done})
	handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", TranscriptPath: "/nonexistent.jsonl", Trigger: "auto"})
	path, err := e.Bottler.Path("s1")
	if err != nil {
		t.Fatal(err)
	}
	compact := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceCompact, SessionID: "s1", Cwd: dir})
	if compact.SessionRunID != start.SessionRunID || !strings.Contains(compact.Context, path) || !strings.Contains(compact.Context, start.SessionRunID.String()) {
		t.Fatalf("compact context (run %v, want %v) lacks the pointer %s or the run id:\n%s", compact.SessionRunID, start.SessionRunID, path, compact.Context)
	}
	if strings.Contains(compact.Context, done) {
		t.Errorf("the pointer carries the payload:\n%s", compact.Context)
	}
	// The marker was claimed: the next compact renders on demand again
	// (still reconstructed) rather than reusing the claim.
	again := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceCompact, SessionID: "s1", Cwd: dir})
	if !strings.Contains(again.Context, path) {
		t.Errorf("a compact with no marker did not render on demand:\n%s", again.Context)
	}
	clear := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceClear, SessionID: "s1", Cwd: dir})
	if strings.Contains(clear.Context, path) {
		t.Errorf("a clear injected the bottle:\n%s", clear.Context)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the clear did not archive the bottle: %v", err)
	}
	archived, _ := filepath.Glob(filepath.Join(e.Bottler.Dir(), "archive", "*-s1.bottle"))
	if len(archived) != 1 {
		t.Errorf("archive holds %v, want one bottle of s1", archived)
	}
}

// testSameIDClear: a harness that keeps the conversation's id across a
// /clear. The bottle a later activation renders, reconstructed from the
// store (the transcript gone) or full from a transcript the harness went
// on writing under the id, holds only what followed the clear; the
// archive holds what came before it.
func testSameIDClear(t *testing.T, h Harness) {
	t.Run("a new id's clear keeps what its transcript held", func(t *testing.T) {
		// Gemini CLI's /clear: SessionStart source clear under a new id,
		// whose transcript the harness may have begun already.
		f := newFixture(t, h)
		e := episodes(t, f)
		transcript := filepath.Join(t.TempDir(), "s2.jsonl")
		if err := os.WriteFile(transcript, []byte(claudeLine("user", "Started after the clear.")+claudeLine("assistant", "Started.")), 0o600); err != nil {
			t.Fatal(err)
		}
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceClear, SessionID: "s2", TranscriptPath: transcript})
		handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s2", TranscriptPath: transcript})
		text, err := e.Bottler.Read("s2")
		if err != nil || !strings.Contains(string(text), "Started after the clear.") {
			t.Errorf("the bottle of a conversation a clear started (%v):\n%s", err, text)
		}
	})
	for _, tc := range []struct {
		name       string
		transcript bool
		then       continuity.Source
		legs       int // the bottle's after the clear: a compaction before it is none of them
	}{
		{"reconstructed, then a compact", false, continuity.SourceCompact, 2},
		{"reconstructed, then a resume", false, continuity.SourceResume, 1},
		{"from the transcript, then a compact", true, continuity.SourceCompact, 1},
		{"from the transcript, then a resume", true, continuity.SourceResume, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, h)
			e := episodes(t, f)
			transcript := "/nonexistent.jsonl"
			if tc.transcript {
				transcript = filepath.Join(t.TempDir(), "s1.jsonl")
				if err := os.WriteFile(transcript, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			turn := func(prompt, reply string) {
				t.Helper()
				f.clock.Advance(time.Second)
				handle(t, e, continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: "s1", Prompt: prompt})
				if tc.transcript {
					appendTurn(t, transcript, prompt, reply)
				}
				handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", TranscriptPath: transcript, LastMessage: &reply})
			}
			opened := f.clock.Now()
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1", TranscriptPath: transcript})
			turn("Plan the lease rules.", "Planned the lease rules.")
			handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", TranscriptPath: transcript, Trigger: "auto"})
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceCompact, SessionID: "s1", TranscriptPath: transcript})
			f.clock.Advance(time.Minute)
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceClear, SessionID: "s1", TranscriptPath: transcript})
			turn("Write the release notes.", "Wrote the release notes.")
			out := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: tc.then, SessionID: "s1", TranscriptPath: transcript})
			path, err := e.Bottler.Path("s1")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Context, path) {
				t.Fatalf("the %s after the clear points at no bottle:\n%s", tc.then, out.Context)
			}
			text, err := e.Bottler.Read("s1")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), "Write the release notes.") || strings.Contains(string(text), "lease rules") {
				t.Errorf("the bottle after the clear:\n%s", text)
			}
			// Its header reads as a conversation the clear started: not the
			// open's start, not the legs of before the clear.
			head := strings.SplitN(string(text), "\n", 3)[1]
			if strings.Contains(head, "started: "+opened.UTC().Format(time.RFC3339)) || !strings.Contains(head, fmt.Sprintf("legs: %d", tc.legs)) {
				t.Errorf("the header after the clear: %q, want a start after %v and %d legs", head, opened, tc.legs)
			}
			archived, _ := filepath.Glob(filepath.Join(e.Bottler.Dir(), "archive", "*-s1.bottle", "*"))
			var before strings.Builder
			for _, name := range archived {
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				before.Write(b)
			}
			if !strings.Contains(before.String(), "Plan the lease rules.") {
				t.Errorf("the archive %v lacks the turn before the clear:\n%s", archived, before.String())
			}
		})
	}
}

// testStopNudge: with the nudge on, the first Stops are debounced, the
// third arms and blocks with the debrief, the continuation (stop hook
// active) completes it without blocking, and nothing blocks again without
// new provenance.
func testStopNudge(t *testing.T, h Harness) {
	f := newFixture(t, h)
	e := episodes(t, f)
	e.Nudge = true
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1"})
	msg := "Done."
	var blocked []int
	for i := 1; i <= 5; i++ {
		f.clock.Advance(time.Second)
		out := handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", LastMessage: &msg, StopHookActive: i == 4})
		if out.Block {
			blocked = append(blocked, i)
			if !strings.Contains(out.Reason, out.SessionRunID.String()) {
				t.Errorf("the nudge does not name the run:\n%s", out.Reason)
			}
		}
	}
	if len(blocked) != 1 || blocked[0] != 3 {
		t.Fatalf("Stops that blocked: %v, want only the third", blocked)
	}
	v, err := f.svc.Session(context.Background(), tenantA, agent, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if v.TriageStatus != "expired" {
		t.Errorf("triage status after the continuation = %s, want expired (no writes since begin)", v.TriageStatus)
	}
}

// claudeLine is a Claude Code transcript line of conversation s1: a user
// prompt (kind "user") or an assistant's text.
func claudeLine(kind, text string) string {
	if kind == "user" {
		return fmt.Sprintf(`{"type":"user","sessionId":"s1","message":{"role":"user","content":%q}}`+"\n", text)
	}
	return fmt.Sprintf(`{"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}]}}`+"\n", "m-"+text, text)
}

// appendTurn appends a turn, the prompt and the reply, to the transcript
// at path, as the harness writes it.
func appendTurn(t *testing.T, path, prompt, reply string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fh.WriteString(claudeLine("user", prompt) + claudeLine("assistant", reply))
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}
