package continuity

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// DefaultWorkerBatch is how many rows one worker pass discovers for the
// sweep, and again for the closer.
const DefaultWorkerBatch = 500

// DefaultCloserClaimTTL is how long a closer's claim holds a row: no other
// worker takes it before then, and a worker that died holding it loses it
// after. A pass still running past it is fenced off by the next claim.
const DefaultCloserClaimTTL = 15 * time.Minute

// Worker serves every tenant of a store: each pass discovers lapsed rows
// across tenants and sweeps them, then (when the closer is on) runs the
// resolve-only closer over the closed rows that are due. Discovery returns
// only (tenant, row id) pairs; every row is worked in a transaction of its
// own tenant, so the worker reads no tenant's rows from another's. Several
// workers (every replica of `baton serve`) may run at once over one store:
// a row is claimed once, by a skip-locked read and a compare-and-set.
type Worker struct {
	svc      *Service
	judge    Judge
	batch    int
	claimTTL time.Duration
	report   func(WorkerResult, error)

	// retainEvery is how often a pass runs retention; home is where the
	// archived bottles it prunes are (empty: none).
	retainEvery time.Duration
	home        string
	mu          sync.Mutex
	retainedAt  time.Time // when a pass last ran retention; zero: never
}

// DefaultRetentionEvery is how often the worker's passes prune what is past
// its retention (Retention): the first pass does, then one pass an hour.
const DefaultRetentionEvery = time.Hour

// WithRetentionEvery replaces DefaultRetentionEvery (a positive duration).
func WithRetentionEvery(d time.Duration) WorkerOption {
	return func(w *Worker) {
		if d > 0 {
			w.retainEvery = d
		}
	}
}

// WithBottleHome has the retention pass also prune the archived bottles
// under home (a local worker's BATON_HOME; a team server keeps none).
func WithBottleHome(home string) WorkerOption { return func(w *Worker) { w.home = home } }

// WorkerOption configures a Worker.
type WorkerOption func(*Worker)

// WithCloser turns the resolve-only closer on (it is off by default), asking
// judge which briefed commitments a closed run shows as done. A nil judge
// leaves it off.
func WithCloser(judge Judge) WorkerOption { return func(w *Worker) { w.judge = judge } }

// WithWorkerBatch sets how many rows a pass discovers for each of the sweep
// and the closer (1 to MaxDiscover; DefaultWorkerBatch otherwise).
func WithWorkerBatch(n int) WorkerOption {
	return func(w *Worker) {
		if n >= 1 && n <= MaxDiscover {
			w.batch = n
		}
	}
}

// WithCloserClaimTTL replaces DefaultCloserClaimTTL (a positive duration).
func WithCloserClaimTTL(d time.Duration) WorkerOption {
	return func(w *Worker) {
		if d > 0 {
			w.claimTTL = d
		}
	}
}

// WithWorkerReport has Run hand every pass's result and error to report
// (for a log line; a result carries counts only, never content).
func WithWorkerReport(report func(WorkerResult, error)) WorkerOption {
	return func(w *Worker) { w.report = report }
}

// NewWorker returns a worker over the service's store, clock and policies.
// The closer's grace past an implicit close is the lease policy's sweep
// grace (WithLeasePolicy).
func NewWorker(svc *Service, opts ...WorkerOption) *Worker {
	w := &Worker{svc: svc, batch: DefaultWorkerBatch, claimTTL: DefaultCloserClaimTTL, retainEvery: DefaultRetentionEvery}
	for _, o := range opts {
		o(w)
	}
	return w
}

// CloserOn reports whether the worker runs the closer.
func (w *Worker) CloserOn() bool { return w.judge != nil }

