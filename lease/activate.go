package lease

import "fmt"

// Source is how a SessionStart opens a conversation. Compact and clear are
// not opens (the service answers them with a heartbeat), so only these two
// reach Activate. The zero Source is SourceStartup, and Activate decides any
// source other than SourceResume as a startup.
type Source int

const (
	// SourceStartup is a new conversation: its natural key is the request
	// token, so the project, scope and selector it carries must match any
	// row already under the key.
	SourceStartup Source = iota
	// SourceResume continues a conversation whatever its row's state, and
	// never compares the values it carries.
	SourceResume
)

// String returns the source's name, the same word the SessionStart source
// is spelled with on the wire.
func (s Source) String() string {
	switch s {
	case SourceStartup:
		return "startup"
	case SourceResume:
		return "resume"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Activation is what an open finds under its natural key.
type Activation struct {
	// Source is the SessionStart's source.
	Source Source
	// Found says a row exists under the natural key; State and SameValues
	// are read only when it does.
	Found bool
	// State is the row's state at the open's now.
	State State
	// SameValues says the open carries the row's project, scope and
	// selector (the selector compared canonically).
	SameValues bool
}

// Action is what an open does to the row under its natural key.
type Action int

const (
	// Insert creates the row at epoch 1: nothing is under the key.
	Insert Action = iota + 1
	// Retry is a startup repeated on a live row with the same values: a
	// heartbeat (last_seen_at floored), nothing else changes and no ledger
	// event is written.
	Retry
	// Conflict refuses a startup whose project, scope or selector differ
	// from the row's, whatever the row's state: a recycled conversation id
	// collides instead of taking the row over.
	Conflict
	// Restart is a startup with the same values on a closed or lapsed row:
	// a new activation (epoch+1, closed_at cleared, the activation's Stop
	// count and start restarted), the briefing fields restamped, the
	// triage handshake back to idle unless overflowed. The row is reopened.
	Restart
	// Resume is a resume of a live row: a new activation, the briefing
	// fields untouched.
	Resume
	// Reopen is a resume of a closed or lapsed row: a new activation that
	// reopens it, the briefing fields untouched.
	Reopen
)

// String returns the action's stable name.
func (a Action) String() string {
	switch a {
	case Insert:
		return "insert"
	case Retry:
		return "retry"
	case Conflict:
		return "conflict"
	case Restart:
		return "restart"
	case Resume:
		return "resume"
	case Reopen:
		return "reopen"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Reopens reports whether the action reopens a closed or lapsed row.
func (a Action) Reopens() bool { return a == Restart || a == Reopen }

// Activate is the open matrix: startup or resume against no row, a live
// row or a closed or lapsed one (explicit and implicit closes alike), with
// the same or different values. A startup compares values before anything
// else; a resume never compares them.
//
//	source   no row   live                 closed or lapsed
//	startup  Insert   Retry    | Conflict  Restart | Conflict   (same | different values)
//	resume   Insert   Resume               Reopen
func Activate(a Activation) Action {
	switch {
	case !a.Found:
		return Insert
	case a.Source == SourceResume && a.State.Closed():
		return Reopen
	case a.Source == SourceResume:
		return Resume
	case !a.SameValues:
		return Conflict
	case a.State.Closed():
		return Restart
	}
	return Retry
}
