package statuspage_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/continuity"
)

// FuzzQuery sends any query to every page, with a valid key in the
// Authorization header: the answer is a page (200), a refusal of the query
// (400), an unknown session (404) or, when the query presents a key of its
// own (which wins over the header) that is not valid, the login page
// (401); never a failure, always HTML with the page's one script, whatever
// the query held.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{"", "state=live", "project=baton&state=explicitly_closed", "agent=claude-code&id=s1",
		"agent=claude-code&id=nope", "project=%FF", "id=%00", "agent=Claude&id=s1", "state=open", "project=a&project=b",
		"id=" + strings.Repeat("x", 300), "project=%3Cscript%3E", "key="} {
		for page := range 4 {
			f.Add(uint8(page), q)
		}
	}
	fx := seed(f)
	auth, err := httpapi.ParseKeys(keyA + "=" + tenant)
	if err != nil {
		f.Fatal(err)
	}
	h := statuspage.New(func(tn string) continuity.API { return fx.svc.For(tn) },
		statuspage.Options{Authenticator: auth, Now: fx.clock.Now, Bottles: func(string, string) ([]byte, error) { return []byte(hostile), nil }})
	pages := []string{"/", "/session", "/memory", "/doctor"}
	f.Fuzz(func(t *testing.T, page uint8, query string) {
		req := httptest.NewRequest(http.MethodGet, "http://status.test/", nil)
		req.URL.Path, req.URL.RawQuery = pages[int(page)%len(pages)], query
		req.Header.Set("Authorization", "Bearer "+keyA)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		case http.StatusUnauthorized:
			if k := req.URL.Query().Get("key"); k == "" || k == keyA {
				t.Fatalf("%s?%s: 401 without a wrong key in the query\n%s", req.URL.Path, query, body)
			}
		case http.StatusSeeOther:
			if req.URL.Query().Get("key") == "" {
				t.Fatalf("%s?%s: redirected without a key", req.URL.Path, query)
			}
			return
		default:
			t.Fatalf("%s?%s: %d\n%s", req.URL.Path, query, rec.Code, body)
		}
		if rec.Header().Get("Content-Type") != "text/html; charset=utf-8" || strings.Count(strings.ToLower(body), "<script") != 1 {
			t.Fatalf("%s?%s: not the page's HTML with its one script:\n%s", req.URL.Path, query, body)
		}
	})
}
