package freshness

import (
	"fmt"
	"time"
)

// Policy holds the freshness thresholds. Its values are declared once, in
// Default; a host may tune them (the ADR's session.freshness) but no other
// package carries a second copy of the numbers.
type Policy struct {
	// Fresh is the age at which a record stops being fresh and starts aging.
	Fresh time.Duration
	// Stale is the age at which a record becomes stale: shown as history,
	// never as current. When Stale does not exceed Fresh there is no aging
	// band, and staleness wins (see Of); Validate refuses such a policy.
	Stale time.Duration
	// Skew is how far ahead of the reading clock a stamp may lie and still
	// be read as written just now: two clocks never agree exactly (the
	// store's clock as one host measured it at open and as another did, a
	// clock stepped back by NTP), and a handover written a second ago is
	// not a bad timestamp. A stamp Skew or more ahead is Invalid: its age
	// cannot be trusted. Zero reads every future stamp as Invalid.
	Skew time.Duration
}

// Default is baton's freshness policy: a record under 12 hours old is fresh
// (the same working day), one 48 hours old or older is stale (a weekend is
// enough to make a Next Action unsafe to follow unread), aging between. A
// stamp under 2 minutes ahead is clock skew: baton measures ages on the
// store's clock (see continuity.StoreClock), so what remains between two
// readings of it is a round trip and a host clock's drift since it opened
// the store, or a step of one machine's clock, not hours.
var Default = Policy{Fresh: 12 * time.Hour, Stale: 48 * time.Hour, Skew: 2 * time.Minute}

// Validate reports whether the policy can be used: both thresholds positive,
// Stale not below Fresh, and Skew not negative.
func (p Policy) Validate() error {
	if p.Fresh <= 0 || p.Stale <= 0 {
		return fmt.Errorf("freshness: thresholds must be positive (fresh %v, stale %v)", p.Fresh, p.Stale)
	}
	if p.Skew < 0 {
		return fmt.Errorf("freshness: skew %v is negative", p.Skew)
	}
	if p.Stale < p.Fresh {
		return fmt.Errorf("freshness: stale threshold %v is below fresh threshold %v", p.Stale, p.Fresh)
	}
	return nil
}

// AgingAt is the fresh boundary, declared once: the first instant at which a
// record stamped at recorded is no longer fresh. Every freshness decision
// compares against it (and StaleAt) the same way: an instant strictly before
// a threshold is on the fresher side of it; the threshold itself and every
// later instant is on the older side. A record exactly 12 hours old is aging.
func (p Policy) AgingAt(recorded time.Time) time.Time {
	return recorded.Add(p.Fresh)
}

// StaleAt is the stale boundary, by the same rule as AgingAt: a record
// exactly 48 hours old is stale, one a nanosecond younger is aging.
func (p Policy) StaleAt(recorded time.Time) time.Time {
	return recorded.Add(p.Stale)
}

// Reading is the freshness of one record's timestamp at one instant.
type Reading struct {
	// Label is the verdict.
	Label Label `json:"label"`
	// Reason says why, for a person: the age in Compact form, or what is
	// wrong with the timestamp. It is stable text, not a parse target.
	Reason string `json:"reason"`
	// Age is now minus the recorded instant for Fresh, Aging and Stale; zero
	// for Unknown and Invalid, and for a stamp ahead of now by less than
	// Policy.Skew (its age clamped).
	Age time.Duration `json:"-"`
	// Ahead is how far a clamped stamp lay ahead of now; zero otherwise.
	Ahead time.Duration `json:"-"`
}

// Reasons for the labels that carry no age.
const (
	ReasonNoTimestamp = "no timestamp recorded"
	ReasonNotRFC3339  = "timestamp is not RFC 3339"
)

// Of reads the freshness of a record stamped at recorded, at now. The zero
// time means nothing was recorded: Unknown. An instant after now is clock
// skew while it is less than Policy.Skew ahead: its age is clamped to zero
// and the reason says how far ahead it was stamped; Skew or more ahead it
// cannot be a record's age: Invalid, saying how far ahead it is. Otherwise
// the label is decided by AgingAt and StaleAt, staleness first, so a policy
// whose Stale does not exceed Fresh still never calls a stale record fresh.
func (p Policy) Of(recorded, now time.Time) Reading {
	switch {
	case recorded.IsZero():
		return Reading{Label: Unknown, Reason: ReasonNoTimestamp}
	case recorded.After(now):
		ahead := recorded.Sub(now)
		if ahead >= p.Skew {
			return Reading{Label: Invalid, Reason: "timestamp is " + Compact(ahead) + " in the future"}
		}
		r := p.Of(recorded, recorded)
		r.Ahead, r.Reason = ahead, r.Reason+"; stamped "+Compact(ahead)+" ahead of the reading clock"
		return r
	}
	age := now.Sub(recorded)
	r := Reading{Age: age}
	switch {
	case !now.Before(p.StaleAt(recorded)):
		r.Label, r.Reason = Stale, fmt.Sprintf("recorded %s ago, stale from %s", Compact(age), Compact(p.Stale))
	case !now.Before(p.AgingAt(recorded)):
		r.Label, r.Reason = Aging, fmt.Sprintf("recorded %s ago, aging from %s", Compact(age), Compact(p.Fresh))
	default:
		r.Label, r.Reason = Fresh, fmt.Sprintf("recorded %s ago, fresh under %s", Compact(age), Compact(p.Fresh))
	}
	return r
}

// Parse reads the freshness of a timestamp as it was recorded: the empty
// string is Unknown; a string that is not RFC 3339 (with or without
// fractional seconds; surrounding spaces are not trimmed) is Invalid with
// ReasonNotRFC3339; anything else is Of the instant it names. An RFC 3339 text
// of the zero time (0001-01-01T00:00:00Z) reads as Unknown, as in Of, because
// that is what an unset Go time formats as.
func (p Policy) Parse(recorded string, now time.Time) Reading {
	if recorded == "" {
		return Reading{Label: Unknown, Reason: ReasonNoTimestamp}
	}
	t, err := time.Parse(time.RFC3339Nano, recorded)
	if err != nil {
		return Reading{Label: Invalid, Reason: ReasonNotRFC3339}
	}
	return p.Of(t, now)
}

// Compact is the one wording of an age: whole seconds under a minute ("42s"),
// whole minutes under an hour ("18m"), whole hours under 48 hours ("25h",
// "47h"), whole days from 48 hours ("2d", "6d"). Each unit truncates, so an
// age is never stated older than it is. A negative duration reads "0s".
func Compact(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", d/time.Second)
	case d < time.Hour:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dd", d/(24*time.Hour))
}
