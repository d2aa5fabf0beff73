//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/triage"
)

// claudeRunTimeout bounds one `claude -p` run.
const claudeRunTimeout = 3 * time.Minute

// claudeModel is the fake model's side of the Claude Code scenario.
type claudeModel struct {
	*anthropicAPI
	// decision is the content the model records through its Bash tool.
	decision string

	mu sync.Mutex
	// answers are the texts the model answered in the agent loop, in order.
	answers []string
}

// The prompt words the fake model reacts to.
const (
	// rememberWord makes the model record a decision with `baton remember
	// --session-run ID`, the id read from its own context.
	rememberWord = "REMEMBER-NOW"
	// summaryAsk is in the request Claude Code compacts with.
	summaryAsk = "create a detailed summary"
)

func newClaudeModel(t *testing.T, decision string) *claudeModel {
	m := &claudeModel{decision: decision}
	m.anthropicAPI = newAnthropicAPI(t, m.reply)
	return m
}

func (m *claudeModel) reply(r *request) claudeReply {
	turn := lastUserTurn(r)
	switch {
	case strings.Contains(turn.Text, summaryAsk):
		// The blocks the compaction prompt asks for: a summary without them
		// makes Claude Code 2.1.328 ask a second time.
		return claudeReply{Kind: "compact", Text: fmt.Sprintf("<analysis>FAKE-ANALYSIS %d</analysis>\n<summary>FAKE-SUMMARY %d: the user asked to record a decision; it was recorded.</summary>", r.Seq, r.Seq)}
	case !hasTools(r):
		return claudeReply{Kind: "side", Text: "FAKE-SIDE"}
	case turn.ToolResult:
		return m.answer(r, "after-tool", "FAKE-ANSWER %d: the decision is recorded.")
	case strings.Contains(turn.Text, rememberWord):
		run := runIDPattern.FindStringSubmatch(r.allText())
		if run == nil {
			return m.answer(r, "no-run-id", "FAKE-ANSWER %d: no sessionRunId in my context.")
		}
		return claudeReply{Kind: "remember", Text: "I'll record it.",
			Command: fmt.Sprintf("baton remember --kind decision --topic e2e --session-run %s %q", run[1], m.decision)}
	}
	return m.answer(r, "text", "FAKE-ANSWER %d: nothing more to do.")
}

func (m *claudeModel) answer(r *request, kind, format string) claudeReply {
	text := fmt.Sprintf(format, r.Seq)
	m.mu.Lock()
	m.answers = append(m.answers, text)
	m.mu.Unlock()
	return claudeReply{Kind: kind, Text: text}
}

// agentLoop returns the requests of the agent loop (those offering tools),
// compaction requests excluded.
func agentLoop(reqs []*request) []*request {
	var out []*request
	for _, r := range reqs {
		if r.Path == "/v1/messages" && hasTools(r) && r.Kind != "compact" {
			out = append(out, r)
		}
	}
	return out
}