// WorkerResult counts what one pass did.
type WorkerResult struct {
	// Swept is how many lapsed rows the pass closed.
	Swept int `json:"swept"`
	// Claimed is how many closed rows the closer claimed; Finished how many
	// of those passes wrote their bookkeeping, Failed how many failed and
	// backed off, Abandoned how many found the run resurrected or claimed
	// again and stopped without writing it.
	Claimed   int `json:"claimed"`
	Finished  int `json:"finished"`
	Failed    int `json:"failed"`
	Abandoned int `json:"abandoned"`
	// Resolved is how many commitments the closer resolved.
	Resolved int `json:"resolved"`
	// Skipped is how many discovered rows were not worked: another worker
	// held or had already taken them, or they were no longer due.
	Skipped int `json:"skipped"`
	// Usage is what the judge's verdicts cost.
	Usage JudgeUsage `json:"usage"`
	// Pruned is how many ledger lines and prompts past their retention the
	// pass deleted, PrunedBottles how many archived bottles.
	Pruned        int `json:"pruned"`
	PrunedBottles int `json:"prunedBottles"`
}

func (r *WorkerResult) add(o WorkerResult) {
	r.Swept += o.Swept
	r.Claimed += o.Claimed
	r.Finished += o.Finished
	r.Failed += o.Failed
	r.Abandoned += o.Abandoned
	r.Resolved += o.Resolved
	r.Skipped += o.Skipped
	r.Usage.InputTokens += o.Usage.InputTokens
	r.Usage.OutputTokens += o.Usage.OutputTokens
	r.Usage.CostMicroUSD += o.Usage.CostMicroUSD
	r.Pruned += o.Pruned
	r.PrunedBottles += o.PrunedBottles
}

