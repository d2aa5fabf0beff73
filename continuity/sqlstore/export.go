package sqlstore

import (
	"context"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// keyset reads one page of the tenant's rows of a model with ids greater
// than after, in id order: the read every export page shares.
func keyset[M any](ctx context.Context, t *tx, after uuid.UUID, limit int) ([]M, error) {
	var ms []M
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant)
	if after != uuid.Nil {
		q = q.Where("id > ?", after)
	}
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.OrderExpr("id").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return ms, nil
}

// convert maps a page of models to domain rows, never returning nil.
func convert[M, R any](ms []M, row func(*M) R) []R {
	out := make([]R, len(ms))
	for i := range ms {
		out[i] = row(&ms[i])
	}
	return out
}

func (t *tx) SessionsAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.Session, error) {
	ms, err := keyset[sessionModel](ctx, t, after, limit)
	if err != nil {
		return nil, err
	}
	return sessions(ms)
}

func (t *tx) MemoriesAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.Memory, error) {
	ms, err := keyset[memoryModel](ctx, t, after, limit)
	return convert(ms, (*memoryModel).memory), err
}

func (t *tx) MemoryEventsAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.MemoryEvent, error) {
	ms, err := keyset[memoryEventModel](ctx, t, after, limit)
	return convert(ms, (*memoryEventModel).event), err
}

func (t *tx) RecordsAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.Record, error) {
	ms, err := keyset[recordModel](ctx, t, after, limit)
	return convert(ms, (*recordModel).record), err
}

func (t *tx) PromptsAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.Prompt, error) {
	ms, err := keyset[promptModel](ctx, t, after, limit)
	return convert(ms, (*promptModel).prompt), err
}

func (t *tx) StopExcerptsAfter(ctx context.Context, after uuid.UUID, limit int) ([]continuity.StopExcerpt, error) {
	ms, err := keyset[excerptModel](ctx, t, after, limit)
	return convert(ms, (*excerptModel).excerpt), err
}

func (t *tx) BottleMarkersAfter(ctx context.Context, agent, sessionID string, limit int) ([]continuity.BottleMarker, error) {
	var ms []bottleModel
	// The row-value comparison is the composite key's keyset; both
	// dialects have it.
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).
		Where("(agent, session_id) > (?, ?)", agent, sessionID).OrderExpr("agent, session_id")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return convert(ms, func(m *bottleModel) continuity.BottleMarker { return *m.marker() }), nil
}

func (t *tx) InsertPrompt(ctx context.Context, p *continuity.Prompt) error {
	m := &promptModel{ID: p.ID, UserID: t.tenant, Agent: p.Agent, SessionID: p.SessionID, Number: p.Number, Text: p.Text, Truncated: p.Truncated, At: utc(p.At)}
	_, err := t.db.NewInsert().Model(m).Exec(ctx)
	return translate(err)
}

func (t *tx) PruneLedger(ctx context.Context, before time.Time, limit int) (int, error) {
	return t.prune(ctx, "ledger", before, limit)
}

func (t *tx) PrunePrompts(ctx context.Context, before time.Time, limit int) (int, error) {
	return t.prune(ctx, "user_prompts", before, limit)
}

// prune deletes up to limit of the tenant's rows of table (ledger or
// user_prompts, whose time column is "at") older than before, oldest id
// first. On Postgres migration 008's functions delete under their own
// grant, bounded to the transaction's tenant, as the trims of 002 do.
func (t *tx) prune(ctx context.Context, table string, before time.Time, limit int) (int, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	var n int
	if t.s.postgres {
		err := t.db.QueryRowContext(ctx, "SELECT baton_prune_"+table+"(?, ?)", utc(before), lim).Scan(&n)
		return n, translate(err)
	}
	sub := t.db.NewSelect().TableExpr(table).Column("id").Where("user_id = ?", t.tenant).
		Where("at < ?", utc(before)).OrderExpr("id")
	if lim != nil {
		sub = sub.Limit(int64(limit))
	}
	res, err := t.db.NewDelete().TableExpr(table).Where("user_id = ?", t.tenant).Where("id IN (?)", sub).Exec(ctx)
	if err != nil {
		return 0, translate(err)
	}
	d, err := res.RowsAffected()
	return int(d), translate(err)
}

func (m *memoryEventModel) event() continuity.MemoryEvent {
	return continuity.MemoryEvent{ID: m.ID, Tenant: m.UserID, MemoryID: m.MemoryID, Kind: continuity.EventKind(m.EventKind),
		ActorKind: continuity.ActorKind(m.ActorKind), SessionRunID: fromNullUUID(m.SessionRunID), CreatedAt: utc(m.CreatedAt)}
}

func (m *promptModel) prompt() continuity.Prompt {
	return continuity.Prompt{ID: m.ID, Tenant: m.UserID, Agent: m.Agent, SessionID: m.SessionID, Number: m.Number, Text: m.Text, Truncated: m.Truncated, At: utc(m.At)}
}

func (m *excerptModel) excerpt() continuity.StopExcerpt {
	return continuity.StopExcerpt{ID: m.ID, Tenant: m.UserID, Agent: m.Agent, SessionID: m.SessionID, Text: m.Text, Truncated: m.Truncated, At: utc(m.At),
		PromptNumber: m.PromptNumber, Seq: m.Seq}
}
