package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
)

// TestParseKeys: the BATON_API_KEYS form, and what it refuses, named by
// position and never by key.
func TestParseKeys(t *testing.T) {
	long := strings.Repeat("k", MaxKeyLen) // the longest key held
	a, err := ParseKeys(" k1 = acme , k2=acme,\r\n# a comment\nk3=globex,, \n" + long + "=acme")
	if err != nil {
		t.Fatal(err)
	}
	for key, tenant := range map[string]string{"k1": "acme", "k2": "acme", "k3": "globex", long: "acme"} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		if got, err := a.Authenticate(r); got != tenant || err != nil {
			t.Errorf("key %s = %q %v, want %s", key, got, err, tenant)
		}
	}
	// Only the hashes are kept.
	if s := fmt.Sprintf("%#v", a); strings.Contains(s, `"k1"`) || strings.Contains(s, `"k3"`) {
		t.Errorf("the authenticator keeps a key: %s", s)
	}
	for spec, field := range map[string]string{
		"":                               "keys",
		"# only a comment":               "keys",
		"secret-key":                     "keys[1]",
		"k1=acme,=globex":                "keys[2]",
		"k1=acme,secret-key=":            "keys[2]",
		"k1=acme,k1=globex":              "keys[2]",
		"k1=" + strings.Repeat("t", 129): "keys[1]",
		// Judged as an entry whatever its length, not "could not be read".
		"k1=" + strings.Repeat("t", 100<<10):                "keys[1]",
		"k1=acme," + strings.Repeat("k", 100<<10) + "=acme": "keys[2]",
		// A key no server reads in a request's headers.
		strings.Repeat("k", MaxKeyLen+1) + "=acme": "keys[1]",
		"k1=a\x00b": "keys[1]",
		// A key holding '=' (base64 padding) would otherwise be cut at its
		// first '=': a shorter key than meant, for a tenant named "=acme".
		"secret-key==acme":              "keys[1]",
		"k1=acme,secret-key=pad=globex": "keys[2]",
		// A key no client could send (SendableKey): inner space, a
		// control character, a byte outside ASCII.
		"secret key=acme":          "keys[1]",
		"k1=acme,secret\tkey=acme": "keys[2]",
		"secret-k\x7fey=acme":      "keys[1]",
		"secret-kéy=acme":          "keys[1]",
		"secret-k\xffey=acme":      "keys[1]",
	} {
		_, err := ParseKeys(spec)
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[field] == "" {
			t.Errorf("ParseKeys(%q) = %v, want invalid naming %s", spec, err, field)
		}
		if err != nil && (strings.Contains(err.Error(), "secret-key") || strings.Contains(err.Error(), "k1")) {
			t.Errorf("ParseKeys(%q) names a key: %v", spec, err)
		}
	}
}

// TestSendableKey: the one rule of a key, visible ASCII only.
func TestSendableKey(t *testing.T) {
	for key, want := range map[string]bool{
		"k": true, "!~": true, "c2VjcmV0": true, "abc==": true, "a-b_c.d/e+f": true,
		"": false, " ": false, "a b": false, "a\tb": false, "a\x00b": false, "a\x7f": false, "é": false, "\xff": false,
	} {
		if got := SendableKey(key); got != want {
			t.Errorf("SendableKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestReadKeys reads a key file; a missing file is not_found.
func TestReadKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte("\xef\xbb\xbf# team keys\nk1=acme\nk2=globex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := ReadKeys(path)
	if err != nil || len(a.keys) != 2 {
		t.Fatalf("ReadKeys = %v %v, want two keys", a, err)
	}
	if _, err := ReadKeys(filepath.Join(t.TempDir(), "none")); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Errorf("a missing file = %v, want not_found", err)
	}
	// The read is bounded: a file over MaxKeysFileBytes is too_large
	// (before, it was read whole, and /dev/zero was read until memory ran
	// out). One of exactly MaxKeysFileBytes is read.
	for _, tc := range []struct {
		size int
		code continuity.Code
	}{
		{MaxKeysFileBytes, ""},
		{MaxKeysFileBytes + 1, continuity.CodeTooLarge},
	} {
		// A key, then comment lines of 64 bytes, then one to the size.
		body := []byte("k1=acme\n" + strings.Repeat("#"+strings.Repeat("-", 62)+"\n", (tc.size-8)/64))
		body = append(body, strings.Repeat("#", tc.size-len(body))...)
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadKeys(path); continuity.ErrorCode(err) != tc.code {
			t.Errorf("a key file of %d bytes = %v, want %q", tc.size, err, tc.code)
		}
	}
}

// TestAuthenticate: a key in any other form than "Bearer KEY", a missing
// one, an unknown one and Authorization given more than once, even with
// known keys, are all unauthorized.
func TestAuthenticate(t *testing.T) {
	a, err := ParseKeys("k1=acme,k2=globex")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		headers []string // the Authorization headers, in order
		tenant  string   // "" for unauthorized
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"Bearer"}, ""},
		{[]string{"Bearer "}, ""},
		{[]string{"Basic k1"}, ""},
		{[]string{"k1"}, ""},
		{[]string{"Bearer k3"}, ""},
		{[]string{"Bearer k1x"}, ""},
		{[]string{"Bearer K1"}, ""},
		{[]string{"Bearer k1"}, "acme"},
		{[]string{"bearer k1"}, "acme"}, // the scheme is case-insensitive
		{[]string{"Bearer k1", "Bearer k1"}, ""},
		{[]string{"Bearer k1", "Bearer k2"}, ""},
		{[]string{"Bearer k2", "Bearer k1"}, ""},
		{[]string{"Bearer k1", ""}, ""},
		{[]string{"Bearer k3", "Bearer k1"}, ""},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		tenant, err := a.Authenticate(r)
		want := continuity.Code("")
		if tc.tenant == "" {
			want = continuity.CodeUnauthorized
		}
		if continuity.ErrorCode(err) != want || tenant != tc.tenant {
			t.Errorf("Authorization %q = %q %v, want %q %q", tc.headers, tenant, err, tc.tenant, want)
		}
	}
}

