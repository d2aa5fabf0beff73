//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/triage"
)

// geminiRunTimeout bounds one `gemini -p` run.
const geminiRunTimeout = 3 * time.Minute

// geminiSettings is the part of ~/.gemini/settings.json the test owns: API
// key auth (with GOOGLE_GEMINI_BASE_URL set the CLI would otherwise pick
// the gateway auth, which headless mode rejects), nothing sent home.
// baton install adds its hooks to it.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false}
}
`

// newGeminiModel is the fake model's side of the Gemini scenario: a prompt
// with rememberWord makes it record a decision through the shell tool with
// the sessionRunId read from its context.
func newGeminiModel(t *testing.T, decision string) *geminiAPI {
	return newGeminiAPI(t, func(r *request) geminiReply {
		turn := lastGeminiUser(r)
		switch {
		case turn.Response:
			return geminiReply{Kind: "after-tool", Text: fmt.Sprintf("FAKE-ANSWER %d: the decision is recorded.", r.Seq)}
		case strings.Contains(turn.Text, rememberWord):
			run := runIDPattern.FindStringSubmatch(r.allText())
			if run == nil {
				return geminiReply{Kind: "no-run-id", Text: fmt.Sprintf("FAKE-ANSWER %d: no sessionRunId in my context.", r.Seq)}
			}
			return geminiReply{Kind: "remember",
				Command: fmt.Sprintf("baton remember --kind decision --topic e2e --session-run %s %q", run[1], decision)}
		}
		return geminiReply{Kind: "text", Text: fmt.Sprintf("FAKE-ANSWER %d: nothing more to do.", r.Seq)}
	})
}

// geminiRun runs `gemini -p PROMPT --yolo [args...]` in the world against
// the fake model.
func (w *world) geminiRun(bin string, m *geminiAPI, extraEnv []string, prompt string, args ...string) {
	w.t.Helper()
	env := append([]string{"GEMINI_API_KEY=e2e-fake", "GOOGLE_GEMINI_BASE_URL=" + m.URL(), "GEMINI_CLI_TRUST_WORKSPACE=true"}, extraEnv...)
	w.must(w.run(geminiRunTimeout, env, bin, append([]string{"-p", prompt, "--yolo"}, args...)...))
}

// The interactive CLI's input prompt, and what it shows while it is not
// ready for input (starting, resuming, running a hook).
const geminiInputPrompt = "Type your message"

var geminiBusy = []string{"Initializing", "Resuming session", "Executing Hook"}

// terminal starts the interactive Gemini CLI on a pseudo-terminal in the
// world against the fake model; what it printed is in the failure log.
func (w *world) terminal(bin string, m *geminiAPI, args ...string) *terminal {
	w.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = w.project
	// CI=true (or GITHUB_ACTIONS=true) makes Gemini CLI headless even on a
	// terminal; .ci/run runs with CI=true.
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "GITHUB_ACTIONS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GEMINI_API_KEY=e2e-fake", "GOOGLE_GEMINI_BASE_URL="+m.URL(),
		"GEMINI_CLI_TRUST_WORKSPACE=true", "TERM=xterm-256color")
	term, err := startTerminal(cmd)
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		_ = term.close(0)
		if w.t.Failed() {
			w.t.Logf("the interactive %s %s printed:\n%s", filepath.Base(bin), strings.Join(args, " "), tail(term.text(), 6000))
		}
	})
	return term
}

// waitStore polls cond (a read of the store) every 200 ms until it holds,
// failing the test after geminiRunTimeout.
func waitStore(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(geminiRunTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: not in the store after %s", what, geminiRunTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// countOf counts the occurrences of s in list.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// turns returns the streamed turn requests among reqs.
func turns(reqs []*request) []*request {
	var out []*request
	for _, r := range reqs {
		if strings.HasSuffix(r.Path, ":streamGenerateContent") {
			out = append(out, r)
		}
	}
	return out
}

// TestE2EGemini drives the real Gemini CLI headless with baton installed as
// its hooks: the briefing reaches the first request; with
// BATON_STOP_NUDGE=1, after the model recorded a decision through the shell
// tool, the AfterAgent nudge continues the turn exactly once; PreCompress
// (auto), which fires on every turn, arms no bottle marker; then `/clear`,
// typed in the interactive CLI on the resumed conversation, closes it and
// starts a new session row.
func TestE2EGemini(t *testing.T) {
	bin := requireClient(t, geminiClient)
	w := newWorld(t)
	ctx := context.Background()

	commitment := marker("E2E-COMMITMENT")
	w.runBaton("remember", "--kind", "commitment", "--topic", "e2e", commitment)
	settings := filepath.Join(w.home, ".gemini", "settings.json")
	w.writeFile(settings, geminiSettings)
	w.install("gemini", settings)
	decision := marker("E2E-DECISION")
	m := newGeminiModel(t, decision)

	// 1. startup with the nudge on.
	w.geminiRun(bin, m, []string{"BATON_STOP_NUDGE=1"}, rememberWord+" please record the decision we took.")
	api := w.store()
	entries := ledger(t, api)
	if f := failures(entries); len(f) > 0 {
		t.Errorf("the hooks recorded failures: %q", f)
	}
	ids, agents := sessionsOf(entries)
	if len(ids) != 1 || agents[ids[0]] == "" {
		t.Fatalf("run 1: the receipts name sessions %v, want the one conversation: did the installed hooks run? ledger: %v", ids, entries)
	}
	sid, agent := ids[0], agents[ids[0]]
	row := session(t, api, agent, sid)
	run := row.ID.String()
	ts := turns(m.requests())
	t.Logf("run 1: session %s, agent %s, run %s; %d turn requests", sid, agent, run, len(ts))
	if len(ts) != 3 {
		t.Fatalf("run 1: %d turn requests, want 3 (the shell call, the answer after it, the answer to the nudge)", len(ts))
	}
	if !ts[0].contains(commitment) {
		t.Errorf("run 1: the briefing (open commitment %s) did not reach the first request", commitment)
	}
	if got := runIDPattern.FindStringSubmatch(ts[0].allText()); got == nil || got[1] != run {
		t.Errorf("run 1: the first request carries sessionRunId %v, want %s", got, run)
	}
	page, err := api.RunEvents(ctx, run, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 {
		t.Fatalf("run 1: the run's provenance is %+v, want the one write the model made through the shell tool", page.Items)
	}
	nudge := firstLine(triage.Debrief(triage.DebriefInput{}))
	for i, r := range ts {
		got := strings.Count(lastGeminiUser(r).Text, nudge)
		want := 0
		if i == 2 {
			want = 1
		}
		if got != want {
			t.Errorf("run 1: turn request %d carries the nudge %d times in its last user content, want %d", i+1, got, want)
		}
	}
	if n := countEvents(entries, sid, continuity.EventTriageArmed); n != 1 {
		t.Errorf("run 1: triage armed %d times, want once", n)
	}
	wantEvents(t, "run 1", receipts(entries, sid), "SessionStart", "PreCompress", "AfterAgent", "AfterAgent", "SessionEnd")
	if n := countEvents(entries, sid, continuity.EventBottleArmed); n != 0 {
		t.Errorf("run 1: PreCompress(auto) with no compaction armed %d bottle markers, want none", n)
	}
	if row.ClosedAt == nil {
		t.Errorf("run 1: the row is open after SessionEnd")
	}

	// 2. /clear, typed in the interactive CLI on the resumed conversation:
	// it ends that conversation and starts a new session row. (Headless,
	// `gemini -p /clear` runs no command once a SessionStart hook added
	// context: the context is prepended to the prompt, which then no
	// longer starts with a slash.)
	term := w.terminal(bin, m, "--resume", "latest")
	idle := func() {
		t.Helper()
		if err := term.waitIdle(geminiInputPrompt, geminiBusy, geminiRunTimeout); err != nil {
			t.Fatal(err)
		}
	}
	waitStore(t, "the resume's SessionStart", func() bool {
		v, err := api.Session(ctx, agent, sid)
		return err == nil && v.ActivationEpoch == 2
	})
	idle()
	if err := term.command("/clear", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	waitStore(t, "the clear's SessionStart", func() bool {
		ids, agents := sessionsOf(ledger(t, api))
		if len(ids) < 2 {
			return false
		}
		_, err := api.Session(ctx, agents[ids[1]], ids[1])
		return err == nil
	})
	idle()
	if err := term.command("/quit", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := term.close(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	entries = ledger(t, api)
	ids, agents = sessionsOf(entries)
	if len(ids) != 2 || ids[0] != sid {
		t.Fatalf("run 2: the receipts name sessions %v, want %s and the one /clear started", ids, sid)
	}
	cleared := ids[1]
	t.Logf("run 2: /clear ended %s and started %s (lines typed again: %d)", sid, cleared, term.retyped)
	if got := receipts(entries, cleared); len(got) == 0 || got[0] != "SessionStart" {
		t.Errorf("run 2: the cleared session's events are %v, want them to begin with SessionStart", got)
	}
	fresh := session(t, api, agents[cleared], cleared)
	if fresh.ID == row.ID || fresh.ActivationEpoch != 1 {
		t.Errorf("run 2: /clear left run %s epoch %d, want a new row (not %s) at epoch 1", fresh.ID, fresh.ActivationEpoch, row.ID)
	}
	if old := session(t, api, agent, sid); old.ClosedAt == nil || old.ActivationEpoch != 2 {
		t.Errorf("run 2: the cleared conversation is closed=%v at epoch %d, want closed at epoch 2 (resumed, then ended by /clear)", old.ClosedAt != nil, old.ActivationEpoch)
	}
	if n := countOf(receipts(entries, sid), "SessionEnd"); n < 2 {
		t.Errorf("run 2: %s received %d SessionEnds, want the exit of run 1 and the /clear", sid, n)
	}
}
