package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
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
// through the handler, over a real connection, to the service.
func overHTTP(h storetest.Harness, opts Options, wrap func(http.Handler) http.Handler) storetest.ScenarioHarness {
	return storetest.ScenarioHarness{New: func(t *testing.T, clock func() time.Time) (continuity.API, continuity.API) {
		s := newServer(t, h, clock, opts, wrap)
		return s.client(keyA), s.client(keyB)
	}}
}

// TestSQLite runs the scenario suite through the Client and the handler
// on SQLite.
func TestSQLite(t *testing.T) {
	storetest.RunScenarios(t, overHTTP(sqltest.SQLite, Options{}, nil))
}

// TestPostgres runs the scenario suite through the Client and the handler
// on Postgres when BATON_TEST_POSTGRES_DSN is set, and fails when it is set
// but Postgres is unusable.
func TestPostgres(t *testing.T) {
	storetest.RunScenarios(t, overHTTP(sqltest.Postgres(t), Options{}, nil))
}
