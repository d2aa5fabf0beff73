package lease

import (
	"fmt"
	"time"
)

// Policy is the lease policy. Its values are declared once, in Default; a
// host may tune them but no other package carries a second copy.
type Policy struct {
	// Lease is how long after its last heartbeat a session stays live.
	Lease time.Duration
	// SweepGrace is how long past the lease a sweep waits before it stamps
	// closed_at: it debounces the instant of expiry, so an idle gap just
	// past the lease reopens the row instead of handing it to a closer. A
	// swept closed_at always lands outside the explicit-close window (the
	// sweep floor is strict), so a swept row still resurrects.
	SweepGrace time.Duration
}

// Default is baton's lease policy: a 24 hour lease outlasts an overnight idle
// terminal, and a one hour grace debounces the instant of expiry.
var Default = Policy{Lease: 24 * time.Hour, SweepGrace: time.Hour}

// State is what a session row is at a given instant.
type State int

const (
	// Live means the lease holds and no close applies.
	Live State = iota
	// ImplicitlyClosed means the lease lapsed, or a sweep stamped closed_at
	// after it lapsed. A heartbeat, resume or attaching write resurrects it.
	ImplicitlyClosed
	// ExplicitlyClosed means SessionEnd closed the row while its lease held.
	// Writes carrying its run id succeed unattributed; that never expires.
	ExplicitlyClosed
)

// String returns the state's stable name.
func (s State) String() string {
	switch s {
	case Live:
		return "live"
	case ImplicitlyClosed:
		return "implicitly_closed"
	case ExplicitlyClosed:
		return "explicitly_closed"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Closed reports whether the state is either kind of close.
func (s State) Closed() bool { return s != Live }

// MarshalText returns the state's stable name, so that it goes on the wire
// as "live", "implicitly_closed" or "explicitly_closed", never as a number.
// A state this package does not define is an error.
func (s State) MarshalText() ([]byte, error) {
	if s < Live || s > ExplicitlyClosed {
		return nil, fmt.Errorf("lease: unknown state %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText parses a name MarshalText produced.
func (s *State) UnmarshalText(b []byte) error {
	for st := Live; st <= ExplicitlyClosed; st++ {
		if string(b) == st.String() {
			*s = st
			return nil
		}
	}
	return fmt.Errorf("lease: unknown state %q", b)
}

// Row is the part of a session row the lease rules read.
type Row struct {
	LastSeenAt time.Time
	ClosedAt   *time.Time
}

// Expiry is the lease boundary, declared once: the first instant at which a
// row last seen at lastSeen is no longer leased. Every lease decision
// compares against it the same way: an instant strictly before the expiry is
// inside the lease, the expiry itself and every later instant is outside.
func (p Policy) Expiry(lastSeen time.Time) time.Time {
	return lastSeen.Add(p.Lease)
}

// LiveAfter is Expiry read the other way, for a store's query: a row that
// is not closed is live at now exactly when it was last seen strictly
// after LiveAfter(now).
func (p Policy) LiveAfter(now time.Time) time.Time {
	return now.Add(-p.Lease)
}

// Within reports whether the instant t lies inside the lease of a row last
// seen at lastSeen: t is strictly before Expiry(lastSeen).
func (p Policy) Within(lastSeen, t time.Time) bool {
	return t.Before(p.Expiry(lastSeen))
}

// Leased reports whether a row last seen at lastSeen is still inside its
// lease at now. A row seen exactly one lease ago has lapsed.
func (p Policy) Leased(lastSeen, now time.Time) bool {
	return p.Within(lastSeen, now)
}

// ExplicitlyClosed reports whether the row's close was stamped while its
// lease still held, by the same boundary as Leased: a close stamped at the
// instant the lease expires was stamped on a lapsed row, so it is an
// implicit close and the row still resurrects. An explicit close never
// touches last_seen_at, so closed_at < last_seen_at + lease identifies it
// forever.
func (p Policy) ExplicitlyClosed(r Row) bool {
	return r.ClosedAt != nil && p.Within(r.LastSeenAt, *r.ClosedAt)
}

// State evaluates the row at now. Implicit close is decided here, on every
// read and write, not only after a sweep has run.
func (p Policy) State(r Row, now time.Time) State {
	if r.ClosedAt != nil {
		if p.ExplicitlyClosed(r) {
			return ExplicitlyClosed
		}
		return ImplicitlyClosed
	}
	if p.Leased(r.LastSeenAt, now) {
		return Live
	}
	return ImplicitlyClosed
}

// Floor is the heartbeat refresh: last_seen_at never moves backwards, so a
// slow writer carrying an older clock cannot shorten a lease a later one
// already extended.
func Floor(lastSeen, now time.Time) time.Time {
	if lastSeen.After(now) {
		return lastSeen
	}
	return now
}

// SweepFloor is the instant before which an open row's last_seen_at makes it
// sweepable: now - lease - grace.
func (p Policy) SweepFloor(now time.Time) time.Time {
	return now.Add(-p.Lease - p.SweepGrace)
}

// Sweepable reports whether a sweep at now may stamp closed_at on the row:
// it is not closed yet and was last seen strictly before the sweep floor.
// A row exactly at the floor is not swept.
func (p Policy) Sweepable(r Row, now time.Time) bool {
	return r.ClosedAt == nil && r.LastSeenAt.Before(p.SweepFloor(now))
}

// CloserDue is the first instant a resolve-only closer may take a closed
// row (ok is false for a row with no closed_at): its close, when SessionEnd
// closed it explicitly; otherwise, an implicit close, the lease expiry plus
// the sweep grace (or the close, if later), so an idle gap just past the
// lease can still reopen the row before a closer debriefs it. A closer may
// take the row at the instant returned and at every later one.
func (p Policy) CloserDue(r Row) (due time.Time, ok bool) {
	if r.ClosedAt == nil {
		return time.Time{}, false
	}
	if p.ExplicitlyClosed(r) {
		return *r.ClosedAt, true
	}
	due = p.Expiry(r.LastSeenAt).Add(p.SweepGrace)
	if r.ClosedAt.After(due) {
		return *r.ClosedAt, true
	}
	return due, true
}
