package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
)

// TestStatusPageMounted: Options.Status serves the status page under
// /status/ of wherever the handler is mounted, behind the API's keys, and
// the request log names the route only: no key, no query, nothing a tenant
// wrote. Without Options.Status there is no page.
func TestStatusPageMounted(t *testing.T) {
	const secret = "Ship the secret plan."
	var log lockedBuffer
	s := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{Logger: slog.New(slog.NewJSONHandler(&log, nil)), Status: &statuspage.Options{}}, nil)
	c := s.client(keyA)
	ctx := context.Background()
	if _, err := c.Open(ctx, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Project: "baton"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "plan", Content: secret, Project: "baton"}); err != nil {
		t.Fatal(err)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	fetch := func(path, key string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL+prefix+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, _ := fetch("/status", keyA); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "status/" {
		t.Errorf("/status: %d to %q, want a relative redirect to status/", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, tc := range []struct {
		path, key string
		status    int
		holds     string
	}{
		{"/status/", "", http.StatusUnauthorized, `name="key"`},
		{"/status/", "key-c-0123456789abcdef", http.StatusUnauthorized, `name="key"`},
		{"/status/", keyA, http.StatusOK, `href="session?agent=claude-code&amp;id=s1"`},
		{"/status/", keyB, http.StatusOK, `id="none"`},
		{"/status/memory?project=baton", keyA, http.StatusOK, secret},
		{"/status/session?agent=claude-code&id=s1", keyB, http.StatusNotFound, ""},
		{"/status/?key=" + keyA, "", http.StatusSeeOther, ""},
		{"/api/v1/agent-sessions?agent=claude-code&sessionId=s1", keyA, http.StatusOK, `"sessionId":"s1"`},
	} {
		resp, body := fetch(tc.path, tc.key)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.holds) {
			t.Errorf("GET %s with %q: %d, want %d holding %q", tc.path, tc.key, resp.StatusCode, tc.status, tc.holds)
		}
	}
	logged := log.String()
	for _, leak := range []string{secret, keyA, "project=baton", "agent=claude-code", "s1"} {
		if strings.Contains(logged, leak) {
			t.Errorf("the request log holds %q:\n%s", leak, logged)
		}
	}
	if !strings.Contains(logged, `"route":"GET /status/"`) {
		t.Errorf("the status page's requests are not logged by route:\n%s", logged)
	}

	plain := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{}, nil)
	resp, err := http.Get(plain.URL + prefix + "/status/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("without Options.Status, /status/ answers %d", resp.StatusCode)
	}
}
