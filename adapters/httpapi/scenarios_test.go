package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// The keys of the two tenants a test server knows.
const (
	keyA    = "key-a-0123456789abcdef"
	keyB    = "key-b-0123456789abcdef"
	tenantA = "tenant-a"
	tenantB = "tenant-b"
	// prefix is where test servers mount the handler, as a host that
	// embeds it would.
	prefix = "/baton"
)

// testClientOptions leave room for a loaded machine: a test asserts
// outcomes, never timing.
var testClientOptions = ClientOptions{Timeout: time.Minute, CloseTimeout: time.Minute}

// server is one test server: the handler over a service of a fresh store,
// mounted under prefix beside a route of the host's own.
type server struct {
	*httptest.Server
	svc *continuity.Service
}

// newServer starts a server over a store of h with clock, wrapping the
// handler in wrap when it is not nil.
func newServer(t *testing.T, h storetest.Harness, clock func() time.Time, opts Options, wrap func(http.Handler) http.Handler) *server {
	t.Helper()
	st, _ := h.New(t)
	svc := continuity.New(st, continuity.WithClock(clock))
	if opts.Authenticator == nil {
		keys, err := ParseKeys(keyA + "=" + tenantA + "," + keyB + "=" + tenantB)
		if err != nil {
			t.Fatal(err)
		}
		opts.Authenticator = keys
	}
	var api http.Handler = NewHandler(func(tenant string) continuity.API { return svc.For(tenant) }, opts)
	if wrap != nil {
		api = wrap(api)
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, api))
	mux.HandleFunc("GET /host", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("the host's own route")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &server{Server: srv, svc: svc}
}

// client returns a client of the server with key.
func (s *server) client(key string) *Client {
	return NewClient(s.URL+prefix, key, testClientOptions)
}

// overHTTP is the scenario harness of the Client: each tenant's calls go
// through the handler, over a real connection, to the service, and every
// exchange is checked against the OpenAPI description and handed to seen
// (when not nil).
func overHTTP(h storetest.Harness, opts Options, seen func(exchange)) storetest.ScenarioHarness {
	return storetest.ScenarioHarness{New: func(t *testing.T, clock func() time.Time) (continuity.API, continuity.API) {
		s := newServer(t, h, clock, opts, readDescription(t).validating(t, seen))
		return s.client(keyA), s.client(keyB)
	}}
}

// TestSQLite runs the scenario suite through the Client and the handler
// on SQLite, every answer of the described shape, and asserts that the
// request log holds its id, route, status and duration only: none of the
// texts the scenarios sent or got back.
func TestSQLite(t *testing.T) {
	var log lockedBuffer
	var texts textSet
	t.Cleanup(func() { wantNoContent(t, log.String(), texts.list()) })
	opts := Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))}
	storetest.RunScenarios(t, overHTTP(sqltest.SQLite, opts, texts.add))
}

// TestPostgres runs the scenario suite through the Client and the handler
// on Postgres when BATON_TEST_POSTGRES_DSN is set, and fails when it is set
// but Postgres is unusable.
func TestPostgres(t *testing.T) {
	storetest.RunScenarios(t, overHTTP(sqltest.Postgres(t), Options{}, nil))
}

// lockedBuffer is a log destination many requests write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// contentKeys are the members that carry what a person or an agent wrote,
// or what was rendered from it.
var contentKeys = []string{"prompt", "lastMessage", "lastMessageExcerpt", "content", "topic", "text", "objective",
	"state", "nextAction", "task", "reason"}

// textSet collects the content texts of exchanges.
type textSet struct {
	mu  sync.Mutex
	set map[string]bool
}

func (s *textSet) add(ex exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set == nil {
		s.set = map[string]bool{}
	}
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(e, k)
			}
		case []any:
			for _, e := range v {
				walk(e, key)
			}
		case string:
			if slices.Contains(contentKeys, key) && strings.TrimSpace(v) != "" {
				s.set[v] = true
			}
		}
	}
	walk(ex.request, "")
	walk(ex.answer, "")
}

func (s *textSet) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.set))
}

// logKeys are the members of a request's log line.
var logKeys = []string{"duration", "id", "level", "msg", "route", "status", "time"}

// wantNoContent asserts that log is lines of logKeys only, and holds none
// of texts.
func wantNoContent(t *testing.T, log string, texts []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(texts) < 20 || len(lines) < 100 {
		t.Fatalf("%d log lines, %d texts seen: the scenarios did not run through the logging handler", len(lines), len(texts))
	}
	routeNames := map[string]bool{"unmatched": true}
	for i := range routes {
		routeNames[routes[i].pattern()] = true
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q is not JSON", l)
		}
		if keys := slices.Sorted(maps.Keys(m)); !slices.Equal(keys, logKeys) {
			t.Fatalf("log line %q has members %v, want %v", l, keys, logKeys)
		}
		id, _ := m["id"].(string)
		route, _ := m["route"].(string)
		if _, err := uuid.Parse(id); err != nil || !routeNames[route] || m["msg"] != "request" {
			t.Fatalf("log line %q: want a request id, a route of the table and the message \"request\"", l)
		}
	}
	// The lines' shape already leaves no room for content; the texts are
	// looked for all the same (those long enough not to be a word of a
	// route or a time by chance).
	for _, text := range texts {
		if utf8.RuneCountInString(text) >= 4 && strings.Contains(log, text) {
			t.Errorf("the request log holds the text %.80q", text)
		}
	}
}
