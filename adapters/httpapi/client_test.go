package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// wantUnreachable asserts err is the Client's unreachable error: internal,
// saying so, wrapping ErrUnreachable.
func wantUnreachable(t *testing.T, what string, err error) {
	t.Helper()
	var e *continuity.Error
	if !errors.Is(err, ErrUnreachable) || !errors.As(err, &e) || e.Code != continuity.CodeInternal || e.Message != ErrUnreachable.Error() {
		t.Errorf("%s: %v, want the unreachable error", what, err)
	}
}

// TestClientUnreachable: a server that is not there is a distinguishable
// failure, internal and wrapping ErrUnreachable; an answer of the server is
// never one.
func TestClientUnreachable(t *testing.T) {
	ctx := context.Background()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	c := NewClient(gone.URL, keyA, ClientOptions{Backoff: time.Millisecond})
	_, err := c.Session(ctx, agent, "s1")
	wantUnreachable(t, "a read of a closed server", err)
	_, err = c.Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
	wantUnreachable(t, "a Stop to a closed server", err)

	s := newServer(t, sqltest.SQLite, time.Now, Options{}, nil)
	_, err = s.client(keyA).Session(ctx, agent, "s1")
	if continuity.ErrorCode(err) != continuity.CodeNotFound || errors.Is(err, ErrUnreachable) {
		t.Errorf("a server's not_found = %v", err)
	}
}

// counting answers every request with status, counting them by route.
type counting struct {
	mu     sync.Mutex
	status int
	seen   map[string]int
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.seen[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	w.WriteHeader(c.status)
}

func (c *counting) count(pattern string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[pattern]
}

// TestClientRetries: behind a gateway that answers 502, 503 or 504, a read
// and the writes idempotent by natural key (close, a startup's open) are
// sent 1 + Retries times; every other write once; all are unreachable.
func TestClientRetries(t *testing.T) {
	ctx := context.Background()
	for _, status := range []int{http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		gw := &counting{status: status, seen: map[string]int{}}
		srv := httptest.NewServer(gw)
		c := NewClient(srv.URL, keyA, ClientOptions{Retries: 3, Backoff: time.Millisecond})
		calls := []struct {
			pattern string
			sends   int
			call    func() error
		}{
			{"GET /api/v1/agent-sessions", 4, func() error { _, err := c.Session(ctx, agent, "s1"); return err }},
			{"POST /api/v1/agent-sessions/close", 4, func() error {
				_, err := c.Close(ctx, continuity.CloseParams{Agent: agent, SessionID: "s1"})
				return err
			}},
			{"POST /api/v1/agent-sessions/open", 4, func() error {
				_, err := c.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup})
				return err
			}},
			{"POST /api/v1/episodes/stop", 1, func() error { _, err := c.Stop(ctx, continuity.StopParams{EventParams: event("Stop")}); return err }},
			{"POST /api/v1/memories", 1, func() error {
				_, err := c.Remember(ctx, continuity.RememberParams{Kind: continuity.KindNote, Topic: "t", Content: "c"})
				return err
			}},
			{"POST /api/v1/bottles/claim", 1, func() error { _, _, err := c.ClaimBottle(ctx, agent, "s1"); return err }},
		}
		for _, call := range calls {
			wantUnreachable(t, call.pattern, call.call())
		}
		// A resume is an activation: sent once.
		_, err := c.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s2", Source: continuity.SourceResume})
		wantUnreachable(t, "a resume", err)
		for _, call := range calls {
			want := call.sends
			if call.pattern == "POST /api/v1/agent-sessions/open" {
				want++ // the resume
			}
			if got := gw.count(call.pattern); got != want {
				t.Errorf("%d: %s sent %d times, want %d", status, call.pattern, got, want)
			}
		}
		srv.Close()
	}

	// A retry that reaches the server succeeds.
	s := newServer(t, sqltest.SQLite, time.Now, Options{}, func(next http.Handler) http.Handler {
		var once sync.Once
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			first := false
			once.Do(func() { first = true })
			if first {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	c := NewClient(s.URL+prefix, keyA, ClientOptions{Backoff: time.Millisecond})
	if _, err := c.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
		t.Errorf("a startup retried after a 503: %v", err)
	}
}

// TestClientTimeouts: Close and SessionEnd are bounded by the close
// timeout, every other call by the timeout; a call whose time runs out is
// unreachable.
func TestClientTimeouts(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })

	short := NewClient(hang.URL, keyA, ClientOptions{Timeout: time.Hour, CloseTimeout: 20 * time.Millisecond, Retries: -1})
	_, err := short.Close(ctx, continuity.CloseParams{Agent: agent, SessionID: "s1"})
	wantUnreachable(t, "a Close past the close timeout", err)
	_, err = short.SessionEnd(ctx, continuity.EndParams{EventParams: event("SessionEnd")})
	wantUnreachable(t, "a SessionEnd past the close timeout", err)

	other := NewClient(hang.URL, keyA, ClientOptions{Timeout: 20 * time.Millisecond, CloseTimeout: time.Hour, Retries: -1})
	_, err = other.Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
	wantUnreachable(t, "a Stop past the timeout", err)
}

