package continuity

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// RememberParams writes one curated atom.
type RememberParams struct {
	Kind    MemoryKind `json:"kind"`
	Topic   string     `json:"topic"`
	Content string     `json:"content"`
	Project string     `json:"project,omitempty"`
	Scope   string     `json:"scope,omitempty"`
	// Due optionally dates an open commitment or blocker; past it, the
	// briefing lists the item as overdue.
	Due *time.Time `json:"due,omitempty"`
	// SessionRunID optionally names the run that made the write. It must
	// be a run of the writing tenant; an explicitly closed run leaves the
	// write unattributed, a lapsed one is resurrected and attached.
	SessionRunID string `json:"sessionRunId,omitempty"`
	// Actor names the transport that carried the write.
	Actor ActorKind `json:"-"`
}

// ReviseParams replaces a memory with a successor. Empty Kind, Topic,
// Project and Scope carry the predecessor's values.
type ReviseParams struct {
	Kind         MemoryKind `json:"kind,omitempty"`
	Topic        string     `json:"topic,omitempty"`
	Content      string     `json:"content"`
	Project      string     `json:"project,omitempty"`
	Scope        string     `json:"scope,omitempty"`
	SessionRunID string     `json:"sessionRunId,omitempty"`
	Actor        ActorKind  `json:"-"`
}

// TransitionParams resolves, unresolves or archives a memory.
type TransitionParams struct {
	SessionRunID string    `json:"sessionRunId,omitempty"`
	Actor        ActorKind `json:"-"`
}

// WriteResult is a memory after a write, the id of the write's first audit
// event, and the run the write was attributed to (uuid.Nil when none). On
// the wire it is the memory's object with eventId and, when attributed,
// sessionRunId beside its fields.
type WriteResult struct {
	Memory
	EventID      uuid.UUID `json:"eventId"`
	SessionRunID uuid.UUID `json:"sessionRunId,omitzero"`
}

func checkActor(f map[string]string, a ActorKind) {
	oneOf(f, "actor", string(a), string(ActorUserCLI), string(ActorUserAPI), string(ActorWorker))
}

// kindNames and statusNames are the values a kind and a status may take.
var kindNames, statusNames = names(memrule.Kinds), names(memrule.Statuses)

func names[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func parseRunID(f map[string]string, s string) *uuid.UUID {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	id, err := uuid.Parse(s)
	if err != nil || id == uuid.Nil || len(s) != 36 {
		f["sessionRunId"] = "must be a UUID"
		return nil
	}
	return &id
}

func parseMemoryID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(strings.TrimSpace(s))
	if err != nil || id == uuid.Nil || len(strings.TrimSpace(s)) != 36 {
		return uuid.Nil, Invalid("id", "must be a UUID")
	}
	return id, nil
}

// maxYear is the last year a caller's time may fall in: an RFC 3339 time
// carries four digits of year, so a time past it (9999-12-31T23:59:59-01:00
// is in 10000 in UTC) could be stored but never answered or exported.
const maxYear = 9999

// yearRule is why a time is refused.
var yearRule = "must be a time in the years 1 to " + strconv.Itoa(maxYear) + " in UTC, not the zero time"

// inYears reports whether t falls in the years 1 to maxYear in UTC.
func inYears(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= maxYear
}

// dueDate validates an optional due date and returns it in UTC at the
// microsecond precision both stores keep, so the memory a write returns
// equals the one a read returns. The zero time (an unset value, not a
// date) and years outside 1 to maxYear are refused.
func dueDate(f map[string]string, due *time.Time) *time.Time {
	if due == nil {
		return nil
	}
	if due.IsZero() || !inYears(*due) {
		f["due"] = yearRule
		return nil
	}
	d := due.UTC().Truncate(time.Microsecond)
	return &d
}

func (p *RememberParams) normalize(tenant string) (string, *uuid.UUID, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	oneOf(f, "kind", string(p.Kind), kindNames...)
	p.Topic = topicText.take(f, "topic", p.Topic)
	p.Content = contentText.take(f, "content", p.Content)
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	p.Due = dueDate(f, p.Due)
	run := parseRunID(f, p.SessionRunID)
	checkActor(f, p.Actor)
	return tenant, run, fieldsErr(f)
}

