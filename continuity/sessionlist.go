package continuity

import (
	"context"
	"slices"
	"strconv"

	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// Session listing limits, declared once.
const (
	// MaxSessions bounds the conversations one Sessions read returns.
	MaxSessions = 100
	// MaxSessionScan bounds the rows one Sessions read examines when a
	// state filter passes over some: past it the listing holds what the
	// newest MaxSessionScan rows held.
	MaxSessionScan = 10000
)

// SessionQuery selects conversations for a listing, newest (highest run
// id) first. Zero fields match anything; ByProject restricts to Project
// ("" then matches conversations without a project).
type SessionQuery struct {
	ByProject bool   `json:"byProject,omitempty"`
	Project   string `json:"project,omitempty"`
	Agent     string `json:"agent,omitempty"`
	// States keeps the conversations whose lease state, at the instant of
	// the read, is one of them. The state is the lease rule's (evaluated
	// by the service, never stored), so a store ignores this field.
	States []lease.State `json:"states,omitempty"`
	// Before is a keyset cursor: only conversations with a smaller run id.
	Before uuid.UUID `json:"before,omitzero"`
	// Limit is 1 to MaxSessions; zero means MaxSessions.
	Limit int `json:"limit,omitempty"`
}

// Sessions lists the tenant's conversations with their lease state at
// now, newest first, at most q.Limit (1-MaxSessions, default MaxSessions).
// With States set it examines at most MaxSessionScan rows.
//
// Errors: invalid.
func (s *Service) Sessions(ctx context.Context, tenant string, q SessionQuery) ([]SessionView, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	q.Project = facetText.take(f, "project", q.Project)
	agentFilter(f, q.Agent)
	for _, st := range q.States {
		if _, err := st.MarshalText(); err != nil {
			f["states"] = "must be live, implicitly_closed or explicitly_closed"
		}
	}
	q.Limit = listLimit(f, q.Limit, MaxSessions)
	if err := fieldsErr(f); err != nil {
		return nil, err
	}
	out := []SessionView{}
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		out = out[:0]
		now := s.clock()
		page := q
		if len(q.States) > 0 {
			page.Limit = MaxSessions
		}
		for scanned := 0; scanned < MaxSessionScan; {
			page.Limit = min(page.Limit, MaxSessionScan-scanned)
			rows, err := tx.Sessions(ctx, page)
			if err != nil {
				return err
			}
			for i := range rows {
				v := SessionView{Session: rows[i], State: s.state(&rows[i], now)}
				if len(q.States) > 0 && !slices.Contains(q.States, v.State) {
					continue
				}
				if out = append(out, v); len(out) == q.Limit {
					return nil
				}
			}
			if len(rows) < page.Limit {
				return nil
			}
			scanned += len(rows)
			page.Before = rows[len(rows)-1].ID
		}
		return nil
	})
	return out, err
}

// SessionLedger returns the tenant's ledger lines of one session id,
// oldest first, after the given line id (uuid.Nil for the start), at most
// limit lines (1 to MaxLedgerRead): a conversation's timeline without
// reading the rest of the ledger. Lines carry the session id, not the
// agent; a receipt or lifecycle line names its agent in its fields.
//
// Errors: invalid, internal.
func (s *Service) SessionLedger(ctx context.Context, tenant, sessionID string, after uuid.UUID, limit int) ([]LedgerEntry, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	sessionID = sessionIDField(f, "sessionId", sessionID, true)
	return s.readLedger(ctx, f, tenant, sessionID, after, limit)
}

// readLedger validates limit beside the fields f already holds, then reads
// the tenant's ledger: session's lines, or every line for "".
func (s *Service) readLedger(ctx context.Context, f map[string]string, tenant, session string, after uuid.UUID, limit int) ([]LedgerEntry, error) {
	if limit < 1 || limit > MaxLedgerRead {
		f["limit"] = "must be between 1 and " + strconv.Itoa(MaxLedgerRead)
	}
	if err := fieldsErr(f); err != nil {
		return nil, err
	}
	var out []LedgerEntry
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		if session == "" {
			out, err = tx.Ledger(ctx, after, limit)
		} else {
			out, err = tx.SessionLedger(ctx, session, after, limit)
		}
		return err
	})
	return out, err
}

// SessionLedger implements API.
func (l *Local) SessionLedger(ctx context.Context, sessionID string, after uuid.UUID, limit int) ([]LedgerEntry, error) {
	return l.svc.SessionLedger(ctx, l.tenant, sessionID, after, limit)
}

// Sessions implements API.
func (l *Local) Sessions(ctx context.Context, q SessionQuery) ([]SessionView, error) {
	return l.svc.Sessions(ctx, l.tenant, q)
}

// agentFilter validates a listing's agent filter; "" matches any agent.
func agentFilter(fields map[string]string, agent string) {
	if agent == "" {
		return
	}
	if r := varErr(agent, "agent"); r != "" {
		fields["agent"] = r
	}
}

// listLimit validates a listing's limit and returns it: 0 means max, else
// 1 to max.
func listLimit(fields map[string]string, limit, max int) int {
	if limit == 0 {
		return max
	}
	if limit < 1 || limit > max {
		fields["limit"] = "must be between 1 and " + strconv.Itoa(max) + ", or 0 (or none) for " + strconv.Itoa(max)
	}
	return limit
}