// Run runs a pass at once and then every interval until ctx ends, handing
// each pass's outcome to the WithWorkerReport function. A failed pass does
// not stop the loop: the next one retries what is still due. It returns nil
// when ctx ends, and invalid for an interval below one second.
func (w *Worker) Run(ctx context.Context, every time.Duration) error {
	if every < time.Second {
		return Invalid("every", "must be at least 1s")
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		res, err := w.Tick(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if w.report != nil {
			w.report(res, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Tick runs one pass: discover lapsed rows across tenants and sweep each
// tenant's in its own transaction; then, with the closer on, discover the
// closed rows that are due and run the closer on each. A tenant's or a
// row's failure does not stop the pass; the errors are joined and returned
// beside the counts.
func (w *Worker) Tick(ctx context.Context) (WorkerResult, error) {
	var res WorkerResult
	var errs []error
	now := w.svc.clock()
	lapsed, err := w.svc.store.Lapsed(ctx, w.svc.lease.SweepFloor(now), w.batch)
	if err != nil {
		return res, err
	}
	for _, g := range byTenant(lapsed) {
		n := 0
		for n < g.rows {
			if ctx.Err() != nil {
				return res, stopped(ctx, errs)
			}
			sw, err := w.svc.Sweep(ctx, g.tenant, min(g.rows-n, MaxSweep))
			res.Swept += len(sw.Swept)
			if err != nil {
				errs = append(errs, err)
				break
			}
			if len(sw.Swept) == 0 {
				break // another worker swept them
			}
			n += len(sw.Swept)
		}
	}
	if ctx.Err() != nil {
		return res, stopped(ctx, errs)
	}
	r, err := w.retain(ctx, now)
	res.add(r)
	if err != nil {
		errs = append(errs, err)
	}
	if ctx.Err() != nil {
		return res, stopped(ctx, errs)
	}
	if !w.CloserOn() {
		return res, errors.Join(errs...)
	}
	due, err := w.svc.store.CloserDue(ctx, w.svc.clock(), w.batch)
	if err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	for _, ref := range due {
		if ctx.Err() != nil {
			return res, stopped(ctx, errs)
		}
		r, err := w.close(ctx, ref)
		res.add(r)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// stopped is the error of a pass whose context ended: the errors it met
// before, less those of the calls the end cut short (each tenant's would
// say the same), and the end itself, once.
func stopped(ctx context.Context, errs []error) error {
	kept := slices.DeleteFunc(errs, func(err error) bool {
		return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	})
	return errors.Join(append(kept, context.Cause(ctx))...)
}

// retain prunes, when retention is due (the first pass, then every
// retainEvery), every tenant's ledger lines and prompts past their
// retention, discovered across tenants a page at a time, and the archived
// bottles under home. A retention that failed stays due: the next pass
// runs it again (its prunes are idempotent). So does one whose clock reads
// before the last run's stamp: the wall clock stepped back, and waiting for
// it to catch up with a stamp taken while it ran ahead would stop
// retention for as long as the step.
func (w *Worker) retain(ctx context.Context, now time.Time) (res WorkerResult, err error) {
	w.mu.Lock()
	prev := w.retainedAt
	due := prev.IsZero() || now.Before(prev) || !now.Before(prev.Add(w.retainEvery))
	if due {
		w.retainedAt = now
	}
	w.mu.Unlock()
	if !due {
		return res, nil
	}
	defer func() {
		if err != nil {
			w.mu.Lock()
			if w.retainedAt.Equal(now) {
				w.retainedAt = prev
			}
			w.mu.Unlock()
		}
	}()
	var errs []error
	r := w.svc.Retention()
	after := ""
	for {
		tenants, err := w.svc.store.RetentionDue(ctx, pruneBefore(r.Ledger, now), pruneBefore(r.Prompts, now), after, w.batch)
		if err != nil {
			errs = append(errs, err)
			break
		}
		for _, tenant := range tenants {
			if ctx.Err() != nil {
				return res, stopped(ctx, errs)
			}
			p, err := w.svc.Prune(ctx, tenant, now)
			res.Pruned += p.Ledger + p.Prompts
			if err != nil {
				errs = append(errs, err)
			}
		}
		if len(tenants) < w.batch || ctx.Err() != nil {
			break
		}
		after = tenants[len(tenants)-1]
	}
	if w.home != "" {
		n, err := w.svc.PruneArchivedBottles(w.home, now)
		res.PrunedBottles = n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

type tenantRows struct {
	tenant string
	rows   int
}

// byTenant counts discovered rows per tenant, in order of first appearance.
func byTenant(refs []RowRef) []tenantRows {
	var out []tenantRows
	idx := map[string]int{}
	for _, r := range refs {
		i, ok := idx[r.Tenant]
		if !ok {
			i = len(out)
			idx[r.Tenant] = i
			out = append(out, tenantRows{tenant: r.Tenant})
		}
		out[i].rows++
	}
	return out
}

// claim is what a closer pass took and read in its claim transaction.
type claim struct {
	run        uuid.UUID
	epoch      int
	token      uuid.UUID
	agent, sid string
	excerpt    string
	events     []provenance.Item
	briefed    []uuid.UUID
}

// errFenced stops a closer pass whose run was resurrected or claimed again.
var errFenced = errors.New("the closer's claim no longer holds")

// close runs the closer on one row: claim, judge, resolve, write back.
func (w *Worker) close(ctx context.Context, ref RowRef) (WorkerResult, error) {
	var res WorkerResult
	c, skipped, err := w.claim(ctx, ref)
	if err != nil || skipped {
		if skipped {
			res.Skipped++
		}
		return res, err
	}
	res.Claimed++
	resolved, err := w.judgeAndResolve(ctx, ref.Tenant, c, &res)
	res.Resolved += resolved
	switch {
	case errors.Is(err, errFenced):
		res.Abandoned++
		return res, w.abandon(ctx, ref.Tenant, c, "fenced")
	case err != nil && ctx.Err() != nil:
		// Stopped, not failed: the claim lapses after its TTL and a worker
		// takes the row again, with no backoff.
		return res, err
	case err != nil:
		res.Failed++
		return res, errors.Join(err, w.fail(ctx, ref.Tenant, c, err))
	}
	finished, err := w.finish(ctx, ref.Tenant, c, resolved)
	switch {
	case err != nil && ctx.Err() != nil:
		// Stopped between the judge and the bookkeeping: as above.
		return res, err
	case err != nil:
		res.Failed++
		return res, errors.Join(err, w.fail(ctx, ref.Tenant, c, err))
	case finished:
		res.Finished++
	default:
		res.Abandoned++
	}
	return res, nil
}

// claim takes the row in a transaction of its tenant: a skip-locked read,
// the closer's eligibility rules, and the compare-and-set on the attempt id
// fenced at the observed epoch. It reads the row's part of what the judge
// needs (excerpt, events, briefed ids) in the same transaction; the
// commitments are read live after it. skipped is true when the row was not
// taken.
func (w *Worker) claim(ctx context.Context, ref RowRef) (c claim, skipped bool, err error) {
	err = w.svc.store.Write(ctx, ref.Tenant, func(ctx context.Context, tx Tx) error {
		now := w.svc.clock()
		c, skipped = claim{}, true
		row, err := tx.TrySessionByID(ctx, ref.ID)
		if ErrorCode(err) == CodeNotFound {
			return nil // another worker holds it, or it is gone
		}
		if err != nil {
			return err
		}
		if row.ClosedAt == nil || row.CloserNextAt == nil || row.CloserNextAt.After(now) {
			return nil // reopened, finished, or claimed by another worker
		}
		st, err := triage.ParseStatus(row.TriageStatus)
		if err != nil {
			return &Error{Code: CodeInternal, Message: "the session row has an unknown triage status", Err: err}
		}
		visible, err := w.svc.listing(ctx, tx, row.ID)
		if err != nil {
			return err
		}
		if !triage.Closable(st, row.TriagedEventIDs, visible.triage()) {
			// Nothing for the closer until the row changes again.
			row.CloserNextAt = nil
			return tx.UpdateSession(ctx, row)
		}
		if visible.truncated {
			// More events than the ceiling: the run is overflowed, for
			// good, and no judge is asked about a listing it cannot see
			// whole.
			row.TriageStatus, row.CloserNextAt = string(triage.Overflowed), nil
			if err := tx.UpdateSession(ctx, row); err != nil {
				return err
			}
			return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserFinished, now, row, map[string]string{
				"status": string(triage.Overflowed), "events": strconv.Itoa(len(visible.events)), "truncated": "true", "actor": string(ActorWorker),
			}))
		}
		token := w.svc.newID()
		ok, err := tx.ClaimCloser(ctx, CloserClaim{
			ID: row.ID, Epoch: row.ActivationEpoch, AttemptID: row.TriageAttemptID, Status: row.TriageStatus,
			Token: token, ClaimStatus: string(triage.ClaimStatus(st)), Until: now.Add(w.claimTTL),
		})
		if err != nil || !ok {
			return err
		}
		c = claim{run: row.ID, epoch: row.ActivationEpoch, token: token, agent: row.Agent, sid: row.SessionID,
			excerpt: row.LastMessageExcerpt, events: items(visible.events)}
		for _, b := range row.BriefedMemories {
			c.briefed = append(c.briefed, b.ID)
		}
		skipped = false
		return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserClaimed, now, row, map[string]string{
			"attempt_id": token.String(), "epoch": strconv.Itoa(row.ActivationEpoch), "status": row.TriageStatus,
			"briefed": strconv.Itoa(len(c.briefed)), "actor": string(ActorWorker),
		}))
	})
	return c, skipped, err
}

// commitments reads, live and without locking them, the briefed rows that
// are still open commitments of the tenant, each once, in briefed order. A
// briefed id the tenant does not own reads as gone.
func (w *Worker) commitments(ctx context.Context, tenant string, briefed []uuid.UUID) ([]Memory, error) {
	var out []Memory
	err := w.svc.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		out = out[:0]
		for _, id := range briefed {
			m, err := tx.MemoryByID(ctx, id)
			if ErrorCode(err) == CodeNotFound {
				continue
			}
			if err != nil {
				return err
			}
			if m.Kind == KindCommitment && m.Status == StatusOpen && !slices.ContainsFunc(out, func(o Memory) bool { return o.ID == m.ID }) {
				out = append(out, *m)
			}
		}
		return nil
	})
	return out, err
}

func items(es []MemoryEvent) []provenance.Item {
	out := make([]provenance.Item, len(es))
	for i, e := range es {
		out[i] = provenance.Item{ID: e.ID, MemoryID: e.MemoryID, EventKind: string(e.Kind),
			ActorKind: string(e.ActorKind), SessionRunID: e.SessionRunID, CreatedAt: e.CreatedAt}
	}
	return out
}

// judgeAndResolve asks the judge, outside any transaction, which briefed
// commitments are done, keeps only ids that were briefed (and open when
// claimed), and resolves each in a transaction of its own that first
// re-reads the commitment live and re-checks the claim. A run resurrected
// or claimed again meanwhile stops the batch with errFenced; resolves
// already made stay (a resolve is undone with unresolve).
func (w *Worker) judgeAndResolve(ctx context.Context, tenant string, c claim, res *WorkerResult) (int, error) {
	commitments, err := w.commitments(ctx, tenant, c.briefed)
	if err != nil || len(commitments) == 0 {
		return 0, err
	}
	v, err := w.ask(ctx, JudgeCase{Tenant: tenant, Agent: c.agent, SessionID: c.sid, RunID: c.run,
		Excerpt: c.excerpt, Events: c.events, Commitments: commitments})
	res.Usage.InputTokens += v.Usage.InputTokens
	res.Usage.OutputTokens += v.Usage.OutputTokens
	res.Usage.CostMicroUSD += v.Usage.CostMicroUSD
	if err != nil {
		return 0, &Error{Code: CodeInternal, Message: "the closer's judge failed", Err: err}
	}
	resolved := 0
	for _, m := range commitments {
		if !slices.Contains(v.Completed, m.ID) {
			continue
		}
		done, err := w.resolve(ctx, tenant, c, m.ID)
		if err != nil {
			return resolved, err
		}
		if done {
			resolved++
		}
	}
	return resolved, nil
}

// errJudgePanicked is the cause of a pass whose judge panicked; the
// panic's value, which may quote the case, is dropped.
var errJudgePanicked = errors.New("the judge panicked")

// ask asks the judge, which is a host's code: the call's context ends when
// the claim's TTL has passed (the claim no longer holds then, and another
// worker may take the row), and a panic is the pass's failure, so a
// judge's bug backs its row off instead of ending the worker of every
// tenant, and the server it runs in.
func (w *Worker) ask(ctx context.Context, c JudgeCase) (v Verdict, err error) {
	ctx, cancel := context.WithTimeout(ctx, w.claimTTL)
	defer cancel()
	defer func() {
		if recover() != nil {
			v, err = Verdict{}, errJudgePanicked
		}
	}()
	return w.judge.Judge(ctx, c)
}

// resolve resolves one commitment for the closer with pre-resolved
// provenance: the event carries the run's id and the worker actor, and the
// write never enters the attach path, so it cannot resurrect the row it is
// closing. The memory is locked first, then the row, the order every
// memory write takes.
func (w *Worker) resolve(ctx context.Context, tenant string, c claim, id uuid.UUID) (bool, error) {
	done := false
	err := w.svc.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := w.svc.clock()
		m, err := tx.MemoryByID(ctx, id)
		if ErrorCode(err) == CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		row, err := w.claimedRow(ctx, tx, c)
		if err != nil {
			return err
		}
		if row == nil {
			return errFenced
		}
		to, err := memrule.Transition(EventResolve, m.Status)
		if err != nil || m.Kind != KindCommitment {
			return nil // resolved, revised or archived meanwhile: skip it
		}
		m.Status, m.UpdatedAt = to, now
		if err := tx.UpdateMemory(ctx, m); err != nil {
			return err
		}
		if err := tx.InsertMemoryEvents(ctx, w.svc.event(tenant, m.ID, EventResolve, ActorWorker, c.run, now)); err != nil {
			return err
		}
		done = true
		return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserResolved, now, row, map[string]string{
			"attempt_id": c.token.String(), "memory_id": m.ID.String(), "actor": string(ActorWorker),
		}))
	})
	return done, err
}

