package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// padded returns body, a JSON object, padded with spaces after its last
// member to exactly n bytes.
func padded(t *testing.T, body string, n int) string {
	t.Helper()
	if len(body) > n {
		t.Fatalf("the body is %d bytes, over %d", len(body), n)
	}
	return body[:len(body)-1] + strings.Repeat(" ", n-len(body)) + "}"
}

// TestBodyEdges: a body at the size bound is read, one byte past it is
// too_large; numbers outside an integer's range, bodies nested past the
// decoder's depth and arrays past a field's bound are invalid, naming the
// field where there is one; none writes anything.
func TestBodyEdges(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock()
	s := newServer(t, sqltest.SQLite, clock.Now, Options{}, nil)
	a := s.client(keyA)
	if _, err := a.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Project: "baton"}); err != nil {
		t.Fatal(err)
	}
	remember := `{"kind":"note","topic":"edge","content":"at the bound"}`
	stop := `{"provider":"claude-code","providerEvent":"Stop","agent":"claude-code","sessionId":"s1"}`
	briefed := func(n int) string {
		rows := make([]string, n)
		for i := range rows {
			rows[i] = `{}`
		}
		return `{"agent":"claude-code","sessionId":"s2","source":"startup","briefedMemories":[` + strings.Join(rows, ",") + `]}`
	}
	deep := `{"agent":"claude-code","sessionId":"s2","source":"startup","briefedMemories":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	cases := []struct {
		name, path, body string
		status           int
		code             continuity.Code
		field            string
		writes           bool
	}{
		{"a body of exactly the bound", "/api/v1/memories", padded(t, remember, MaxBodyBytes), 201, "", "", true},
		{"a body one byte past the bound", "/api/v1/memories", padded(t, remember, MaxBodyBytes+1), 413, "too_large", "", false},
		{"an episode body one byte past the bound", "/api/v1/episodes/stop", padded(t, stop, MaxBodyBytes+1), 413, "too_large", "", false},
		{"an integer past int64", "/api/v1/episodes/end", `{"provider":"claude-code","providerEvent":"SessionEnd","agent":"claude-code","sessionId":"s1","budgetMs":9223372036854775808}`, 400, "invalid", "budgetMs", false},
		{"an integer below int64", "/api/v1/episodes/end", `{"provider":"claude-code","providerEvent":"SessionEnd","agent":"claude-code","sessionId":"s1","budgetMs":-9223372036854775809}`, 400, "invalid", "budgetMs", false},
		{"an integer in exponent form", "/api/v1/episodes/start", `{"provider":"claude-code","providerEvent":"SessionStart","agent":"claude-code","sessionId":"s1","source":"resume","briefingBudget":1e3}`, 400, "invalid", "briefingBudget", false},
		{"a negative zero budget", "/api/v1/episodes/start", `{"provider":"claude-code","providerEvent":"SessionStart","agent":"claude-code","sessionId":"s1","source":"resume","briefingBudget":-0}`, 200, "", "", true},
		{"an array past its bound", "/api/v1/agent-sessions/open", briefed(continuity.MaxBriefedMemories + 1), 400, "invalid", "briefedMemories", false},
		{"a huge array", "/api/v1/agent-sessions/open", briefed(20000), 400, "invalid", "briefedMemories", false},
		{"arrays nested 20000 deep", "/api/v1/agent-sessions/open", deep, 400, "invalid", "", false},
		{"objects nested 20000 deep", "/api/v1/agent-sessions/open", `{"agent":"claude-code","sessionId":"s2","source":"startup","selector":` + strings.Repeat(`{"a":`, 10500) + "1" + strings.Repeat("}", 10500) + `}`, 400, "invalid", "", false},
	}
	for _, tc := range cases {
		before := s.world(t, a, uuid.NewString())
		got := s.send(t, "POST", tc.path, keyA, tc.body)
		if got.status != tc.status {
			t.Errorf("%s: answered %d %.300s, want %d", tc.name, got.status, got.body, tc.status)
			continue
		}
		if tc.code != "" && (got.err == nil || got.err.Code != tc.code) {
			t.Errorf("%s: answered %.300s, want code %s", tc.name, got.body, tc.code)
		}
		if tc.field != "" && (got.err == nil || got.err.Fields[tc.field] == "") {
			t.Errorf("%s: answered %.300s, want the field %q named", tc.name, got.body, tc.field)
		}
		if after := s.world(t, a, uuid.NewString()); !tc.writes && after != before {
			t.Errorf("%s changed tenant A's data", tc.name)
		}
	}
}

// TestStalledBody: a client that sends its headers and then a chunked
// body it never finishes is answered, within the handler's bound on
// reading a body, even under a server that sets no ReadTimeout of its
// own (httptest's sets none); nothing is written.
func TestStalledBody(t *testing.T) {
	clock := storetest.NewClock()
	s := newServer(t, sqltest.SQLite, clock.Now, Options{BodyTimeout: 200 * time.Millisecond}, nil)
	a := s.client(keyA)
	before := s.world(t, a, uuid.NewString())
	conn, err := net.Dial("tcp", s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s/api/v1/memories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", prefix, keyA)
	fmt.Fprintf(conn, "5\r\n{\"kin\r\n") // and nothing more
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the stalled request got no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"body"`) {
		t.Errorf("the stalled request answered %d %s, want 400 naming the body", resp.StatusCode, body)
	}
	if after := s.world(t, a, uuid.NewString()); after != before {
		t.Errorf("the stalled request changed tenant A's data")
	}
	// The bound is on reading the body, not on the call: a call whose body
	// came whole keeps its connection and its context for as long as its
	// work takes.
	if _, err := a.Remember(context.Background(), continuity.RememberParams{Kind: continuity.KindNote, Topic: "after", Content: "a whole body"}); err != nil {
		t.Fatal(err)
	}
}

