package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/batonhq/baton/continuity"
)

// TouchLive implements continuity.Store. On Postgres it is one statement
// in autocommit, migration 010's baton_touch_live, which enters the
// runtime role and the tenant as a transaction of Write does; concurrent
// touches of one tenant share a statement (touches). On SQLite it is a
// Write of an UPDATE … RETURNING and the excerpt's insert.
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
	return s.touches.touch(ctx, s, tenant, t)
}

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
	n, err := t.lastPromptNumber(ctx, s.Agent, s.SessionID)
	if err != nil {
		return nil, err
	}
	e.PromptNumber = &n
	return row, t.InsertStopExcerpt(ctx, s.ExcerptKeep(row.StopCount), &e)
}

// inc is a counter's increment for a flag.
func inc(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Postgres touches of one tenant run at most touchesInFlight statements at
// a time; the touches that arrive meanwhile queue in one batch (at most
// maxTouchBatch, each conversation once), which the next statement to
// finish hands its turn to. An idle tenant's touch runs at once, alone;
// under load a statement carries many, so the database commits once for
// them all.
const (
	touchesInFlight = 2
	maxTouchBatch   = 128
	// touchTimeout bounds a statement: one that carries others' touches
	// runs whatever its leader's context says.
	touchTimeout = 30 * time.Second
)

// touches is a Postgres store's coalescing of live heartbeats, by tenant.
type touches struct {
	mu      sync.Mutex
	tenants map[string]*tenantTouches
}

type tenantTouches struct {
	inFlight int
	queued   *touchBatch
}

type touchKey struct{ agent, session string }

type touchBatch struct {
	items []*touchItem
	keys  map[touchKey]bool
	turn  chan struct{} // closed when the batch may run
}

type touchItem struct {
	t    continuity.SessionTouch
	row  *continuity.Session
	err  error
	done chan struct{}
}

func (b *touchBatch) add(it *touchItem) {
	b.items = append(b.items, it)
	b.keys[touchKey{it.t.Agent, it.t.SessionID}] = true
}

// takes reports whether the queued batch can carry one more touch of
// this conversation: a conversation is touched once per statement, so two
// of its touches are applied one after the other.
func (b *touchBatch) takes(t continuity.SessionTouch) bool {
	return len(b.items) < maxTouchBatch && !b.keys[touchKey{t.Agent, t.SessionID}]
}

func (c *touches) touch(ctx context.Context, s *Store, tenant string, t continuity.SessionTouch) (*continuity.Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, translate(err)
	}
	it := &touchItem{t: t, done: make(chan struct{})}
	c.mu.Lock()
	if c.tenants == nil {
		c.tenants = map[string]*tenantTouches{}
	}
	tt := c.tenants[tenant]
	if tt == nil {
		tt = &tenantTouches{}
		c.tenants[tenant] = tt
	}
	switch {
	case tt.queued == nil && tt.inFlight < touchesInFlight:
		// Idle enough: run at once.
		tt.inFlight++
		c.mu.Unlock()
	case tt.queued != nil && tt.queued.takes(t):
		// Ride the queued batch; its leader runs it.
		tt.queued.add(it)
		c.mu.Unlock()
		select {
		case <-it.done:
			return it.row, it.err
		case <-ctx.Done():
			// The batch may still apply it, as a statement already sent
			// may.
			return nil, translate(ctx.Err())
		}
	case tt.queued == nil:
		// Lead the next batch: wait for a statement to hand over its turn.
		b := &touchBatch{keys: map[touchKey]bool{}, turn: make(chan struct{})}
		b.add(it)
		tt.queued = b
		c.mu.Unlock()
		<-b.turn // every statement ends (touchTimeout), so this does
		c.run(ctx, s, tenant, tt, b.items)
		return it.row, it.err
	default:
		// The queued batch is full or already touches this
		// conversation: run alone.
		tt.inFlight++
		c.mu.Unlock()
	}
	c.run(ctx, s, tenant, tt, []*touchItem{it})
	return it.row, it.err
}

