package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// tx is one tenant-scoped transaction. Every statement carries
// "user_id = ?" whatever the dialect; on Postgres row-level security
// enforces the same bound a second time. Every method returns its driver's
// errors through translate (or notFoundOr, coded), as the Tx contract says.
type tx struct {
	s      *Store
	db     bun.Tx
	tenant string
	write  bool
}

var _ continuity.Tx = (*tx)(nil)

// lockRows adds FOR UPDATE on Postgres write transactions; SQLite's
// immediate transaction already holds the database's one write lock.
func (t *tx) lockRows(q *bun.SelectQuery) *bun.SelectQuery {
	if t.s.postgres && t.write {
		return q.For("UPDATE")
	}
	return q
}

func notFound(what string) error {
	return &continuity.Error{Code: continuity.CodeNotFound, Message: what + " not found"}
}

func (t *tx) SessionByKey(ctx context.Context, agent, sessionID string) (*continuity.Session, error) {
	var m sessionModel
	q := t.db.NewSelect().Model(&m).Where("user_id = ?", t.tenant).Where("agent = ?", agent).Where("session_id = ?", sessionID)
	if err := t.lockRows(q).Scan(ctx); err != nil {
		return nil, notFoundOr(err, "session")
	}
	return coded(m.session())
}

func (t *tx) SessionByID(ctx context.Context, id uuid.UUID) (*continuity.Session, error) {
	var m sessionModel
	q := t.db.NewSelect().Model(&m).Where("user_id = ?", t.tenant).Where("id = ?", id)
	if err := t.lockRows(q).Scan(ctx); err != nil {
		return nil, notFoundOr(err, "session")
	}
	return coded(m.session())
}

func (t *tx) ProjectByKey(ctx context.Context, agent, sessionID string) (string, error) {
	return t.project(ctx, t.db.NewSelect().Where("agent = ?", agent).Where("session_id = ?", sessionID))
}

func (t *tx) ProjectByID(ctx context.Context, id uuid.UUID) (string, error) {
	return t.project(ctx, t.db.NewSelect().Where("id = ?", id))
}

// project reads one session row's project without locking the row: the
// column never changes after insert, so a caller may read it first and take
// the project lock before the row lock.
func (t *tx) project(ctx context.Context, q *bun.SelectQuery) (string, error) {
	var p *string
	err := q.TableExpr("agent_sessions").Column("project").Where("user_id = ?", t.tenant).Limit(1).Scan(ctx, &p)
	if err != nil {
		return "", notFoundOr(err, "session")
	}
	return fromNullString(p), nil
}

func notFoundOr(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return notFound(what)
	}
	return translate(err)
}

// coded passes a method's result through with its error translated: the Tx
// contract promises baton's codes from every method, inside the
// transaction, not only once Write returns.
func coded[T any](v T, err error) (T, error) { return v, translate(err) }

func (t *tx) InsertSession(ctx context.Context, s *continuity.Session) error {
	m := toSessionModel(s)
	m.UserID = t.tenant
	_, err := t.db.NewInsert().Model(m).Exec(ctx)
	return translate(err)
}

func (t *tx) UpdateSession(ctx context.Context, s *continuity.Session) error {
	m := toSessionModel(s)
	// The project is never written after insert: the lock order
	// (ProjectByKey, then LockProject, then the row) relies on it.
	res, err := t.db.NewUpdate().Model(m).
		ExcludeColumn("id", "user_id", "agent", "session_id", "project").
		Where("user_id = ?", t.tenant).Where("id = ?", s.ID).Exec(ctx)
	if err != nil {
		return translate(err)
	}
	return oneRow(res, "session")
}

func oneRow(res interface{ RowsAffected() (int64, error) }, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return translate(err)
	}
	if n == 0 {
		return notFound(what)
	}
	return nil
}

func (t *tx) OpenSessions(ctx context.Context, project string) ([]continuity.Session, error) {
	var ms []sessionModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("closed_at IS NULL")
	if project == "" {
		q = q.Where("project IS NULL")
	} else {
		q = q.Where("project = ?", project)
	}
	if err := q.OrderExpr("id").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return sessions(ms)
}

