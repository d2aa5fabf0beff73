package triage

import "fmt"

// Status is a session row's triage status, as stored.
type Status string

const (
	// Idle means no attempt is in flight; Begin arms once the debounce
	// passes.
	Idle Status = "idle"
	// Pending means an interactive attempt is in flight, and nothing else.
	// Begin never arms again while a row is pending; it answers with the
	// in-flight attempt id so a later Stop can finalize it.
	Pending Status = "pending"
	// Completed means the last attempt produced provenance. It re-enters only
	// through a new event id: the attaching write flips it to Idle.
	Completed Status = "completed"
	// Expired means the last attempt produced no provenance. It keeps its
	// status and Begin re-arms it only on a new event id, never on elapsed
	// time or stop count, so an unresponsive session is not nagged.
	Expired Status = "expired"
	// Overflowed means the run's events passed the per-run ceiling. It is
	// terminal: nothing re-arms it and the closer does not retry it.
	Overflowed Status = "overflowed"
)

// ParseStatus returns the status a stored or wire string names, or an error
// for any other string (the empty string included).
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case Idle, Pending, Completed, Expired, Overflowed:
		return st, nil
	}
	return "", fmt.Errorf("triage: unknown status %q", s)
}

// Reason says why Begin declined to arm. It is reported to the hook and is
// stable wire text.
type Reason string

const (
	// ReasonNotLive means the session's lease does not hold (it is closed or
	// lapsed); the closer, not the nudge, owns it.
	ReasonNotLive Reason = "not-live"
	// ReasonOverflowed means the run is past the per-run ceiling, now or before.
	ReasonOverflowed Reason = "overflowed"
	// ReasonPending means an attempt is already in flight; BeginResult.AttemptID
	// carries it so the caller can finalize it.
	ReasonPending Reason = "pending"
	// ReasonNoSignal means the row is completed or expired and no event id lies
	// outside the watermark.
	ReasonNoSignal Reason = "no-signal"
	// ReasonDebounce means the row is idle and the session has no substance yet
	// (too few Stops, too little time, no untriaged event).
	ReasonDebounce Reason = "debounce"
)
