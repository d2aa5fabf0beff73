package triage

import (
	"time"

	"github.com/google/uuid"
)

// The closer's failure backoff, declared once: the first retry waits
// CloserBackoffBase, each further consecutive failure doubles the wait, and
// no wait exceeds CloserBackoffMax.
const (
	CloserBackoffBase = 20 * time.Minute
	CloserBackoffMax  = 4 * time.Hour
)

// CloserBackoff is how long the closer waits before it retries a row after
// its failures-th consecutive failed pass: 20 minutes, 40, 80, 160, then 4
// hours for every later failure. failures below 1 waits the base.
func CloserBackoff(failures int) time.Duration {
	d := CloserBackoffBase
	for i := 1; i < failures && d < CloserBackoffMax; i++ {
		d *= 2
	}
	return min(d, CloserBackoffMax)
}

// Closable reports whether the resolve-only closer may take a closed row
// with this status and watermark, given the run's visible events: an idle,
// pending or expired row always; a completed row only on Signal (an event
// outside the watermark); an overflowed row never (terminal), nor a status
// ParseStatus would refuse.
func Closable(s Status, watermark []uuid.UUID, visible Listing) bool {
	switch s {
	case Idle, Pending, Expired:
		return true
	case Completed:
		return Signal(watermark, visible)
	}
	return false
}

// ClaimStatus is the status a closer's claim leaves on the row, in the same
// statement as the claim: a pending handshake is the attempt of a session
// that ended before its complete, so the closer takes it over and retires
// it to Expired (its attempt id, now the closer's, can never be completed
// by a Stop); every other status is unchanged.
func ClaimStatus(s Status) Status {
	if s == Pending {
		return Expired
	}
	return s
}

// CloserFinish is the bookkeeping a closer pass writes when it finishes: the
// watermark grows by every visible id (a listing taken after the pass's own
// resolves, whose events carry the run's id, so they never re-arm it), and
// the status is Completed, or Overflowed (terminal) when the listing was
// truncated or the watermark would pass the ceiling.
func (p Policy) CloserFinish(watermark []uuid.UUID, visible Listing) (Status, []uuid.UUID) {
	wm, over := union(watermark, visible.IDs, p.Ceiling)
	if visible.Truncated || over {
		return Overflowed, wm
	}
	return Completed, wm
}