func (t *tx) StaleSessions(ctx context.Context, before time.Time, limit int) ([]continuity.Session, error) {
	var ms []sessionModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("closed_at IS NULL").
		Where("last_seen_at < ?", utc(before)).OrderExpr("last_seen_at, id").Limit(int64(limit))
	if t.s.postgres && t.write {
		q = q.For("UPDATE SKIP LOCKED")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return sessions(ms)
}

func sessions(ms []sessionModel) ([]continuity.Session, error) {
	out := make([]continuity.Session, 0, len(ms))
	for i := range ms {
		s, err := ms[i].session()
		if err != nil {
			return nil, translate(err)
		}
		out = append(out, *s)
	}
	return out, nil
}

func (t *tx) LockProject(ctx context.Context, project string) error {
	if !t.s.postgres {
		return nil // the immediate transaction already serializes writers
	}
	// Two int4 keys: a hash of the tenant and one of the project. A
	// collision only over-serializes; it never lets two decisions overlap.
	_, err := t.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))", t.tenant, project)
	return translate(err)
}

func (t *tx) LockTenant(ctx context.Context) error {
	if !t.s.postgres {
		return nil // the immediate transaction already serializes writers
	}
	// The transaction holds the lock shared (runTx); taking it
	// exclusively waits for the other holders, as EraseBatch does.
	_, err := t.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock("+tenantWriteLock+")", t.tenant)
	return translate(err)
}

func (t *tx) AppendLedger(ctx context.Context, keep int, entries ...continuity.LedgerEntry) error {
	if len(entries) == 0 {
		return nil
	}
	ms := make([]ledgerModel, len(entries))
	for i, e := range entries {
		f := e.Fields
		if f == nil {
			f = map[string]string{}
		}
		ms[i] = ledgerModel{ID: e.ID, UserID: t.tenant, Event: e.Event, At: utc(e.At), Session: e.Session, Fields: mustJSON(f)}
	}
	if _, err := t.db.NewInsert().Model(&ms).Exec(ctx); err != nil {
		return translate(err)
	}
	// Bounded retention: drop every line older than the keep-th newest.
	if t.s.postgres {
		// The runtime role may not DELETE; migration 002's function prunes
		// under its own grant, bounded to this transaction's tenant, from
		// the count migration 015 keeps. Unbounded, the trim still runs,
		// with a bound no ledger reaches: it folds the tenant's changes, so
		// they do not pile up beside a ledger that keeps every line.
		if keep <= 0 {
			keep = math.MaxInt32
		}
		_, err := t.db.ExecContext(ctx, "SELECT baton_trim_ledger(?)", keep)
		return translate(err)
	}
	if keep <= 0 {
		return nil
	}
	// Migration 014's triggers keep the tenant's count of lines: the
	// oldest lines past keep go, read from the oldest end of the index,
	// and an append within the bound reads no line.
	_, err := t.db.ExecContext(ctx, trimLedgerSQLite, t.tenant, t.tenant, t.tenant, keep)
	return translate(err)
}

// trimLedgerSQLite deletes the tenant's oldest ledger lines past the bound
// (its arguments: the tenant three times, then keep).
const trimLedgerSQLite = `DELETE FROM ledger WHERE user_id = ? AND id IN (
	SELECT id FROM ledger WHERE user_id = ? ORDER BY id
	LIMIT max(0, coalesce((SELECT lines FROM ledger_sizes WHERE tenant = ?), 0) - ?))`

func (t *tx) Ledger(ctx context.Context, after uuid.UUID, limit int) ([]continuity.LedgerEntry, error) {
	return t.ledger(ctx, "", after, limit)
}

// ledger reads the lines of session ("" for every line).
func (t *tx) ledger(ctx context.Context, session string, after uuid.UUID, limit int) ([]continuity.LedgerEntry, error) {
	var ms []ledgerModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant)
	if session != "" {
		q = q.Where(`"session" = ?`, session)
	}
	if after != uuid.Nil {
		q = q.Where("id > ?", after)
	}
	if err := q.OrderExpr("id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return ledgerEntries(ms)
}

