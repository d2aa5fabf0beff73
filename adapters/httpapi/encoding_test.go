package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
)

// TestContentEncoding: the handler reads a body as sent, so a body that
// declares a content coding other than identity is refused, naming the
// header, and opens nothing: whether its bytes are compressed (read raw
// they are no JSON; inflated they could be a bomb) or plain JSON under a
// false label (which a proxy would decode, or refuse, otherwise than the
// handler did).
func TestContentEncoding(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, sqltest.SQLite, storetest.NewClock().Now, Options{}, nil)
	open := func(sessionID string) []byte {
		return []byte(`{"agent":"claude-code","sessionId":"` + sessionID + `","source":"startup","project":"baton"}`)
	}
	gzipped := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	cases := []struct {
		name, encoding string // "" sends no Content-Encoding
		gzip           bool   // the body is gzipped
		status         int
	}{
		{"a gzipped body", "gzip", true, http.StatusBadRequest},
		{"plain JSON labelled gzip", "gzip", false, http.StatusBadRequest},
		{"plain JSON labelled br", "br", false, http.StatusBadRequest},
		{"plain JSON labelled deflate in capitals", "DEFLATE", false, http.StatusBadRequest},
		{"identity, then gzip", "identity, gzip", false, http.StatusBadRequest},
		{"no coding", "", false, http.StatusOK},
		{"identity", "identity", false, http.StatusOK},
		{"identity in capitals", "Identity", false, http.StatusOK},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sessionID := "enc" + string(rune('a'+i))
			body := open(sessionID)
			if tc.gzip {
				body = gzipped(body)
			}
			req, err := http.NewRequest(http.MethodPost, s.URL+prefix+"/api/v1/agent-sessions/open", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+keyA)
			req.Header.Set("Content-Type", "application/json")
			if tc.encoding != "" {
				req.Header.Set("Content-Encoding", tc.encoding)
			}
			got := do(t, req)
			if got.status != tc.status {
				t.Fatalf("answered %d %s, want %d", got.status, got.body, tc.status)
			}
			_, err = s.svc.For(tenantA).Session(ctx, agent, sessionID)
			if tc.status != http.StatusOK {
				if got.err == nil || got.err.Code != continuity.CodeInvalid || got.err.Fields["Content-Encoding"] == "" {
					t.Errorf("answered %s, want invalid naming Content-Encoding", got.body)
				}
				if continuity.ErrorCode(err) != continuity.CodeNotFound {
					t.Errorf("the refused open left the session: %v", err)
				}
				return
			}
			if err != nil {
				t.Errorf("the open answered %d but the session is not there: %v", got.status, err)
			}
		})
	}
}
