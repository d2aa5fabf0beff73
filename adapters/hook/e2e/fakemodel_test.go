//go:build linux

package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// request is one request a fake model received.
type request struct {
	Seq    int
	Method string
	Path   string // without the query
	Body   []byte
	JSON   map[string]any // the decoded body; nil when it is not a JSON object
	// Kind is what the fake decided the request was and how it answered,
	// for assertions and the failure log.
	Kind string
}

// maxBody bounds what a fake model reads of one request.
const maxBody = 64 << 20

// fakeModel serves a model API on 127.0.0.1 at a random port and logs
// every request. Each API's handler decodes, logs and answers.
type fakeModel struct {
	t   *testing.T
	srv *httptest.Server

	mu   sync.Mutex
	reqs []*request
}

// newFakeModel starts serving h, which receives each request already read
// and logged (and the model, to record how it answered), and stops serving
// when the test ends; the log is printed when the test fails.
func newFakeModel(t *testing.T, name string, h func(m *fakeModel, w http.ResponseWriter, r *request)) *fakeModel {
	t.Helper()
	m := &fakeModel{t: t}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		r, err := m.read(hr)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h(m, w, r)
	}))
	t.Cleanup(func() {
		m.srv.CloseClientConnections()
		m.srv.Close()
		if t.Failed() {
			t.Logf("%s fake model: %d requests:\n%s", name, len(m.requests()), m.summary())
		}
	})
	return m
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (m *fakeModel) URL() string { return m.srv.URL }

func (m *fakeModel) read(hr *http.Request) (*request, error) {
	var body io.Reader = http.MaxBytesReader(nil, hr.Body, maxBody)
	switch strings.ToLower(hr.Header.Get("Content-Encoding")) {
	case "":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, err
		}
		body = zr
	default:
		return nil, fmt.Errorf("fake model: unsupported Content-Encoding %q", hr.Header.Get("Content-Encoding"))
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	r := &request{Method: hr.Method, Path: hr.URL.Path, Body: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		_ = json.Unmarshal(raw, &r.JSON)
	}
	m.mu.Lock()
	r.Seq = len(m.reqs) + 1
	m.reqs = append(m.reqs, r)
	m.mu.Unlock()
	return r, nil
}

// requests returns the requests received so far, in order.
func (m *fakeModel) requests() []*request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// setKind records how the fake answered r.
func (m *fakeModel) setKind(r *request, kind string) {
	m.mu.Lock()
	r.Kind = kind
	m.mu.Unlock()
}

// since returns the requests received after the first n.
func (m *fakeModel) since(n int) []*request {
	all := m.requests()
	if n > len(all) {
		return nil
	}
	return all[n:]
}

// summary is one line per request, for the failure log.
func (m *fakeModel) summary() string {
	var b strings.Builder
	for _, r := range m.requests() {
		fmt.Fprintf(&b, "  #%d %s %s [%s] %d bytes\n", r.Seq, r.Method, r.Path, r.Kind, len(r.Body))
	}
	return b.String()
}

// strings returns every string in the request's JSON body, depth first,
// so that a test looks for a text wherever the client put it, unescaped.
func (r *request) strings() []string { return stringsIn(r.JSON) }

func stringsIn(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// contains says whether any string of the request's body contains s.
func (r *request) contains(s string) bool {
	return slices.ContainsFunc(r.strings(), func(x string) bool { return strings.Contains(x, s) })
}

// allText joins every string of the body, for regular expressions.
func (r *request) allText() string { return strings.Join(r.strings(), "\n") }

// writeJSON answers with a JSON document.
func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}

// sse writes server-sent events and flushes after each.
type sse struct {
	w http.ResponseWriter
	// crlf ends events with \r\n\r\n, as Google's API does.
	crlf bool
}

func startSSE(w http.ResponseWriter, crlf bool) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, crlf: crlf}
}

// send writes one event; an empty name writes a data-only event.
func (s *sse) send(name string, data any) {
	b, _ := json.Marshal(data)
	end := "\n\n"
	if s.crlf {
		end = "\r\n\r\n"
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s%s", b, end)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// obj is a JSON object literal.
type obj = map[string]any

// field walks a decoded JSON value by keys and indexes; nil when absent.
func field(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// list is field as a slice.
func list(v any, path ...any) []any {
	a, _ := field(v, path...).([]any)
	return a
}

// str is field as a string.
func str(v any, path ...any) string {
	s, _ := field(v, path...).(string)
	return s
}