func (t *tx) LedgerCounts(ctx context.Context) (map[string]int, error) {
	return t.ledgerCounts(ctx, time.Time{})
}

func (t *tx) InsertMemory(ctx context.Context, m *continuity.Memory) error {
	mm := toMemoryModel(m)
	mm.UserID = t.tenant
	_, err := t.db.NewInsert().Model(mm).Exec(ctx)
	return translate(err)
}

func (t *tx) MemoryByID(ctx context.Context, id uuid.UUID) (*continuity.Memory, error) {
	var m memoryModel
	q := t.db.NewSelect().Model(&m).Where("user_id = ?", t.tenant).Where("id = ?", id)
	if err := t.lockRows(q).Scan(ctx); err != nil {
		return nil, notFoundOr(err, "memory")
	}
	mem := m.memory()
	return &mem, nil
}

func (t *tx) UpdateMemory(ctx context.Context, m *continuity.Memory) error {
	mm := toMemoryModel(m)
	res, err := t.db.NewUpdate().Model(mm).
		Column("status", "superseded_by", "updated_at").
		Where("user_id = ?", t.tenant).Where("id = ?", m.ID).Exec(ctx)
	if err != nil {
		return translate(err)
	}
	return oneRow(res, "memory")
}

func (t *tx) Memories(ctx context.Context, q continuity.MemoryQuery) ([]continuity.Memory, error) {
	var ms []memoryModel
	sq := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant)
	if len(q.Kinds) > 0 {
		sq = sq.Where("kind IN (?)", bun.List(q.Kinds))
	}
	if len(q.Statuses) > 0 {
		sq = sq.Where("status IN (?)", bun.List(q.Statuses))
	}
	if q.Project != "" {
		sq = sq.Where("(project = ? OR project IS NULL)", q.Project)
	}
	if q.Scope != "" {
		sq = sq.Where("(scope = ? OR scope IS NULL)", q.Scope)
	}
	if !q.UpdatedBefore.IsZero() {
		sq = sq.Where("updated_at < ?", utc(q.UpdatedBefore))
	}
	if !q.UpdatedSince.IsZero() {
		sq = sq.Where("updated_at >= ?", utc(q.UpdatedSince))
	}
	if !q.DueBefore.IsZero() {
		sq = sq.Where("due_at < ?", utc(q.DueBefore))
	}
	if !q.NotDueBefore.IsZero() {
		sq = sq.Where("(due_at IS NULL OR due_at >= ?)", utc(q.NotDueBefore))
	}
	sq = sq.OrderExpr("created_at DESC, id DESC")
	if q.Limit > 0 {
		sq = sq.Limit(int64(q.Limit))
	}
	if err := sq.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make([]continuity.Memory, len(ms))
	for i := range ms {
		out[i] = ms[i].memory()
	}
	return out, nil
}

func (t *tx) InsertMemoryEvents(ctx context.Context, events ...continuity.MemoryEvent) error {
	if len(events) == 0 {
		return nil
	}
	ms := make([]memoryEventModel, len(events))
	for i, e := range events {
		ms[i] = memoryEventModel{ID: e.ID, UserID: t.tenant, MemoryID: e.MemoryID, EventKind: string(e.Kind),
			ActorKind: string(e.ActorKind), SessionRunID: nullUUID(e.SessionRunID), CreatedAt: utc(e.CreatedAt)}
	}
	_, err := t.db.NewInsert().Model(&ms).Exec(ctx)
	return translate(err)
}

