package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// answer is one raw exchange with a test server.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    *continuity.Error
	// receiptID is a failed episode call's receipt, when it carried one.
	receiptID uuid.UUID
}

// send makes one raw request of the server, as any HTTP client could, a
// POST's body sent as application/json.
func (s *server) send(t *testing.T, method, path, key, body string) answer {
	t.Helper()
	ctype := ""
	if method == http.MethodPost {
		ctype = "application/json"
	}
	return s.sendAs(t, method, path, key, ctype, body)
}

// sendAs is send with the body's Content-Type; "" sends none.
func (s *server) sendAs(t *testing.T, method, path, key, ctype, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+prefix+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	return do(t, req)
}

// do makes one prepared request and reads its answer whole.
func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	a.body, _ = io.ReadAll(resp.Body)
	var eb struct {
		Error     *continuity.Error `json:"error"`
		ReceiptID uuid.UUID         `json:"receiptId"`
	}
	if json.Unmarshal(a.body, &eb) == nil {
		a.err, a.receiptID = eb.Error, eb.ReceiptID
	}
	return a
}

// world is what tenant A holds, read through the API: the state every
// refused request must leave as it was.
type world struct {
	session, memory, history, records, ledger string
}

func (s *server) world(t *testing.T, api continuity.API, memoryID string) world {
	t.Helper()
	ctx := context.Background()
	js := func(v any, err error) string {
		t.Helper()
		if err != nil && continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		return string(b) + string(continuity.ErrorCode(err))
	}
	return world{
		session: js(api.Session(ctx, agent, "s1")),
		memory:  js(api.Memory(ctx, memoryID)),
		history: js(api.SessionHistory(ctx, agent, "s1")),
		records: js(api.Records(ctx, continuity.RecordQuery{})),
		ledger:  js(api.Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)),
	}
}

const agent = "claude-code"

