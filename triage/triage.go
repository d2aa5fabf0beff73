package triage

import (
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/batonhq/baton/provenance"
)

// Policy holds the handshake's thresholds. Its values are declared once, in
// Default; every field must be positive.
type Policy struct {
	// MinStops is the Stop count at which an idle row has enough substance
	// to arm.
	MinStops int
	// MinElapsed is the time since open after which an idle row has enough
	// substance to arm.
	MinElapsed time.Duration
	// Ceiling caps the watermark; a listing or a watermark past it makes the
	// row overflowed. It is the provenance read's per-run ceiling.
	Ceiling int
}

// Default is baton's triage policy: 3 Stops or 10 minutes of session
// substance, and the per-run ceiling of the provenance read.
var Default = Policy{MinStops: 3, MinElapsed: 10 * time.Minute, Ceiling: provenance.Ceiling}

// Row is the part of a session row the handshake reads.
type Row struct {
	// Live reports whether the session's lease holds at now.
	Live bool
	// Status is the stored triage status; the store parses it with
	// ParseStatus.
	Status Status
	// AttemptID is the row's triage attempt id, uuid.Nil when it has none.
	AttemptID uuid.UUID
	// Watermark is the cumulative set of event ids already triaged, in the
	// order they were first added.
	Watermark []uuid.UUID
	// ActivationStops is how many Stops the session has heartbeated since
	// its current activation began: a reopened or resumed conversation
	// starts again from zero, so its first Stop never nudges on Stops or
	// time alone.
	ActivationStops int
	// ActivatedAt is when the session's current activation began.
	ActivatedAt time.Time
}

// Listing is the run's visible provenance event ids, read in the same
// transaction as the row.
type Listing struct {
	// IDs are the run's visible event ids in UUIDv7 order, at most Ceiling.
	IDs []uuid.UUID
	// Truncated reports that the run has more events than Ceiling.
	Truncated bool
}

// BeginResult is the outcome of Begin.
type BeginResult struct {
	// Armed reports that this Stop armed a fresh attempt and may inject the
	// debrief.
	Armed bool
	// Reason says why Begin declined; empty when Armed.
	Reason Reason
	// AttemptID is the attempt the caller may act on: the fresh one when
	// armed, the in-flight one on a pending decline, uuid.Nil otherwise (a
	// declined row's attempt id is never published).
	AttemptID uuid.UUID
	// Status is the row's triage status after Begin.
	Status Status
	// Watermark is the row's watermark after Begin; equal to the input unless
	// Begin armed.
	Watermark []uuid.UUID
	// Changed reports that the row must be written: Status and Watermark,
	// and the attempt id when Armed.
	Changed bool
}

// Begin evaluates a Stop's entry rule at now, in order: a row that is not
// live declines (not-live); an overflowed row declines, forever
// (overflowed); a pending row declines with its in-flight attempt id
// (pending); a truncated listing, or a watermark that would pass the ceiling,
// makes the row overflowed and declines (overflowed); a completed or expired
// row arms only on Signal (no-signal); an idle row arms when ActivationStops
// reaches MinStops, or MinElapsed has passed since ActivatedAt, or on Signal
// (debounce). Arming sets Pending and fresh, and stamps the watermark with
// every visible id: the events that armed this attempt are the ones its
// debrief is about, so they must not re-arm the next one.
//
// fresh must be a new, non-nil attempt id. A row whose status ParseStatus
// would refuse never arms and is declined as no-signal, unwritten.
func (p Policy) Begin(r Row, visible Listing, fresh uuid.UUID, now time.Time) BeginResult {
	decline := func(reason Reason) BeginResult {
		return BeginResult{Reason: reason, Status: r.Status, Watermark: slices.Clone(r.Watermark)}
	}
	switch {
	case !r.Live:
		return decline(ReasonNotLive)
	case r.Status == Overflowed:
		return decline(ReasonOverflowed)
	case r.Status == Pending:
		d := decline(ReasonPending)
		d.AttemptID = r.AttemptID
		return d
	}

	stamp, over := union(r.Watermark, visible.IDs, p.Ceiling)
	if visible.Truncated || over {
		d := decline(ReasonOverflowed)
		d.Status = Overflowed
		d.Changed = true
		return d
	}

	switch r.Status {
	case Completed, Expired:
		// Neither is an entry status on its own: only new provenance
		// re-admits them, never time or Stops.
		if !Signal(r.Watermark, visible) {
			return decline(ReasonNoSignal)
		}
	case Idle:
		substance := r.ActivationStops >= p.MinStops ||
			now.Sub(r.ActivatedAt) >= p.MinElapsed ||
			Signal(r.Watermark, visible)
		if !substance {
			return decline(ReasonDebounce)
		}
	default:
		return decline(ReasonNoSignal)
	}
	return BeginResult{Armed: true, AttemptID: fresh, Status: Pending, Watermark: stamp, Changed: true}
}

