package freshness_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity/freshness"
)

// t0 is an arbitrary instant; every case is an offset from it so the tables
// read as the boundaries they pin.
var t0 = time.Date(2026, 9, 11, 9, 0, 0, 0, time.UTC)

const (
	ns     = time.Nanosecond
	sec    = time.Second
	minute = time.Minute
	hr     = time.Hour
	day    = 24 * time.Hour
)

func TestDefault(t *testing.T) {
	if freshness.Default.Fresh != 12*hr || freshness.Default.Stale != 48*hr || freshness.Default.Skew != 2*minute {
		t.Errorf("Default = %+v, want fresh 12h, stale 48h, skew 2m", freshness.Default)
	}
	if err := freshness.Default.Validate(); err != nil {
		t.Errorf("Default.Validate() = %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		p    freshness.Policy
		want string // "" means valid
	}{
		{"default", freshness.Default, ""},
		{"no aging band", freshness.Policy{Fresh: hr, Stale: hr}, ""},
		{"one ns thresholds", freshness.Policy{Fresh: ns, Stale: ns}, ""},
		{"zero policy", freshness.Policy{}, "thresholds must be positive (fresh 0s, stale 0s)"},
		{"zero fresh", freshness.Policy{Stale: hr}, "thresholds must be positive (fresh 0s, stale 1h0m0s)"},
		{"negative stale", freshness.Policy{Fresh: hr, Stale: -hr}, "thresholds must be positive"},
		{"stale below fresh", freshness.Policy{Fresh: 2 * hr, Stale: hr}, "stale threshold 1h0m0s is below fresh threshold 2h0m0s"},
		{"no skew allowed", freshness.Policy{Fresh: hr, Stale: 2 * hr}, ""},
		{"negative skew", freshness.Policy{Fresh: hr, Stale: 2 * hr, Skew: -ns}, "skew -1ns is negative"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: Validate() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestOf pins every threshold and every unit switch of the reason's age on
// both sides, with the exact wording.
func TestOf(t *testing.T) {
	p := freshness.Default
	tests := []struct {
		name   string
		age    time.Duration // now minus recorded; negative is a future stamp
		label  freshness.Label
		reason string
	}{
		{"recorded now", 0, freshness.Fresh, "recorded 0s ago, fresh under 12h"},
		{"one ns old", ns, freshness.Fresh, "recorded 0s ago, fresh under 12h"},
		{"just under a minute", minute - ns, freshness.Fresh, "recorded 59s ago, fresh under 12h"},
		{"one minute: minutes", minute, freshness.Fresh, "recorded 1m ago, fresh under 12h"},
		{"18 minutes", 18*minute + 30*sec, freshness.Fresh, "recorded 18m ago, fresh under 12h"},
		{"just under an hour", hr - ns, freshness.Fresh, "recorded 59m ago, fresh under 12h"},
		{"one hour: hours", hr, freshness.Fresh, "recorded 1h ago, fresh under 12h"},
		{"one ns before the fresh threshold", 12*hr - ns, freshness.Fresh, "recorded 11h ago, fresh under 12h"},
		{"exactly 12h is aging", 12 * hr, freshness.Aging, "recorded 12h ago, aging from 12h"},
		{"one ns past 12h", 12*hr + ns, freshness.Aging, "recorded 12h ago, aging from 12h"},
		{"25 hours", 25*hr + 59*minute, freshness.Aging, "recorded 25h ago, aging from 12h"},
		{"one ns before the stale threshold", 48*hr - ns, freshness.Aging, "recorded 47h ago, aging from 12h"},
		{"exactly 48h is stale, in days", 48 * hr, freshness.Stale, "recorded 2d ago, stale from 2d"},
		{"one ns past 48h", 48*hr + ns, freshness.Stale, "recorded 2d ago, stale from 2d"},
		{"just under three days", 3*day - ns, freshness.Stale, "recorded 2d ago, stale from 2d"},
		{"six days: the ADR's outage", 6*day + 23*hr, freshness.Stale, "recorded 6d ago, stale from 2d"},
		// A stamp ahead of now: clock skew under Skew (2m), clamped to age
		// zero and labelled so; Skew or more ahead is a bad timestamp.
		{"one ns in the future: skew", -ns, freshness.Fresh, "recorded 0s ago, fresh under 12h; stamped 0s ahead of the reading clock"},
		{"one second in the future: skew", -sec, freshness.Fresh, "recorded 0s ago, fresh under 12h; stamped 1s ahead of the reading clock"},
		{"one ns under the skew", -(2*minute - ns), freshness.Fresh, "recorded 0s ago, fresh under 12h; stamped 1m ahead of the reading clock"},
		{"exactly the skew is invalid", -2 * minute, freshness.Invalid, "timestamp is 2m in the future"},
		{"one ns past the skew", -(2*minute + ns), freshness.Invalid, "timestamp is 2m in the future"},
		{"three hours in the future", -3 * hr, freshness.Invalid, "timestamp is 3h in the future"},
		{"a week in the future", -7 * day, freshness.Invalid, "timestamp is 7d in the future"},
		{"a writer far in the future", math.MinInt64, freshness.Invalid, "timestamp is 106751d in the future"},
	}
	for _, tt := range tests {
		now := t0.Add(tt.age)
		got := p.Of(t0, now)
		wantAge, wantAhead := tt.age, time.Duration(0)
		if tt.age < 0 {
			wantAge = 0
			if tt.label != freshness.Invalid {
				wantAhead = -tt.age
			}
		}
		if tt.label == freshness.Invalid {
			wantAge = 0
		}
		if got.Label != tt.label || got.Reason != tt.reason || got.Age != wantAge || got.Ahead != wantAhead {
			t.Errorf("%s: Of = %v %q age %v ahead %v, want %v %q age %v ahead %v", tt.name, got.Label, got.Reason, got.Age, got.Ahead, tt.label, tt.reason, wantAge, wantAhead)
		}
	}
	// With no skew allowed, every future stamp is a bad one.
	strict := freshness.Policy{Fresh: p.Fresh, Stale: p.Stale}
	if got := strict.Of(t0, t0.Add(-ns)); got.Label != freshness.Invalid || got.Reason != "timestamp is 0s in the future" {
		t.Errorf("Skew 0, one ns ahead: %+v, want invalid", got)
	}
	// A writer's clock years ahead (the year 9999) is never clamped.
	if got := p.Of(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), t0); got.Label != freshness.Invalid || !got.Label.History() {
		t.Errorf("a stamp in 9999: %+v, want invalid history", got)
	}
	if got := p.Of(time.Time{}, t0); got != (freshness.Reading{Label: freshness.Unknown, Reason: freshness.ReasonNoTimestamp}) {
		t.Errorf("Of(zero time) = %+v, want unknown", got)
	}
}

// TestOneBoundary pins the boundary rule declared once in AgingAt and
// StaleAt: at every instant around each threshold, for several policies, an
// instant strictly before the threshold is on the fresher side.
func TestOneBoundary(t *testing.T) {
	policies := []freshness.Policy{freshness.Default, {Fresh: minute, Stale: hr}, {Fresh: ns, Stale: 3 * ns}}
	for _, p := range policies {
		if got := p.AgingAt(t0); !got.Equal(t0.Add(p.Fresh)) {
			t.Errorf("AgingAt = %v, want recorded + fresh", got)
		}
		if got := p.StaleAt(t0); !got.Equal(t0.Add(p.Stale)) {
			t.Errorf("StaleAt = %v, want recorded + stale", got)
		}
		for _, b := range []struct {
			at            time.Time
			before, after freshness.Label
		}{
			{p.AgingAt(t0), freshness.Fresh, freshness.Aging},
			{p.StaleAt(t0), freshness.Aging, freshness.Stale},
		} {
			for _, d := range []time.Duration{-ns, 0, ns} {
				want := b.after
				if d < 0 {
					want = b.before
				}
				if got := p.Of(t0, b.at.Add(d)).Label; got != want {
					t.Errorf("policy %+v, %v%+v: %v, want %v", p, b.at.Sub(t0), d, got, want)
				}
			}
		}
	}
}

// TestStaleWins: a policy with no aging band, or an inverted one, still never
// calls a record at or past Stale fresh.
func TestStaleWins(t *testing.T) {
	tests := []struct {
		p     freshness.Policy
		age   time.Duration
		label freshness.Label
	}{
		{freshness.Policy{Fresh: hr, Stale: hr}, hr - ns, freshness.Fresh},
		{freshness.Policy{Fresh: hr, Stale: hr}, hr, freshness.Stale},
		{freshness.Policy{Fresh: 2 * hr, Stale: hr}, hr - ns, freshness.Fresh},
		{freshness.Policy{Fresh: 2 * hr, Stale: hr}, hr, freshness.Stale},
		{freshness.Policy{Fresh: 2 * hr, Stale: hr}, 3 * hr, freshness.Stale},
	}
	for _, tt := range tests {
		if got := tt.p.Of(t0, t0.Add(tt.age)).Label; got != tt.label {
			t.Errorf("policy %+v, age %v: %v, want %v", tt.p, tt.age, got, tt.label)
		}
	}
}

func TestParse(t *testing.T) {
	p := freshness.Default
	now := t0
	tests := []struct {
		name, recorded string
		label          freshness.Label
		reason         string
	}{
		{"empty", "", freshness.Unknown, freshness.ReasonNoTimestamp},
		{"the zero time as text", "0001-01-01T00:00:00Z", freshness.Unknown, freshness.ReasonNoTimestamp},
		{"spaces are not trimmed", " ", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"padded timestamp", " 2026-09-11T08:00:00Z", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"not a time", "yesterday", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"date only", "2026-09-11", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"no zone", "2026-09-11T08:00:00", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"out of range", "2026-13-01T00:00:00Z", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"unix seconds", "1789117200", freshness.Invalid, freshness.ReasonNotRFC3339},
		{"one hour ago", "2026-09-11T08:00:00Z", freshness.Fresh, "recorded 1h ago, fresh under 12h"},
		{"fractional seconds", "2026-09-11T08:59:59.5Z", freshness.Fresh, "recorded 0s ago, fresh under 12h"},
		{"offset zone", "2026-09-11T10:42:00+02:00", freshness.Fresh, "recorded 18m ago, fresh under 12h"},
		{"exactly 12h ago", "2026-09-10T21:00:00Z", freshness.Aging, "recorded 12h ago, aging from 12h"},
		{"one ns short of 12h", "2026-09-10T21:00:00.000000001Z", freshness.Fresh, "recorded 11h ago, fresh under 12h"},
		{"exactly 48h ago", "2026-09-09T09:00:00Z", freshness.Stale, "recorded 2d ago, stale from 2d"},
		{"one ns short of 48h", "2026-09-09T09:00:00.000000001Z", freshness.Aging, "recorded 47h ago, aging from 12h"},
		{"six days ago", "2026-09-05T03:45:23Z", freshness.Stale, "recorded 6d ago, stale from 2d"},
		{"now", "2026-09-11T09:00:00Z", freshness.Fresh, "recorded 0s ago, fresh under 12h"},
		{"one ns ahead: skew", "2026-09-11T09:00:00.000000001Z", freshness.Fresh, "recorded 0s ago, fresh under 12h; stamped 0s ahead of the reading clock"},
		{"two minutes ahead", "2026-09-11T09:02:00Z", freshness.Invalid, "timestamp is 2m in the future"},
		{"ahead in another zone", "2026-09-11T14:00:00+02:00", freshness.Invalid, "timestamp is 3h in the future"},
	}
	for _, tt := range tests {
		got := p.Parse(tt.recorded, now)
		if got.Label != tt.label || got.Reason != tt.reason {
			t.Errorf("%s: Parse(%q) = %v %q, want %v %q", tt.name, tt.recorded, got.Label, got.Reason, tt.label, tt.reason)
		}
	}
}

// TestCompact pins every unit switch on both sides.
func TestCompact(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{math.MinInt64, "0s"},
		{-ns, "0s"},
		{0, "0s"},
		{sec - ns, "0s"},
		{sec, "1s"},
		{minute - ns, "59s"},
		{minute, "1m"},
		{hr - ns, "59m"},
		{hr, "1h"},
		{25 * hr, "25h"},
		{48*hr - ns, "47h"},
		{48 * hr, "2d"},
		{3*day - ns, "2d"},
		{3 * day, "3d"},
		{6 * day, "6d"},
		{math.MaxInt64, "106751d"},
	}
	for _, tt := range tests {
		if got := freshness.Compact(tt.d); got != tt.want {
			t.Errorf("Compact(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// FuzzParse: any recorded text yields one of the five labels with a reason;
// Unknown only for the empty string or the zero time; an age only when the
// label carries one, and never negative.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", " ", "2026-09-11T08:00:00Z", "2026-09-11T10:42:00.123+02:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-02-30T00:00:00Z", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := freshness.Default.Parse(s, t0)
		if _, err := r.Label.MarshalText(); err != nil {
			t.Fatalf("Parse(%q) label %v: %v", s, r.Label, err)
		}
		if r.Reason == "" {
			t.Fatalf("Parse(%q): no reason", s)
		}
		aged := r.Label == freshness.Fresh || r.Label == freshness.Aging || r.Label == freshness.Stale
		if r.Age < 0 || (!aged && r.Age != 0) {
			t.Fatalf("Parse(%q) = %v with age %v", s, r.Label, r.Age)
		}
		if r.Label == freshness.Unknown && s != "" {
			if tm, err := time.Parse(time.RFC3339Nano, s); err != nil || !tm.IsZero() {
				t.Fatalf("Parse(%q) = unknown for a non-empty, non-zero timestamp", s)
			}
		}
	})
}
