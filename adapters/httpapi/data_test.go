package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
)

// adminKeyA administers tenant A on the data-rights test server.
const adminKeyA = "admin-a-0123456789abcdef"

// TestDataRights: GET /api/v1/export streams the key's tenant's rows as the
// service exports them, and nobody else's; POST /api/v1/admin/erase takes an
// administrator's key (a tenant's own is forbidden) and leaves the
// administered tenant nothing, the other tenant untouched. Every exchange
// is checked against the OpenAPI description. On both backends.
func TestDataRights(t *testing.T) {
	for name, h := range map[string]func(t *testing.T) storetest.Harness{
		"sqlite":   func(*testing.T) storetest.Harness { return sqltest.SQLite },
		"postgres": sqltest.Postgres,
	} {
		t.Run(name, func(t *testing.T) { testDataRights(t, h(t)) })
	}
}

func testDataRights(t *testing.T, h storetest.Harness) {
	admins, err := ParseKeys(adminKeyA + "=" + tenantA)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	s := newServer(t, h, func() time.Time { return now }, Options{AdminAuthenticator: admins}, readDescription(t).validating(t, nil))
	ctx := t.Context()
	a, b := s.client(keyA), s.client(keyB)
	for _, c := range []*Client{a, b} {
		if _, err := c.Remember(ctx, continuity.RememberParams{Kind: continuity.KindNote, Topic: "t", Content: "secret of " + c.key}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RecordPrompt(ctx, "claude-code", "s1", "a prompt"); err != nil {
			t.Fatal(err)
		}
	}
	export := func(tenant string) string {
		var buf bytes.Buffer
		if _, err := s.svc.Export(ctx, tenant, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}

	// The description's check asserts the answer's type, x-ndjson.
	got := s.send(t, http.MethodGet, "/api/v1/export", keyA, "")
	body := string(got.body)
	if got.status != http.StatusOK {
		t.Fatalf("export: %d %s", got.status, body)
	}
	if want := export(tenantA); body != want {
		t.Errorf("the export route answered\n%s\nwant the service's export\n%s", body, want)
	}
	if !strings.Contains(body, "secret of "+keyA) || strings.Contains(body, "secret of "+keyB) {
		t.Errorf("tenant A's export holds the wrong memories:\n%s", body)
	}
	for _, key := range []string{"", adminKeyA, "unknown"} {
		if a := s.send(t, http.MethodGet, "/api/v1/export", key, ""); a.status != http.StatusUnauthorized {
			t.Errorf("export with key %q: %d, want 401", key, a.status)
		}
	}

	before := export(tenantB)
	cases := []struct {
		name, key, body string
		status          int
	}{
		{"no key", "", "{}", http.StatusUnauthorized},
		{"an unknown key", "unknown", "{}", http.StatusUnauthorized},
		{"a tenant's own key", keyA, "{}", http.StatusForbidden},
		{"the other tenant's key", keyB, "{}", http.StatusForbidden},
		{"an unknown member", adminKeyA, `{"tenant":"tenant-b"}`, http.StatusBadRequest},
		{"a batch over the bound", adminKeyA, `{"batch":10001}`, http.StatusBadRequest},
	}
	for _, tc := range cases {
		if a := s.send(t, http.MethodPost, "/api/v1/admin/erase", tc.key, tc.body); a.status != tc.status {
			t.Errorf("erase with %s: %d %s, want %d", tc.name, a.status, a.body, tc.status)
		}
	}
	if export(tenantA) == strings.SplitAfter(export(tenantA), "\n")[0] {
		t.Fatal("a refused erase erased tenant A")
	}
	got = s.send(t, http.MethodPost, "/api/v1/admin/erase", adminKeyA, `{"batch":2}`)
	var res continuity.EraseResult
	if got.status != http.StatusOK || json.Unmarshal(got.body, &res) != nil || !res.Complete || res.Deleted == 0 {
		t.Fatalf("the admin's erase: %d %s", got.status, got.body)
	}
	if got := export(tenantA); strings.Count(got, "\n") != 1 {
		t.Errorf("tenant A still exports rows after the erase:\n%s", got)
	}
	if export(tenantB) != before {
		t.Error("tenant A's erase changed tenant B's rows")
	}
}
