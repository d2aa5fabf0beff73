package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/judge"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// Bounds on a labelled set.
const (
	// MaxSessions is the most sessions (files) a set may hold.
	MaxSessions = 1000
	// MaxFileBytes bounds one session's file.
	MaxFileBytes = 256 << 10
	// MaxNameLen bounds a session's name.
	MaxNameLen = 200
	// MaxOther bounds a session's other candidates.
	MaxOther = 1000
)

// Session is one labelled session: what the closer would know of a closed
// run, and what a person says it completed.
type Session struct {
	// Name identifies the session in the report; unique in the set.
	Name string `json:"name"`
	// Note says, for a reader, what the session shows.
	Note string `json:"note,omitempty"`
	// Excerpt is the run's last Stop excerpt.
	Excerpt string `json:"excerpt"`
	// Events are the run's provenance events, oldest first, in the shape of
	// the events route (id, memoryId, eventKind, actorKind, sessionRunId,
	// createdAt; each may be omitted).
	Events []provenance.Item `json:"events,omitempty"`
	// Commitments are the briefed commitments still open.
	Commitments []Commitment `json:"commitments"`
	// Completed are the ids of the commitments a person says the run
	// completed: a subset of Commitments.
	Completed []uuid.UUID `json:"completed"`
	// OtherCandidates counts the session's other worth-keeping atoms a
	// person finds (decisions, preferences, new commitments), which a
	// resolve-only closer cannot capture; OtherRecorded counts those the
	// run recorded itself. They enter overall recall only.
	OtherCandidates int `json:"otherCandidates,omitempty"`
	OtherRecorded   int `json:"otherRecorded,omitempty"`
}

// Commitment is a briefed commitment as a labelled session carries it.
type Commitment struct {
	ID      uuid.UUID `json:"id"`
	Topic   string    `json:"topic"`
	Content string    `json:"content"`
	// UpdatedAt is when the commitment last changed; absent reads as never
	// after the run's events.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// Case is the session as the closer would hand it to a judge for tenant.
func (s Session) Case(tenant string) continuity.JudgeCase {
	c := continuity.JudgeCase{Tenant: tenant, Agent: "eval", SessionID: s.Name, Excerpt: s.Excerpt, Events: s.Events}
	for _, m := range s.Commitments {
		c.Commitments = append(c.Commitments, continuity.Memory{ID: m.ID, Kind: continuity.KindCommitment,
			Topic: m.Topic, Content: m.Content, Status: continuity.StatusOpen, UpdatedAt: m.UpdatedAt})
	}
	return c
}

// Load reads a labelled set: every *.json file directly in dir, in name
// order, one session each (see the package doc for the format). Other files
// (a README) are ignored.
//
// Errors: invalid, naming each bad file and field (a *.json that is not a
// regular file, a file over MaxFileBytes, not one strict JSON object, a bad bound, an id labelled
// completed that is not one of the session's commitments or is labelled
// completed in two sessions, a name twice); not_found when dir holds no
// session; internal when dir cannot be read.
func Load(dir string) ([]Session, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &continuity.Error{Code: continuity.CodeNotFound, Message: "no labelled set at " + dir, Err: err}
	}
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	if len(paths) == 0 {
		return nil, continuity.Errorf(continuity.CodeNotFound, "%s holds no *.json session", dir)
	}
	f := map[string]string{}
	if len(paths) > MaxSessions {
		f["dir"] = "must hold at most " + strconv.Itoa(MaxSessions) + " sessions"
		return nil, invalid(f)
	}
	var out []Session
	names := map[string]string{}
	labelled := map[uuid.UUID]string{}
	for _, p := range paths {
		file := filepath.Base(p)
		s, err := readSession(p)
		if err != nil {
			f[file] = err.Error()
			continue
		}
		check(f, file, s)
		if prev, ok := names[s.Name]; ok {
			f[file+": name"] = "is also the name of " + prev
		}
		names[s.Name] = file
		for _, id := range s.Completed {
			if prev, ok := labelled[id]; ok && prev != file {
				f[file+": completed"] = id.String() + " is also labelled completed in " + prev + "; a commitment is completed once"
			}
			labelled[id] = file
		}
		out = append(out, s)
	}
	if len(f) > 0 {
		return nil, invalid(f)
	}
	return out, nil
}

func invalid(f map[string]string) error {
	return &continuity.Error{Code: continuity.CodeInvalid, Message: "invalid labelled set", Fields: f}
}

// readSession decodes one file strictly: one object, no unknown key.
func readSession(path string) (Session, error) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return Session{}, errorString("is not a regular file")
	}
	fh, err := os.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer fh.Close()
	raw, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return Session{}, err
	}
	if len(raw) > MaxFileBytes {
		return Session{}, errorString("is over " + strconv.Itoa(MaxFileBytes) + " bytes")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var s Session
	if err := dec.Decode(&s); err != nil {
		return Session{}, errorString("is not a session: " + err.Error())
	}
	if _, err := dec.Token(); err != io.EOF {
		return Session{}, errorString("holds more than one JSON value")
	}
	return s, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// check records in f what is wrong with session s of file.
func check(f map[string]string, file string, s Session) {
	if n := len([]rune(strings.TrimSpace(s.Name))); n == 0 || n > MaxNameLen {
		f[file+": name"] = "must be 1 to " + strconv.Itoa(MaxNameLen) + " characters"
	}
	for k, v := range continuity.ErrorFields(judge.CheckCase(s.Case(""))) {
		f[file+": "+k] = v
	}
	ids := map[uuid.UUID]bool{}
	for _, m := range s.Commitments {
		ids[m.ID] = true
	}
	seen := map[uuid.UUID]bool{}
	for i, id := range s.Completed {
		at := file + ": completed[" + strconv.Itoa(i) + "]"
		switch {
		case !ids[id]:
			f[at] = "is not one of the session's commitments"
		case seen[id]:
			f[at] = "is listed twice"
		}
		seen[id] = true
	}
	if s.OtherCandidates < 0 || s.OtherCandidates > MaxOther || s.OtherRecorded < 0 || s.OtherRecorded > s.OtherCandidates {
		f[file+": otherRecorded"] = "must satisfy 0 <= otherRecorded <= otherCandidates <= " + strconv.Itoa(MaxOther)
	}
}

// Run asks j about every session, as tenant, and scores the verdicts. A
// session whose judge call fails counts as resolving nothing, as the closer
// resolves nothing then; its error is kept in its result, and Run stops
// early only when ctx ends.
func Run(ctx context.Context, j continuity.Judge, tenant string, sessions []Session) (Report, error) {
	verdicts := make([]Verdict, len(sessions))
	for i, s := range sessions {
		if err := ctx.Err(); err != nil {
			return Report{}, err
		}
		v, err := j.Judge(ctx, s.Case(tenant))
		verdicts[i] = Verdict{Completed: v.Completed, Usage: v.Usage}
		if err != nil {
			verdicts[i] = Verdict{Usage: v.Usage, Err: continuity.ErrorMessage(err)}
		}
	}
	return Score(sessions, verdicts), nil
}

// Verdict is what a judge answered for one session: the ids, what it cost,
// and the error's safe message when it failed.
type Verdict struct {
	Completed []uuid.UUID
	Usage     continuity.JudgeUsage
	Err       string
}
