package freshness

// Assessment is everything a surface says about a continuation record's
// currency: its freshness and its divergence, two independent dimensions. A
// record may be Advanced and Stale at once; that combination is the one the
// ADR's outage was made of, so neither label stands in for the other.
type Assessment struct {
	Freshness  Reading    `json:"freshness"`
	Divergence Divergence `json:"divergence"`
}

// History reports whether the record is shown as history rather than as
// current: decided by freshness alone (Label.History: stale or invalid),
// whatever the divergence. Exact or Advanced says the code has not moved
// away from the record; it does not say the record's Next Action is still
// the thing to do.
func (a Assessment) History() bool { return a.Freshness.Label.History() }