// claudeResult is what `claude -p --output-format json` prints.
type claudeResult struct {
	SessionID string `json:"session_id"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
}

// claudeRun runs `claude -p PROMPT` in the world against the fake model,
// resuming sessionID when it is set, and returns the session id.
func (w *world) claudeRun(bin string, m *claudeModel, sessionID, prompt string, extraEnv ...string) string {
	w.t.Helper()
	env := append([]string{
		"ANTHROPIC_BASE_URL=" + m.URL(), "ANTHROPIC_API_KEY=sk-ant-e2e-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1",
	}, extraEnv...)
	args := []string{"-p", prompt, "--output-format", "json", "--allowedTools", "Bash"}
	if sessionID != "" {
		args = append(args, "--resume", sessionID)
	}
	out := w.must(w.run(claudeRunTimeout, env, bin, args...))
	var res claudeResult
	if err := json.Unmarshal([]byte(lastLine(out)), &res); err != nil || res.SessionID == "" {
		w.t.Fatalf("claude -p printed no result with a session_id (%v): %s", err, tail(out, 1000))
	}
	if res.IsError {
		w.t.Fatalf("claude -p reported an error: %s", res.Result)
	}
	if sessionID != "" && res.SessionID != sessionID {
		w.t.Fatalf("claude --resume %s continued session %s", sessionID, res.SessionID)
	}
	return res.SessionID
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestE2EClaudeCode drives the real Claude Code through one conversation
// of four `claude -p` runs, with baton installed as its hooks:
//
//  1. startup: the briefing and the run id reach the model; the model runs
//     `baton remember --session-run ID` through Bash and the write is
//     attributed to that run; a Stop; SessionEnd closes and hands over.
//  2. --resume with BATON_STOP_NUDGE=1: the epoch advances; the Stop nudge's
//     reason reaches the next request exactly once.
//  3. `/compact` on --resume: PreCompact seals the bottle (verbatim turns,
//     no <private> content) and the compact SessionStart claims it.
//  4. --resume: the compact SessionStart's pointer reaches the request.
func TestE2EClaudeCode(t *testing.T) {
	claudeCodeScenario(t, requireClient(t, claudeClient), nil)
}

// TestE2EClaudeCodeTeamServer is TestE2EClaudeCode in team-server mode:
// `baton serve` on Postgres, and every baton process of the world (the
// hooks, the model's `baton remember`) with BATON_SERVER_URL and
// BATON_API_KEY. The assertions read the server's state through the HTTP
// client; the bottles are still rendered in the world's BATON_HOME, where
// the transcripts are, which never holds a store.
func TestE2EClaudeCodeTeamServer(t *testing.T) {
	bin := requireClient(t, claudeClient)
	claudeCodeScenario(t, bin, requirePostgres(t))
}

// claudeCodeScenario runs the Claude Code scenario of TestE2EClaudeCode
// against the local store, or, when teamDSN names a Postgres database,
// against `baton serve` on a fresh schema of it.
func claudeCodeScenario(t *testing.T, bin string, teamDSN *string) {
	w := newWorld(t)
	if teamDSN != nil {
		w.serveTeam(*teamDSN)
	}
	ctx := context.Background()

	commitment := marker("E2E-COMMITMENT")
	w.runBaton("remember", "--kind", "commitment", "--topic", "e2e", commitment)
	w.install("claude-code", filepath.Join(w.home, ".claude", "settings.json"))

	decision := marker("E2E-DECISION")
	secret := marker("E2E-SECRET")
	m := newClaudeModel(t, decision)

	// 1. startup, the write through Bash, a Stop, the end.
	prompt1 := rememberWord + " please record the decision we took. <private>" + secret + "</private> Thanks."
	sid := w.claudeRun(bin, m, "", prompt1)
	api := w.store()
	entries := ledger(t, api)
	if f := failures(entries); len(f) > 0 {
		t.Errorf("the hooks recorded failures: %q", f)
	}
	_, agents := sessionsOf(entries)
	agent := agents[sid]
	if agent == "" {
		t.Fatalf("no receipt names Claude Code's session %s: did the installed hooks run? ledger: %v", sid, entries)
	}
	row := session(t, api, agent, sid)
	run := row.ID.String()
	loop := agentLoop(m.requests())
	if len(loop) != 2 {
		t.Fatalf("run 1: %d agent-loop requests, want 2 (the Bash call, the answer after it; no nudge without BATON_STOP_NUDGE)", len(loop))
	}
	t.Logf("run 1: session %s, agent %s, run %s; %d agent-loop requests", sid, agent, run, len(loop))
	if !loop[0].contains(commitment) {
		t.Errorf("run 1: the briefing (open commitment %s) did not reach the model's first request", commitment)
	}
	if got := runIDPattern.FindStringSubmatch(loop[0].allText()); got == nil || got[1] != run {
		t.Errorf("run 1: the first request carries sessionRunId %v, want %s", got, run)
	}
	if !lastUserTurn(loop[1]).ToolResult {
		t.Errorf("run 1: the second request carries no tool result: the Bash call did not run")
	}
	page, err := api.RunEvents(ctx, run, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 1 || page.Items[0].SessionRunID != row.ID {
		t.Fatalf("run 1: the run's provenance is %+v, want the one write the model made through Bash", page.Items)
	}
	mem, err := api.Memory(ctx, page.Items[0].MemoryID.String())
	if err != nil {
		t.Fatal(err)
	}
	if mem.Content != decision || mem.Kind != continuity.KindDecision {
		t.Errorf("run 1: the attributed memory is %s %q, want decision %q", mem.Kind, mem.Content, decision)
	}
	wantEvents(t, "run 1", receipts(entries, sid), "SessionStart", "Stop", "SessionEnd")
	if row.ClosedAt == nil || row.ActivationEpoch != 1 || row.StopCount < 1 {
		t.Errorf("run 1: row closed=%v epoch=%d stops=%d, want closed, epoch 1, at least one Stop", row.ClosedAt, row.ActivationEpoch, row.StopCount)
	}
	if hs := records(t, api, agent, sid, continuity.RecordHandover); len(hs) != 1 {
		t.Errorf("run 1: %d handovers, want 1 written at SessionEnd", len(hs))
	}

	// 2. resume with the nudge on: its reason reaches the next request once.
	before := len(m.requests())
	w.claudeRun(bin, m, sid, "Anything else to settle?", "BATON_STOP_NUDGE=1")
	row = session(t, api, agent, sid)
	if row.ActivationEpoch != 2 || row.ID.String() != run {
		t.Errorf("run 2 (resume): epoch %d run %s, want epoch 2 on run %s", row.ActivationEpoch, row.ID, run)
	}
	nudge := firstLine(triage.Debrief(triage.DebriefInput{}))
	loop = agentLoop(m.since(before))
	if len(loop) != 2 {
		t.Fatalf("run 2: %d agent-loop requests, want 2 (the answer, the answer to the nudge)", len(loop))
	}
	if lastUserTurn(loop[0]).Text == "" || strings.Contains(lastUserTurn(loop[0]).Text, nudge) {
		t.Errorf("run 2: the first request's last user turn already carries the nudge")
	}
	t.Logf("run 2: epoch %d; the turn after the Stop: %q", row.ActivationEpoch, tail(lastUserTurn(loop[1]).Text, 300))
	if got := strings.Count(lastUserTurn(loop[1]).Text, nudge); got != 1 {
		t.Errorf("run 2: the nudge's reason is %d times in the last user turn of the request after the Stop, want once:\n%s",
			got, lastUserTurn(loop[1]).Text)
	}
	entries = ledger(t, api)
	if n := countEvents(entries, sid, continuity.EventTriageArmed); n != 1 {
		t.Errorf("run 2: triage armed %d times, want once", n)
	}

	// 3. /compact on --resume: PreCompact seals, the compact SessionStart claims.
	before = len(m.requests())
	w.claudeRun(bin, m, sid, "/compact")
	if !slices.ContainsFunc(m.since(before), func(r *request) bool { return r.Kind == "compact" }) {
		t.Fatalf("run 3: /compact sent no compaction request")
	}
	entries = ledger(t, api)
	wantEvents(t, "run 3", receipts(entries, sid), "SessionStart", "PreCompact", "SessionStart", "SessionEnd")
	if n := countEvents(entries, sid, continuity.EventBottleArmed); n < 1 {
		t.Errorf("run 3: PreCompact armed no bottle marker")
	}
	if n := countEvents(entries, sid, continuity.EventBottleClaimed); n != 1 {
		t.Errorf("run 3: the bottle marker was claimed %d times, want once (by the compact SessionStart)", n)
	}
	cps := records(t, api, agent, sid, continuity.RecordCheckpoint)
	if len(cps) != 1 || cps[0].BottlePath == "" {
		t.Fatalf("run 3: checkpoints %+v, want one naming the sealed bottle", cps)
	}
	bottlePath := cps[0].BottlePath
	t.Logf("run 3: checkpoint %s names the bottle %s", cps[0].ID, bottlePath)
	compactContext := hookOutput(t, w.home, sid, "SessionStart:compact")
	if !strings.Contains(compactContext, bottlePath) {
		t.Errorf("run 3: the compact SessionStart's output does not point at the bottle %s: %q", bottlePath, compactContext)
	}

	// 4. the next request after the compaction carries the pointer.
	before = len(m.requests())
	w.claudeRun(bin, m, sid, "What next?")
	loop = agentLoop(m.since(before))
	if len(loop) == 0 {
		t.Fatal("run 4: no agent-loop request")
	}
	if got := bottlePointer.FindAllStringSubmatch(loop[0].allText(), -1); !slices.ContainsFunc(got, func(g []string) bool { return g[1] == bottlePath }) {
		t.Errorf("run 4: the first request after the compaction points at %v, want the sealed bottle %s", got, bottlePath)
	}
	row = session(t, api, agent, sid)
	t.Logf("run 4: epoch %d, compactions %d, closed %v", row.ActivationEpoch, row.Compactions, row.ClosedAt != nil)
	if row.ActivationEpoch != 4 || row.ClosedAt == nil || row.Compactions != 1 {
		t.Errorf("run 4: epoch %d closed %v compactions %d, want epoch 4, closed, one compaction", row.ActivationEpoch, row.ClosedAt, row.Compactions)
	}
	if hs := records(t, api, agent, sid, continuity.RecordHandover); len(hs) != 4 {
		t.Errorf("after run 4: %d handovers, want one per SessionEnd (4)", len(hs))
	}

	// The bottle holds the verbatim turns and no private content; nor does
	// the database.
	bottle := readBottle(t, bottlePath)
	m.mu.Lock()
	answers := slices.Clone(m.answers)
	m.mu.Unlock()
	for _, want := range append([]string{rememberWord + " please record the decision we took.", "Anything else to settle?"}, answers[:3]...) {
		if !strings.Contains(bottle, want) {
			t.Errorf("the bottle lacks the verbatim turn %q", want)
		}
	}
	if strings.Contains(bottle, secret) {
		t.Errorf("the bottle holds the <private> content")
	}
	if hits := filesContaining(t, w.batonHome, secret); len(hits) > 0 {
		t.Errorf("baton's home holds the <private> content in %v", hits)
	}
	if w.team != nil {
		if _, err := os.Stat(filepath.Join(w.batonHome, "baton.db")); err == nil {
			t.Errorf("team-server mode: a baton process opened a local store in BATON_HOME")
		}
		w.team.stop()
		logs := w.team.log.String()
		for _, content := range []string{secret, decision, commitment, rememberWord} {
			if strings.Contains(logs, content) {
				t.Errorf("team-server mode: the server's log holds content %q", content)
			}
		}
		for _, want := range []string{`route="POST /api/v1/episodes/start" status=200`, `route="POST /api/v1/episodes/stop" status=200`,
			`route="POST /api/v1/episodes/end" status=200`, `route="POST /api/v1/memories" status=201`, "store=postgres"} {
			if !strings.Contains(logs, want) {
				t.Errorf("team-server mode: the server's log lacks %q", want)
			}
		}
	}
}

// wantEvents checks that got holds want as a subsequence.
func wantEvents(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("%s: the received events %v do not include %v in order", what, got, want)
	}
}

// countEvents counts the session's ledger lines of an event.
func countEvents(entries []continuity.LedgerEntry, sessionID, event string) int {
	n := 0
	for _, e := range entries {
		if e.Session == sessionID && e.Event == event {
			n++
		}
	}
	return n
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// hookOutput returns what the named hook (for example
// "SessionStart:compact") printed, as Claude Code recorded it in the
// session's transcript.
func hookOutput(t *testing.T, home, sessionID, hookName string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", sessionID+".jsonl"))
	if len(paths) != 1 {
		t.Fatalf("Claude Code's transcript of %s: found %v", sessionID, paths)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var outs []string
	for sc.Scan() {
		var line struct {
			Attachment struct {
				HookName string `json:"hookName"`
				Stdout   string `json:"stdout"`
			} `json:"attachment"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Attachment.HookName == hookName {
			outs = append(outs, line.Attachment.Stdout)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(outs, "\n")
}
