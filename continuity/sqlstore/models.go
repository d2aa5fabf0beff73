package sqlstore

import (
	"encoding/json"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// Times are stored in UTC at microsecond precision, the precision both
// backends keep, so a row reads back equal to what was written.
func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := utc(*t)
	return &u
}

// nonZero maps the zero time to NULL.
func nonZero(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return utcPtr(&t)
}

func nullUUID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

func fromNullUUID(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func fromNullString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Only plain maps and slices of plain structs reach here.
		panic(err)
	}
	return string(b)
}

type sessionModel struct {
	bun.BaseModel `bun:"table:agent_sessions"`

	ID                  uuid.UUID  `bun:"id,pk,type:uuid"`
	UserID              string     `bun:"user_id"`
	Agent               string     `bun:"agent"`
	SessionID           string     `bun:"session_id"`
	Source              string     `bun:"source"`
	Project             *string    `bun:"project"`
	Scope               *string    `bun:"scope"`
	Selector            string     `bun:"selector"`
	OpenedAt            time.Time  `bun:"opened_at"`
	ClosedAt            *time.Time `bun:"closed_at"`
	LastSeenAt          time.Time  `bun:"last_seen_at"`
	ActivationEpoch     int        `bun:"activation_epoch"`
	StopCount           int        `bun:"stop_count"`
	ActivatedAt         *time.Time `bun:"activated_at"`
	ActivationStops     int        `bun:"activation_stops"`
	Compactions         int        `bun:"compactions"`
	TriageStatus        string     `bun:"triage_status"`
	TriageAttemptID     *uuid.UUID `bun:"triage_attempt_id,type:uuid"`
	LastTriagedEventIDs string     `bun:"last_triaged_event_ids"`
	BriefingDeliveredAt *time.Time `bun:"briefing_delivered_at"`
	BriefedMemories     string     `bun:"briefed_memories"`
	LastMessageExcerpt  *string    `bun:"last_message_excerpt"`
	CloserNextAt        *time.Time `bun:"closer_next_at"`
	CloserFailures      int        `bun:"closer_failures"`
	ClearedPrompt       int        `bun:"cleared_through_prompt"`
	ClearedExcerpt      *uuid.UUID `bun:"cleared_through_excerpt,type:uuid"`
}

func toSessionModel(s *continuity.Session) *sessionModel {
	ids := s.TriagedEventIDs
	if ids == nil {
		ids = []uuid.UUID{}
	}
	briefed := s.BriefedMemories
	if briefed == nil {
		briefed = []continuity.BriefedMemory{}
	}
	return &sessionModel{
		ID: s.ID, UserID: s.Tenant, Agent: s.Agent, SessionID: s.SessionID, Source: string(s.Source),
		Project: nullString(s.Project), Scope: nullString(s.Scope), Selector: s.Selector.Canonical(),
		OpenedAt: utc(s.OpenedAt), ClosedAt: utcPtr(s.ClosedAt), LastSeenAt: utc(s.LastSeenAt),
		ActivationEpoch: s.ActivationEpoch, StopCount: s.StopCount, Compactions: s.Compactions, TriageStatus: s.TriageStatus,
		ActivatedAt: nonZero(s.ActivatedAt), ActivationStops: s.ActivationStops,
		TriageAttemptID: nullUUID(s.TriageAttemptID), LastTriagedEventIDs: mustJSON(ids),
		BriefingDeliveredAt: utcPtr(s.BriefingDeliveredAt), BriefedMemories: mustJSON(briefed),
		LastMessageExcerpt: nullString(s.LastMessageExcerpt),
		CloserNextAt:       utcPtr(s.CloserNextAt), CloserFailures: s.CloserFailures,
		ClearedPrompt: s.ClearedThroughPrompt, ClearedExcerpt: nullUUID(s.ClearedThroughExcerpt),
	}
}

