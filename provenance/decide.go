package provenance

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/batonhq/baton/lease"
)

// Action is what a write does with its session attribution.
type Action int

const (
	// Forbidden fails the write: it carried a run id the writing tenant does
	// not own (another tenant's, or unknown), which is a cross-tenant probe.
	// It is the zero value so that a forgotten decision fails closed.
	Forbidden Action = iota
	// Unattributed lets the write succeed with no session attribution: the
	// run was explicitly closed, or no id was carried and the tenant's open
	// runs for the project were zero or many.
	Unattributed
	// Attach lets the write succeed attributed to Decision.RunID, a leased
	// run. The service floors that run's lease and, on a completed triage
	// row, flips it to idle in the same statement.
	Attach
	// ResurrectAndAttach reopens an implicitly closed run (clear closed_at,
	// epoch+1, floor the lease) and attributes the write to it, in the write's
	// transaction, whether or not a sweep has stamped closed_at yet.
	ResurrectAndAttach
)

// String returns the action's stable name.
func (a Action) String() string {
	switch a {
	case Forbidden:
		return "forbidden"
	case Unattributed:
		return "unattributed"
	case Attach:
		return "attach"
	case ResurrectAndAttach:
		return "resurrect_and_attach"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Run is a tenant-owned session row as the service read it, with its lease
// state already evaluated at the write's now.
type Run struct {
	// ID is the row's sessionRunId.
	ID uuid.UUID
	// State is the row's lease state at the write's now.
	State lease.State
}

// Input is everything the attribution rule reads.
type Input struct {
	// RunID is the run id the write carried, nil when it carried none.
	RunID *uuid.UUID
	// Run is the row with id *RunID owned by the writing tenant, nil when the
	// tenant owns no such row (it is foreign or unknown). Read only when
	// RunID is set.
	Run *Run
	// Candidates are the tenant's leased-open runs for the write's project,
	// read under the per-(tenant, project) lock. Read only when RunID is nil.
	// The project is matched exactly: a write with no project is a candidate
	// for the runs opened with no project (so it attaches to the single
	// project-less session), never for a run that has one.
	Candidates []uuid.UUID
}

// Decision is the outcome of Decide.
type Decision struct {
	// Action is what the write does.
	Action Action
	// RunID is the run the write attaches to (Attach, ResurrectAndAttach),
	// uuid.Nil otherwise.
	RunID uuid.UUID
}

// Decide is the write-time attribution rule.
//
// With a carried run id: a row the tenant does not own is Forbidden; an
// explicitly closed row is Unattributed (that protection never expires); a
// live row is Attach; an implicitly closed row, swept or merely lapsed, is
// ResurrectAndAttach. Without one, exactly one candidate is attached and zero
// or many leave the write Unattributed: time-window guesses collide, so
// there are none.
func Decide(in Input) Decision {
	if in.RunID != nil {
		if in.Run == nil || in.Run.ID != *in.RunID {
			return Decision{Action: Forbidden}
		}
		switch in.Run.State {
		case lease.Live:
			return Decision{Action: Attach, RunID: in.Run.ID}
		case lease.ImplicitlyClosed:
			return Decision{Action: ResurrectAndAttach, RunID: in.Run.ID}
		default:
			// ExplicitlyClosed, and any state this rule does not know: the
			// curated write must still succeed, so never fail it here.
			return Decision{Action: Unattributed}
		}
	}
	if len(in.Candidates) == 1 && in.Candidates[0] != uuid.Nil {
		return Decision{Action: Attach, RunID: in.Candidates[0]}
	}
	return Decision{Action: Unattributed}
}
