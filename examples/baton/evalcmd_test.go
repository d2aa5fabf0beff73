package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/batonhq/baton/continuity/judge/eval"
)

// shippedSet is the labelled set the repository ships.
var shippedSet = filepath.Join("..", "..", "continuity", "judge", "eval", "testdata", "sessions")

func TestEvalReference(t *testing.T) {
	out, stderr, status := run(t, testEnv(t), []string{"eval", shippedSet})
	if status != exitOK || stderr != "" {
		t.Fatalf("status %d: %s", status, stderr)
	}
	wantLines(t, out,
		"judge reference over 18 sessions: 33 commitments briefed, 12 labelled completed, 11 resolved, 0 failed",
		"commitment recall      83.3% (10/12)  > 0%   PASS",
		"overall recall         72.2% (13/18)  > 26%  PASS",
		"spurious-resolve rate  9.1% (1/11)    <= 5%  FAIL",
		"duplicate rate         0.0% (0/11)    <= 5%  PASS",
		"misreported: 1 spurious",
	)
}

// wantLines asserts that out holds each of lines.
func wantLines(t *testing.T, out string, lines ...string) {
	t.Helper()
	for _, want := range lines {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalJSONAndCheck(t *testing.T) {
	out, stderr, status := run(t, testEnv(t), []string{"eval", "--json", shippedSet})
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	var r eval.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Judge != "reference" || r.CommitmentRecall.Num != 10 || r.CommitmentRecall.Den != 12 || r.SpuriousRate.Pass || !r.DuplicateRate.Pass || len(r.Results) != 18 {
		t.Fatalf("report %+v", r)
	}
	_, stderr, status = run(t, testEnv(t), []string{"eval", "--check", shippedSet})
	if status != exitFailure || !strings.Contains(stderr, errBarMissed.Error()) {
		t.Fatalf("--check: status %d, stderr %q; want 1 naming the missed bar", status, stderr)
	}
}

func TestEvalRefusesABadSet(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"name":"a","surprise":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, status := run(t, testEnv(t), []string{"eval", dir})
	if status != exitFailure || !strings.Contains(stderr, "a.json") {
		t.Fatalf("status %d, stderr %q; want 1 naming the file", status, stderr)
	}
	_, _, status = run(t, testEnv(t), []string{"eval", filepath.Join(dir, "absent")})
	if status != exitUsage {
		t.Fatalf("a missing directory: status %d, want a usage error", status)
	}
}

// allFake is a loopback Messages endpoint that finds every commitment the
// prompt shows completed, and reports in input and 10 output tokens.
func allFake(t *testing.T, key string, in int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("x-api-key") != key {
			http.Error(w, "bad key", http.StatusUnauthorized)
			return
		}
		var req struct{ Messages []struct{ Content string } }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		u := req.Messages[0].Content
		var data struct{ Commitments []struct{ ID string } }
		if err := json.Unmarshal([]byte(u[strings.Index(u, "{"):strings.LastIndex(u, "}")+1]), &data); err != nil {
			http.Error(w, "bad prompt", http.StatusBadRequest)
			return
		}
		ids := []string{}
		for _, c := range data.Commitments {
			ids = append(ids, c.ID)
		}
		text, _ := json.Marshal(map[string][]string{"completed": ids})
		_ = json.NewEncoder(w).Encode(map[string]any{
			"content": []map[string]string{{"type": "text", "text": string(text)}},
			"usage":   map[string]int{"input_tokens": in, "output_tokens": 10},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestEvalLLM(t *testing.T) {
	const key = "sk-eval-secret-key"
	srv, calls := allFake(t, key, 100)
	env := testEnv(t)
	env.JudgeURL, env.JudgeKey, env.JudgeModel = srv.URL+"/v1/messages", key, "claude-test"
	out, stderr, status := run(t, env, []string{"eval", "--judge", "llm", "--price-in", "3000000", "--price-out", "15000000", shippedSet})
	if status != exitOK {
		t.Fatalf("status %d: %s", status, stderr)
	}
	// Every briefed commitment resolved: all 12 labelled found, 21 of 33
	// resolves spurious, the commitment shared by friday-started and
	// friday-done resolved twice.
	wantLines(t, out,
		"judge llm over 18 sessions: 33 commitments briefed, 12 labelled completed, 33 resolved, 0 failed",
		"commitment recall      100.0% (12/12)  > 0%   PASS",
		"overall recall         83.3% (15/18)   > 26%  PASS",
		"spurious-resolve rate  63.6% (21/33)   <= 5%  FAIL",
		"duplicate rate         3.0% (1/33)     <= 5%  PASS",
		// 18 calls of 100 and 10 tokens, each 300 + 150 micro-USD.
		"judge usage: 1800 input tokens, 180 output tokens, 8100 micro-USD",
	)
	if calls.Load() != 18 || strings.Contains(out+stderr, key) {
		t.Fatalf("%d calls; the key printed: %v", calls.Load(), strings.Contains(out+stderr, key))
	}

	// Each call spends 5010 tokens and reserves at most its request's bytes
	// and 4096 more: a cap of 20000 lets a few calls through, then refuses.
	big, bigCalls := allFake(t, key, 5000)
	capped := testEnv(t)
	capped.JudgeURL, capped.JudgeKey = big.URL, key
	out, _, status = run(t, capped, []string{"eval", "--judge", "llm", "--judge-model", "other", "--cap-tokens", "20000", shippedSet})
	calls = bigCalls
	if status != exitOK || !strings.Contains(out, "failed: the tenant's judge budget for this period is spent") || calls.Load() == 0 || calls.Load() == 18 {
		t.Fatalf("capped: status %d after %d calls:\n%s", status, calls.Load(), out)
	}

	env.JudgeKey = "wrong"
	out, _, status = run(t, env, []string{"eval", "--judge", "llm", shippedSet})
	if status != exitOK || !strings.Contains(out, "18 failed") || !strings.Contains(out, "failed: the judge endpoint answered HTTP 401") || strings.Contains(out, "bad key") {
		t.Fatalf("a refused key: status %d:\n%s", status, out)
	}
}

func TestEvalLLMNeedsAnEndpoint(t *testing.T) {
	_, stderr, status := run(t, testEnv(t), []string{"eval", "--judge", "llm", shippedSet})
	if status != exitFailure || !strings.Contains(stderr, "BATON_JUDGE_URL") {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
	env := testEnv(t)
	env.JudgeURL, env.JudgeModel = "ftp://example.invalid/", "m"
	_, stderr, status = run(t, env, []string{"eval", "--judge", "llm", shippedSet})
	if status != exitFailure || !strings.Contains(stderr, "url") {
		t.Fatalf("status %d, stderr %q", status, stderr)
	}
}

// TestEvalFlagsOutOfRange: a flag of the LLM judge out of its range is
// refused (exit 1) naming the flag, not the library's field, before any
// call; each cap flag by its own name.
func TestEvalFlagsOutOfRange(t *testing.T) {
	env := testEnv(t)
	env.JudgeURL, env.JudgeModel = "http://127.0.0.1:1/v1/messages", "m"
	for _, tc := range []struct {
		flag, want string
	}{
		{"--max-tokens=-1", "--max-tokens"},
		{"--max-tokens=8193", "--max-tokens"},
		{"--timeout=-1s", "--timeout"},
		{"--timeout=11m", "--timeout"},
		{"--price-in=-1", "--price-in"},
		{"--price-out=1000000001", "--price-out"},
		{"--cap-tokens=-1", "--cap-tokens"},
		{"--cap-micro-usd=-1", "--cap-micro-usd"},
		{"--judge-url=ftp://example.invalid/", "--judge-url"},
		{"--judge-model=" + strings.Repeat("m", 201), "--judge-model"},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			out, stderr, status := run(t, env, []string{"eval", "--judge", "llm", tc.flag, shippedSet})
			if status != exitFailure || !strings.Contains(stderr, tc.want+" ") || out != "" {
				t.Fatalf("eval %s: status %d, stdout %q, stderr %q; want 1 and a message naming %s", tc.flag, status, out, stderr, tc.want)
			}
			for _, field := range []string{"maxTokens", "priceInPerMTok", "priceOutPerMTok", "cap.", "url:", "model:", "timeout:"} {
				if strings.Contains(stderr, field) {
					t.Errorf("stderr %q names the library's field %s", stderr, field)
				}
			}
		})
	}
}
