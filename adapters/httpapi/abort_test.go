package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
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

// TestAbortedStreamIsLogged: an export that fails after its status is
// cut off (the client never sees a complete-looking body) and still leaves
// its one log line, saying it was aborted; a request answered whole says
// nothing of the kind.
func TestAbortedStreamIsLogged(t *testing.T) {
	var log bytes.Buffer
	keys, err := ParseKeys(keyA + "=" + tenantA)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(func(string) continuity.API { return failingExport{} },
		Options{Authenticator: keys, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(path string) error {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+keyA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
	if err := get("/api/v1/export"); err == nil {
		t.Error("the failed export's body read whole: want it cut off")
	}
	if err := get("/healthz"); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want one per request:\n%s", len(lines), log.String())
	}
	if l := lines[0]; l["route"] != "GET /api/v1/export" || l["status"] != float64(200) || l["aborted"] != true {
		t.Errorf("the export's line = %v, want its route, status 200 and aborted=true", l)
	}
	if l := lines[1]; l["route"] != "GET /healthz" || l["aborted"] != nil {
		t.Errorf("the health probe's line = %v, want no aborted", l)
	}
}
