package continuity

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"testing"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
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

// TestRuleErrors pins the one map from the rule packages' errors to baton's
// codes: every error a rule declares, bare and wrapped, as ErrorCode,
// ErrorMessage and ErrorFields read it and as coded returns it from a
// transaction; anything else stays internal.
func TestRuleErrors(t *testing.T) {
	_, badCursor := provenance.DecodeCursor("not-a-cursor")
	_, badLimit := provenance.Limit(provenance.MaxLimit + 1)
	_, badResolve := memrule.Transition(memrule.Resolve, memrule.Archived)
	_, badRevise := memrule.Revise(memrule.Commitment, memrule.Note, memrule.Resolved)
	_, notTransition := memrule.Transition(memrule.Create, memrule.Open)
	cases := []struct {
		name    string
		err     error
		code    Code
		message string
		fields  map[string]string
	}{
		{"bottle session id", bottle.ValidateSessionID("../etc"), CodeInvalid, "invalid input", map[string]string{"sessionId": bottle.SessionIDRule}},
		{"triage attempt", triage.ErrConflict, CodeConflict, "the attempt is not the pending one", nil},
		{"provenance cursor", badCursor, CodeInvalid, "invalid input", map[string]string{"cursor": "is not a cursor this server issued"}},
		{"provenance limit", badLimit, CodeInvalid, "invalid input", map[string]string{"limit": "must be between 1 and " + strconv.Itoa(provenance.MaxLimit) + ", or 0 (or none) for " + strconv.Itoa(provenance.DefaultLimit)}},
		{"memrule transition", badResolve, CodeConflict, "cannot resolve a memory that is archived", nil},
		{"memrule revise", badRevise, CodeConflict, "only an open memory can be revised; this one is resolved", nil},
		{"memrule misuse is internal", notTransition, CodeInternal, "internal error", nil},
		{"triage unknown status is internal", func() error { _, err := triage.ParseStatus("bogus"); return err }(), CodeInternal, "internal error", nil},
	}
	for _, tc := range cases {
		for i, err := range []error{tc.err, fmt.Errorf("context: %w", tc.err)} {
			t.Run(tc.name+[]string{"", "/wrapped"}[i], func(t *testing.T) {
				if err == nil {
					t.Fatal("the rule returned no error")
				}
				if got := ErrorCode(err); got != tc.code {
					t.Errorf("ErrorCode = %q, want %q", got, tc.code)
				}
				if got := ErrorMessage(err); got != tc.message {
					t.Errorf("ErrorMessage = %q, want %q", got, tc.message)
				}
				if got := ErrorFields(err); !maps.Equal(got, tc.fields) {
					t.Errorf("ErrorFields = %v, want %v", got, tc.fields)
				}
				var e *Error
				if got := coded(err); errors.As(got, &e) != (tc.code != CodeInternal) {
					t.Errorf("coded(%v) = %#v: a mapped rule error leaves a transaction as an *Error, any other as itself", err, got)
				} else if tc.code == CodeInternal && got != err {
					t.Errorf("coded changed an unmapped error: %v", got)
				}
				f, want := map[string]string{"other": "kept"}, map[string]string{"other": "kept"}
				addFields(f, err)
				maps.Copy(want, tc.fields)
				if !maps.Equal(f, want) {
					t.Errorf("addFields = %v, want %v", f, want)
				}
			})
		}
	}
	if coded(nil) != nil || ErrorCode(nil) != "" {
		t.Error("a nil error must stay nil")
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
