package continuity

import (
	"errors"
	"fmt"
	"testing"

	"github.com/batonhq/baton/continuity/memrule"
)

func TestErrorRendering(t *testing.T) {
	cases := []struct {
		err     error
		code    Code
		text    string
		message string
	}{
		{nil, "", "", ""},
		{Invalid("agent", "is required"), CodeInvalid, "invalid: invalid input (agent: is required)", "invalid input"},
		{&Error{Code: CodeInvalid, Message: "m", Fields: map[string]string{"b": "2", "a": "1"}}, CodeInvalid, "invalid: m (a: 1; b: 2)", "m"},
		{Errorf(CodeConflict, "live row %d", 1), CodeConflict, "conflict: live row 1", "live row 1"},
		{fmt.Errorf("wrapped: %w", Errorf(CodeNotFound, "gone")), CodeNotFound, "wrapped: not_found: gone", "gone"},
		{errors.New("SELECT secret FROM memories"), CodeInternal, "SELECT secret FROM memories", "internal error"},
		{&memrule.StatusError{Change: "resolve", Status: memrule.Archived}, CodeConflict, "cannot resolve a memory that is archived", "cannot resolve a memory that is archived"},
	}
	for _, tc := range cases {
		if got := ErrorCode(tc.err); got != tc.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.code)
		}
		if tc.err == nil {
			continue
		}
		if got := tc.err.Error(); got != tc.text {
			t.Errorf("Error() = %q, want %q", got, tc.text)
		}
		if got := ErrorMessage(tc.err); got != tc.message {
			t.Errorf("ErrorMessage(%v) = %q, want %q (never the cause's text)", tc.err, got, tc.message)
		}
	}
	cause := errors.New("driver")
	if e := (&Error{Code: CodeInternal, Err: cause}); !errors.Is(e, cause) {
		t.Error("Error does not unwrap to its cause")
	}
}

func TestSelectorCanonical(t *testing.T) {
	cases := []struct {
		a, b  Selector
		equal bool
		canon string
	}{
		{nil, nil, true, "{}"},
		{nil, Selector{}, true, "{}"},
		{Selector{"kind": "all"}, Selector{"kind": "all"}, true, `{"kind":"all"}`},
		{Selector{"scope": "x", "kind": "project"}, Selector{"kind": "project", "scope": "x"}, true, `{"kind":"project","scope":"x"}`},
		{Selector{"kind": "all"}, Selector{"kind": "project"}, false, `{"kind":"all"}`},
		{Selector{"kind": "all"}, Selector{"kind": "all", "scope": ""}, false, `{"kind":"all"}`},
		{Selector{"kind": "all"}, nil, false, `{"kind":"all"}`},
	}
	for _, tc := range cases {
		if got := tc.a.Equal(tc.b); got != tc.equal {
			t.Errorf("%v.Equal(%v) = %v, want %v", tc.a, tc.b, got, tc.equal)
		}
		if got := tc.b.Equal(tc.a); got != tc.equal {
			t.Errorf("Equal is not symmetric for %v, %v", tc.a, tc.b)
		}
		if got := tc.a.Canonical(); got != tc.canon {
			t.Errorf("%v.Canonical() = %s, want %s", tc.a, got, tc.canon)
		}
	}
}
