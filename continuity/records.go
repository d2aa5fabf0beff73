package continuity

import (
	"context"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/internal/runes"
	"github.com/google/uuid"
)

// RecordKind is the kind of a continuity record.
type RecordKind string

// The record kinds: a checkpoint at every PreCompact, a handover at every
// SessionEnd, for every episode whether or not a task is open.
const (
	RecordCheckpoint RecordKind = "checkpoint"
	RecordHandover   RecordKind = "handover"
)

// NoTask is how a record without a task names its task: a task is an
// optional relation of an episode, never a condition for writing a record.
const NoTask = "none"

// Record limits, declared once.
const (
	// MaxRecordTextLen bounds a record's objective, state and next action.
	MaxRecordTextLen = 1000
	// MaxRecords bounds one Records read.
	MaxRecords = 100
	// maxGitRefLen bounds a recorded commit or branch name.
	maxGitRefLen = 256
)

// Record is a checkpoint or a handover: what the episode was doing, where
// it stood and what comes next, with the git commit and branch of the
// working directory and the bottle's path when there are some.
type Record struct {
	ID           uuid.UUID  `json:"id"`
	Tenant       string     `json:"-"`
	Kind         RecordKind `json:"kind"`
	Agent        string     `json:"agent"`
	SessionID    string     `json:"sessionId"`
	SessionRunID uuid.UUID  `json:"sessionRunId"`
	Project      string     `json:"project,omitempty"`
	// Task is the task the episode carried; "" (shown as NoTask) when none.
	Task       string `json:"task,omitempty"`
	Objective  string `json:"objective"`
	State      string `json:"state"`
	NextAction string `json:"nextAction"`
	GitCommit  string `json:"gitCommit,omitempty"`
	GitBranch  string `json:"gitBranch,omitempty"`
	BottlePath string `json:"bottlePath,omitempty"`
	// Reason is the harness's trigger (PreCompact) or reason (SessionEnd).
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	// Seq is the record's place in the order the tenant's records were
	// written (1 the first), which the store assigns as it inserts the
	// record, whatever the writer's clock (and so CreatedAt and the id)
	// says; an insert given one keeps it (an import's replay). 0 on a row
	// written before baton numbered them: such rows order by id, before
	// every numbered one.
	Seq int `json:"seq,omitempty"`
}

// TaskName returns the record's task, or NoTask.
func (r Record) TaskName() string {
	if r.Task == "" {
		return NoTask
	}
	return r.Task
}

// RecordQuery selects records. Zero fields match anything; ByProject
// restricts to Project ("" then matches records without a project).
type RecordQuery struct {
	ByProject bool         `json:"byProject,omitempty"`
	Project   string       `json:"project,omitempty"`
	Agent     string       `json:"agent,omitempty"`
	SessionID string       `json:"sessionId,omitempty"`
	Kinds     []RecordKind `json:"kinds,omitempty"`
	// Before is a keyset cursor: only records written before the record of
	// that id (in the order Records lists them).
	Before uuid.UUID `json:"before,omitzero"`
	Limit  int       `json:"limit,omitempty"`
}

// Episode is what a checkpoint or handover says of an episode. Empty
// fields are derived (DeriveEpisode) from the last prompt and the last Stop
// excerpt the conversation recorded.
type Episode struct {
	Task       string `json:"task,omitempty"`
	Objective  string `json:"objective,omitempty"`
	State      string `json:"state,omitempty"`
	NextAction string `json:"nextAction,omitempty"`
	GitCommit  string `json:"gitCommit,omitempty"`
	GitBranch  string `json:"gitBranch,omitempty"`
	BottlePath string `json:"bottlePath,omitempty"`
}

// normalize validates the episode's fields, naming each under prefix. The
// text a caller gives is privacy filtered, as the prompt and the excerpt
// the empty fields are derived from are: a field that held only a private
// block is empty, and derived.
func (e *Episode) normalize(f map[string]string, prefix string) {
	e.check(f, prefix, textRule.take)
}

// check applies the episode's rules to its fields with text: a write's
// normalize, or an import's check of a record's row.
func (e *Episode) check(f map[string]string, prefix string, text textCheck) {
	e.Task = text(taskText, f, prefix+"task", e.Task)
	e.Objective = text(recordText, f, prefix+"objective", e.Objective)
	e.State = text(recordText, f, prefix+"state", e.State)
	e.NextAction = text(recordText, f, prefix+"nextAction", e.NextAction)
	e.GitCommit = text(gitRefText, f, prefix+"gitCommit", e.GitCommit)
	e.GitBranch = text(gitRefText, f, prefix+"gitBranch", e.GitBranch)
	e.BottlePath = text(bottlePathText, f, prefix+"bottlePath", e.BottlePath)
	if _, bad := f[prefix+"gitCommit"]; !bad && e.GitCommit != "" && !isHex(e.GitCommit) {
		f[prefix+"gitCommit"] = "must be a hexadecimal commit id"
	}
}

