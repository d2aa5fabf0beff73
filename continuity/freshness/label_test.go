package freshness_test

import (
	"encoding"
	"encoding/json"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity/freshness"
)

var allLabels = []freshness.Label{freshness.Unknown, freshness.Invalid, freshness.Fresh, freshness.Aging, freshness.Stale}

var allDivergences = []freshness.Divergence{freshness.DivergenceUnknown, freshness.Exact, freshness.Advanced, freshness.Diverged, freshness.DifferentContext}

// textCase is one value of a text-marshalled enum and the name it must carry.
type textCase struct {
	v    encoding.TextMarshaler
	name string
	zero func() encoding.TextUnmarshaler
}

func TestNamesRoundTrip(t *testing.T) {
	names := []string{"unknown", "invalid", "fresh", "aging", "stale"}
	dnames := []string{"unknown", "exact", "advanced", "diverged", "different_context"}
	var cases []textCase
	for i, l := range allLabels {
		cases = append(cases, textCase{l, names[i], func() encoding.TextUnmarshaler { return new(freshness.Label) }})
	}
	for i, d := range allDivergences {
		cases = append(cases, textCase{d, dnames[i], func() encoding.TextUnmarshaler { return new(freshness.Divergence) }})
	}
	for _, c := range cases {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != `"`+c.name+`"` {
			t.Errorf("json.Marshal(%v) = %s, %v; want %q", c.v, b, err, c.name)
		}
		if s := c.v.(interface{ String() string }).String(); s != c.name {
			t.Errorf("String() = %q, want %q", s, c.name)
		}
		back := c.zero()
		if err := json.Unmarshal(b, back); err != nil {
			t.Errorf("json.Unmarshal(%s): %v", b, err)
		}
		if got, _ := back.(encoding.TextMarshaler).MarshalText(); string(got) != c.name {
			t.Errorf("round trip of %q gave %q", c.name, got)
		}
	}
}

func TestUndefinedValues(t *testing.T) {
	for _, l := range []freshness.Label{-1, freshness.Stale + 1} {
		if _, err := l.MarshalText(); err == nil {
			t.Errorf("Label(%d).MarshalText: no error", int(l))
		}
		if l.String() == "" || l.History() {
			t.Errorf("Label(%d): String %q, History %v", int(l), l.String(), l.History())
		}
	}
	for _, d := range []freshness.Divergence{-1, freshness.DifferentContext + 1} {
		if _, err := d.MarshalText(); err == nil {
			t.Errorf("Divergence(%d).MarshalText: no error", int(d))
		}
		if d.String() == "" {
			t.Errorf("Divergence(%d): empty String", int(d))
		}
	}
	for _, s := range []string{"", "Fresh", "different-context", "0", "history"} {
		var l freshness.Label
		if err := l.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("Label.UnmarshalText(%q): no error", s)
		}
		var d freshness.Divergence
		if err := d.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("Divergence.UnmarshalText(%q): no error", s)
		}
	}
}

// TestHistory: a record is history exactly when its freshness is stale or
// invalid, whatever its divergence; advanced-and-stale (the ADR's outage) is
// history.
func TestHistory(t *testing.T) {
	history := map[freshness.Label]bool{freshness.Stale: true, freshness.Invalid: true}
	for _, l := range allLabels {
		if l.History() != history[l] {
			t.Errorf("%v.History() = %v, want %v", l, l.History(), history[l])
		}
		for _, d := range allDivergences {
			a := freshness.Assessment{Freshness: freshness.Reading{Label: l}, Divergence: d}
			if a.History() != history[l] {
				t.Errorf("%v/%v: History() = %v, want %v", l, d, a.History(), history[l])
			}
		}
	}
}

func TestAssessmentJSON(t *testing.T) {
	now := time.Date(2026, 9, 11, 9, 0, 0, 0, time.UTC)
	a := freshness.Assessment{
		Freshness:  freshness.Default.Parse("2026-09-05T03:45:23Z", now),
		Divergence: freshness.Diverge(freshness.Topology{Git: true, Recorded: ref(shaA, "main"), Current: ref(shaB, "main"), RecordedIsAncestor: true}),
	}
	b, err := json.Marshal(a)
	want := `{"freshness":{"label":"stale","reason":"recorded 6d ago, stale from 2d"},"divergence":"advanced"}`
	if err != nil || string(b) != want {
		t.Errorf("json.Marshal = %s, %v; want %s", b, err, want)
	}
	var back freshness.Assessment
	if err := json.Unmarshal(b, &back); err != nil || back.Freshness.Label != freshness.Stale || back.Divergence != freshness.Advanced || !back.History() {
		t.Errorf("json.Unmarshal = %+v, %v", back, err)
	}
}
