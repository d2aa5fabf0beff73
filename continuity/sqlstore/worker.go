package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// The worker's part of the store: discovery across tenants (Lapsed,
// CloserDue) and, inside a tenant's transaction, the skip-locked read and
// the closer's compare-and-set claim.

// Lapsed implements continuity.Store.
func (s *Store) Lapsed(ctx context.Context, before time.Time, limit int) ([]continuity.RowRef, error) {
	return s.discover(ctx, "baton_lapsed", limit, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("closed_at IS NULL").Where("last_seen_at < ?", utc(before)).OrderExpr("last_seen_at, id")
	}, before)
}

// CloserDue implements continuity.Store.
func (s *Store) CloserDue(ctx context.Context, at time.Time, limit int) ([]continuity.RowRef, error) {
	return s.discover(ctx, "baton_closer_due", limit, func(q *bun.SelectQuery) *bun.SelectQuery {
		return q.Where("closer_next_at IS NOT NULL").Where("closer_next_at <= ?", utc(at)).Where("closed_at IS NOT NULL").
			Where("triage_status IN (?)", bun.List(closerStatuses)).OrderExpr("closer_next_at, id")
	}, at)
}

// RetentionDue implements continuity.Store.
func (s *Store) RetentionDue(ctx context.Context, ledgerBefore, promptsBefore time.Time, after string, limit int) ([]string, error) {
	var tenants []string
	err := s.across(ctx, limit, func(ctx context.Context) error {
		tenants = tenants[:0]
		return s.read.NewRaw(`SELECT user_id FROM (
				SELECT user_id FROM ledger WHERE at < ? AND user_id > ?
				UNION
				SELECT user_id FROM user_prompts WHERE at < ? AND user_id > ?
			) ORDER BY user_id LIMIT ?`, utc(ledgerBefore), after, utc(promptsBefore), after, limit).Scan(ctx, &tenants)
	}, func(ctx context.Context, tx bun.Tx) error {
		tenants = tenants[:0]
		return tx.NewRaw("SELECT user_id FROM baton_retention_due(?, ?, ?, ?)", utc(ledgerBefore), utc(promptsBefore), after, limit).Scan(ctx, &tenants)
	})
	if err != nil {
		return nil, err
	}
	return tenants, nil
}

// across runs one read outside any tenant, the worker's discovery: limit
// must be 1 to MaxDiscover; on SQLite, which has no row-level security,
// plain runs a plain read; on Postgres, definer runs in a read-only
// transaction as the runtime role with no tenant set, where only the
// migrations' SECURITY DEFINER functions see across tenants.
func (s *Store) across(ctx context.Context, limit int, plain func(ctx context.Context) error, definer func(ctx context.Context, tx bun.Tx) error) error {
	if limit < 1 || limit > continuity.MaxDiscover {
		return continuity.Invalid("limit", "must be between 1 and "+strconv.Itoa(continuity.MaxDiscover))
	}
	return s.retry(ctx, func() error {
		if !s.postgres {
			return plain(ctx)
		}
		return s.read.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
			if s.enterRole {
				if _, err := tx.ExecContext(ctx, "SET LOCAL ROLE "+RuntimeRole); err != nil {
					return err
				}
			}
			return definer(ctx, tx)
		})
	})
}

// closerStatuses are the triage statuses the closer may take (overflowed is
// terminal); migration 006's baton_closer_due holds the same list.
var closerStatuses = []string{"idle", "pending", "expired", "completed"}

// discover runs one discovery query outside any tenant: on Postgres the
// migration's SECURITY DEFINER function fn, as the runtime role with no
// tenant set (the function alone sees across tenants); on SQLite, which has
// no row-level security, the same filter as a plain read.
func (s *Store) discover(ctx context.Context, fn string, limit int, filter func(*bun.SelectQuery) *bun.SelectQuery, at time.Time) ([]continuity.RowRef, error) {
	var rows []struct {
		UserID string    `bun:"user_id"`
		ID     uuid.UUID `bun:"id"`
	}
	err := s.across(ctx, limit, func(ctx context.Context) error {
		rows = rows[:0]
		return filter(s.read.NewSelect().TableExpr("agent_sessions").Column("user_id", "id")).
			Limit(int64(limit)).Scan(ctx, &rows)
	}, func(ctx context.Context, tx bun.Tx) error {
		rows = rows[:0]
		return tx.NewRaw("SELECT user_id, id FROM "+fn+"(?, ?)", utc(at), limit).Scan(ctx, &rows)
	})
	if err != nil {
		return nil, err
	}
	out := make([]continuity.RowRef, len(rows))
	for i, r := range rows {
		out[i] = continuity.RowRef{Tenant: r.UserID, ID: r.ID}
	}
	return out, nil
}

func (t *tx) TrySessionByID(ctx context.Context, id uuid.UUID) (*continuity.Session, error) {
	var m sessionModel
	q := t.db.NewSelect().Model(&m).Where("user_id = ?", t.tenant).Where("id = ?", id)
	if t.s.postgres && t.write {
		q = q.For("UPDATE SKIP LOCKED")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, notFoundOr(err, "session")
	}
	return coded(m.session())
}

func (t *tx) ClaimCloser(ctx context.Context, c continuity.CloserClaim) (bool, error) {
	q := t.db.NewUpdate().TableExpr("agent_sessions").
		Set("triage_attempt_id = ?", c.Token).
		Set("triage_status = ?", c.ClaimStatus).
		Set("closer_next_at = ?", utc(c.Until)).
		Where("user_id = ?", t.tenant).Where("id = ?", c.ID).
		Where("closed_at IS NOT NULL").
		Where("activation_epoch = ?", c.Epoch).
		Where("triage_status = ?", c.Status)
	if c.AttemptID == uuid.Nil {
		q = q.Where("triage_attempt_id IS NULL")
	} else {
		q = q.Where("triage_attempt_id = ?", c.AttemptID)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false, translate(err)
	}
	n, err := res.RowsAffected()
	return n == 1, translate(err)
}
