package triage_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/batonhq/baton/triage"
)

// TestProperties drives many random sequences of Stops (begin, then maybe a
// complete with the right or a stale attempt id), attaching writes (some
// committing late, with an earlier UUIDv7 than ids already visible), bare
// Stops, lease lapses and time through the handshake, applying results the way
// the service does, and checks after every step that:
//
//   - the watermark only grows: every id once in it stays in it;
//   - the watermark holds no duplicate and never passes the ceiling;
//   - the status is always one of the five;
//   - overflowed is absorbing;
//   - a pending row keeps its attempt id until a complete succeeds;
//   - Begin arms only from idle, completed or expired, and from completed or
//     expired only on Signal;
//   - an unchanged Begin result equals the row it was given.
func TestProperties(t *testing.T) {
	const sequences, steps = 2000, 60
	rng := rand.New(rand.NewPCG(20260314, 1))
	for seq := range sequences {
		p := triage.Policy{
			MinStops:   1 + rng.IntN(4),
			MinElapsed: time.Duration(1+rng.IntN(20)) * time.Minute,
			Ceiling:    4 + rng.IntN(16), // small, so overflow happens
		}
		checkSequence(t, seq, p, rng, steps)
	}
}

func checkSequence(t *testing.T, seq int, p triage.Policy, rng *rand.Rand, steps int) {
	opened := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	r := triage.Row{Live: true, Status: triage.Idle, ActivatedAt: opened}
	now := opened
	nextID := 0
	var visible []uuid.UUID  // committed ids, kept in uuid byte order like the listing
	var inFlight []uuid.UUID // ids assigned at insert but not yet committed
	lastAttempt := uuid.Nil
	attempts := 0

	listing := func() triage.Listing {
		ids := slices.Clone(visible)
		if len(ids) > p.Ceiling {
			return triage.Listing{IDs: ids[:p.Ceiling], Truncated: true}
		}
		return triage.Listing{IDs: ids}
	}
	newAttempt := func() uuid.UUID {
		attempts++
		var u uuid.UUID
		u[0], u[1], u[2], u[15] = 0xa7, byte(seq>>8), byte(seq), byte(attempts)
		u[13], u[14] = byte(attempts>>16), byte(attempts>>8)
		return u
	}
	fail := func(step int, op, format string, args ...any) {
		t.Helper()
		t.Fatalf("sequence %d step %d (%s): "+format, append([]any{seq, step, op}, args...)...)
	}

	for step := range steps {
		before := r
		before.Watermark = slices.Clone(r.Watermark)
		var op string

		switch k := rng.IntN(100); {
		case k < 25: // an attaching write; a few commit late
			op = "write"
			id := ev(nextID)
			nextID++
			if rng.IntN(4) == 0 {
				inFlight = append(inFlight, id)
			} else {
				visible = insertSorted(visible, id)
			}
			if r.Live {
				r.Status = triage.OnAttach(r.Status)
			}
		case k < 35: // a late write commits
			op = "late-commit"
			if len(inFlight) > 0 {
				i := rng.IntN(len(inFlight))
				visible = insertSorted(visible, inFlight[i])
				inFlight = slices.Delete(inFlight, i, i+1)
				if r.Live {
					r.Status = triage.OnAttach(r.Status)
				}
			}
		case k < 45: // a Stop with the nudge off, or time passing
			op = "stop"
			r.ActivationStops++
			now = now.Add(time.Duration(rng.IntN(300)) * time.Second)
		case k < 50: // the lease lapses, or a heartbeat resurrects
			op = "lease"
			r.Live = !r.Live
		case k < 80: // a Stop runs begin
			op = "begin"
			fresh := newAttempt()
			vis := listing()
			res := p.Begin(r, vis, fresh, now)
			if res.Armed {
				if !slices.Contains([]triage.Status{triage.Idle, triage.Completed, triage.Expired}, r.Status) {
					fail(step, op, "armed from %q", r.Status)
				}
				if r.Status != triage.Idle && !triage.Signal(r.Watermark, vis) {
					fail(step, op, "armed %q with no signal", r.Status)
				}
				if res.AttemptID != fresh || res.Status != triage.Pending || !res.Changed {
					fail(step, op, "armed result %+v", res)
				}
			}
			if r.Status == triage.Pending && (res.Reason != triage.ReasonPending && res.Reason != triage.ReasonNotLive || res.Reason == triage.ReasonPending && res.AttemptID != r.AttemptID) {
				fail(step, op, "pending row answered %+v", res)
			}
			if !res.Changed && (res.Status != r.Status || !slices.Equal(res.Watermark, r.Watermark)) {
				fail(step, op, "unchanged result %+v differs from row %+v", res, r)
			}
			if res.Changed {
				r.Status, r.Watermark = res.Status, res.Watermark
				if res.Armed {
					r.AttemptID = res.AttemptID
					lastAttempt = res.AttemptID
				}
			}
		default: // a finalizing Stop: the in-flight attempt, or a stale one
			op = "complete"
			attempt := lastAttempt
			if rng.IntN(5) == 0 {
				attempt = newAttempt()
			}
			res, err := p.Complete(r, attempt, listing())
			switch {
			case err == nil:
				if r.Status != triage.Pending || attempt != r.AttemptID {
					fail(step, op, "completed a %q row with attempt %v (row has %v)", r.Status, attempt, r.AttemptID)
				}
				r.Status, r.Watermark = res.Status, res.Watermark
			case !errors.Is(err, triage.ErrConflict):
				fail(step, op, "error %v", err)
			case r.Status == triage.Pending && attempt == r.AttemptID:
				fail(step, op, "conflict on the pending attempt")
			}
		}

		// the watermark only grows, without duplicates, within the ceiling
		have := make(map[uuid.UUID]bool, len(r.Watermark))
		for _, id := range r.Watermark {
			if have[id] {
				fail(step, op, "duplicate %v in watermark", id)
			}
			have[id] = true
		}
		for _, id := range before.Watermark {
			if !have[id] {
				fail(step, op, "watermark lost %v", id)
			}
		}
		if len(r.Watermark) > p.Ceiling {
			fail(step, op, "watermark holds %d ids, ceiling %d", len(r.Watermark), p.Ceiling)
		}
		if _, err := triage.ParseStatus(string(r.Status)); err != nil {
			fail(step, op, "invalid status %q", r.Status)
		}
		if before.Status == triage.Overflowed && r.Status != triage.Overflowed {
			fail(step, op, "left overflowed for %q", r.Status)
		}
		if before.Status == triage.Pending && r.Status == triage.Pending && r.AttemptID != before.AttemptID {
			fail(step, op, "pending attempt changed %v -> %v", before.AttemptID, r.AttemptID)
		}
	}
}

// insertSorted inserts id into ids, kept in uuid byte order (the listing's
// UUIDv7 order), so a late commit lands among ids already visible.
func insertSorted(ids []uuid.UUID, id uuid.UUID) []uuid.UUID {
	i, _ := slices.BinarySearchFunc(ids, id, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return slices.Insert(ids, i, id)
}