// TestClientReadsAnswers: a server's error comes back as the
// *continuity.Error it was, fields included; an answer that is not baton's
// is read by its status (but a 404: TestClientSaysTheURLIsWrong).
func TestClientReadsAnswers(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{}, nil)
	_, err := s.client(keyA).Records(ctx, continuity.RecordQuery{Limit: -1, Agent: "Claude Code"})
	var e *continuity.Error
	if !errors.As(err, &e) || e.Code != continuity.CodeInvalid || e.Fields["limit"] == "" || e.Fields["agent"] == "" {
		t.Fatalf("records with a bad limit and agent = %v, want invalid naming both", err)
	}
	_, err = s.client("not-a-key").Records(ctx, continuity.RecordQuery{})
	if continuity.ErrorCode(err) != continuity.CodeUnauthorized {
		t.Errorf("a wrong key = %v, want unauthorized", err)
	}

	for status, want := range map[int]continuity.Code{
		http.StatusUnauthorized:        continuity.CodeUnauthorized,
		http.StatusTeapot:              continuity.CodeInternal,
		http.StatusInternalServerError: continuity.CodeInternal,
	} {
		foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			w.Write([]byte("<html>not baton</html>"))
		}))
		_, err := NewClient(foreign.URL, keyA, ClientOptions{}).Memory(ctx, "0195d1b2-7c3e-7abc-9def-000000000001")
		if continuity.ErrorCode(err) != want || errors.Is(err, ErrUnreachable) {
			t.Errorf("a foreign %d = %v, want %s", status, err, want)
		}
		foreign.Close()
	}
	garbled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("{not json")) }))
	defer garbled.Close()
	_, err = NewClient(garbled.URL, keyA, ClientOptions{}).Memory(ctx, "0195d1b2-7c3e-7abc-9def-000000000001")
	if continuity.ErrorCode(err) != continuity.CodeInternal || errors.Is(err, ErrUnreachable) {
		t.Errorf("an unreadable success = %v, want internal", err)
	}
}

// memoryAnswer returns a memory's id and the Memory route's own answer
// for it.
func memoryAnswer(t *testing.T) (string, []byte) {
	t.Helper()
	const id = "0195d1b2-7c3e-7abc-9def-000000000001"
	own, err := json.Marshal(continuity.Memory{ID: uuid.MustParse(id), Kind: continuity.KindNote, Topic: "t", Content: "c"})
	if err != nil {
		t.Fatal(err)
	}
	return id, own
}

