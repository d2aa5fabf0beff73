//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// codexRunTimeout bounds one `codex exec` run.
const codexRunTimeout = 3 * time.Minute

// The Codex auto-compaction recipe: a limit the fake model's reported usage
// crosses once, in a context window large enough for Codex to accept it.
const (
	codexCompactLimit = 200000
	codexWindow       = 1000000
	codexHighTokens   = 300000
)

// codexCompactAsk is in the request Codex compacts with.
const codexCompactAsk = "CONTEXT CHECKPOINT COMPACTION"

// toolWord makes the fake model call the shell tool once.
const toolWord = "RUN_TOOL"

// codexModel is the fake model's side of the Codex scenario.
type codexModel struct {
	*responsesAPI
	// overflow is how many more answers report more tokens than the
	// auto-compaction limit.
	overflow atomic.Int32
}

func newCodexModel(t *testing.T) *codexModel {
	m := &codexModel{}
	m.responsesAPI = newResponsesAPI(t, m.reply)
	return m
}

func (m *codexModel) reply(r *request) codexReply {
	last, toolDone := codexLastUser(r)
	if strings.Contains(last, codexCompactAsk) {
		return codexReply{Kind: "compact", Text: fmt.Sprintf("FAKE-SUMMARY %d of the conversation so far.", r.Seq), InputTokens: 100}
	}
	tokens := 0
	if m.overflow.Add(-1) >= 0 {
		tokens = codexHighTokens
	}
	if strings.Contains(last, toolWord) && !toolDone {
		return codexReply{Kind: "tool", Command: "echo hi", InputTokens: tokens}
	}
	return codexReply{Kind: "text", Text: fmt.Sprintf("FAKE-ANSWER %d: done.", r.Seq), InputTokens: tokens}
}

// codexConfig is the part of ~/.codex/config.toml the test owns: the fake
// model as the provider, no approvals. baton install adds its trust
// entries to it.
func codexConfig(baseURL string) string {
	return `model_provider = "mock"
model = "gpt-5"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "` + baseURL + `/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
`
}

// codexRun runs `codex exec --json [-c ...] [resume ID] PROMPT` and returns
// the thread id it reports.
func (w *world) codexRun(bin string, config []string, resume, prompt string) string {
	w.t.Helper()
	args := []string{"exec", "--json"}
	for _, c := range config {
		args = append(args, "-c", c)
	}
	if resume != "" {
		args = append(args, "resume", resume)
	}
	args = append(args, prompt)
	out := w.must(w.run(codexRunTimeout, []string{"MOCK_API_KEY=e2e-fake"}, bin, args...))
	thread := ""
	for _, line := range strings.Split(out, "\n") {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "thread.started" {
			thread = ev.ThreadID
		}
	}
	if thread == "" {
		w.t.Fatalf("codex exec --json reported no thread.started: %s", tail(out, 1000))
	}
	return thread
}

// TestE2ECodex drives the real Codex CLI with baton installed as its hooks
// (hooks.json and the config.toml trust entries without which Codex skips
// them silently): a startup whose briefing reaches the model, then a resume
// whose turn crosses the auto-compaction limit, after which the bottle's
// pointer reaches the model.
func TestE2ECodex(t *testing.T) {
	bin := requireClient(t, codexClient)
	w := newWorld(t)

	commitment := marker("E2E-COMMITMENT")
	w.runBaton("remember", "--kind", "commitment", "--topic", "e2e", commitment)
	m := newCodexModel(t)
	codexHome := filepath.Join(w.home, ".codex")
	w.writeFile(filepath.Join(codexHome, "config.toml"), codexConfig(m.URL()))
	w.install("codex", filepath.Join(codexHome, "hooks.json"), filepath.Join(codexHome, "config.toml"))

	// 1. startup: the installed hooks run and the briefing reaches the model.
	sid := w.codexRun(bin, nil, "", "Hello, where do we stand?")
	api := w.store()
	entries := ledger(t, api)
	if f := failures(entries); len(f) > 0 {
		t.Errorf("the hooks recorded failures: %q", f)
	}
	_, agents := sessionsOf(entries)
	agent := agents[sid]
	if agent == "" {
		t.Fatalf("no receipt names Codex's session %s: the installed hooks did not run (trust entries?); ledger: %v", sid, entries)
	}
	wantEvents(t, "run 1", receipts(entries, sid), "SessionStart", "Stop", "SessionEnd")
	row := session(t, api, agent, sid)
	run := row.ID.String()
	reqs := m.requests()
	first := slices.IndexFunc(reqs, func(r *request) bool { return r.Kind == "text" || r.Kind == "tool" })
	if first < 0 {
		t.Fatal("run 1: no sampling request reached the fake model")
	}
	dev := developerText(reqs[first])
	t.Logf("run 1: thread %s, agent %s, run %s", sid, agent, run)
	if !strings.Contains(dev, commitment) {
		t.Errorf("run 1: the briefing (open commitment %s) is not in the first request's developer messages", commitment)
	}
	if got := runIDPattern.FindStringSubmatch(dev); got == nil || got[1] != run {
		t.Errorf("run 1: the first request's developer messages carry sessionRunId %v, want %s", got, run)
	}

	// 2. resume; the tool call's answer crosses the limit: Codex compacts
	// mid-turn, and the compact SessionStart re-injects the bottle pointer.
	before := len(m.requests())
	m.overflow.Store(1)
	config := []string{fmt.Sprintf("model_auto_compact_token_limit=%d", codexCompactLimit), fmt.Sprintf("model_context_window=%d", codexWindow)}
	if got := w.codexRun(bin, config, sid, toolWord+" and carry on."); got != sid {
		t.Fatalf("codex exec resume %s continued thread %s", sid, got)
	}
	after := m.since(before)
	compaction := slices.IndexFunc(after, func(r *request) bool { return r.Kind == "compact" })
	if compaction < 0 || compaction == len(after)-1 {
		t.Fatalf("run 2: no compaction request followed by a sampling request (requests: %d)", len(after))
	}
	entries = ledger(t, api)
	wantEvents(t, "run 2", receipts(entries, sid), "SessionStart", "PreCompact", "SessionStart", "Stop", "SessionEnd")
	if n := countEvents(entries, sid, continuity.EventBottleClaimed); n != 1 {
		t.Errorf("run 2: the bottle marker was claimed %d times, want once (by the compact SessionStart)", n)
	}
	cps := records(t, api, agent, sid, continuity.RecordCheckpoint)
	if len(cps) != 1 || cps[0].BottlePath == "" {
		t.Fatalf("run 2: checkpoints %+v, want one naming the sealed bottle", cps)
	}
	next := after[compaction+1]
	t.Logf("run 2: %d requests, the compaction is #%d; the checkpoint names %s", len(after), after[compaction].Seq, cps[0].BottlePath)
	got := bottlePointer.FindAllStringSubmatch(developerText(next), -1)
	if !slices.ContainsFunc(got, func(g []string) bool { return g[1] == cps[0].BottlePath }) {
		t.Errorf("run 2: the first request after the compaction points at %v, want the sealed bottle %s", got, cps[0].BottlePath)
	}
	row = session(t, api, agent, sid)
	if row.ActivationEpoch != 2 || row.Compactions != 1 || row.ClosedAt == nil {
		t.Errorf("run 2: epoch %d compactions %d closed %v, want epoch 2, one compaction, closed", row.ActivationEpoch, row.Compactions, row.ClosedAt)
	}
}
