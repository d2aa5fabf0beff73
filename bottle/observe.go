package bottle

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// Observation is a one-line record of what a stretch of tool activity
// achieved, shown in a bottle in place of the tool traffic.
type Observation struct {
	// ID makes the line expandable: a host's observation id, or the tool-use
	// id for an observation derived from the transcript.
	ID string
	// Title names what happened ("Read start.mjs"); for a derived observation
	// it is the tool name.
	Title string
	// Narrative is the host's prose; a bottle shows only its first clause.
	Narrative string
	// PromptNumber is the 1-based user turn the observation belongs to; zero
	// means unknown, and the observation is placed by time.
	PromptNumber int
	// Time anchors the observation in the conversation (tool time, not the
	// time it was generated).
	Time time.Time
	// ToolUseID, when set, anchors the observation to that tool call exactly.
	ToolUseID string
	// Failed marks an observation of a tool call whose result was an error.
	Failed bool

	derived bool  // Narrative is a tool brief: show it whole
	code    bool  // Narrative is a command or pattern
	pos     int64 // a derived observation's exact transcript position
}

// ObservationSource is a host's store of observations. baton without one
// derives observations from the transcript's own tool calls.
type ObservationSource interface {
	// Observations returns the session's observations in any order; a session
	// with none returns an empty slice and a nil error.
	Observations(ctx context.Context, sessionID string) ([]Observation, error)
}

// Stub is a tool event whose observation is not written yet: one line of a
// bottle's honest tail.
type Stub struct {
	// Tool is the tool's name.
	Tool string
	// Input is the tool's JSON input; the stub shows its Brief.
	Input []byte
	// Time is when the event was queued or the call was made.
	Time time.Time
	// ToolUseID is the harness's id of the call, used to avoid showing one
	// call twice.
	ToolUseID string

	brief string // already derived, for stubs read from a transcript
	code  bool
	pos   int64 // the call's transcript position, for stubs read from a transcript
}

// gist returns the stub's brief and whether it is code.
func (s Stub) gist() (string, bool) {
	if s.brief != "" || len(s.Input) == 0 {
		return s.brief, s.code
	}
	return Brief(s.Tool, s.Input)
}

// Queue is a host's view of its not-yet-processed tool events for a session,
// taken when the bottle is rendered. Within one host lifetime it is the
// authoritative gap.
type Queue struct {
	// Pending counts queued and in-flight events.
	Pending int
	// Stubs are those events, for the honest tail.
	Stubs []Stub
}

// DeriveObservations turns the transcript's tool calls into observations for
// a host with no observation source. A call is finished when its result has
// been read (marked failed when the result was an error) or when assistant
// text follows it: the model went on, so the result came, even if its line
// was skipped as oversized. Finished calls, and any call before the last
// finished one, get an observation; the trailing calls are the pending tail,
// returned as stubs.
func DeriveObservations(t *Transcript) (obs []Observation, tail []Stub) {
	last := -1 // index of the newest call that has a result, or of the newest assistant text
	for i := range t.Entries {
		if e := &t.Entries[i]; e.Kind == KindToolCall && e.Done || e.Kind == KindAssistant {
			last = i
		}
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Kind != KindToolCall {
			continue
		}
		if i > last {
			tail = append(tail, Stub{Tool: e.Tool, Time: e.Time, ToolUseID: e.ToolUseID, brief: e.Brief, code: e.Code, pos: e.Pos})
			continue
		}
		obs = append(obs, Observation{
			ID: e.ToolUseID, Title: e.Tool, Narrative: e.Brief, Time: e.Time,
			ToolUseID: e.ToolUseID, Failed: e.Failed, derived: true, code: e.Code, pos: e.Pos,
		})
	}
	return obs, tail
}

// maxClause bounds a narrative's first clause in runes.
const maxClause = 200

// FirstClause returns the first clause of a narrative: its first line, cut
// at the first sentence or clause break (". ", "; ", " — ", "! ", "? "),
// without a trailing full stop, and at most 200 runes.
func FirstClause(s string) string {
	s = strings.TrimSpace(lineText(s))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	cut := len(s)
	for _, sep := range []string{". ", "; ", " — ", "! ", "? "} {
		if i := strings.Index(s, sep); i >= 0 && i < cut {
			cut = i
			if sep == "! " || sep == "? " {
				cut++ // keep the mark: it carries meaning a full stop does not
			}
		}
	}
	s = strings.TrimSuffix(strings.TrimSpace(s[:cut]), ".")
	if utf8.RuneCountInString(s) > maxClause {
		s = string([]rune(s)[:maxClause]) + "…"
	}
	return s
}
