package freshness

// Label is the freshness of a record: a statement about age, beside the
// Divergence statement about git topology. The zero value is Unknown.
type Label int

const (
	// Unknown means no timestamp was recorded, so age cannot be judged. It
	// is not history: nothing says the record is old.
	Unknown Label = iota
	// Invalid means the timestamp is not RFC 3339 or lies Policy.Skew or
	// more in the future.
	// It is history: a record whose age cannot be trusted is not current.
	Invalid
	// Fresh means younger than Policy.Fresh.
	Fresh
	// Aging means at least Policy.Fresh old and younger than Policy.Stale.
	Aging
	// Stale means at least Policy.Stale old. It is history.
	Stale
)

var labelNames = names[Label]{kind: "label", words: []string{
	Unknown: "unknown", Invalid: "invalid", Fresh: "fresh", Aging: "aging", Stale: "stale",
}}

// String returns the label's stable name.
func (l Label) String() string { return labelNames.word(l) }

// History reports whether a record with this label is shown as history: a
// stale or invalid record may be shown, labelled with its age and reason, but
// its Next Action is never quoted as the thing to do now. An instruction that
// was right days ago is worse than none, because the worker cannot tell it is
// wrong until after acting on it (the episode-lifecycle ADR). This is the one
// place that rule is decided.
func (l Label) History() bool { return l == Stale || l == Invalid }

// MarshalText returns the label's stable name ("fresh", "aging", "stale",
// "unknown", "invalid"), never a number. A label this package does not define
// is an error.
func (l Label) MarshalText() ([]byte, error) { return labelNames.marshal(l) }

// UnmarshalText parses a name MarshalText produced.
func (l *Label) UnmarshalText(b []byte) error { return labelNames.unmarshal(b, l) }