// TestClientRefusesOtherSuccesses: a 2xx that is not the route's own (a
// proxy's or another server's page, a status the route does not answer, an
// empty body, a JSON null or list, an object without the members the route
// always answers: {}, another route's answer) is internal, never a zero
// result read as the server's, and never unreachable; a member the route
// does not know (a newer server's) is read past. A route that answers no
// body takes only its own status and no body.
func TestClientRefusesOtherSuccesses(t *testing.T) {
	ctx := context.Background()
	id, own := memoryAnswer(t)
	newer := strings.Replace(string(own), "{", `{"addedLater":1,`, 1)
	lacking := strings.Replace(string(own), `"topic":"t",`, "", 1)
	memory := func(c *Client) error { _, err := c.Memory(ctx, id); return err }
	arm := func(c *Client) error {
		return c.ArmBottle(ctx, agent, bottle.Marker{SessionID: "s1", Path: "/b"})
	}
	cases := []struct {
		name   string
		status int
		ctype  string
		body   string
		call   func(*Client) error
		ok     bool
	}{
		{"the route's own answer", 200, "application/json", string(own), memory, true},
		{"with a charset", 200, "application/json; charset=utf-8", string(own), memory, true},
		{"a newer server's answer, with a member more", 200, "application/json", newer, memory, true},
		{"an empty object", 200, "application/json", `{}`, memory, false},
		{"an answer without one of the route's members", 200, "application/json", lacking, memory, false},
		{"another route's answer", 200, "application/json", `{"text":"the debrief"}`, memory, false},
		{"an error under a 200", 200, "application/json", `{"error":{"code":"not_found","message":"m"}}`, memory, false},
		{"an object that does not end", 200, "application/json", string(own[:len(own)-1]), memory, false},
		{"trailing garbage", 200, "application/json", string(own) + "garbage", memory, false},
		{"a second object after it", 200, "application/json", string(own) + `{"id":"` + id + `"}`, memory, false},
		{"an HTML page", 200, "text/html", "<html>portal</html>", memory, false},
		{"JSON under another type", 200, "text/plain", string(own), memory, false},
		{"no type", 200, "", string(own), memory, false},
		{"an empty body", 200, "application/json", "", memory, false},
		{"white space", 200, "application/json", " \n", memory, false},
		{"null", 200, "application/json", "null", memory, false},
		{"a list", 200, "application/json", "[]", memory, false},
		{"another 2xx", 201, "application/json", string(own), memory, false},
		{"a 204", 204, "", "", memory, false},
		{"no content, as the route answers", 204, "", "", arm, true},
		{"a 200 where the route answers 204", 200, "text/html", "<html>ok</html>", arm, false},
		{"a 200 without a body", 200, "", "", arm, false},
		{"a 204-like 202", 202, "", "", arm, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			err := tc.call(NewClient(srv.URL, keyA, ClientOptions{}))
			switch {
			case tc.ok && err != nil:
				t.Errorf("= %v, want the answer read", err)
			case !tc.ok && (continuity.ErrorCode(err) != continuity.CodeInternal || errors.Is(err, ErrUnreachable)):
				t.Errorf("= %v, want internal (not unreachable)", err)
			}
		})
	}
}

// TestClientPathValues: a path value travels as one segment whatever it
// holds, so a bad id is refused by the service (invalid), never routed
// elsewhere.
func TestClientPathValues(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, sqltest.SQLite, time.Now, Options{}, nil)
	c := s.client(keyA)
	for _, id := range []string{"", " ", "..", ".", "a/b", "/", "../ledger", "%2F", "x?limit=1", "#frag"} {
		_, err := c.Memory(ctx, id)
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)["id"] == "" {
			t.Errorf("memory %q = %v, want invalid naming id", id, err)
		}
		_, err = c.RunEvents(ctx, id, "", 0)
		if code := continuity.ErrorCode(err); code != continuity.CodeInvalid {
			t.Errorf("run events of %q = %v, want invalid", id, err)
		}
	}
}

// TestClientErrorText: the error of an error answer is printed by the
// hook on its one stderr line and by every command on a terminal, so the
// client reads the server's code, message and fields as safe text: a code
// outside baton's set is the status's, every control character and line
// separator is a space, and each text and the number of fields are
// bounded (maxErrorText, maxErrorFields). A baton server's own errors come
// back unchanged.
func TestClientErrorText(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("x", 3*maxErrorText)
	many := map[string]string{}
	for i := range 3 * maxErrorFields {
		many[fmt.Sprintf("f%03d", i)] = "bad"
	}
	manyJSON, _ := json.Marshal(many)
	cases := []struct {
		name   string
		status int
		body   string
		code   continuity.Code
		// text is the whole error's text, when the case pins it.
		text string
	}{
		{"a baton error", 400, `{"error":{"code":"invalid","message":"invalid input","fields":{"limit":"must be at most 100"}}}`,
			continuity.CodeInvalid, "invalid: invalid input (limit: must be at most 100)"},
		{"new lines and escapes in the message", 400, `{"error":{"code":"invalid","message":"one\ntwo\r\u001b]0;title\u0007\u2028three"}}`,
			continuity.CodeInvalid, "invalid: one two  ]0;title  three"},
		{"new lines and escapes in a field", 409, `{"error":{"code":"conflict","message":"m","fields":{"a\nb":"c\u001b[2J"}}}`,
			continuity.CodeConflict, "conflict: m (a b: c [2J)"},
		{"invalid UTF-8", 400, "{\"error\":{\"code\":\"invalid\",\"message\":\"a\xffb\"}}", continuity.CodeInvalid, "invalid: a\uFFFDb"},
		{"a code baton does not have", 404, `{"error":{"code":"gone\nfor good","message":"m"}}`, continuity.CodeNotFound, "not_found: m"},
		{"a long message", 500, `{"error":{"code":"internal","message":"` + long + `"}}`, continuity.CodeInternal, ""},
		{"a long field", 400, `{"error":{"code":"invalid","message":"m","fields":{"` + long + `":"` + long + `"}}}`, continuity.CodeInvalid, ""},
		{"many fields", 400, `{"error":{"code":"invalid","message":"m","fields":` + string(manyJSON) + `}}`, continuity.CodeInvalid, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := NewClient(srv.URL, keyA, ClientOptions{}).Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
			var e *continuity.Error
			if !errors.As(err, &e) {
				t.Fatalf("= %v, want a *continuity.Error", err)
			}
			text := e.Error()
			if e.Code != tc.code || tc.text != "" && text != tc.text {
				t.Errorf("= %q (code %s), want %q (code %s)", text, e.Code, tc.text, tc.code)
			}
			if strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) || !utf8.ValidString(text) {
				t.Errorf("= %q: a control character, a line separator or invalid UTF-8", text)
			}
			if n := utf8.RuneCountInString(e.Message); n > maxErrorText {
				t.Errorf("the message holds %d characters, over %d", n, maxErrorText)
			}
			if len(e.Fields) > maxErrorFields {
				t.Errorf("%d fields, over %d", len(e.Fields), maxErrorFields)
			}
			for k, v := range e.Fields {
				if utf8.RuneCountInString(k) > maxErrorText || utf8.RuneCountInString(v) > maxErrorText {
					t.Errorf("a field of %d characters and reason of %d, over %d", utf8.RuneCountInString(k), utf8.RuneCountInString(v), maxErrorText)
				}
			}
		})
	}
}