// CompleteResult is the outcome of Complete. The row is always written.
type CompleteResult struct {
	// Status is the row's new triage status: Completed, Expired or
	// Overflowed.
	Status Status
	// Watermark is the row's new watermark: the old one plus every visible
	// id, capped at the ceiling.
	Watermark []uuid.UUID
	// EventCount is the number of visible event ids.
	EventCount int
	// SinceBeginCount is the number of visible ids outside the begin stamp:
	// the provenance the attempt's continuation produced.
	SinceBeginCount int
	// Truncated reports that the listing was truncated or the watermark
	// would have passed the ceiling.
	Truncated bool
}

// ErrConflict is returned by Complete when the named attempt is not the row's
// pending one: it is stale, was already finalized, or was taken over.
var ErrConflict = errors.New("triage: attempt is not the pending one")

// Complete finalizes the pending attempt attemptID against the run's visible
// events. It is fenced on (Pending, attemptID); anything else is ErrConflict.
// since_begin is visible minus the begin stamp, a set difference; the new
// watermark is the union of the old one and visible, so it only grows. A
// truncated listing or a watermark past the ceiling is Overflowed (terminal);
// an empty since_begin is Expired (a zero-write continuation, still
// closer-eligible); anything else is Completed. Liveness is not checked: the
// fence alone decides, so a Stop that resurrected the row can still
// finalize its own attempt.
func (p Policy) Complete(r Row, attemptID uuid.UUID, visible Listing) (CompleteResult, error) {
	if r.Status != Pending || attemptID == uuid.Nil || r.AttemptID != attemptID {
		return CompleteResult{}, ErrConflict
	}
	stamped := set(r.Watermark)
	since := make(map[uuid.UUID]struct{})
	for _, id := range visible.IDs {
		if _, ok := stamped[id]; !ok {
			since[id] = struct{}{}
		}
	}
	wm, over := union(r.Watermark, visible.IDs, p.Ceiling)
	res := CompleteResult{
		Watermark:       wm,
		EventCount:      len(visible.IDs),
		SinceBeginCount: len(since),
		Truncated:       visible.Truncated || over,
	}
	switch {
	case res.Truncated:
		res.Status = Overflowed
	case len(since) == 0:
		res.Status = Expired
	default:
		res.Status = Completed
	}
	return res, nil
}

// OnAttach is the triage status an attaching write leaves behind, folded into
// the same update as the attach: a completed row returns to Idle, since a
// brand-new event id cannot be in a watermark stamped before it existed.
// Every other status is unchanged; an expired row in particular keeps its
// status, so that elapsed time alone can never re-admit it.
func OnAttach(s Status) Status {
	if s == Completed {
		return Idle
	}
	return s
}

// Signal reports whether some visible event id is not in the watermark: the
// one re-entry signal for completed and expired rows, and one arm of an idle
// row's debounce.
func Signal(watermark []uuid.UUID, visible Listing) bool {
	stamped := set(watermark)
	for _, id := range visible.IDs {
		if _, ok := stamped[id]; !ok {
			return true
		}
	}
	return false
}

// union returns old (deduplicated, all of it) followed by the ids of add it
// lacks, in first-added order, adding only while the result holds fewer than
// ceiling ids. Ids already in old are never dropped, so a watermark only
// grows. over reports that the full union holds more than ceiling ids.
func union(old, add []uuid.UUID, ceiling int) (out []uuid.UUID, over bool) {
	seen := make(map[uuid.UUID]struct{}, len(old)+len(add))
	out = make([]uuid.UUID, 0, len(old)+len(add))
	for _, id := range old {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	n := len(out) // the full union's size
	for _, id := range add {
		if _, ok := seen[id]; ok {
			continue
		}
		seen[id] = struct{}{}
		n++
		if len(out) < ceiling {
			out = append(out, id)
		}
	}
	return out, n > ceiling
}

// set returns ids as a membership set.
func set(ids []uuid.UUID) map[uuid.UUID]struct{} {
	m := make(map[uuid.UUID]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	return m
}
