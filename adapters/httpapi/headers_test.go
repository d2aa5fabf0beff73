package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/google/uuid"
)

// TestEveryAnswerIsMarked: every answer, a success, an error, a stream, the
// probe's text or no route, says its type is not to be sniffed (a page may
// load any GET as a script or a style) and carries the request id its one
// log line holds.
func TestEveryAnswerIsMarked(t *testing.T) {
	var log lockedBuffer
	s := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{Logger: slog.New(slog.NewJSONHandler(&log, nil))}, nil)
	cases := []struct {
		name, method, path, key, body string
		status                        int
	}{
		{"a read", "GET", "/api/v1/doctor", keyA, "", http.StatusOK},
		{"the export stream", "GET", "/api/v1/export", keyA, "", http.StatusOK},
		{"the probe", "GET", "/healthz", "", "", http.StatusOK},
		{"a write", "POST", "/api/v1/memories", keyA, `{"kind":"note","topic":"t","content":"c"}`, http.StatusCreated},
		{"no content", "POST", "/api/v1/bottles/arm", keyA, `{"agent":"claude-code","sessionId":"s1","path":"/tmp/b.md","mode":"full","gap":0,"armedAt":"2026-01-01T00:00:00Z"}`, http.StatusNoContent},
		{"no key", "GET", "/api/v1/doctor", "", "", http.StatusUnauthorized},
		{"bad input", "POST", "/api/v1/memories", keyA, `[]`, http.StatusBadRequest},
		{"no route", "GET", "/api/v1/nothing", keyA, "", http.StatusNotFound},
	}
	for _, tc := range cases {
		got := s.send(t, tc.method, tc.path, tc.key, tc.body)
		if got.status != tc.status {
			t.Errorf("%s: answered %d %s, want %d", tc.name, got.status, got.body, tc.status)
			continue
		}
		if v := got.header.Get("X-Content-Type-Options"); v != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options = %q, want nosniff", tc.name, v)
		}
		id := got.header.Get("X-Request-Id")
		if _, err := uuid.Parse(id); err != nil {
			t.Errorf("%s: X-Request-Id = %q, want a UUID", tc.name, id)
			continue
		}
		found := 0
		for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["id"] == id {
				found++
				if m["status"] != float64(tc.status) {
					t.Errorf("%s: its log line %s, want status %d", tc.name, l, tc.status)
				}
			}
		}
		if found != 1 {
			t.Errorf("%s: %d log lines carry its id %s, want one", tc.name, found, id)
		}
	}
	if strings.Contains(log.String(), keyA) || bytes.Contains([]byte(log.String()), []byte(`"content":"c"`)) {
		t.Errorf("the log holds a key or a body:\n%s", log.String())
	}
}