func (t *tx) RunEvents(ctx context.Context, run, after uuid.UUID, limit int) ([]continuity.MemoryEvent, error) {
	var ms []memoryEventModel
	q := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("session_run_id = ?", run)
	if after != uuid.Nil {
		q = q.Where("id > ?", after)
	}
	if err := q.OrderExpr("id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return convert(ms, (*memoryEventModel).event), nil
}

func (t *tx) ArmBottle(ctx context.Context, mk continuity.BottleMarker) error {
	m := &bottleModel{UserID: t.tenant, Agent: mk.Agent, SessionID: mk.SessionID, Path: mk.Path, Mode: mk.Mode, Gap: mk.Gap,
		Task: nullString(mk.Task), ArmedAt: utc(mk.ArmedAt)}
	_, err := t.db.NewInsert().Model(m).
		On("CONFLICT (user_id, agent, session_id) DO UPDATE").
		Set("path = EXCLUDED.path, mode = EXCLUDED.mode, gap = EXCLUDED.gap, task = EXCLUDED.task, armed_at = EXCLUDED.armed_at, consumed_at = NULL").
		Exec(ctx)
	return translate(err)
}

func (t *tx) ClaimBottle(ctx context.Context, agent, sessionID string, now time.Time) (*continuity.BottleMarker, error) {
	var ms []bottleModel
	// One atomic conditional update: of two concurrent claims exactly one
	// finds consumed_at still NULL.
	err := t.db.NewUpdate().Model(&bottleModel{}).
		Set("consumed_at = ?", utc(now)).
		Where("user_id = ?", t.tenant).Where("agent = ?", agent).Where("session_id = ?", sessionID).Where("consumed_at IS NULL").
		Returning("*").Scan(ctx, &ms)
	if err != nil {
		return nil, translate(err)
	}
	if len(ms) == 0 {
		return nil, notFound("armed bottle marker")
	}
	return ms[0].marker(), nil
}

func (t *tx) BottleMarker(ctx context.Context, agent, sessionID string) (*continuity.BottleMarker, error) {
	var m bottleModel
	if err := t.db.NewSelect().Model(&m).Where("user_id = ?", t.tenant).Where("agent = ?", agent).Where("session_id = ?", sessionID).Scan(ctx); err != nil {
		return nil, notFoundOr(err, "bottle marker")
	}
	return m.marker(), nil
}

func (t *tx) AppendPrompt(ctx context.Context, p *continuity.Prompt) error {
	if err := t.lockConversation(ctx, p.Agent, p.SessionID); err != nil {
		return err
	}
	last, err := t.lastPromptNumber(ctx, p.Agent, p.SessionID)
	if err != nil {
		return err
	}
	var turn int
	if err := t.db.NewSelect().Model((*excerptModel)(nil)).ColumnExpr("COALESCE(MAX(prompt_number), 0)").
		Where("user_id = ?", t.tenant).Where("agent = ?", p.Agent).Where("session_id = ?", p.SessionID).
		Scan(ctx, &turn); err != nil {
		return translate(err)
	}
	last = max(last, turn)
	m := &promptModel{ID: p.ID, UserID: t.tenant, Agent: p.Agent, SessionID: p.SessionID, Number: last + 1, Text: p.Text, Truncated: p.Truncated, At: utc(p.At)}
	if _, err := t.db.NewInsert().Model(m).Exec(ctx); err != nil {
		return translate(err)
	}
	p.Number = m.Number
	return nil
}

// lockConversation takes, on Postgres, the lock a conversation's prompts
// are numbered under, held to the end of the transaction: one bigint key
// (a key space apart from LockProject's two int4 keys) hashed from the
// conversation's natural key, JSON-encoded so no two keys concatenate
// alike. A collision only over-serializes. On SQLite the immediate
// transaction already serializes writers.
func (t *tx) lockConversation(ctx context.Context, agent, sessionID string) error {
	if !t.s.postgres {
		return nil
	}
	_, err := t.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", mustJSON([]string{t.tenant, agent, sessionID}))
	return translate(err)
}

// lockExcerpts takes, on Postgres, the lock a conversation's Stop
// excerpts are numbered under, held to the end of the transaction: its
// session row's, which a live Stop's touch (baton_touch_live) holds from
// its update to its commit; a conversation without a row, its prompts'
// lock. On SQLite the immediate transaction already serializes writers.
func (t *tx) lockExcerpts(ctx context.Context, agent, sessionID string) error {
	if !t.s.postgres {
		return nil
	}
	var rows int
	err := t.db.NewRaw(`WITH l AS (SELECT 1 FROM agent_sessions WHERE user_id = ? AND agent = ? AND session_id = ? FOR NO KEY UPDATE)
		SELECT count(*) FROM l`, t.tenant, agent, sessionID).Scan(ctx, &rows)
	if err != nil || rows > 0 {
		return translate(err)
	}
	return t.lockConversation(ctx, agent, sessionID)
}

// lastPromptNumber is the conversation's newest prompt number, 0 before
// any prompt.
func (t *tx) lastPromptNumber(ctx context.Context, agent, sessionID string) (int, error) {
	var last int
	err := t.db.NewSelect().Model((*promptModel)(nil)).ColumnExpr("COALESCE(MAX(number), 0)").
		Where("user_id = ?", t.tenant).Where("agent = ?", agent).Where("session_id = ?", sessionID).
		Scan(ctx, &last)
	return last, translate(err)
}

func (t *tx) Prompts(ctx context.Context, agent, sessionID string) ([]continuity.Prompt, error) {
	var ms []promptModel
	if err := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("agent = ?", agent).
		Where("session_id = ?", sessionID).OrderExpr("number, id").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return convert(ms, (*promptModel).prompt), nil
}

func (t *tx) LastPrompt(ctx context.Context, agent, sessionID string) (continuity.Prompt, bool, error) {
	var ms []promptModel
	if err := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("agent = ?", agent).
		Where("session_id = ?", sessionID).OrderExpr("number DESC").Limit(1).Scan(ctx); err != nil {
		return continuity.Prompt{}, false, translate(err)
	}
	if len(ms) == 0 {
		return continuity.Prompt{}, false, nil
	}
	return ms[0].prompt(), true, nil
}

func (t *tx) InsertStopExcerpt(ctx context.Context, keep int, e *continuity.StopExcerpt) error {
	if err := t.lockExcerpts(ctx, e.Agent, e.SessionID); err != nil {
		return err
	}
	m := &excerptModel{ID: e.ID, UserID: t.tenant, Agent: e.Agent, SessionID: e.SessionID, Text: e.Text, Truncated: e.Truncated, At: utc(e.At),
		PromptNumber: e.PromptNumber, Seq: e.Seq}
	q := t.db.NewInsert().Model(m)
	if e.Seq == 0 {
		q = q.Value("seq", "(SELECT COALESCE(MAX(seq), 0) + 1 FROM stop_excerpts WHERE user_id = ? AND agent = ? AND session_id = ?)",
			t.tenant, e.Agent, e.SessionID)
	}
	if _, err := q.Returning("seq").Exec(ctx); err != nil {
		return translate(err)
	}
	e.Seq = m.Seq
	if keep <= 0 {
		return nil // as AppendLedger: no bound
	}
	// Bounded per conversation: drop every excerpt older than the keep-th
	// newest, in write order.
	if t.s.postgres {
		// As the ledger's trim: a function of migration 002 (019's) deletes.
		_, err := t.db.ExecContext(ctx, "SELECT baton_trim_stop_excerpts(?, ?, ?)", e.Agent, e.SessionID, keep)
		return translate(err)
	}
	_, err := t.db.NewDelete().TableExpr("stop_excerpts").
		Where("user_id = ?", t.tenant).Where("agent = ?", e.Agent).Where("session_id = ?", e.SessionID).
		Where("seq < (?)", t.db.NewSelect().TableExpr("stop_excerpts").Column("seq").
			Where("user_id = ?", t.tenant).Where("agent = ?", e.Agent).Where("session_id = ?", e.SessionID).
			OrderExpr("seq DESC").Limit(1).Offset(int64(keep-1))).
		Exec(ctx)
	return translate(err)
}

func (t *tx) StopExcerpts(ctx context.Context, agent, sessionID string) ([]continuity.StopExcerpt, error) {
	var ms []excerptModel
	if err := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant).Where("agent = ?", agent).
		Where("session_id = ?", sessionID).OrderExpr("seq, id").Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return convert(ms, (*excerptModel).excerpt), nil
}

