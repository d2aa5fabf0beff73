package storetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// testResumeClaimsAnOldSeal: a marker is claimed by the SessionStart after
// its seal, which for Gemini CLI's /compress (no compact SessionStart) is
// the next resume, turns later, the provisional PreCompacts of every turn
// between leaving it armed. The pointer then says what the bottle holds at
// the resume: the last prompt is the current task, never the one of the
// seal, and the turns that reached no Stop (the CLI killed) are rendered
// before the pointer names the bottle. A compact right after its seal
// points at what the seal wrote.
func testResumeClaimsAnOldSeal(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name     string
		turns    int  // turns after the seal
		lastStop bool // the last of them reached its Stop
		then     continuity.Source
		task     string // the pointer's current task
	}{
		{"a resume turns after the seal", 4, true, continuity.SourceResume, "Step 3 of the release."},
		{"a resume whose last turn reached no Stop", 4, false, continuity.SourceResume, "Step 3 of the release."},
		{"a resume right after the seal", 0, true, continuity.SourceResume, "Plan the lease rules."},
		{"a compact right after the seal", 0, true, continuity.SourceCompact, "Plan the lease rules."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, h)
			e := episodes(t, f)
			transcript := filepath.Join(t.TempDir(), "s1.jsonl")
			if err := os.WriteFile(transcript, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			turn := func(prompt, reply string, stop bool) {
				t.Helper()
				f.clock.Advance(time.Second)
				handle(t, e, continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: "s1", Prompt: prompt})
				appendTurn(t, transcript, prompt, reply)
				if stop {
					handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", TranscriptPath: transcript, Trigger: "auto", Provisional: true})
					handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", TranscriptPath: transcript, LastMessage: &reply})
				}
			}
			handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1", TranscriptPath: transcript})
			turn("Plan the lease rules.", "Planned the lease rules.", true)
			handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", TranscriptPath: transcript, Trigger: "manual"})
			for i := range tc.turns {
				turn(fmt.Sprintf("Step %d of the release.", i), fmt.Sprintf("Did step %d.", i), i < tc.turns-1 || tc.lastStop)
			}
			out := handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: tc.then, SessionID: "s1", TranscriptPath: transcript})
			path, err := e.Bottler.Path("s1")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Context, path) {
				t.Fatalf("the %s points at no bottle:\n%s", tc.then, out.Context)
			}
			if want := "Current task: " + tc.task + "\n"; !strings.Contains(out.Context, want) {
				t.Errorf("the %s's pointer lacks %q:\n%s", tc.then, want, out.Context)
			}
			text, err := e.Bottler.Read("s1")
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.turns {
				if want := fmt.Sprintf("Did step %d.", i); !strings.Contains(string(text), want) {
					t.Errorf("the bottle the %s points at lacks %q:\n%s", tc.then, want, text)
				}
			}
			if m, ok, err := f.svc.For(tenantA).ClaimBottle(t.Context(), agent, "s1"); ok || err != nil {
				t.Errorf("the marker was claimable again: %+v %v", m, err)
			}
		})
	}
}