// Remember writes a new open atom and its create event, attributed inside
// the same transaction.
//
// Errors: invalid (field named; nothing written), forbidden (a run id this
// tenant does not own; nothing written).
func (s *Service) Remember(ctx context.Context, tenant string, p RememberParams) (WriteResult, error) {
	tenant, run, err := p.normalize(tenant)
	if err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		attributed, err := s.attribute(ctx, tx, tenant, now, run, p.Project)
		if err != nil {
			return err
		}
		m := Memory{ID: s.newID(), Tenant: tenant, Kind: p.Kind, Topic: p.Topic, Content: p.Content,
			Project: p.Project, Scope: p.Scope, Status: StatusOpen, CreatedAt: now, UpdatedAt: now, Due: p.Due}
		if err := tx.InsertMemory(ctx, &m); err != nil {
			return err
		}
		ev := s.event(tenant, m.ID, EventCreate, p.Actor, attributed, now)
		if err := tx.InsertMemoryEvents(ctx, ev); err != nil {
			return err
		}
		res = WriteResult{Memory: m, EventID: ev.ID, SessionRunID: attributed}
		return nil
	})
	return res, err
}

func (s *Service) event(tenant string, memory uuid.UUID, kind EventKind, actor ActorKind, run uuid.UUID, now time.Time) MemoryEvent {
	return MemoryEvent{ID: s.newID(), Tenant: tenant, MemoryID: memory, Kind: kind, ActorKind: actor, SessionRunID: run, CreatedAt: now}
}

// Revise writes a successor and supersedes the predecessor in one
// transaction: create for the successor, supersede for the predecessor.
// An open commitment revised into a commitment is carried (the successor is
// open); revised into another kind it is demoted, and the predecessor's
// close is recorded as an archive event too. Every event carries the
// attribution.
//
// Errors: invalid, not_found, conflict (the predecessor is not open),
// forbidden.
func (s *Service) Revise(ctx context.Context, tenant, id string, p ReviseParams) (WriteResult, error) {
	f := map[string]string{}
	tenant, mid, run := writeTarget(f, tenant, id, p.SessionRunID, p.Actor)
	if p.Kind != "" {
		oneOf(f, "kind", string(p.Kind), kindNames...)
	}
	if p.Topic != "" {
		p.Topic = topicText.take(f, "topic", p.Topic)
	}
	p.Content = contentText.take(f, "content", p.Content)
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	if err := fieldsErr(f); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		prev, err := tx.MemoryByID(ctx, mid)
		if err != nil {
			return err
		}
		next := *prev
		if p.Kind != "" {
			next.Kind = p.Kind
		}
		rev, err := memrule.Revise(prev.Kind, next.Kind, prev.Status)
		if err != nil {
			return coded(err)
		}
		next.ID, next.Content, next.Status, next.SupersededBy = s.newID(), p.Content, rev.Next, uuid.Nil
		next.CreatedAt, next.UpdatedAt = now, now
		if p.Topic != "" {
			next.Topic = p.Topic
		}
		if p.Project != "" {
			next.Project = p.Project
		}
		if p.Scope != "" {
			next.Scope = p.Scope
		}
		attributed, err := s.attribute(ctx, tx, tenant, now, run, next.Project)
		if err != nil {
			return err
		}
		if err := tx.InsertMemory(ctx, &next); err != nil {
			return err
		}
		prev.Status, prev.SupersededBy, prev.UpdatedAt = rev.Prev, next.ID, now
		if err := tx.UpdateMemory(ctx, prev); err != nil {
			return err
		}
		var evs []MemoryEvent
		for _, k := range rev.NextEvents {
			evs = append(evs, s.event(tenant, next.ID, k, p.Actor, attributed, now))
		}
		for _, k := range rev.PrevEvents {
			evs = append(evs, s.event(tenant, prev.ID, k, p.Actor, attributed, now))
		}
		if err := tx.InsertMemoryEvents(ctx, evs...); err != nil {
			return err
		}
		res = WriteResult{Memory: next, EventID: evs[0].ID, SessionRunID: attributed}
		return nil
	})
	return res, err
}

// Resolve marks an open memory resolved.
//
// Errors: invalid, not_found, conflict (not open), forbidden.
func (s *Service) Resolve(ctx context.Context, tenant, id string, p TransitionParams) (WriteResult, error) {
	return s.transition(ctx, tenant, id, p, EventResolve)
}

// Unresolve reopens a resolved memory: the undo of a resolve, which is why a
// closer may only ever resolve.
//
// Errors: invalid, not_found, conflict (not resolved), forbidden.
func (s *Service) Unresolve(ctx context.Context, tenant, id string, p TransitionParams) (WriteResult, error) {
	return s.transition(ctx, tenant, id, p, EventUnresolve)
}

// Archive retires an open or resolved memory.
//
// Errors: invalid, not_found, conflict (already archived), forbidden.
func (s *Service) Archive(ctx context.Context, tenant, id string, p TransitionParams) (WriteResult, error) {
	return s.transition(ctx, tenant, id, p, EventArchive)
}

// writeTarget validates what every write to an existing memory names: the
// tenant, the memory id, the optional run id and the actor. Failures land in
// f under their field names.
func writeTarget(f map[string]string, tenant, id, runID string, actor ActorKind) (string, uuid.UUID, *uuid.UUID) {
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	mid, err := parseMemoryID(id)
	if err != nil {
		f["id"] = "must be a UUID"
	}
	run := parseRunID(f, runID)
	checkActor(f, actor)
	return tenant, mid, run
}