func (t *tx) InsertRecord(ctx context.Context, r *continuity.Record) error {
	if t.s.postgres {
		// The tenant's records are numbered under one advisory lock, its
		// key naming the schema (advisory locks are the database's).
		if _, err := t.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(format('baton_records %I %s', current_schema(), ?::text), 0))",
			t.tenant); err != nil {
			return translate(err)
		}
	} // SQLite: the immediate transaction already serializes writers.
	m := toRecordModel(r, t.tenant)
	q := t.db.NewInsert().Model(m)
	if r.Seq == 0 {
		q = q.Value("seq", "(SELECT COALESCE(MAX(seq), 0) + 1 FROM continuity_records WHERE user_id = ?)", t.tenant)
	}
	if _, err := q.Returning("seq").Exec(ctx); err != nil {
		return translate(err)
	}
	r.Seq = m.Seq
	return nil
}

func (t *tx) Records(ctx context.Context, q continuity.RecordQuery) ([]continuity.Record, error) {
	var ms []recordModel
	sq := t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant)
	if q.SessionID != "" {
		sq = sq.Where("session_id = ?", q.SessionID)
	}
	if len(q.Kinds) > 0 {
		sq = sq.Where("kind IN (?)", bun.List(q.Kinds))
	}
	sq = byOwner(sq, q.ByProject, q.Project, q.Agent)
	if q.Before != uuid.Nil {
		// The records written before the cursor's; a cursor naming no
		// record keeps its id's bound.
		var cs []recordModel
		if err := t.db.NewSelect().Model(&cs).Column("seq").Where("user_id = ?", t.tenant).Where("id = ?", q.Before).
			Scan(ctx); err != nil {
			return nil, translate(err)
		}
		if len(cs) == 1 {
			sq = sq.Where("(seq < ? OR (seq = ? AND id < ?))", cs[0].Seq, cs[0].Seq, q.Before)
		} else {
			sq = sq.Where("id < ?", q.Before)
		}
	}
	sq = sq.OrderExpr("seq DESC, id DESC")
	if q.Limit > 0 {
		sq = sq.Limit(int64(q.Limit))
	}
	if err := sq.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	out := make([]continuity.Record, len(ms))
	for i := range ms {
		out[i] = ms[i].record()
	}
	return out, nil
}

