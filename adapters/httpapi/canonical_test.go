package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
)

// TestUncleanPathsAreNoRoute serves the handler at the root, as baton
// serve does: a path ServeMux would clean is answered with the JSON
// not_found of an unmatched route, not an HTML redirect a client could
// follow with its key and body, and nothing is done.
func TestUncleanPathsAreNoRoute(t *testing.T) {
	ctx := context.Background()
	st, _ := sqltest.SQLite.New(t)
	svc := continuity.New(st, continuity.WithClock(storetest.NewClock().Now))
	keys, err := ParseKeys(keyA + "=" + tenantA)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler(func(tenant string) continuity.API { return svc.For(tenant) }, Options{Authenticator: keys}))
	t.Cleanup(srv.Close)
	api := NewClient(srv.URL, keyA, testClientOptions)
	if _, err := api.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Project: "baton"}); err != nil {
		t.Fatal(err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	closeBody := `{"agent":"claude-code","sessionId":"s1"}`
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "//api/v1/agent-sessions/close", closeBody},
		{"POST", "/api/v1//agent-sessions/close", closeBody},
		{"POST", "/api/v1/./agent-sessions/close", closeBody},
		{"POST", "/api/v1/x/../agent-sessions/close", closeBody},
		{"POST", "/api/v1/%2e%2e/v1/agent-sessions/close", closeBody},
		{"GET", "//healthz", ""},
		{"GET", "/healthz/.", ""},
	} {
		req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+keyA)
		req.Header.Set("Content-Type", "application/json")
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var eb ErrorBody
		decodeErr := json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || decodeErr != nil || eb.Error == nil || eb.Error.Code != continuity.CodeNotFound ||
			eb.Error.Message != "no such route" || resp.Header.Get("Location") != "" {
			t.Errorf("%s %s: answered %d (Location %q) %+v %v, want the JSON not_found of no route", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Location"), eb.Error, decodeErr)
		}
	}
	run, err := api.Session(ctx, agent, "s1")
	if err != nil || run.ClosedAt != nil {
		t.Fatalf("after the unclean closes: %+v %v, want the session still open", run, err)
	}
	resp, err := noFollow.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz answered %d, want 200", resp.StatusCode)
	}
}