func (m *sessionModel) session() (*continuity.Session, error) {
	s := &continuity.Session{
		ID: m.ID, Tenant: m.UserID, Agent: m.Agent, SessionID: m.SessionID, Source: continuity.Source(m.Source),
		Project: fromNullString(m.Project), Scope: fromNullString(m.Scope),
		OpenedAt: utc(m.OpenedAt), ClosedAt: utcPtr(m.ClosedAt), LastSeenAt: utc(m.LastSeenAt),
		ActivationEpoch: m.ActivationEpoch, StopCount: m.StopCount, Compactions: m.Compactions, TriageStatus: m.TriageStatus,
		TriageAttemptID: fromNullUUID(m.TriageAttemptID), BriefingDeliveredAt: utcPtr(m.BriefingDeliveredAt),
		LastMessageExcerpt: fromNullString(m.LastMessageExcerpt), ActivationStops: m.ActivationStops,
		CloserNextAt: utcPtr(m.CloserNextAt), CloserFailures: m.CloserFailures,
		ClearedThroughPrompt: m.ClearedPrompt, ClearedThroughExcerpt: fromNullUUID(m.ClearedExcerpt),
	}
	s.ActivatedAt = s.OpenedAt
	if m.ActivatedAt != nil {
		s.ActivatedAt = utc(*m.ActivatedAt)
	}
	if err := json.Unmarshal([]byte(m.Selector), &s.Selector); err != nil {
		return nil, err
	}
	if len(s.Selector) == 0 {
		s.Selector = nil
	}
	if err := json.Unmarshal([]byte(m.LastTriagedEventIDs), &s.TriagedEventIDs); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(m.BriefedMemories), &s.BriefedMemories); err != nil {
		return nil, err
	}
	if len(s.TriagedEventIDs) == 0 {
		s.TriagedEventIDs = nil
	}
	if len(s.BriefedMemories) == 0 && s.BriefingDeliveredAt == nil {
		s.BriefedMemories = nil
	} else if s.BriefedMemories == nil {
		s.BriefedMemories = []continuity.BriefedMemory{}
	}
	return s, nil
}

type ledgerModel struct {
	bun.BaseModel `bun:"table:ledger"`

	ID      uuid.UUID `bun:"id,pk,type:uuid"`
	UserID  string    `bun:"user_id"`
	Event   string    `bun:"event"`
	At      time.Time `bun:"at"`
	Session string    `bun:"session"`
	Fields  string    `bun:"fields"`
}

// ledgerEntries maps ledger rows to their lines.
func ledgerEntries(ms []ledgerModel) ([]continuity.LedgerEntry, error) {
	out := make([]continuity.LedgerEntry, len(ms))
	for i, m := range ms {
		out[i] = continuity.LedgerEntry{ID: m.ID, Tenant: m.UserID, Event: m.Event, At: utc(m.At), Session: m.Session}
		if err := json.Unmarshal([]byte(m.Fields), &out[i].Fields); err != nil {
			return nil, translate(err)
		}
	}
	return out, nil
}