// claimedRow reads the claimed run in tx: nil when the claim no longer
// holds on it, or when it is gone (its tenant was erased meanwhile), which
// ends the claim as surely as a resurrection does.
func (w *Worker) claimedRow(ctx context.Context, tx Tx, c claim) (*Session, error) {
	row, err := tx.SessionByID(ctx, c.run)
	switch {
	case ErrorCode(err) == CodeNotFound:
		return nil, nil
	case err != nil:
		return nil, err
	case !w.holds(row, c):
		return nil, nil
	}
	return row, nil
}

// holds reports whether the claim still holds on the row: still closed, at
// the claimed epoch, under the claim's attempt id.
func (w *Worker) holds(row *Session, c claim) bool {
	return row.ClosedAt != nil && row.ActivationEpoch == c.epoch && row.TriageAttemptID == c.token
}

// finish writes the pass's bookkeeping, all or nothing and fenced on the
// claim: the watermark from a listing taken after the resolves (their
// events carry this run's id, so a listing taken before them would leave
// them untriaged and re-arm the run), the terminal status, nothing more
// for the closer to do, and the excerpt cleared, last, now that the
// attempt has durably finished. finished is false when the claim no longer
// held (nothing written but the ledger line).
func (w *Worker) finish(ctx context.Context, tenant string, c claim, resolved int) (finished bool, err error) {
	err = w.svc.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := w.svc.clock()
		finished = false
		row, err := tx.SessionByID(ctx, c.run)
		if ErrorCode(err) == CodeNotFound {
			return nil // erased: nothing to write back, nor a row to file a line under
		}
		if err != nil {
			return err
		}
		if !w.holds(row, c) {
			return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserAbandoned, now, row, map[string]string{
				"attempt_id": c.token.String(), "reason": "fenced", "resolved": strconv.Itoa(resolved), "actor": string(ActorWorker),
			}))
		}
		visible, err := w.svc.listing(ctx, tx, row.ID)
		if err != nil {
			return err
		}
		st, wm := w.svc.triage.CloserFinish(row.TriagedEventIDs, visible.triage())
		row.TriageStatus, row.TriagedEventIDs = string(st), wm
		row.CloserNextAt, row.CloserFailures = nil, 0
		row.LastMessageExcerpt = ""
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		finished = true
		return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserFinished, now, row, map[string]string{
			"attempt_id": c.token.String(), "status": string(st), "resolved": strconv.Itoa(resolved),
			"events": strconv.Itoa(len(visible.events)), "actor": string(ActorWorker),
		}))
	})
	return finished, err
}

