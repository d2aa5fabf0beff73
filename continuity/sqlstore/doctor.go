package sqlstore

import (
	"context"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/uptrace/bun"
)

// The doctor's reads: aggregates over the tenant's rows, each one statement
// (ProjectActivity two), bounded by its limit.

func (t *tx) ProjectActivity(ctx context.Context, limit int) ([]continuity.ProjectActivity, error) {
	var rows []struct {
		Project       string    `bun:"project"`
		Sessions      int       `bun:"sessions"`
		FirstOpened   time.Time `bun:"first_opened"`
		LastActivated time.Time `bun:"last_activated"`
	}
	q := t.db.NewSelect().TableExpr("agent_sessions").
		ColumnExpr("COALESCE(project, '') AS project, count(*) AS sessions").
		ColumnExpr("min(opened_at) AS first_opened, max(COALESCE(activated_at, opened_at)) AS last_activated").
		Where("user_id = ?", t.tenant).GroupExpr("COALESCE(project, '')").
		OrderExpr("last_activated DESC, project")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, translate(err)
	}
	out := make([]continuity.ProjectActivity, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	names := make([]string, len(rows))
	at := make(map[string]int, len(rows))
	for i, r := range rows {
		out[i] = continuity.ProjectActivity{Project: r.Project, Sessions: r.Sessions, FirstOpenedAt: utc(r.FirstOpened), LastActivatedAt: utc(r.LastActivated)}
		names[i], at[r.Project] = r.Project, i
	}
	var recs []struct {
		Project string    `bun:"project"`
		Newest  time.Time `bun:"newest"`
	}
	err := t.db.NewSelect().TableExpr("continuity_records").
		ColumnExpr("COALESCE(project, '') AS project, max(created_at) AS newest").
		Where("user_id = ?", t.tenant).Where("COALESCE(project, '') IN (?)", bun.List(names)).
		GroupExpr("COALESCE(project, '')").Scan(ctx, &recs)
	if err != nil {
		return nil, translate(err)
	}
	for _, r := range recs {
		out[at[r.Project]].NewestRecordAt = utc(r.Newest)
	}
	return out, nil
}

func (t *tx) CountSessions(ctx context.Context, c continuity.SessionCount) (int, error) {
	q := t.db.NewSelect().TableExpr("agent_sessions").Where("user_id = ?", t.tenant)
	if c.ByProject {
		if c.Project == "" {
			q = q.Where("project IS NULL")
		} else {
			q = q.Where("project = ?", c.Project)
		}
	}
	if c.Open {
		q = q.Where("closed_at IS NULL")
	}
	q = whereAt(q, "COALESCE(activated_at, opened_at) >= ?", c.ActivatedSince)
	q = whereAt(q, "last_seen_at > ?", c.SeenAfter)
	q = whereAt(q, "last_seen_at <= ?", c.SeenNotAfter)
	if c.TriageStatus != "" {
		q = q.Where("triage_status = ?", c.TriageStatus)
	}
	n, err := q.Count(ctx)
	return int(n), translate(err)
}

// whereAt adds the condition on an instant unless the instant is zero
// (unbounded).
func whereAt(q *bun.SelectQuery, cond string, at time.Time) *bun.SelectQuery {
	if at.IsZero() {
		return q
	}
	return q.Where(cond, utc(at))
}

func (t *tx) LedgerCountsSince(ctx context.Context, since time.Time) (map[string]int, error) {
	return t.ledgerCounts(ctx, since)
}

// ledgerCounts counts the kept lines by event name, those at or after
// since when it is not zero.
func (t *tx) ledgerCounts(ctx context.Context, since time.Time) (map[string]int, error) {
	var rows []struct {
		Event string `bun:"event"`
		N     int    `bun:"n"`
	}
	q := t.db.NewSelect().TableExpr("ledger").ColumnExpr("event, count(*) AS n").Where("user_id = ?", t.tenant)
	err := whereAt(q, "at >= ?", since).GroupExpr("event").Scan(ctx, &rows)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.Event] = r.N
	}
	return out, nil
}

func (t *tx) LedgerEvents(ctx context.Context, events []string, since time.Time, limit int) ([]continuity.LedgerEntry, error) {
	if len(events) == 0 {
		return []continuity.LedgerEntry{}, nil
	}
	var ms []ledgerModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("event IN (?)", bun.List(events)).
		Where("at >= ?", utc(since)).OrderExpr("id DESC")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return ledgerEntries(ms)
}

func (t *tx) ArmedBottles(ctx context.Context, after, notAfter time.Time, limit int) ([]continuity.BottleMarker, error) {
	var ms []bottleModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("consumed_at IS NULL").
		Where("armed_at > ?", utc(after)).Where("armed_at <= ?", utc(notAfter)).OrderExpr("armed_at, agent, session_id")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make([]continuity.BottleMarker, len(ms))
	for i := range ms {
		out[i] = *ms[i].marker()
	}
	return out, nil
}