// transition applies a status transition; memrule.Transition decides which
// statuses it may leave and where it lands.
func (s *Service) transition(ctx context.Context, tenant, id string, p TransitionParams, kind EventKind) (WriteResult, error) {
	f := map[string]string{}
	tenant, mid, run := writeTarget(f, tenant, id, p.SessionRunID, p.Actor)
	if err := fieldsErr(f); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		m, err := tx.MemoryByID(ctx, mid)
		if err != nil {
			return err
		}
		to, err := memrule.Transition(kind, m.Status)
		if err != nil {
			return coded(err)
		}
		attributed, err := s.attribute(ctx, tx, tenant, now, run, m.Project)
		if err != nil {
			return err
		}
		m.Status, m.UpdatedAt = to, now
		if err := tx.UpdateMemory(ctx, m); err != nil {
			return err
		}
		ev := s.event(tenant, m.ID, kind, p.Actor, attributed, now)
		if err := tx.InsertMemoryEvents(ctx, ev); err != nil {
			return err
		}
		res = WriteResult{Memory: *m, EventID: ev.ID, SessionRunID: attributed}
		return nil
	})
	return res, err
}

// ImportParams is one imported atom. It has no sessionRunId: imported events
// never join a live run's event set.
type ImportParams struct {
	Kind    MemoryKind   `json:"kind"`
	Topic   string       `json:"topic"`
	Content string       `json:"content"`
	Project string       `json:"project,omitempty"`
	Scope   string       `json:"scope,omitempty"`
	Status  MemoryStatus `json:"status,omitempty"`
	Due     *time.Time   `json:"due,omitempty"`
}

// ParseImport decodes one import record strictly. A sessionRunId key is
// refused outright (it would otherwise be accepted and silently dropped), as
// is any other unknown key.
func ParseImport(raw []byte) (ImportParams, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return ImportParams{}, Invalid("body", "must be a JSON object")
	}
	if _, ok := keys["sessionRunId"]; ok {
		return ImportParams{}, Invalid("sessionRunId", "is not accepted on import")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p ImportParams
	if err := dec.Decode(&p); err != nil {
		return ImportParams{}, Invalid("body", "has an unknown or mistyped field")
	}
	return p, nil
}

// Import writes an imported atom with an import event and no attribution.
//
// Errors: invalid.
func (s *Service) Import(ctx context.Context, tenant string, p ImportParams, actor ActorKind) (WriteResult, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	oneOf(f, "kind", string(p.Kind), kindNames...)
	p.Topic = topicText.take(f, "topic", p.Topic)
	p.Content = contentText.take(f, "content", p.Content)
	p.Project = facetText.take(f, "project", p.Project)
	p.Scope = facetText.take(f, "scope", p.Scope)
	p.Due = dueDate(f, p.Due)
	if p.Status == "" {
		p.Status = StatusOpen
	} else {
		oneOf(f, "status", string(p.Status), statusNames...)
	}
	checkActor(f, actor)
	if err := fieldsErr(f); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err := s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		now := s.clock()
		m := Memory{ID: s.newID(), Tenant: tenant, Kind: p.Kind, Topic: p.Topic, Content: p.Content,
			Project: p.Project, Scope: p.Scope, Status: p.Status, CreatedAt: now, UpdatedAt: now, Due: p.Due}
		if err := tx.InsertMemory(ctx, &m); err != nil {
			return err
		}
		ev := s.event(tenant, m.ID, EventImport, actor, uuid.Nil, now)
		if err := tx.InsertMemoryEvents(ctx, ev); err != nil {
			return err
		}
		res = WriteResult{Memory: m, EventID: ev.ID}
		return nil
	})
	return res, err
}