// run runs one statement for the items, then hands the tenant's turn to
// its queued batch, if any.
func (c *touches) run(ctx context.Context, s *Store, tenant string, tt *tenantTouches, items []*touchItem) {
	if len(items) > 1 {
		// Others ride it: no one caller's cancellation stops it.
		ctx = context.WithoutCancel(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, touchTimeout)
	defer cancel()
	s.touchBatch(ctx, tenant, items)
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := tt.queued; b != nil {
		tt.queued = nil // sealed: this statement's slot is now its
		close(b.turn)
		return
	}
	if tt.inFlight--; tt.inFlight == 0 {
		delete(c.tenants, tenant)
	}
}

// touchBatch applies the items in one statement and completes each. When
// the statement fails and carried more than one, each is tried alone, so
// one touch's error (its excerpt's id exists, say) is its own.
func (s *Store) touchBatch(ctx context.Context, tenant string, items []*touchItem) {
	defer func() {
		for _, it := range items {
			close(it.done)
		}
	}()
	rows, err := s.touchStatement(ctx, tenant, items)
	if err != nil && len(items) > 1 && ctx.Err() == nil {
		for _, it := range items {
			one, err := s.touchStatement(ctx, tenant, []*touchItem{it})
			it.row, it.err = one[touchKey{it.t.Agent, it.t.SessionID}], err
		}
		return
	}
	for _, it := range items {
		it.row, it.err = rows[touchKey{it.t.Agent, it.t.SessionID}], err
	}
}

const touchLiveSQL = `SELECT * FROM baton_touch_live($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`

// touchStatement runs baton_touch_live for the items (each conversation
// once) in conversation order, so that concurrent statements lock rows in
// one order, and returns the live rows by conversation.
func (s *Store) touchStatement(ctx context.Context, tenant string, items []*touchItem) (map[touchKey]*continuity.Session, error) {
	items = slices.SortedFunc(slices.Values(items), func(a, b *touchItem) int {
		return cmp.Or(cmp.Compare(a.t.Agent, b.t.Agent), cmp.Compare(a.t.SessionID, b.t.SessionID))
	})
	n := len(items)
	var (
		agents, sessions = make([]string, n), make([]string, n)
		nows, liveAfter  = make([]time.Time, n), make([]time.Time, n)
		excerpts         = make([]*string, n)
		stops, compacts  = make([]int32, n), make([]int32, n)
		ids, texts       = make([]*string, n), make([]*string, n)
		truncated        = make([]bool, n)
		keeps, every     = make([]int32, n), make([]int32, n)
	)
	for i, it := range items {
		t := it.t
		agents[i], sessions[i], nows[i], liveAfter[i] = t.Agent, t.SessionID, utc(t.Now), utc(t.LiveAfter)
		excerpts[i], stops[i], compacts[i] = t.Excerpt, inc(t.Stop), inc(t.Compact)
		keeps[i], every[i] = int32(min(t.KeepExcerpts, 1<<30)), int32(min(t.TrimEvery, 1<<30))
		if e := t.StopExcerpt; e != nil {
			id, text := e.ID.String(), e.Text
			ids[i], texts[i], truncated[i] = &id, &text, e.Truncated
		}
	}
	out := make(map[touchKey]*continuity.Session, n)
	err := s.retry(ctx, func() error {
		clear(out)
		// The driver's own placeholders, so the statement is prepared
		// once per connection rather than parsed and planned per call.
		rows, err := s.write.DB.QueryContext(ctx, touchLiveSQL, s.enterRole, tenant, agents, sessions, nows, liveAfter,
			excerpts, stops, compacts, ids, texts, truncated, keeps, every)
		if err != nil {
			return err
		}
		var ms []sessionModel
		if err := s.write.ScanRows(ctx, rows, &ms); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		for i := range ms {
			row, err := ms[i].session()
			if err != nil {
				return err
			}
			out[touchKey{row.Agent, row.SessionID}] = row
		}
		return nil
	})
	return out, err
}