// TestUnauthorizedAnswer: every 401 is the one answer, whatever was wrong
// with the credentials (Authorization twice among them), and carries the
// challenge WWW-Authenticate: Bearer; no other answer does.
func TestUnauthorizedAnswer(t *testing.T) {
	admins, err := ParseKeys(adminKeyA + "=" + tenantA)
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, sqltest.SQLite, time.Now, Options{AdminAuthenticator: admins}, nil)
	const ledger, erase = "/api/v1/ledger?limit=5", "/api/v1/admin/erase"
	cases := []struct {
		name, method, path string
		keys               []string // one Authorization header each
		status             int
	}{
		{"no key", "GET", ledger, nil, 401},
		{"an unknown key", "GET", ledger, []string{"key-c-0123456789abcdef"}, 401},
		{"another scheme", "GET", ledger, []string{"Basic " + keyA}, 401},
		{"one key twice", "GET", ledger, []string{keyA, keyA}, 401},
		{"two tenants' keys", "GET", ledger, []string{keyA, keyB}, 401},
		{"a known key after an unknown one", "GET", ledger, []string{"key-c-0123456789abcdef", keyA}, 401},
		{"no key on an admin route", "POST", erase, nil, 401},
		{"an admin key twice", "POST", erase, []string{adminKeyA, adminKeyA}, 401},
		{"a known key", "GET", ledger, []string{keyA}, 200},
		{"a known key, a bad query", "GET", "/api/v1/ledger", []string{keyA}, 400},
		{"a tenant's key on an admin route", "POST", erase, []string{keyA}, 403},
		{"no key on an unknown route", "GET", "/api/v1/nothing-here", nil, 404},
	}
	var one string
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, s.URL+prefix+tc.path, strings.NewReader("{}"))
		for _, k := range tc.keys {
			if !strings.Contains(k, " ") {
				k = "Bearer " + k
			}
			req.Header.Add("Authorization", k)
		}
		a := do(t, req)
		body := string(a.body)
		if a.status != tc.status {
			t.Errorf("%s answered %d %s, want %d", tc.name, a.status, body, tc.status)
			continue
		}
		challenge := a.header.Values("WWW-Authenticate")
		if tc.status != 401 {
			if len(challenge) != 0 {
				t.Errorf("%s answered %d with WWW-Authenticate %q, want none", tc.name, tc.status, challenge)
			}
			continue
		}
		if len(challenge) != 1 || challenge[0] != "Bearer" {
			t.Errorf("%s answered WWW-Authenticate %q, want Bearer", tc.name, challenge)
		}
		if one == "" {
			one = body
		}
		if body != one || !strings.Contains(body, errUnauthorized.Message) || strings.Contains(body, "tenant") {
			t.Errorf("%s answered %s, want the one answer %s", tc.name, body, one)
		}
	}
}

// authFunc is an Authenticator of a function.
type authFunc func(r *http.Request) (string, error)

func (f authFunc) Authenticate(r *http.Request) (string, error) { return f(r) }

// TestHandlerAuthentication: a host's own authenticator decides the
// tenant; its forbidden is answered 403 with its message, any other
// failure 401 with the one message; no authenticator refuses all but the
// health probe.
func TestHandlerAuthentication(t *testing.T) {
	host := authFunc(func(r *http.Request) (string, error) {
		switch r.Header.Get("X-User") {
		case "alice":
			return tenantA, nil
		case "mallory":
			return "", continuity.Errorf(continuity.CodeForbidden, "this user may not use baton")
		case "eve":
			return "", errors.New("the session store says: user eve has no session")
		}
		return "", continuity.Errorf(continuity.CodeNotFound, "no user bob")
	})
	s := newServer(t, sqltest.SQLite, time.Now, Options{Authenticator: host}, nil)
	for user, want := range map[string]int{"alice": 200, "mallory": 403, "eve": 401, "bob": 401} {
		req, _ := http.NewRequest("GET", s.URL+prefix+"/api/v1/ledger?limit=5", nil)
		req.Header.Set("X-User", user)
		a := do(t, req)
		body := string(a.body)
		if a.status != want {
			t.Errorf("%s answered %d %s, want %d", user, a.status, body, want)
		}
		if want == 401 && !strings.Contains(body, errUnauthorized.Message) {
			t.Errorf("%s answered %s, want the one unauthorized message", user, body)
		}
		if strings.Contains(body, "eve") || strings.Contains(body, "bob") {
			t.Errorf("%s answered %s, which says what the authenticator knows", user, body)
		}
	}

	closed := httptest.NewServer(NewHandler(func(string) continuity.API { t.Fatal("no request may reach the API"); return nil }, Options{}))
	defer closed.Close()
	for path, want := range map[string]int{"/healthz": 200, "/api/v1/ledger?limit=5": 401} {
		req, _ := http.NewRequest("GET", closed.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+keyA)
		if a := do(t, req); a.status != want {
			t.Errorf("without an authenticator %s answered %d, want %d", path, a.status, want)
		}
	}
}
