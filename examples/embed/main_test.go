package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// The host's accounts in the tests: two of one team, one of another, one
// suspended.
const (
	adaToken    = "ada-token-000"
	graceToken  = "grace-token-000"
	linusToken  = "linus-token-000"
	mallorToken = "mallory-token-000"
)

func newHost(t *testing.T) *httptest.Server {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "embed.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	accts := accounts{}
	accts.add(adaToken, account{Name: "ada", Team: "compilers"})
	accts.add(graceToken, account{Name: "grace", Team: "compilers"})
	accts.add(linusToken, account{Name: "linus", Team: "kernel"})
	accts.add(mallorToken, account{Name: "mallory", Team: "compilers", Suspended: true})
	srv := httptest.NewServer(newMux(continuity.New(st), accts, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv
}

// get answers a GET of the host with the token in X-Host-Token.
func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set(tokenHeader, token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHostRoutes: the host's own routes answer beside baton's, which are
// reached only through the prefix.
func TestHostRoutes(t *testing.T) {
	srv := newHost(t)
	cases := []struct {
		name, path, token string
		status            int
		body              string
	}{
		{"the host's home", "/", "", http.StatusOK, "the host's home page"},
		{"the host's own route", "/whoami", adaToken, http.StatusOK, "ada of team compilers\n"},
		{"the host's own route, no token", "/whoami", "", http.StatusUnauthorized, "who are you?"},
		{"baton's probe through the prefix", "/baton/healthz", "", http.StatusOK, "ok"},
		{"a baton route through the prefix", "/baton/api/v1/briefing?project=p", adaToken, http.StatusOK, `"selector"`},
		{"a baton route through the prefix, X-Host-Token unknown", "/baton/api/v1/briefing", "nope", http.StatusUnauthorized, `"code":"unauthorized"`},
		{"a suspended account", "/baton/api/v1/briefing", mallorToken, http.StatusForbidden, "this account is suspended"},
		{"a baton route without the prefix", "/api/v1/briefing", adaToken, http.StatusNotFound, ""},
		{"nothing there", "/nope", "", http.StatusNotFound, ""},
	}
	for _, tc := range cases {
		status, body := get(t, srv.URL+tc.path, tc.token)
		if status != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q, want %d and %q", tc.name, status, body, tc.status, tc.body)
		}
	}
}

// TestBatonThroughTheHost: baton's client, pointed at the prefix with an
// account's token, writes for the account's team: a teammate reads it,
// another team does not.
func TestBatonThroughTheHost(t *testing.T) {
	srv := newHost(t)
	ctx := context.Background()
	client := func(token string) *httpapi.Client {
		return httpapi.NewClient(srv.URL+"/baton", token, httpapi.ClientOptions{Timeout: time.Minute})
	}
	w, err := client(adaToken).Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "ship", Project: "p", Content: "ship the parser"})
	if err != nil {
		t.Fatalf("remember through the host: %v", err)
	}
	b, err := client(graceToken).Briefing(ctx, continuity.BriefingParams{Project: "p"})
	if err != nil || len(b.Items) != 1 || b.Items[0].ID != w.Memory.ID {
		t.Errorf("a teammate's briefing: %+v, %v; want the commitment", b.Items, err)
	}
	if _, err := client(linusToken).Memory(ctx, w.Memory.ID.String()); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Errorf("another team reads the memory: %v, want not_found", err)
	}
	if _, err := client(mallorToken).Memory(ctx, w.Memory.ID.String()); continuity.ErrorCode(err) != continuity.CodeForbidden {
		t.Errorf("a suspended account: %v, want forbidden", err)
	}
}