type memoryModel struct {
	bun.BaseModel `bun:"table:memories"`

	ID           uuid.UUID  `bun:"id,pk,type:uuid"`
	UserID       string     `bun:"user_id"`
	Kind         string     `bun:"kind"`
	Topic        string     `bun:"topic"`
	Content      string     `bun:"content"`
	Project      *string    `bun:"project"`
	Scope        *string    `bun:"scope"`
	Status       string     `bun:"status"`
	SupersededBy *uuid.UUID `bun:"superseded_by,type:uuid"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	DueAt        *time.Time `bun:"due_at"`
}

func toMemoryModel(m *continuity.Memory) *memoryModel {
	return &memoryModel{
		ID: m.ID, UserID: m.Tenant, Kind: string(m.Kind), Topic: m.Topic, Content: m.Content,
		Project: nullString(m.Project), Scope: nullString(m.Scope), Status: string(m.Status),
		SupersededBy: nullUUID(m.SupersededBy), CreatedAt: utc(m.CreatedAt), UpdatedAt: utc(m.UpdatedAt), DueAt: utcPtr(m.Due),
	}
}

func (m *memoryModel) memory() continuity.Memory {
	return continuity.Memory{
		ID: m.ID, Tenant: m.UserID, Kind: continuity.MemoryKind(m.Kind), Topic: m.Topic, Content: m.Content,
		Project: fromNullString(m.Project), Scope: fromNullString(m.Scope), Status: continuity.MemoryStatus(m.Status),
		SupersededBy: fromNullUUID(m.SupersededBy), CreatedAt: utc(m.CreatedAt), UpdatedAt: utc(m.UpdatedAt), Due: utcPtr(m.DueAt),
	}
}

type memoryEventModel struct {
	bun.BaseModel `bun:"table:memory_events"`

	ID           uuid.UUID  `bun:"id,pk,type:uuid"`
	UserID       string     `bun:"user_id"`
	MemoryID     uuid.UUID  `bun:"memory_id,type:uuid"`
	EventKind    string     `bun:"event_kind"`
	ActorKind    string     `bun:"actor_kind"`
	SessionRunID *uuid.UUID `bun:"session_run_id,type:uuid"`
	CreatedAt    time.Time  `bun:"created_at"`
}

type bottleModel struct {
	bun.BaseModel `bun:"table:session_bottles"`

	UserID     string     `bun:"user_id,pk"`
	Agent      string     `bun:"agent,pk"`
	SessionID  string     `bun:"session_id,pk"`
	Path       string     `bun:"path"`
	Mode       string     `bun:"mode"`
	Gap        int        `bun:"gap"`
	Task       *string    `bun:"task"`
	ArmedAt    time.Time  `bun:"armed_at"`
	ConsumedAt *time.Time `bun:"consumed_at"`
}

func (m *bottleModel) marker() *continuity.BottleMarker {
	return &continuity.BottleMarker{
		Tenant: m.UserID, Agent: m.Agent, SessionID: m.SessionID, Path: m.Path, Mode: m.Mode, Gap: m.Gap,
		Task: fromNullString(m.Task), ArmedAt: utc(m.ArmedAt), ConsumedAt: utcPtr(m.ConsumedAt),
	}
}

type recordModel struct {
	bun.BaseModel `bun:"table:continuity_records"`

	ID           uuid.UUID `bun:"id,pk,type:uuid"`
	UserID       string    `bun:"user_id"`
	Kind         string    `bun:"kind"`
	Agent        string    `bun:"agent"`
	SessionID    string    `bun:"session_id"`
	SessionRunID uuid.UUID `bun:"session_run_id,type:uuid"`
	Project      *string   `bun:"project"`
	Task         *string   `bun:"task"`
	Objective    string    `bun:"objective"`
	State        string    `bun:"state"`
	NextAction   string    `bun:"next_action"`
	GitCommit    *string   `bun:"git_commit"`
	GitBranch    *string   `bun:"git_branch"`
	BottlePath   *string   `bun:"bottle_path"`
	Reason       *string   `bun:"reason"`
	CreatedAt    time.Time `bun:"created_at"`
	// Seq is migration 019's write order.
	Seq int `bun:"seq"`
}

func toRecordModel(r *continuity.Record, tenant string) *recordModel {
	return &recordModel{
		ID: r.ID, UserID: tenant, Kind: string(r.Kind), Agent: r.Agent, SessionID: r.SessionID, SessionRunID: r.SessionRunID,
		Project: nullString(r.Project), Task: nullString(r.Task), Objective: r.Objective, State: r.State, NextAction: r.NextAction,
		GitCommit: nullString(r.GitCommit), GitBranch: nullString(r.GitBranch), BottlePath: nullString(r.BottlePath),
		Reason: nullString(r.Reason), CreatedAt: utc(r.CreatedAt), Seq: r.Seq,
	}
}

func (m *recordModel) record() continuity.Record {
	return continuity.Record{
		ID: m.ID, Tenant: m.UserID, Kind: continuity.RecordKind(m.Kind), Agent: m.Agent, SessionID: m.SessionID,
		SessionRunID: m.SessionRunID, Project: fromNullString(m.Project), Task: fromNullString(m.Task),
		Objective: m.Objective, State: m.State, NextAction: m.NextAction, GitCommit: fromNullString(m.GitCommit),
		GitBranch: fromNullString(m.GitBranch), BottlePath: fromNullString(m.BottlePath), Reason: fromNullString(m.Reason),
		CreatedAt: utc(m.CreatedAt), Seq: m.Seq,
	}
}

type promptModel struct {
	bun.BaseModel `bun:"table:user_prompts"`

	ID        uuid.UUID `bun:"id,pk,type:uuid"`
	UserID    string    `bun:"user_id"`
	Agent     string    `bun:"agent"`
	SessionID string    `bun:"session_id"`
	Number    int       `bun:"number"`
	Text      string    `bun:"text"`
	Truncated bool      `bun:"truncated"`
	At        time.Time `bun:"at"`
}

type excerptModel struct {
	bun.BaseModel `bun:"table:stop_excerpts"`

	ID           uuid.UUID `bun:"id,pk,type:uuid"`
	UserID       string    `bun:"user_id"`
	Agent        string    `bun:"agent"`
	SessionID    string    `bun:"session_id"`
	Text         string    `bun:"text"`
	Truncated    bool      `bun:"truncated"`
	At           time.Time `bun:"at"`
	PromptNumber *int      `bun:"prompt_number"`
	// Seq is migration 019's write order.
	Seq int `bun:"seq"`
}