func (t *tx) Sessions(ctx context.Context, q continuity.SessionQuery) ([]continuity.Session, error) {
	var ms []sessionModel
	sq := newestFirst(t.db.NewSelect().Model(&ms).Where("user_id = ?", t.tenant), q.ByProject, q.Project, q.Agent, q.Before, q.Limit)
	if err := sq.Scan(ctx); err != nil {
		return nil, translate(err)
	}
	return sessions(ms)
}

// newestFirst adds a listing of sessions' filters: the owner (byOwner),
// the keyset (ids below before; uuid.Nil from the newest), newest first, at
// most limit (below 1: no limit).
func newestFirst(sq *bun.SelectQuery, byProject bool, project, agent string, before uuid.UUID, limit int) *bun.SelectQuery {
	sq = byOwner(sq, byProject, project, agent)
	if before != uuid.Nil {
		sq = sq.Where("id < ?", before)
	}
	sq = sq.OrderExpr("id DESC")
	if limit > 0 {
		sq = sq.Limit(int64(limit))
	}
	return sq
}

// byOwner adds the project (byProject: "" matches rows without one) and
// agent ("" any) filters of a listing.
func byOwner(sq *bun.SelectQuery, byProject bool, project, agent string) *bun.SelectQuery {
	if byProject {
		if project == "" {
			sq = sq.Where("project IS NULL")
		} else {
			sq = sq.Where("project = ?", project)
		}
	}
	if agent != "" {
		sq = sq.Where("agent = ?", agent)
	}
	return sq
}

func (t *tx) SessionLedger(ctx context.Context, sessionID string, after uuid.UUID, limit int) ([]continuity.LedgerEntry, error) {
	if sessionID == "" {
		return []continuity.LedgerEntry{}, nil // "" is no session: a line without one belongs to none
	}
	return t.ledger(ctx, sessionID, after, limit)
}