func isHex(s string) bool {
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// DeriveEpisode fills what the caller left empty from what the
// conversation recorded: the objective is the last prompt, the state the
// last assistant message, and the next action that message's last
// paragraph (where an assistant says what comes next). Each is privacy
// filtered and cut to MaxRecordTextLen characters; with nothing recorded
// a field says so rather than being left blank.
func DeriveEpisode(e Episode, lastPrompt, lastExcerpt string) Episode {
	lastPrompt, lastExcerpt = strings.TrimSpace(privacy.Scrub(lastPrompt)), strings.TrimSpace(privacy.Scrub(lastExcerpt))
	if e.Objective == "" {
		e.Objective = orUnknown(lastPrompt, "not recorded (no prompt was recorded)")
	}
	if e.State == "" {
		e.State = orUnknown(lastExcerpt, "not recorded (no assistant message was recorded)")
	}
	if e.NextAction == "" {
		paras := strings.Split(lastExcerpt, "\n\n")
		e.NextAction = orUnknown(strings.TrimSpace(paras[len(paras)-1]), "not recorded: read the state and the bottle")
	}
	e.Objective, e.State, e.NextAction = cut(e.Objective), cut(e.State), cut(e.NextAction)
	return e
}

func orUnknown(s, unknown string) string {
	if s == "" {
		return unknown
	}
	return s
}

// cut bounds s to MaxRecordTextLen characters.
func cut(s string) string {
	return runes.Ellipsize(s, MaxRecordTextLen)
}

// writeRecord derives and appends one record for the session row inside
// tx. With dedupe set (a SessionEnd on a row already closed: a repeated
// delivery), a record whose content equals the conversation's newest record
// of the kind is not written again; that record is returned.
func (s *Service) writeRecord(ctx context.Context, tx Tx, row *Session, kind RecordKind, e Episode, reason string, now time.Time, dedupe bool) (Record, error) {
	// The last prompt only: a long conversation keeps hundreds, and this
	// runs at every PreCompact and inside SessionEnd's budget.
	last, _, err := tx.LastPrompt(ctx, row.Agent, row.SessionID)
	if err != nil {
		return Record{}, err
	}
	e = DeriveEpisode(e, last.Text, row.LastMessageExcerpt)
	r := Record{ID: s.newID(), Tenant: row.Tenant, Kind: kind, Agent: row.Agent, SessionID: row.SessionID, SessionRunID: row.ID,
		Project: row.Project, Task: e.Task, Objective: e.Objective, State: e.State, NextAction: e.NextAction,
		GitCommit: e.GitCommit, GitBranch: e.GitBranch, BottlePath: e.BottlePath, Reason: reason, CreatedAt: now}
	if dedupe {
		prev, err := tx.Records(ctx, RecordQuery{Agent: row.Agent, SessionID: row.SessionID, Kinds: []RecordKind{kind}, Limit: 1})
		if err != nil {
			return Record{}, err
		}
		if len(prev) == 1 && sameContent(prev[0], r) {
			return prev[0], nil
		}
	}
	if err := tx.InsertRecord(ctx, &r); err != nil {
		return Record{}, err
	}
	return r, tx.AppendLedger(ctx, s.ledgerKeep, s.entry("record."+string(kind), now, row, map[string]string{
		"record_id": r.ID.String(), "task": r.TaskName(),
	}))
}

// sameContent reports whether two records of one run say the same thing.
func sameContent(a, b Record) bool {
	return a.SessionRunID == b.SessionRunID && a.Task == b.Task && a.Objective == b.Objective && a.State == b.State &&
		a.NextAction == b.NextAction && a.GitCommit == b.GitCommit && a.GitBranch == b.GitBranch &&
		a.BottlePath == b.BottlePath && a.Reason == b.Reason
}

// Records lists the tenant's checkpoints and handovers, newest first, at
// most q.Limit (1-MaxRecords, default MaxRecords).
//
// Errors: invalid.
func (s *Service) Records(ctx context.Context, tenant string, q RecordQuery) ([]Record, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	q.Project = facetText.take(f, "project", q.Project)
	agentFilter(f, q.Agent)
	q.SessionID = sessionIDField(f, "sessionId", q.SessionID, false)
	for _, k := range q.Kinds {
		oneOf(f, "kinds", string(k), string(RecordCheckpoint), string(RecordHandover))
	}
	q.Limit = listLimit(f, q.Limit, MaxRecords)
	if err := fieldsErr(f); err != nil {
		return nil, err
	}
	out := []Record{}
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		rs, err := tx.Records(ctx, q)
		if err == nil {
			out = append(out[:0], rs...)
		}
		return err
	})
	return out, err
}