// attribute decides, inside the write's transaction, which run a write is
// attributed to, and applies the decision to the session row: floor the
// lease, resurrect a lapsed run, and re-arm a completed triage, all in the
// row's one update.
func (s *Service) attribute(ctx context.Context, tx Tx, tenant string, now time.Time, run *uuid.UUID, project string) (uuid.UUID, error) {
	in := provenance.Input{RunID: run}
	var row *Session
	if run != nil {
		// A write by run id may resurrect the run, which changes its
		// project's leased-open set: project lock first, then the row.
		runProject, err := tx.ProjectByID(ctx, *run)
		switch ErrorCode(err) {
		case "":
			if err := tx.LockProject(ctx, runProject); err != nil {
				return uuid.Nil, err
			}
			r, err := tx.SessionByID(ctx, *run)
			if err != nil {
				return uuid.Nil, err
			}
			row = r
			in.Run = &provenance.Run{ID: r.ID, State: s.state(r, now)}
		case CodeNotFound:
		default:
			return uuid.Nil, err
		}
	} else {
		// Every write that changes a project's leased-open set (open,
		// close, a resurrecting heartbeat or write) takes this lock before
		// its row lock, so the set read here is the set at commit.
		if err := tx.LockProject(ctx, project); err != nil {
			return uuid.Nil, err
		}
		open, err := tx.OpenSessions(ctx, project)
		if err != nil {
			return uuid.Nil, err
		}
		for i := range open {
			if s.state(&open[i], now) == lease.Live {
				in.Candidates = append(in.Candidates, open[i].ID)
			}
		}
	}
	d := provenance.Decide(in)
	switch d.Action {
	case provenance.Forbidden:
		return uuid.Nil, &Error{Code: CodeForbidden, Message: "the session run is not one of this tenant's", Fields: map[string]string{"sessionRunId": "is not a run of this tenant"}}
	case provenance.Unattributed:
		return uuid.Nil, nil
	}
	if row == nil {
		r, err := tx.SessionByID(ctx, d.RunID)
		if err != nil {
			return uuid.Nil, err
		}
		// Re-check the candidate under its row lock: attach only to a row
		// that is still live, never to one a close ended meanwhile.
		if s.state(r, now) != lease.Live {
			return uuid.Nil, nil
		}
		row = r
	}
	resurrect := d.Action == provenance.ResurrectAndAttach
	if resurrect {
		activate(row, now)
	} else {
		row.LastSeenAt = lease.Floor(row.LastSeenAt, now)
	}
	row.TriageStatus = string(triage.OnAttach(triage.Status(row.TriageStatus)))
	if err := tx.UpdateSession(ctx, row); err != nil {
		return uuid.Nil, err
	}
	if resurrect {
		if err := tx.AppendLedger(ctx, s.ledgerKeep, s.entry(EventSessionResurrect, now, row, map[string]string{
			"epoch": strconv.Itoa(row.ActivationEpoch), "by": "write",
		})); err != nil {
			return uuid.Nil, err
		}
	}
	return row.ID, nil
}

// RunEvents is the typed provenance read: the run's events keyset-paginated
// on the event id, at most limit (1 to provenance.MaxLimit, 0 for
// provenance.DefaultLimit) per page, never past
// the per-run ceiling; Truncated says the run has more than the ceiling.
// Only ids, kinds and times are returned, never payload values.
//
// Errors: invalid (run id, cursor, limit), not_found (the tenant owns no
// such run).
func (s *Service) RunEvents(ctx context.Context, tenant, runID, cursor string, limit int) (provenance.Page, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	run := parseRunID(f, runID)
	if run == nil && f["sessionRunId"] == "" {
		f["sessionRunId"] = "is required"
	}
	after, err := provenance.DecodeCursor(cursor)
	addFields(f, err)
	n, err := provenance.Limit(limit)
	addFields(f, err)
	if err := fieldsErr(f); err != nil {
		return provenance.Page{}, err
	}
	page := provenance.Page{Items: []provenance.Item{}}
	err = s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		if _, err := tx.SessionByID(ctx, *run); err != nil {
			return err
		}
		visible, err := s.listing(ctx, tx, *run)
		if err != nil {
			return err
		}
		page.Truncated = visible.truncated
		sl := provenance.PageSlice(visible.ids(), after, n)
		for _, e := range visible.events[sl.Start:sl.End] {
			page.Items = append(page.Items, provenance.Item{ID: e.ID, MemoryID: e.MemoryID, EventKind: string(e.Kind),
				ActorKind: string(e.ActorKind), SessionRunID: e.SessionRunID, CreatedAt: e.CreatedAt})
		}
		page.NextCursor = sl.NextCursor
		return nil
	})
	return page, err
}

type runListing struct {
	events    []MemoryEvent
	truncated bool
}

// listing reads the run's events up to the ceiling, and whether more exist.
func (s *Service) listing(ctx context.Context, tx Tx, run uuid.UUID) (runListing, error) {
	es, err := tx.RunEvents(ctx, run, uuid.Nil, provenance.Ceiling+1)
	if err != nil {
		return runListing{}, err
	}
	if len(es) > provenance.Ceiling {
		return runListing{events: es[:provenance.Ceiling], truncated: true}, nil
	}
	return runListing{events: es}, nil
}

// ids are the listing's event ids, in order.
func (l runListing) ids() []uuid.UUID {
	ids := make([]uuid.UUID, len(l.events))
	for i, e := range l.events {
		ids[i] = e.ID
	}
	return ids
}

func (l runListing) triage() triage.Listing {
	return triage.Listing{IDs: l.ids(), Truncated: l.truncated}
}