// TestClientRefusesRedirects: a redirect, to another port of the same host
// (where net/http would keep the Authorization header) or elsewhere, is an
// internal error saying so, never followed, whoever's HTTPClient sends
// the call: the key never reaches the Location, a write's body is never
// sent again, and the Location is not echoed. A caller's HTTPClient is
// left as it was.
func TestClientRefusesRedirects(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var reached []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"followed"}`))
	}))
	defer target.Close()
	follows := func(*http.Request, []*http.Request) error { return nil }
	clients := map[string]func() *http.Client{
		"the package's own":                    func() *http.Client { return nil },
		"a caller's zero client":               func() *http.Client { return &http.Client{} },
		"a caller's client that follows every": func() *http.Client { return &http.Client{CheckRedirect: follows, Timeout: time.Minute} },
	}
	calls := map[string]func(*Client) error{
		"a write": func(c *Client) error {
			_, err := c.Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
			return err
		},
		"a read": func(c *Client) error { _, err := c.Debrief(ctx, continuity.DebriefParams{}); return err },
	}
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, location := range []string{target.URL, strings.Replace(target.URL, "127.0.0.1", "localhost", 1)} {
			redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Location", location+r.URL.Path)
				w.WriteHeader(status)
				w.Write([]byte(`{"error":{"code":"not_found","message":"m"}}`))
			}))
			for cname, hc := range clients {
				for name, call := range calls {
					given := hc()
					err := call(NewClient(redirecting.URL, keyA, ClientOptions{HTTPClient: given, Retries: -1}))
					what := fmt.Sprintf("%d to %s, %s, %s", status, location, cname, name)
					if continuity.ErrorCode(err) != continuity.CodeInternal || errors.Is(err, ErrUnreachable) ||
						!strings.Contains(err.Error(), fmt.Sprintf("%d %s, a redirect", status, http.StatusText(status))) {
						t.Errorf("%s = %v, want internal saying it is a redirect", what, err)
					}
					if err != nil && strings.Contains(err.Error(), location) {
						t.Errorf("%s: the error echoes the Location: %v", what, err)
					}
					if given != nil && (given.CheckRedirect == nil) != (cname == "a caller's zero client") {
						t.Errorf("%s: the caller's HTTPClient was changed", what)
					}
				}
			}
			redirecting.Close()
		}
	}
	if len(reached) != 0 {
		t.Errorf("the redirects were followed: %q", reached)
	}
}

// TestClientAnswerBound: the client reads at most maxAnswerBytes of an
// answer. One that fills the bound is read; a larger one, or one that
// never ends, is internal, saying so, and never read cut short (an answer
// whose excess is garbage would otherwise be read as a success).
func TestClientAnswerBound(t *testing.T) {
	ctx := context.Background()
	id, own := memoryAnswer(t)
	padded := func(n int, tail string) string {
		return string(own) + strings.Repeat(" ", n-len(own)-len(tail)) + tail
	}
	cases := []struct {
		name   string
		status int
		body   string
		// endless writes the body again and again until the client goes.
		endless bool
		ok      bool
	}{
		{"an answer that fills the bound", 200, padded(maxAnswerBytes, ""), false, true},
		{"an answer one byte over", 200, padded(maxAnswerBytes+1, ""), false, false},
		{"an answer whose garbage is past the bound", 200, padded(maxAnswerBytes+1, "garbage"), false, false},
		{"an answer that never ends", 200, strings.Repeat(" ", 1<<16), true, false},
		{"an error over the bound", 400, `{"error":{"code":"invalid","message":"m"}}` + strings.Repeat(" ", maxAnswerBytes), false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				if tc.endless {
					w.Write(own[:len(own)-1])
					for {
						if _, err := w.Write([]byte(tc.body)); err != nil {
							return
						}
					}
				}
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := NewClient(srv.URL, keyA, testClientOptions).Memory(ctx, id)
			switch {
			case tc.ok && err != nil:
				t.Errorf("= %v, want the answer read", err)
			case !tc.ok && (continuity.ErrorCode(err) != continuity.CodeInternal || errors.Is(err, ErrUnreachable) ||
				!strings.Contains(err.Error(), fmt.Sprintf("a body of more than %d bytes", maxAnswerBytes))):
				t.Errorf("= %v, want internal saying the answer is over the bound", err)
			}
		})
	}
}

// TestClientErrorCarriesNoResult: an error answer's members beside the
// error are read only on the routes that carry a partial result (the
// episode calls' receipt id); on every other route the result is zero, as
// the local service's is, whatever the server sent beside the error.
func TestClientErrorCarriesNoResult(t *testing.T) {
	ctx := context.Background()
	const id = "0195d1b2-7c3e-7abc-9def-000000000001"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"error":{"code":"conflict","message":"m"},"receiptId":"` + id + `","id":"` + id + `","topic":"beside",` +
			`"claimed":true,"marker":{"sessionId":"s1","path":"/b"},"items":[{}],"text":"beside"}`))
	}))
	defer srv.Close()
	c := NewClient(srv.URL, keyA, testClientOptions)
	conflict := func(what string, err error) {
		t.Helper()
		if continuity.ErrorCode(err) != continuity.CodeConflict {
			t.Errorf("%s: %v, want the conflict", what, err)
		}
	}
	m, err := c.Memory(ctx, id)
	conflict("memory", err)
	if !reflect.DeepEqual(m, continuity.Memory{}) {
		t.Errorf("memory beside an error = %+v, want zero", m)
	}
	mk, ok, err := c.ClaimBottle(ctx, agent, "s1")
	conflict("claim", err)
	if ok || mk != (bottle.Marker{}) {
		t.Errorf("claim beside an error = %+v, %v, want none", mk, ok)
	}
	rs, err := c.Records(ctx, continuity.RecordQuery{})
	conflict("records", err)
	if rs != nil {
		t.Errorf("records beside an error = %+v, want none", rs)
	}
	text, err := c.Debrief(ctx, continuity.DebriefParams{})
	conflict("debrief", err)
	if text != "" {
		t.Errorf("debrief beside an error = %q, want none", text)
	}
	res, err := c.Stop(ctx, continuity.StopParams{EventParams: event("Stop")})
	conflict("stop", err)
	if res.ReceiptID.String() != id {
		t.Errorf("stop beside an error = %+v, want its receipt id", res)
	}
}

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestClientConfig: a base URL ServerURL refuses or a key that cannot
// travel in a header makes every call invalid, saying which, with nothing
// sent and neither the URL's credentials nor the key echoed; a usable
// base URL (a path, a trailing slash, space around it, an IPv6 literal,
// a scheme in capitals) is called where the handler is mounted.
func TestClientConfig(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, base, key string
		// want is the error's text when the config is refused, else the
		// URL the call reaches.
		want    string
		refused bool
	}{
		{"a host and port", "http://127.0.0.1:8377", keyA, "http://127.0.0.1:8377/api/v1/prompts/debrief", false},
		{"a path with a trailing slash", "https://baton.example.com/team/", keyA, "https://baton.example.com/team/api/v1/prompts/debrief", false},
		{"space around it", " http://h/baton\n", keyA, "http://h/baton/api/v1/prompts/debrief", false},
		{"an IPv6 literal", "http://[::1]:8377", keyA, "http://[::1]:8377/api/v1/prompts/debrief", false},
		{"an IPv6 literal with a zone", "http://[fe80::1%25eth0]:8377", keyA, "http://[fe80::1%25eth0]:8377/api/v1/prompts/debrief", false},
		{"a scheme in capitals", "HTTPS://h", keyA, "https://h/api/v1/prompts/debrief", false},
		{"no key", "http://h", "", "http://h/api/v1/prompts/debrief", false},
		{"a query", "http://h/?tenant=x", keyA, "has a query or a fragment", true},
		{"an empty query", "http://h/?", keyA, "has a query or a fragment", true},
		{"a fragment", "http://h/#x", keyA, "has a query or a fragment", true},
		{"a user and password", "http://me:hunter2@h", keyA, "carries credentials", true},
		{"a user alone", "http://hunter2@h", keyA, "carries credentials", true},
		{"another scheme", "ftp://h", keyA, "has no http or https scheme", true},
		{"no scheme", "h:8377", keyA, "has no http or https scheme", true},
		{"no host", "http:///baton", keyA, "names no host", true},
		{"only a port", "http://:8377", keyA, "names no host", true},
		{"nothing", "", keyA, "the server URL is blank", true},
		{"space alone", " \t", keyA, "the server URL is blank", true},
		{"not a URL", "http://h:port", keyA, "is not a URL", true},
		{"a key with a space", "http://h", "key hunter2", "the API key holds a space", true},
		{"a key with a new line", "http://h", "hunter2\nX-Evil: 1", "the API key holds a space", true},
		{"a key with CR LF", "http://h", "hunter2\r\n", "the API key holds a space", true},
		{"a key with a NUL", "http://h", "hunter2\x00", "the API key holds a space", true},
		{"a key outside ASCII", "http://h", "hunter2é", "the API key holds a space", true},
		{"the longest key", "http://h", strings.Repeat("k", MaxKeyLen), "http://h/api/v1/prompts/debrief", false},
		{"a key over the longest", "http://h", strings.Repeat("k", MaxKeyLen+1), "the API key is longer than 4096 bytes", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var sent []string
			hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
				sent = append(sent, r.URL.String()+" "+r.Header.Get("Authorization"))
				return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(strings.NewReader(`{"text":"t"}`)), Request: r}, nil
			})}
			_, err := NewClient(tc.base, tc.key, ClientOptions{HTTPClient: hc}).Debrief(ctx, continuity.DebriefParams{})
			if !tc.refused {
				want := []string{tc.want + " " + strings.TrimSpace("Bearer "+tc.key)}
				if tc.key == "" {
					want = []string{tc.want + " "}
				}
				if err != nil || !slices.Equal(sent, want) {
					t.Errorf("= %v, sent %q; want %q", err, sent, want)
				}
				return
			}
			if continuity.ErrorCode(err) != continuity.CodeInvalid || !strings.Contains(err.Error(), tc.want) || errors.Is(err, ErrUnreachable) {
				t.Errorf("= %v, want invalid saying %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error echoes a secret: %v", err)
			}
			if len(sent) != 0 {
				t.Errorf("sent %q, want nothing", sent)
			}
		})
	}
}

