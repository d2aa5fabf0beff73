package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/batonhq/baton/continuity"
)

// TouchLive implements continuity.Store. On Postgres it is one statement
// in autocommit, migration 010's baton_touch_live, which enters the
// runtime role and the tenant as a transaction of Write does; on SQLite it
// is a Write of an UPDATE … RETURNING and the excerpt's insert.
func (s *Store) TouchLive(ctx context.Context, tenant string, t continuity.SessionTouch) (*continuity.Session, error) {
	if err := continuity.ValidateTenant(tenant); err != nil {
		return nil, err
	}
	if !s.postgres {
		var got *continuity.Session
		err := s.Write(ctx, tenant, func(ctx context.Context, ctn continuity.Tx) error {
			var err error
			got, err = touchSQLite(ctx, ctn.(*tx), t)
			return err
		})
		return got, err
	}
	var (
		excerptID           any
		excerptText         string
		excerptTruncated    bool
		stopInc, compactInc = inc(t.Stop), inc(t.Compact)
		ms                  []sessionModel
	)
	if e := t.StopExcerpt; e != nil {
		excerptID, excerptText, excerptTruncated = e.ID, e.Text, e.Truncated
	}
	err := s.retry(ctx, func() error {
		// The driver's own placeholders, so the statement is prepared once
		// per connection rather than parsed and planned per heartbeat.
		rows, err := s.write.DB.QueryContext(ctx, touchLiveSQL,
			s.enterRole, tenant, t.Agent, t.SessionID, utc(t.Now), utc(t.LiveAfter),
			t.Excerpt, stopInc, compactInc, excerptID, excerptText, excerptTruncated, t.KeepExcerpts, t.TrimEvery)
		if err != nil {
			return err
		}
		ms = ms[:0]
		if err := s.write.ScanRows(ctx, rows, &ms); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		return nil
	})
	if err != nil || len(ms) == 0 {
		return nil, err
	}
	return coded(ms[0].session())
}

const touchLiveSQL = `SELECT * FROM baton_touch_live($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

// touchSQLite is TouchLive inside a SQLite write transaction.
func touchSQLite(ctx context.Context, t *tx, s continuity.SessionTouch) (*continuity.Session, error) {
	now := utc(s.Now)
	q := t.db.NewUpdate().TableExpr("agent_sessions").
		Set("last_seen_at = CASE WHEN last_seen_at < ? THEN ? ELSE last_seen_at END", now, now).
		Set("stop_count = stop_count + ?", inc(s.Stop)).
		Set("activation_stops = activation_stops + ?", inc(s.Stop)).
		Set("compactions = compactions + ?", inc(s.Compact))
	if s.Excerpt != nil {
		q = q.Set("last_message_excerpt = ?", *s.Excerpt)
	}
	var ms []sessionModel
	err := q.Where("user_id = ?", t.tenant).Where("agent = ?", s.Agent).Where("session_id = ?", s.SessionID).
		Where("closed_at IS NULL").Where("last_seen_at > ?", utc(s.LiveAfter)).
		Returning("*").Scan(ctx, &ms)
	if err != nil {
		return nil, translate(err)
	}
	if len(ms) == 0 {
		return nil, nil
	}
	row, err := coded(ms[0].session())
	if err != nil || s.StopExcerpt == nil {
		return row, err
	}
	e := *s.StopExcerpt
	e.Agent, e.SessionID, e.At = s.Agent, s.SessionID, s.Now
	keep := 0
	if s.KeepExcerpts > 0 && s.TrimEvery > 0 && row.StopCount > s.KeepExcerpts && row.StopCount%s.TrimEvery == 0 {
		keep = s.KeepExcerpts
	}
	return row, t.InsertStopExcerpt(ctx, keep, &e)
}

// inc is a counter's increment for a flag.
func inc(b bool) int {
	if b {
		return 1
	}
	return 0
}