// fail records a failed pass, fenced on the claim: one more consecutive
// failure, and the row next due after triage.CloserBackoff. The excerpt
// stays for the retry.
func (w *Worker) fail(ctx context.Context, tenant string, c claim, cause error) error {
	return w.svc.store.Write(context.WithoutCancel(ctx), tenant, func(ctx context.Context, tx Tx) error {
		now := w.svc.clock()
		row, err := w.claimedRow(ctx, tx, c)
		if err != nil || row == nil {
			return err
		}
		row.CloserFailures++
		next := now.Add(triage.CloserBackoff(row.CloserFailures))
		row.CloserNextAt = &next
		if err := tx.UpdateSession(ctx, row); err != nil {
			return err
		}
		return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserFailed, now, row, map[string]string{
			"attempt_id": c.token.String(), "failures": strconv.Itoa(row.CloserFailures),
			"next_at": next.Format(time.RFC3339Nano), "reason": string(ErrorCode(cause)) + ": " + ErrorMessage(cause),
			"actor": string(ActorWorker),
		}))
	})
}

// abandon records a pass that stopped because its claim no longer held.
func (w *Worker) abandon(ctx context.Context, tenant string, c claim, reason string) error {
	return w.svc.store.Write(context.WithoutCancel(ctx), tenant, func(ctx context.Context, tx Tx) error {
		row, err := tx.SessionByID(ctx, c.run)
		if ErrorCode(err) == CodeNotFound {
			return nil // erased: no row to file the line under
		}
		if err != nil {
			return err
		}
		return tx.AppendLedger(ctx, w.svc.ledgerKeep, w.svc.entry(EventCloserAbandoned, w.svc.clock(), row, map[string]string{
			"attempt_id": c.token.String(), "reason": reason, "actor": string(ActorWorker),
		}))
	})
}