// TestClientSaysTheURLIsWrong: a URL that reaches no baton route (the
// host's server without the prefix baton is mounted under, or a path under
// baton's that is none of its routes) is unreachable, saying to check the
// URL, never a not_found a caller would act on; a row the server does not
// have is not_found as the server says it.
func TestClientSaysTheURLIsWrong(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, sqltest.SQLite, time.Now, Options{}, nil)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<html>not baton</html>"))
	}))
	defer foreign.Close()
	missing := uuid.Must(uuid.NewV7()).String()
	for _, tc := range []struct {
		name, base string
		hint       bool
	}{
		{"the host without baton's prefix", s.URL, true},
		{"another server's 404 page", foreign.URL, true},
		{"a path under baton's", s.URL + prefix + "/extra", true},
		{"the right URL", s.URL + prefix, false},
	} {
		_, err := NewClient(tc.base, keyA, testClientOptions).Memory(ctx, missing)
		switch {
		case tc.hint && (continuity.ErrorCode(err) != continuity.CodeInternal || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "is the URL the baton server's own")):
			t.Errorf("%s: %v; want unreachable, saying to check the URL", tc.name, err)
		case !tc.hint && (continuity.ErrorCode(err) != continuity.CodeNotFound || errors.Is(err, ErrUnreachable)):
			t.Errorf("%s: %v; want the server's not_found", tc.name, err)
		}
	}
}
