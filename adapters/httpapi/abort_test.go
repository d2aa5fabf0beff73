package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	stdlog "log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// failingExport is an API whose export writes one line and then fails, as
// a store lost mid-stream does.
type failingExport struct {
	continuity.API
	continuity.TenantData
}

func (failingExport) Export(_ context.Context, w io.Writer) (continuity.ExportResult, error) {
	_, err := io.WriteString(w, `{"format":"baton.export"}`+"\n")
	return continuity.ExportResult{}, errors.Join(err, errors.New("the store went away"))
}

// Doctor panics, as a bug below the handler would, before any answer.
func (failingExport) Doctor(context.Context) (continuity.DoctorReport, error) {
	panic("a bug below the handler")
}

// TestAbortedStreamIsLogged: an answer cut off or never sent still leaves
// its one log line, saying it was aborted, with the status that was sent:
// an export that fails after its status is cut off (the client never sees
// a complete-looking body) and logs 200; a handler that panics before
// answering sends nothing (net/http drops the connection) and logs 0, not
// a 200 it never sent. A request answered whole says nothing of the kind.
func TestAbortedStreamIsLogged(t *testing.T) {
	keys, err := ParseKeys(keyA + "=" + tenantA)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, route string
		status      float64
		aborted     bool
	}{
		{"/api/v1/export", "GET /api/v1/export", 200, true},
		{"/api/v1/doctor", "GET /api/v1/doctor", 0, true},
		{"/healthz", "GET /healthz", 200, false},
		{"/api/v1/nothing", "unmatched", 404, false},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			var log bytes.Buffer
			h := NewHandler(func(string) continuity.API { return failingExport{} },
				Options{Authenticator: keys, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
			srv := httptest.NewUnstartedServer(h)
			srv.Config.ErrorLog = stdlog.New(io.Discard, "", 0) // the panic's own report
			srv.Start()
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
			req.Header.Set("Authorization", "Bearer "+keyA)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if cut := err != nil; cut != tc.aborted {
				t.Errorf("the answer was cut off: %v (%v), want %v", cut, err, tc.aborted)
			}
			srv.Close() // the handler has returned, and logged
			var lines []map[string]any
			for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
				lines = append(lines, m)
			}
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want one:\n%s", len(lines), log.String())
			}
			l := lines[0]
			if l["route"] != tc.route || l["status"] != tc.status || (l["aborted"] == true) != tc.aborted {
				t.Errorf("the line = %v, want route %s, status %v, aborted %v", l, tc.route, tc.status, tc.aborted)
			}
		})
	}
}