// TestClientGoneMidAnswer: a client that sends a whole call and
// disconnects before its answer (a hook at its timeout, killed by its
// harness) has it done all the same: each such SessionStart leaves its
// receipt and its open, as it would had the client waited.
func TestClientGoneMidAnswer(t *testing.T) {
	clock := storetest.NewClock()
	s := newServer(t, sqltest.SQLite, clock.Now, Options{}, nil)
	a := s.client(keyA)
	body := `{"provider":"claude-code","providerEvent":"SessionStart","agent":"claude-code","sessionId":"g1","source":"startup"}`
	for range 5 {
		conn, err := net.Dial("tcp", s.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s/api/v1/episodes/start HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", prefix, keyA, len(body), body)
		conn.Close()
	}
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		es, err := a.Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range es {
			if e.Event == continuity.EventReceived {
				n++
			}
		}
		if n > 5 {
			t.Fatalf("%d receipts for 5 events", n)
		}
		_, serr := a.Session(ctx, agent, "g1")
		if n == 5 && serr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d receipts for 5 events whose bodies the server read whole; the session: %v", n, serr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestClientTruncatedAnswer: an answer cut short of its Content-Length
// (a proxy, a server that died mid-answer) is an error, never read as a
// shorter result; a call the client retries is sent again, one it does not
// retry is sent once.
func TestClientTruncatedAnswer(t *testing.T) {
	ctx := context.Background()
	sends := map[string]int{}
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sends[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "400")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"sessionRunId":"` + uuid.NewString() + `","activationEpoch":1,`))
	}))
	defer srv.Close()
	c := NewClient(srv.URL, keyA, ClientOptions{Retries: 2, Backoff: time.Millisecond})
	_, err := c.Close(ctx, continuity.CloseParams{Agent: agent, SessionID: "s1"})
	if continuity.ErrorCode(err) != continuity.CodeInternal {
		t.Errorf("a truncated close answer: %v, want internal", err)
	}
	_, err = c.Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
	if continuity.ErrorCode(err) != continuity.CodeInternal {
		t.Errorf("a truncated Stop answer: %v, want internal", err)
	}
	if sends["/api/v1/agent-sessions/close"] != 3 || sends["/api/v1/episodes/stop"] != 1 {
		t.Errorf("sent %v: want the close retried twice and the Stop sent once", sends)
	}
}

// TestEpisodeTextFields: every text member of the episode routes, sent
// holding a lone surrogate escape, a raw byte that is not UTF-8 or a NUL,
// is invalid naming that member (the receipt's own members refuse the
// receipt too); nothing but a receipt and its failure is written.
func TestEpisodeTextFields(t *testing.T) {
	clock := storetest.NewClock()
	s := newServer(t, sqltest.SQLite, clock.Now, Options{}, nil)
	a := s.client(keyA)
	if _, err := a.Open(context.Background(), continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
		t.Fatal(err)
	}
	event := map[string]string{"provider": "claude-code", "providerEvent": "Stop", "agent": "claude-code", "sessionId": "s1"}
	routes := []struct {
		path   string
		fields map[string]string
	}{
		{"/api/v1/episodes/start", map[string]string{"source": "resume", "project": "baton", "scope": "s", "localFailure": "f"}},
		{"/api/v1/episodes/prompt", map[string]string{"prompt": "p", "localFailure": "f"}},
		{"/api/v1/episodes/stop", map[string]string{"lastMessage": "m", "localFailure": "f"}},
		{"/api/v1/episodes/precompact", map[string]string{"trigger": "auto", "localFailure": "f"}},
		{"/api/v1/episodes/end", map[string]string{"reason": "exit", "localFailure": "f"}},
	}
	for _, rt := range routes {
		all := map[string]string{}
		for k, v := range event {
			all[k] = v
		}
		for k, v := range rt.fields {
			all[k] = v
		}
		for field := range all {
			for _, bad := range []string{`\ud800`, "\xff", `\u0000`, `\udc00\ud800`} {
				var members []string
				for k, v := range all {
					if k == field {
						v += bad
					}
					members = append(members, `"`+k+`":"`+v+`"`)
				}
				body := "{" + strings.Join(members, ",") + "}"
				before := s.world(t, a, uuid.NewString())
				got := s.send(t, "POST", rt.path, keyA, body)
				if got.status != http.StatusBadRequest || got.err == nil || got.err.Fields[field] == "" {
					t.Errorf("%s with %q in %s: answered %d %s, want invalid naming %s", rt.path, bad, field, got.status, got.body, field)
					continue
				}
				after := s.world(t, a, uuid.NewString())
				after.ledger = before.ledger // a receipt and its failure, when the receipt's members are whole
				if after != before {
					t.Errorf("%s with %q in %s changed tenant A's data", rt.path, bad, field)
				}
			}
		}
	}
}
