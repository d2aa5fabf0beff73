package memrule

import (
	"errors"
	"fmt"
)

// Kind is the kind of a curated memory atom.
type Kind string

// The memory kinds.
const (
	Commitment Kind = "commitment"
	Decision   Kind = "decision"
	Preference Kind = "preference"
	Blocker    Kind = "blocker"
	Note       Kind = "note"
)

// Kinds are the memory kinds, in the order they are listed to a reader.
var Kinds = []Kind{Commitment, Decision, Preference, Blocker, Note}

// MaxContentLen bounds an atom's content, in characters. Longer content is
// refused, never split: one atom per memory.
const MaxContentLen = 2000

// Status is a memory's lifecycle status.
type Status string

// The memory statuses.
const (
	Open     Status = "open"
	Resolved Status = "resolved"
	Archived Status = "archived"
)

// Statuses are the memory statuses.
var Statuses = []Status{Open, Resolved, Archived}

// Event is the kind of a memory audit event.
type Event string

// The audit event kinds.
const (
	Create    Event = "create"
	Supersede Event = "supersede"
	Resolve   Event = "resolve"
	Unresolve Event = "unresolve"
	Archive   Event = "archive"
	Import    Event = "import"
)

// StatusError refuses a change the memory's status does not allow: the
// caller asked at the wrong moment (the continuity service answers
// conflict). Its message names the change and the status, never content.
type StatusError struct {
	// Change is the refused change: a transition's Event, or ChangeRevise.
	Change string
	// Status is the memory's status when it was refused.
	Status Status
}

// ChangeRevise is the Change of a refused revise.
const ChangeRevise = "revise"

// Error says which change the status refused.
func (e *StatusError) Error() string {
	if e.Change == ChangeRevise {
		return "only an open memory can be revised; this one is " + string(e.Status)
	}
	return "cannot " + e.Change + " a memory that is " + string(e.Status)
}

// ErrNotTransition is returned by Transition for an event that is not a
// status transition (create, supersede, import): a caller's bug, never the
// user's input.
var ErrNotTransition = errors.New("memrule: not a status transition")

// transitions are the status transitions: the statuses each may leave, and
// the status it lands in. Resolve and unresolve undo each other, which is
// why a closer may only ever resolve; archive retires anything not yet
// archived.
var transitions = map[Event]struct {
	from []Status
	to   Status
}{
	Resolve:   {[]Status{Open}, Resolved},
	Unresolve: {[]Status{Resolved}, Open},
	Archive:   {[]Status{Open, Resolved}, Archived},
}

// Transition returns the status a memory in status from lands in after the
// event (resolve, unresolve or archive), or a *StatusError when from is not
// one the event may leave.
func Transition(ev Event, from Status) (Status, error) {
	t, ok := transitions[ev]
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrNotTransition, ev)
	}
	for _, st := range t.from {
		if st == from {
			return t.to, nil
		}
	}
	return "", &StatusError{Change: string(ev), Status: from}
}

// Revision is what a revise writes: the successor's status and events, and
// the predecessor's.
type Revision struct {
	// Next is the successor's status: a revise carries an open memory, so
	// it is open.
	Next Status
	// NextEvents are the successor's audit events, in write order.
	NextEvents []Event
	// Prev is the predecessor's status after the revise: archived,
	// superseded by the successor.
	Prev Status
	// PrevEvents are the predecessor's audit events, in write order:
	// supersede, then archive when an open commitment is demoted to
	// another kind (its close is recorded, so a closer or a debrief never
	// looks for it among open commitments).
	PrevEvents []Event
}

// Revise decides a revise of a memory of kind prev and status status into
// a successor of kind next. Only an open memory can be revised; any other
// status is a *StatusError.
func Revise(prev, next Kind, status Status) (Revision, error) {
	if status != Open {
		return Revision{}, &StatusError{Change: ChangeRevise, Status: status}
	}
	r := Revision{Next: Open, NextEvents: []Event{Create}, Prev: Archived, PrevEvents: []Event{Supersede}}
	if prev == Commitment && next != Commitment {
		r.PrevEvents = append(r.PrevEvents, Archive)
	}
	return r, nil
}
