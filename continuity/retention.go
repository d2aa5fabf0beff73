package continuity

import (
	"context"
	"time"

	"github.com/batonhq/baton/bottle"
)

// Retention is how long baton keeps what only ages: each kind's rows (or
// files) older than its duration are pruned, by the worker's tick through
// Service.Prune and Service.PruneArchivedBottles. A row exactly as old as
// its duration is kept; one a microsecond older is pruned. A duration of 0
// or less keeps that kind forever. The ledger's count bound
// (DefaultLedgerRetention lines per tenant) applies besides its age.
type Retention struct {
	// Ledger is how long ledger lines are kept, by their At.
	Ledger time.Duration
	// Prompts is how long kept user prompts are, by their At.
	Prompts time.Duration
	// ArchivedBottles is how long an archived bottle (what /clear moves
	// to bottles/archive) is kept, by the time in its name.
	ArchivedBottles time.Duration
}

// DefaultRetention is the retention a Service keeps unless WithRetention
// says otherwise: ledger lines 90 days, prompts and archived bottles 30.
var DefaultRetention = Retention{Ledger: 90 * 24 * time.Hour, Prompts: 30 * 24 * time.Hour, ArchivedBottles: 30 * 24 * time.Hour}

// PruneBatch is how many rows one transaction of a prune deletes.
const PruneBatch = 1000

// WithRetention replaces DefaultRetention.
func WithRetention(r Retention) Option { return func(s *Service) { s.retention = &r } }

// Retention returns the retention in force.
func (s *Service) Retention() Retention {
	if s.retention == nil {
		return DefaultRetention
	}
	return *s.retention
}

// pruneBefore is the instant before which rows of a kind kept for keep are
// pruned at now; the zero time, before which nothing is, when keep keeps
// the kind forever.
func pruneBefore(keep time.Duration, now time.Time) time.Time {
	if keep <= 0 {
		return time.Time{}
	}
	return now.Add(-keep)
}

// PruneResult counts the rows a prune deleted, by kind.
type PruneResult struct {
	Ledger  int `json:"ledger"`
	Prompts int `json:"prompts"`
}

// Prune deletes tenant's ledger lines and prompts older than their
// retention at now, PruneBatch rows per write transaction until none is
// left: the worker calls it for each tenant on its tick. On Postgres the
// deletes run through migration 008's functions, bounded to the tenant.
//
// Errors: invalid for a bad tenant; the store's.
func (s *Service) Prune(ctx context.Context, tenant string, now time.Time) (PruneResult, error) {
	var res PruneResult
	tenant, err := normalTenant(tenant)
	if err != nil {
		return res, err
	}
	r := s.Retention()
	now = now.UTC().Truncate(time.Microsecond)
	kinds := []struct {
		keep  time.Duration
		count *int
		prune func(Tx, context.Context, time.Time, int) (int, error)
	}{
		{r.Ledger, &res.Ledger, Tx.PruneLedger},
		{r.Prompts, &res.Prompts, Tx.PrunePrompts},
	}
	for _, k := range kinds {
		before := pruneBefore(k.keep, now)
		if before.IsZero() {
			continue
		}
		for {
			var n int
			err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
				var err error
				n, err = k.prune(tx, ctx, before, PruneBatch)
				return err
			})
			if err != nil {
				return res, err
			}
			*k.count += n
			if n < PruneBatch {
				break
			}
		}
	}
	return res, nil
}

// PruneArchivedBottles removes the archived bottles under home (the
// baton home; every agent's bottles/archive) older than the retention at
// now, and returns how many it removed. Bottles are files where the
// transcript is, so it runs where they are: the local worker, `baton
// serve`'s, never for a remote tenant.
func (s *Service) PruneArchivedBottles(home string, now time.Time) (int, error) {
	keep := s.Retention().ArchivedBottles
	if keep <= 0 {
		return 0, nil
	}
	n, err := bottle.PruneArchives(home, now.Add(-keep))
	if err != nil {
		return n, &Error{Code: CodeInternal, Message: "the archived bottles could not be pruned", Err: err}
	}
	return n, nil
}