// TestBadInput: every kind of bad input gets its status and code, names
// its field, and leaves tenant A's data as it was (an episode route's
// refusal leaves only its receipt and failure in the ledger).
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock()
	s := newServer(t, sqltest.SQLite, clock.Now, Options{}, nil)
	a, b := s.client(keyA), s.client(keyB)
	run, err := a.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Project: "baton"})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := a.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "ship", Content: "Ship the handler.",
		Project: "baton", SessionRunID: run.SessionRunID.String()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Stop(ctx, continuity.StopParams{EventParams: event("Stop"), LastMessage: ptr("Wrote the handler.")}); err != nil {
		t.Fatal(err)
	}
	begun, err := a.TriageBegin(ctx, continuity.TriageParams{Agent: agent, SessionID: "s1"})
	if err != nil || !begun.Armed {
		t.Fatalf("triage begin = %+v %v, want an armed attempt", begun, err)
	}
	complete := `{"agent":"claude-code","sessionId":"s1","attemptId":"` + begun.AttemptID.String() + `"}`
	if got := s.send(t, "POST", "/api/v1/agent-sessions/triage/complete", keyA, complete); got.status != http.StatusOK {
		t.Fatalf("the first complete answered %d %s", got.status, got.body)
	}
	startup := `{"agent":"claude-code","sessionId":"s1","source":"startup","project":"baton"}`
	runID, memID := run.SessionRunID.String(), mem.ID.String()
	big := `{"kind":"note","topic":"big","content":"` + strings.Repeat("x", MaxBodyBytes) + `"}`
	noRoute := "no such route"

	cases := []struct {
		name, method, path, key, body string
		status                        int
		code                          continuity.Code
		field                         string // the field named, for invalid
		receipt                       bool   // an episode route: the receipt and its failure are recorded
		ctype                         string // a POST body's Content-Type when not application/json; "-" sends none
	}{
		{"malformed JSON", "POST", "/api/v1/agent-sessions/heartbeat", keyA, `{"agent":"claude-code",`, 400, "invalid", "body", false, ""},
		{"not an object", "POST", "/api/v1/agent-sessions/heartbeat", keyA, `["claude-code","s1"]`, 400, "invalid", "body", false, ""},
		{"no body", "POST", "/api/v1/agent-sessions/close", keyA, ``, 400, "invalid", "body", false, ""},
		{"null", "POST", "/api/v1/agent-sessions/close", keyA, `null`, 400, "invalid", "body", false, ""},
		{"trailing object", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1"} {}`, 400, "invalid", "body", false, ""},
		{"trailing garbage", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1"}x`, 400, "invalid", "body", false, ""},
		{"unknown field: a tenant in the body", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1","tenant":"tenant-b"}`, 400, "invalid", "tenant", false, ""},
		{"unknown nested field", "POST", "/api/v1/episodes/end", keyA, `{"provider":"claude-code","providerEvent":"SessionEnd","agent":"claude-code","sessionId":"s1","episode":{"colour":"red"}}`, 400, "invalid", "colour", false, ""},
		{"unknown field: the actor", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t","content":"c","actor":"worker"}`, 400, "invalid", "actor", false, ""},
		{"unknown field: a run id on import", "POST", "/api/v1/memories/import", keyA, `{"kind":"note","topic":"t","content":"c","sessionRunId":"` + runID + `"}`, 400, "invalid", "sessionRunId", false, ""},
		{"a member named in another case", "POST", "/api/v1/memories", keyA, `{"KIND":"note","topic":"t","content":"c"}`, 400, "invalid", "KIND", false, ""},
		{"a member twice, once in another case", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t","content":"first","Content":"second"}`, 400, "invalid", "Content", false, ""},
		{"a member twice: a startup that is a resume", "POST", "/api/v1/agent-sessions/open", keyA, `{"agent":"claude-code","sessionId":"s1","source":"startup","source":"resume","project":"baton"}`, 400, "invalid", "source", false, ""},
		{"a nested member in another case", "POST", "/api/v1/episodes/end", keyA, `{"provider":"claude-code","providerEvent":"SessionEnd","agent":"claude-code","sessionId":"s1","episode":{"Objective":"o"}}`, 400, "invalid", "Objective", false, ""},
		{"a member in another case in an array's object", "POST", "/api/v1/agent-sessions/open", keyA, `{"agent":"claude-code","sessionId":"s1","source":"startup","project":"baton","briefedMemories":[{"id":"` + memID + `","Topic":"ship","status":"open"}]}`, 400, "invalid", "Topic", false, ""},
		{"a member twice in an array's object", "POST", "/api/v1/agent-sessions/open", keyA, `{"agent":"claude-code","sessionId":"s1","source":"startup","project":"baton","briefedMemories":[{"id":"` + memID + `","topic":"ship","topic":"other","status":"open"}]}`, 400, "invalid", "topic", false, ""},
		{"a query parameter in another case", "GET", "/api/v1/records?Limit=5", keyA, ``, 400, "invalid", "Limit", false, ""},
		{"unknown query parameter: a tenant", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1&tenant=tenant-b", keyA, ``, 400, "invalid", "tenant", false, ""},
		{"a query parameter on a write: a tenant", "POST", "/api/v1/memories?tenant=tenant-b", keyA, `{"kind":"note","topic":"t","content":"c"}`, 400, "invalid", "tenant", false, ""},
		{"a query parameter on a write: a run id to attribute it to", "POST", "/api/v1/memories/" + memID + "/resolve?sessionRunId=" + runID, keyA, `{}`, 400, "invalid", "sessionRunId", false, ""},
		{"a query parameter on an episode", "POST", "/api/v1/episodes/stop?agent=codex", keyA, `{"provider":"claude-code","providerEvent":"Stop","agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "agent", false, ""},
		{"a malformed query on a write", "POST", "/api/v1/agent-sessions/close?%zz", keyA, `{"agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "query", false, ""},
		{"a query parameter on a read that takes none", "GET", "/api/v1/memories/" + memID + "?tenant=tenant-b", keyA, ``, 400, "invalid", "tenant", false, ""},
		{"a query parameter on the export", "GET", "/api/v1/export?tenant=tenant-b", keyA, ``, 400, "invalid", "tenant", false, ""},
		{"wrong type: a number for text", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":5,"sessionId":"s1"}`, 400, "invalid", "agent", false, ""},
		{"wrong type: text for a boolean", "POST", "/api/v1/agent-sessions/heartbeat", keyA, `{"agent":"claude-code","sessionId":"s1","stop":"yes"}`, 400, "invalid", "stop", false, ""},
		{"wrong type: nested", "POST", "/api/v1/episodes/precompact", keyA, `{"provider":"claude-code","providerEvent":"PreCompact","agent":"claude-code","sessionId":"s1","sealed":{"gap":"two"}}`, 400, "invalid", "sealed.gap", false, ""},
		{"wrong type: a member of an episode's event", "POST", "/api/v1/episodes/stop", keyA, `{"provider":5,"providerEvent":"Stop","agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "provider", false, ""},
		{"out of range: a marker's gap", "POST", "/api/v1/bottles/arm", keyA, `{"agent":"claude-code","sessionId":"s1","path":"/tmp/b.md","mode":"full","gap":1e400,"armedAt":"2026-01-01T00:00:00Z"}`, 400, "invalid", "gap", false, ""},
		{"wrong type: a fraction for an integer", "POST", "/api/v1/episodes/end", keyA, `{"provider":"claude-code","providerEvent":"SessionEnd","agent":"claude-code","sessionId":"s1","budgetMs":1.5}`, 400, "invalid", "budgetMs", false, ""},
		{"wrong form: a due date", "POST", "/api/v1/memories", keyA, `{"kind":"commitment","topic":"t","content":"c","due":"tomorrow"}`, 400, "invalid", "body", false, ""},
		{"wrong type: query integer", "GET", "/api/v1/records?limit=ten", keyA, ``, 400, "invalid", "limit", false, ""},
		{"wrong type: query boolean", "GET", "/api/v1/records?byProject=maybe", keyA, ``, 400, "invalid", "byProject", false, ""},
		{"wrong form: query UUID", "GET", "/api/v1/ledger?after=yesterday&limit=5", keyA, ``, 400, "invalid", "after", false, ""},
		{"a malformed escape in a query value", "GET", "/api/v1/ledger?limit=2&after=" + uuid.NewString() + "%zz", keyA, ``, 400, "invalid", "query", false, ""},
		{"a malformed escape in a parameter's name", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1&tenant%zz=tenant-b", keyA, ``, 400, "invalid", "query", false, ""},
		{"pairs joined by a semicolon", "GET", "/api/v1/ledger?limit=2;after=x", keyA, ``, 400, "invalid", "query", false, ""},
		{"a query parameter twice", "GET", "/api/v1/records?limit=1&limit=2", keyA, ``, 400, "invalid", "limit", false, ""},
		{"a briefing mode that is not full", "GET", "/api/v1/briefing?mode=brief", keyA, ``, 400, "invalid", "mode", false, ""},
		{"a marker armed in 10000 in UTC", "POST", "/api/v1/bottles/arm", keyA, `{"agent":"claude-code","sessionId":"s1","path":"/tmp/b.md","mode":"full","gap":0,"armedAt":"9999-12-31T23:59:59-23:59"}`, 400, "invalid", "armedAt", false, ""},
		{"a seal armed in year 0 in UTC", "POST", "/api/v1/episodes/precompact", keyA, `{"provider":"claude-code","providerEvent":"PreCompact","agent":"claude-code","sessionId":"s1","sealed":{"sessionId":"s1","path":"/tmp/b.md","mode":"full","gap":0,"armedAt":"0001-01-01T00:00:00+00:01"}}`, 400, "invalid", "sealed.armedAt", true, ""},
		{"oversized body", "POST", "/api/v1/memories", keyA, big, 413, "too_large", "", false, ""},
		{"oversized episode body", "POST", "/api/v1/episodes/prompt", keyA, `{"provider":"claude-code","providerEvent":"UserPromptSubmit","agent":"claude-code","sessionId":"s1","prompt":"` + strings.Repeat("p", MaxBodyBytes) + `"}`, 413, "too_large", "", false, ""},
		{"invalid UTF-8 in memory content", "POST", "/api/v1/memories", keyA, "{\"kind\":\"note\",\"topic\":\"t\",\"content\":\"a\xffb\"}", 400, "invalid", "content", false, ""},
		{"invalid UTF-8: a lone surrogate", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t\ud800","content":"c"}`, 400, "invalid", "topic", false, ""},
		{"invalid UTF-8 in a prompt", "POST", "/api/v1/episodes/prompt", keyA, "{\"provider\":\"claude-code\",\"providerEvent\":\"UserPromptSubmit\",\"agent\":\"claude-code\",\"sessionId\":\"s1\",\"prompt\":\"fix \xc3(\"}", 400, "invalid", "prompt", true, ""},
		{"invalid UTF-8 nested", "POST", "/api/v1/episodes/end", keyA, "{\"provider\":\"claude-code\",\"providerEvent\":\"SessionEnd\",\"agent\":\"claude-code\",\"sessionId\":\"s1\",\"episode\":{\"objective\":\"\xed\xa0\x80\"}}", 400, "invalid", "episode.objective", true, ""},
		{"invalid UTF-8 in a member name", "POST", "/api/v1/agent-sessions/close", keyA, "{\"agent\xff\":\"claude-code\"}", 400, "invalid", "body", false, ""},
		{"invalid UTF-8 in a map", "POST", "/api/v1/agent-sessions/open", keyA, "{\"agent\":\"claude-code\",\"sessionId\":\"s9\",\"source\":\"startup\",\"selector\":{\"kind\":\"\xfe\"}}", 400, "invalid", "selector", false, ""},
		{"invalid UTF-8 in the query", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s%FF1", keyA, ``, 400, "invalid", "sessionId", false, ""},
		{"invalid UTF-8 in a path value", "GET", "/api/v1/memories/%FF", keyA, ``, 400, "invalid", "id", false, ""},
		{"NUL in a memory", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t","content":"a\u0000b"}`, 400, "invalid", "content", false, ""},
		{"NUL in a Stop message", "POST", "/api/v1/episodes/stop", keyA, `{"provider":"claude-code","providerEvent":"Stop","agent":"claude-code","sessionId":"s1","lastMessage":"done\u0000"}`, 400, "invalid", "lastMessage", true, ""},
		{"NUL in the query", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1%00", keyA, ``, 400, "invalid", "sessionId", false, ""},
		{"a raw NUL byte", "POST", "/api/v1/agent-sessions/close", keyA, "{\"agent\":\"claude-code\",\"sessionId\":\"s1\x00\"}", 400, "invalid", "body", false, ""},
		{"another tenant's run id on a write", "POST", "/api/v1/memories", keyB, `{"kind":"note","topic":"t","content":"c","sessionRunId":"` + runID + `"}`, 403, "forbidden", "", false, ""},
		{"another tenant's run events", "GET", "/api/v1/agent-sessions/" + runID + "/events", keyB, ``, 404, "not_found", "", false, ""},
		{"another tenant's memory", "GET", "/api/v1/memories/" + memID, keyB, ``, 404, "not_found", "", false, ""},
		{"another tenant's memory resolved", "POST", "/api/v1/memories/" + memID + "/resolve", keyB, `{}`, 404, "not_found", "", false, ""},
		{"another tenant's natural key: heartbeat", "POST", "/api/v1/agent-sessions/heartbeat", keyB, `{"agent":"claude-code","sessionId":"s1","stop":true}`, 404, "not_found", "", false, ""},
		{"another tenant's natural key: close", "POST", "/api/v1/agent-sessions/close", keyB, `{"agent":"claude-code","sessionId":"s1"}`, 404, "not_found", "", false, ""},
		{"another tenant's natural key: triage", "POST", "/api/v1/agent-sessions/triage/begin", keyB, `{"agent":"claude-code","sessionId":"s1"}`, 404, "not_found", "", false, ""},
		{"another tenant's natural key: session", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1", keyB, ``, 404, "not_found", "", false, ""},
		{"another tenant's natural key: claim", "POST", "/api/v1/bottles/claim", keyB, `{"agent":"claude-code","sessionId":"s1"}`, 200, "", "", false, ""},
		{"another tenant's attempt replayed", "POST", "/api/v1/agent-sessions/triage/complete", keyB, complete, 404, "not_found", "", false, ""},
		{"a replayed attempt id", "POST", "/api/v1/agent-sessions/triage/complete", keyA, complete, 409, "conflict", "", false, ""},
		{"a startup retried", "POST", "/api/v1/agent-sessions/open", keyA, startup, 200, "", "", false, ""},
		{"a startup with changed parameters", "POST", "/api/v1/agent-sessions/open", keyA, strings.Replace(startup, `"baton"`, `"other"`, 1), 409, "conflict", "", false, ""},
		{"an episode startup with changed parameters", "POST", "/api/v1/episodes/start", keyA, `{"provider":"claude-code","providerEvent":"SessionStart","agent":"claude-code","sessionId":"s1","source":"startup","project":"other"}`, 409, "conflict", "", true, ""},
		{"a body sent as text/plain, as a web page may without asking the server first", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t","content":"c"}`, 400, "invalid", "Content-Type", false, "text/plain"},
		{"a body sent as a form", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "Content-Type", false, "application/x-www-form-urlencoded"},
		{"a body without a Content-Type", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "Content-Type", false, "-"},
		{"a malformed Content-Type", "POST", "/api/v1/agent-sessions/close", keyA, `{"agent":"claude-code","sessionId":"s1"}`, 400, "invalid", "Content-Type", false, "application/json; charset"},
		{"JSON with its charset named", "POST", "/api/v1/agent-sessions/open", keyA, startup, 200, "", "", false, "application/json; charset=utf-8"},
		{"JSON named in capitals", "POST", "/api/v1/agent-sessions/open", keyA, startup, 200, "", "", false, "Application/JSON"},
		{"no key", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1", "", ``, 401, "unauthorized", "", false, ""},
		{"a wrong key", "GET", "/api/v1/agent-sessions?agent=claude-code&sessionId=s1", "key-c-0123456789abcdef", ``, 401, "unauthorized", "", false, ""},
		{"a wrong key on a write", "POST", "/api/v1/agent-sessions/close", keyA + "x", `{"agent":"claude-code","sessionId":"s1"}`, 401, "unauthorized", "", false, ""},
		{"no route", "GET", "/api/v1/sessions", keyA, ``, 404, "not_found", "", false, ""},
		{"a route's other method", "GET", "/api/v1/agent-sessions/close", keyA, ``, 404, "not_found", "", false, ""},
	}
	var unauthorized []byte
	for _, tc := range cases {
		before := s.world(t, a, memID)
		var got answer
		switch tc.ctype {
		case "":
			got = s.send(t, tc.method, tc.path, tc.key, tc.body)
		case "-":
			got = s.sendAs(t, tc.method, tc.path, tc.key, "", tc.body)
		default:
			got = s.sendAs(t, tc.method, tc.path, tc.key, tc.ctype, tc.body)
		}
		if got.status != tc.status {
			t.Errorf("%s: answered %d %s, want %d", tc.name, got.status, got.body, tc.status)
			continue
		}
		if tc.code != "" && (got.err == nil || got.err.Code != tc.code) {
			t.Errorf("%s: answered %s, want code %s", tc.name, got.body, tc.code)
			continue
		}
		if tc.field != "" && (got.err == nil || got.err.Fields[tc.field] == "") {
			t.Errorf("%s: answered %s, want the field %q named", tc.name, got.body, tc.field)
		}
		if tc.name == "no route" && got.err.Message != noRoute {
			t.Errorf("%s: answered %s", tc.name, got.body)
		}
		if tc.code == continuity.CodeUnauthorized {
			// Missing and wrong keys are answered alike, naming no tenant.
			if unauthorized == nil {
				unauthorized = got.body
			}
			if string(got.body) != string(unauthorized) || strings.Contains(string(got.body), "tenant") {
				t.Errorf("%s: answered %s, want the one answer %s", tc.name, got.body, unauthorized)
			}
		}
		after := s.world(t, a, memID)
		if !tc.receipt {
			if after != before {
				t.Errorf("%s changed tenant A's data:\nbefore %+v\nafter  %+v", tc.name, before, after)
			}
			continue
		}
		// An episode route recorded its receipt and its failure, nothing else.
		if got.receiptID == uuid.Nil {
			t.Errorf("%s: the answer %s carries no receipt", tc.name, got.body)
		}
		es, err := a.Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(es); n < 2 || es[n-2].Event != continuity.EventReceived || es[n-2].ID != got.receiptID || es[n-1].Event != continuity.EventFailed {
			t.Errorf("%s: the ledger does not end with its receipt and failure: %v", tc.name, es)
		}
		after.ledger = before.ledger
		if after != before {
			t.Errorf("%s changed tenant A's data beyond the ledger:\nbefore %+v\nafter  %+v", tc.name, before, after)
		}
	}
	for _, probe := range []string{"/healthz", "/healthz?probe=1", "/healthz?%zz"} {
		if got := s.send(t, "GET", probe, "", ""); got.status != http.StatusOK || string(got.body) != "ok" {
			t.Errorf("the health probe %s answered %d %q without a key", probe, got.status, got.body)
		}
	}
	// Tenant B's ledger holds only what B's own calls recorded.
	if es, err := b.Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead); err != nil || len(es) != 0 {
		t.Errorf("tenant B's ledger = %v %v, want it empty", es, err)
	}
}

func event(name string) continuity.EventParams {
	return continuity.EventParams{Provider: agent, ProviderEvent: name, Agent: agent, SessionID: "s1"}
}

func ptr[T any](v T) *T { return &v }
