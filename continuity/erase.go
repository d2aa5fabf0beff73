package continuity

import (
	"context"
	"fmt"
	"io"
)

// DefaultEraseBatch is how many rows one transaction of an erase deletes,
// and MaxEraseBatch the most an EraseParams may ask for.
const (
	DefaultEraseBatch = 1000
	MaxEraseBatch     = 10000
)

// EraseParams bounds an erase.
type EraseParams struct {
	// Batch is how many rows each transaction deletes, at most
	// MaxEraseBatch; below 1 is DefaultEraseBatch.
	Batch int `json:"batch,omitempty"`
	// MaxBatches stops the erase after that many transactions, finished
	// or not (an erase resumes where it stopped when run again); below 1
	// runs until the tenant owns nothing.
	MaxBatches int `json:"maxBatches,omitempty"`
}

// EraseResult says what an erase did.
type EraseResult struct {
	// Deleted counts the rows deleted.
	Deleted int `json:"deleted"`
	// Batches counts the transactions that deleted rows.
	Batches int `json:"batches"`
	// Complete says the tenant owns no row any more.
	Complete bool `json:"complete"`
}

// Erase deletes every row tenant owns, in every table, a batch of rows per
// transaction (Store.EraseBatch), so no transaction is long and an erase
// that is stopped (MaxBatches, a cancelled context, a crash) leaves a
// consistent store and finishes when run again. The batch that deletes
// fewer rows than its size deleted the tenant's last, so the erase ends
// even while the tenant's writes keep coming (they are erased with the
// rest, until one batch outruns them). Erasing a tenant that owns nothing
// completes at once. It runs under a grant the request path's
// runtime role does not hold: adapters offer it to administrators only.
//
// Errors: invalid for a bad tenant or a batch over MaxEraseBatch; forbidden when the store's connection
// lacks the erase grant; internal when the context ends (what was deleted
// stays deleted; run it again).
func (s *Service) Erase(ctx context.Context, tenant string, p EraseParams) (EraseResult, error) {
	var res EraseResult
	tenant, err := normalTenant(tenant)
	if err != nil {
		return res, err
	}
	batch := p.Batch
	if batch > MaxEraseBatch {
		return res, Invalid("batch", fmt.Sprintf("must be at most %d", MaxEraseBatch))
	}
	if batch < 1 {
		batch = DefaultEraseBatch
	}
	for p.MaxBatches < 1 || res.Batches < p.MaxBatches {
		if err := ctx.Err(); err != nil {
			return res, &Error{Code: CodeInternal, Message: "the erase was cancelled; run it again to finish", Err: err}
		}
		n, err := s.store.EraseBatch(ctx, tenant, batch)
		if err != nil {
			return res, err
		}
		if n > 0 {
			res.Deleted += n
			res.Batches++
		}
		if n < batch {
			// The batch deleted the tenant's last rows: it owns none
			// as of its commit (Store.EraseBatch).
			res.Complete = true
			return res, nil
		}
	}
	return res, nil
}

// TenantData is what a tenant's data rights take: its rows exported,
// imported into an empty tenant, and erased. It is no hook event's, so it
// is not part of API: Local implements it, and an adapter reaches it by a
// type assertion on the API it holds (the HTTP client does not carry it).
type TenantData interface {
	// Export is Service.Export for the bound tenant.
	Export(ctx context.Context, w io.Writer) (ExportResult, error)
	// Restore is Service.Restore for the bound tenant.
	Restore(ctx context.Context, r io.Reader) (ExportResult, error)
	// Erase is Service.Erase for the bound tenant.
	Erase(ctx context.Context, p EraseParams) (EraseResult, error)
}

var _ TenantData = (*Local)(nil)

// Export implements TenantData.
func (l *Local) Export(ctx context.Context, w io.Writer) (ExportResult, error) {
	return l.svc.Export(ctx, l.tenant, w)
}

// Restore implements TenantData.
func (l *Local) Restore(ctx context.Context, r io.Reader) (ExportResult, error) {
	return l.svc.Restore(ctx, l.tenant, r)
}

// Erase implements TenantData.
func (l *Local) Erase(ctx context.Context, p EraseParams) (EraseResult, error) {
	return l.svc.Erase(ctx, l.tenant, p)
}
