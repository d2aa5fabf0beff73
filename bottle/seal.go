package bottle

import (
	"context"
	"fmt"
	"time"
)

// Seal budgets: how long Seal may wait for the host to drain.
const (
	// DefaultSealBudget is the wait when the caller gives none.
	DefaultSealBudget = 20 * time.Second
	// MaxSealBudget caps any requested wait.
	MaxSealBudget = 60 * time.Second
	// SealTick is how often Seal rechecks the drain state between wake-ups:
	// a generator that dies changes no state and sends no wake-up.
	SealTick = 250 * time.Millisecond
)

// DrainState is a host's pending work for one session.
type DrainState struct {
	// Pending counts queued and in-flight events not yet confirmed as
	// observations. Zero means drained.
	Pending int
	// Working says a generator is attached and may make progress. Pending
	// work with no generator is the quota-pause state; it is also
	// momentarily true for every fresh enqueue.
	Working bool
	// Stubs are the pending events, for the bottle's honest tail.
	Stubs []Stub
}

// Drainer is a host's observation pipeline, seen from Seal. Seal only reads
// it: it never starts, restarts or interrupts the host's work.
type Drainer interface {
	// DrainState returns the session's pending work. An error ends Seal's
	// wait early; the bottle is rendered with the transcript's tail.
	DrainState(ctx context.Context, sessionID string) (DrainState, error)
	// Wake returns a channel that receives a value whenever the session's
	// pending state changes. Sends may be dropped (a buffered channel of one
	// with non-blocking sends is enough): Seal rechecks every SealTick.
	Wake(sessionID string) <-chan struct{}
}

// Marker is the armed injection marker for a sealed bottle: the next
// compact or resume SessionStart claims it once and injects the pointer.
type Marker struct {
	// SessionID is the sealed session.
	SessionID string `json:"sessionId"`
	// Path is the bottle's absolute path.
	Path string `json:"path"`
	// Gap counts the tool events whose observations were pending at seal.
	Gap int `json:"gap"`
	// Mode is the ladder rung the bottle was rendered on.
	Mode Mode `json:"mode"`
	// Task is the one-line current task at seal, so the pointer can be
	// rendered wherever the marker is claimed.
	Task string `json:"task,omitempty"`
	// Plan is the reads the pointer asks for. Stores do not keep it: it is
	// read from the bottle's files where the bottle is, when the marker is
	// claimed (Continuation, or PlanReads of Path), so it names the pages as
	// they are then.
	Plan ReadPlan `json:"-"`
	// ArmedAt is when the marker was armed; zero (absent on the wire) lets
	// the store stamp its own now, which Seal always does: a time this
	// host's clock stamped would be aged against the store's.
	ArmedAt time.Time `json:"armedAt,omitzero"`
}

// MarkerArmer stores armed markers. continuity.BottleStore implements it.
type MarkerArmer interface {
	// ArmBottle arms the session's marker, replacing any earlier one, armed
	// or consumed: a new seal means a new bottle to inject.
	ArmBottle(ctx context.Context, m Marker) error
}

// MarkerClaimer consumes armed markers. continuity.BottleStore implements it
// with one atomic update, so a doubled SessionStart injects exactly once.
type MarkerClaimer interface {
	// ClaimBottle consumes the session's armed marker and returns it with ok
	// true; ok is false when no marker is armed or it was already claimed.
	ClaimBottle(ctx context.Context, sessionID string) (m Marker, ok bool, err error)
}

// SealResult reports a seal.
type SealResult struct {
	// Sealed says a bottle was written (false in ModeTimeline).
	Sealed bool
	// Gap counts tool events whose observations were still pending.
	Gap int
	// Path is the bottle's absolute path.
	Path string
	// Mode is the ladder rung rendered.
	Mode Mode
	// Drained says the host's queue was empty when the bottle was rendered.
	Drained bool
	// Armed says the injection marker was armed.
	Armed bool
	// Task is the bottle's one-line current task.
	Task string
}

// Seal is what PreCompact runs: it waits, within budget, for the host's
// pending observations to be written, renders the bottle with whatever is
// still pending as an honest tail, syncs its files to disk, and arms the
// injection marker. budget 0
// means DefaultSealBudget and is capped at MaxSealBudget. ctx ending also
// ends the wait; the render that follows still runs under ctx. The wait ends early when the host is drained, or when
// its generator has been dead (pending work, nothing working) across two
// consecutive wake-ups spanning at least two ticks, a grace that absorbs the
// moment between an enqueue and its generator starting. With no Drainer the
// bottle is rendered at once.
func (b *Bottler) Seal(ctx context.Context, sessionID, transcriptPath string, budget time.Duration) (SealResult, error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return SealResult{}, err
	}
	var q *Queue
	drained := b.Drainer == nil
	if b.Drainer != nil {
		st, ok := b.waitDrain(ctx, sessionID, budget)
		if ok {
			q = &Queue{Pending: st.Pending, Stubs: st.Stubs}
			drained = st.Pending == 0
		}
	}
	bt, err := b.render(ctx, sessionID, transcriptPath, q, true)
	if err != nil {
		return SealResult{}, err
	}
	res := SealResult{Sealed: bt.Mode != ModeTimeline, Gap: bt.Gap, Path: bt.Path, Mode: bt.Mode, Drained: drained, Task: bt.Task}
	if !res.Sealed || b.Marker == nil {
		return res, nil
	}
	// ArmedAt is left to the store: a marker is aged by its clock (the
	// doctor's unclaimed-bottle check), and this host's may be hours off.
	m := Marker{SessionID: sessionID, Path: bt.Path, Gap: bt.Gap, Mode: bt.Mode, Task: bt.Task}
	if err := b.Marker.ArmBottle(ctx, m); err != nil {
		return res, fmt.Errorf("bottle: arm marker: %w", err)
	}
	res.Armed = true
	return res, nil
}

// waitDrain waits for the drainer as Seal describes and returns the last
// state read; ok is false when no state could be read at all.
func (b *Bottler) waitDrain(ctx context.Context, sessionID string, budget time.Duration) (last DrainState, ok bool) {
	if budget <= 0 {
		budget = DefaultSealBudget
	}
	budget = min(budget, MaxSealBudget)
	clk := b.clock()
	deadline := clk.Now().Add(budget) // ctx's own deadline ends the select below
	wake := b.Drainer.Wake(sessionID)
	var deadSince time.Time
	deadChecks := 0
	for {
		st, err := b.Drainer.DrainState(ctx, sessionID)
		if err != nil {
			return last, ok
		}
		last, ok = st, true
		if st.Pending <= 0 {
			return last, ok
		}
		now := clk.Now()
		if st.Working {
			deadChecks = 0
		} else {
			if deadChecks == 0 {
				deadSince = now
			}
			deadChecks++
			// The first sighting plus two wake-ups, at least two ticks apart.
			if deadChecks >= 3 && now.Sub(deadSince) >= 2*SealTick {
				return last, ok
			}
		}
		left := deadline.Sub(now)
		if left <= 0 {
			return last, ok
		}
		select {
		case <-ctx.Done():
			return last, ok
		case <-wake:
		case <-clk.After(min(SealTick, left)):
		}
	}
}
