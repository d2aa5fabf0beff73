package continuity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity/workdir"
)

func TestCheckText(t *testing.T) {
	cases := []struct {
		v      string
		reason string
	}{
		{"", ""},
		{"acme", ""},
		{"héllo ✓", ""},
		{"\uFFFD", ""},
		{"acme\xfe", "must be valid UTF-8"},
		{"acme\xff", "must be valid UTF-8"},
		{"\xc3", "must be valid UTF-8"},
		{"\xed\xa0\x80", "must be valid UTF-8"}, // a UTF-16 surrogate
		{"a\x00b", "must not contain NUL bytes"},
		{"\x00", "must not contain NUL bytes"},
		{"\x00\xfe", "must be valid UTF-8"},
	}
	for _, c := range cases {
		f := map[string]string{}
		ok := checkText(f, "x", c.v)
		if ok != (c.reason == "") || f["x"] != c.reason {
			t.Errorf("checkText(%q) = %v, %q; want reason %q", c.v, ok, f["x"], c.reason)
		}
	}
}

func TestValidateTenant(t *testing.T) {
	cases := []struct {
		tenant string
		ok     bool
	}{
		{"t", true},
		{strings.Repeat("t", MaxTenantLen), true},
		{strings.Repeat("é", MaxTenantLen), true},
		{"", false},
		{strings.Repeat("t", MaxTenantLen+1), false},
		{"acme\xfe", false},
		{"acme\x00", false},
	}
	for _, c := range cases {
		err := ValidateTenant(c.tenant)
		if (err == nil) != c.ok {
			t.Errorf("ValidateTenant(%q) = %v, want ok %v", c.tenant, err, c.ok)
		}
		if err != nil && (ErrorCode(err) != CodeInvalid || ErrorFields(err)["tenant"] == "") {
			t.Errorf("ValidateTenant(%q) = %v, want invalid naming tenant", c.tenant, err)
		}
	}
}

// TestSessionIDField pins the one session-id rule: continuity admits exactly
// the ids bottle.ValidateSessionID admits (after trimming white space).
func TestSessionIDField(t *testing.T) {
	cases := []struct {
		v        string
		required bool
		reason   string
	}{
		{"c96e6033-0cbe-4890-a588-1160d3853949", true, ""},
		{" padded ", true, ""},
		{strings.Repeat("a", MaxSessionIDLen), true, ""},
		{"", false, ""},
		{"  ", true, "is required"},
		{strings.Repeat("a", MaxSessionIDLen+1), true, bottle.SessionIDRule},
		{"../escape", true, bottle.SessionIDRule},
		{"a..b", true, bottle.SessionIDRule},
		{"é", true, bottle.SessionIDRule},
		{"s\xfe", true, "must be valid UTF-8"},
		{"s\x00", false, "must not contain NUL bytes"},
	}
	for _, c := range cases {
		f := map[string]string{}
		got := sessionIDField(f, "sessionId", c.v, c.required)
		if f["sessionId"] != c.reason {
			t.Errorf("sessionIDField(%q) reason %q, want %q", c.v, f["sessionId"], c.reason)
		}
		if c.reason == "" && got != "" && bottle.ValidateSessionID(got) != nil {
			t.Errorf("sessionIDField admits %q, which the bottle refuses", got)
		}
	}
}

// TestBottleErrorIsInvalid: the bottle's refusal of a session id reaches a
// caller as invalid naming sessionId, never internal.
func TestBottleErrorIsInvalid(t *testing.T) {
	err := fmt.Errorf("seal: %w", bottle.ValidateSessionID("../escape"))
	if ErrorCode(err) != CodeInvalid || ErrorFields(err)["sessionId"] != bottle.SessionIDRule || ErrorMessage(err) != "invalid input" {
		t.Fatalf("code %q fields %v message %q, want invalid naming sessionId", ErrorCode(err), ErrorFields(err), ErrorMessage(err))
	}
}

// TestProjectFacetFits: the project facet a working directory gives
// (workdir.Project) is never longer than the service stores.
func TestProjectFacetFits(t *testing.T) {
	if workdir.MaxProjectLen != MaxFacetLen {
		t.Fatalf("workdir.MaxProjectLen = %d, MaxFacetLen = %d: a project facet must fit", workdir.MaxProjectLen, MaxFacetLen)
	}
}

// TestListLimit: a listing's limit is 1 to max as given, 0 is max, and
// anything else is refused with a message that says what 0 means.
func TestListLimit(t *testing.T) {
	const max = 100
	for _, tc := range []struct {
		limit, want int
		refused     bool
	}{
		{0, max, false}, {1, 1, false}, {max, max, false},
		{-1, -1, true}, {max + 1, max + 1, true},
	} {
		f := map[string]string{}
		got := listLimit(f, tc.limit, max)
		if got != tc.want || (f["limit"] != "") != tc.refused {
			t.Errorf("listLimit(%d) = %d, fields %v", tc.limit, got, f)
		}
		if tc.refused && f["limit"] != "must be between 1 and 100, or 0 (or none) for 100" {
			t.Errorf("listLimit(%d) says %q", tc.limit, f["limit"])
		}
	}
}
