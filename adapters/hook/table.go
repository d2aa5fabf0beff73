package hook

import (
	"bytes"
	_ "embed" // the harness table
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/batonhq/baton/continuity"
)

// harnessesJSON is the harness table: every fact about a harness that the
// code reads, so that no code path names a harness.
//
//go:embed harnesses.json
var harnessesJSON []byte

// Table is the decoded harness table.
type Table struct {
	// StdinLimit bounds a hook's stdin in bytes; a larger payload is not
	// read (the failure posture).
	StdinLimit int64 `json:"stdinLimit"`
	// Harnesses are the harnesses, in the order they are listed.
	Harnesses []Harness `json:"harnesses"`
}

// Harness is one harness's row of the table.
type Harness struct {
	// Name is what --harness takes and what receipts name as the provider.
	Name string `json:"name"`
	// Agent is the agent the harness's conversations are keyed by.
	Agent string `json:"agent"`
	// Note cites where the row's facts come from.
	Note string `json:"note"`
	// Dialects are the payload shapes the harness sends; the first whose
	// Detect key the payload carries is used, else the first.
	Dialects []Dialect `json:"dialects"`
	// Transcript describes the harness's transcript file.
	Transcript Transcript `json:"transcript"`
	// Envelopes are what the harness accepts back.
	Envelopes Envelopes `json:"envelopes"`
	// EndBudgetMillis bounds SessionEnd's close and handover.
	EndBudgetMillis int `json:"endBudgetMs"`
}

// Dialect is one payload shape: its event vocabulary and the JSON names of
// the fields an Event is made of.
type Dialect struct {
	// Detect is a top-level key only this dialect's payloads carry; empty
	// for a harness with one dialect.
	Detect string `json:"detect,omitempty"`
	// Fields names, per normalized field, the payload keys that carry it,
	// the first present one winning.
	Fields Fields `json:"fields"`
	// Events is the event vocabulary, in order: an EVENT argument that is
	// a kind means the first main-agent event of that kind.
	Events []EventName `json:"events"`
	// Sources maps the harness's SessionStart sources to baton's; a source
	// it does not list (or none at all) is DefaultSource.
	Sources       map[string]continuity.Source `json:"sources"`
	DefaultSource continuity.Source            `json:"defaultSource"`
	// PromptStripTags are tags the harness prefixes to the prompt it sends
	// (its own injected context); a leading block of one is removed.
	PromptStripTags []string `json:"promptStripTags,omitempty"`
}

// Fields names the payload keys of each normalized field.
type Fields struct {
	Event          []string `json:"event,omitempty"`
	SessionID      []string `json:"sessionId,omitempty"`
	TranscriptPath []string `json:"transcriptPath,omitempty"`
	// Cwd may name an array of directories: its first one is taken.
	Cwd            []string `json:"cwd,omitempty"`
	Source         []string `json:"source,omitempty"`
	StopHookActive []string `json:"stopHookActive,omitempty"`
	// LoopCount is a counter of stop-hook follow-ups: above zero, the Stop
	// is one a Stop hook caused (as StopHookActive).
	LoopCount   []string `json:"loopCount,omitempty"`
	LastMessage []string `json:"lastMessage,omitempty"`
	Prompt      []string `json:"prompt,omitempty"`
	Trigger     []string `json:"trigger,omitempty"`
	Reason      []string `json:"reason,omitempty"`
	// Subagent names keys whose presence marks a subagent's payload.
	Subagent []string `json:"subagent,omitempty"`
}

// EventName is one event of a harness's vocabulary.
type EventName struct {
	Name string              `json:"name"`
	Kind continuity.HookKind `json:"kind"`
	// Subagent marks a subagent's event: baton hooks the main agent only.
	Subagent bool `json:"subagent,omitempty"`
	// ProvisionalTriggers are the PreCompact triggers the harness sends
	// before deciding whether to compact (see HookEvent.Provisional).
	ProvisionalTriggers []string `json:"provisionalTriggers,omitempty"`
}

// Transcript describes a harness's transcript file.
type Transcript struct {
	// Format names the file's format; a format the bottle does not read
	// is not handed to it (the bottle is then reconstructed from history).
	Format string `json:"format"`
	// LastMessageFromTranscript prefers the transcript's last model
	// message over the payload's (which the harness garbles).
	LastMessageFromTranscript bool `json:"lastMessageFromTranscript,omitempty"`
	// TailBytes bounds how much of the transcript's end that read takes.
	TailBytes int64 `json:"tailBytes,omitempty"`
}

// Envelopes are the JSON templates a harness accepts back, with the string
// values "$context", "$reason" and "$event" standing for the injected
// text, the continuation reason and the harness's event name. A null
// template means the harness ignores that output: nothing is printed.
type Envelopes struct {
	Start json.RawMessage `json:"start"`
	Stop  json.RawMessage `json:"stop"`
}

// The template placeholders.
const (
	placeContext = "$context"
	placeReason  = "$reason"
	placeEvent   = "$event"
)

// loadTable decodes and checks the embedded table once, on first use: the
// hook path pays for it only when it runs.
var loadTable = sync.OnceValues(func() (*Table, error) {
	return parseTable(harnessesJSON)
})

func parseTable(data []byte) (*Table, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t Table
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("hook: harness table: %w", err)
	}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("hook: harness table: %w", err)
	}
	return &t, nil
}

// check refuses a table the code could not follow.
func (t *Table) check() error {
	var errs []error
	if t.StdinLimit <= 0 {
		errs = append(errs, errors.New("stdinLimit must be positive"))
	}
	kinds := []continuity.HookKind{continuity.HookStart, continuity.HookPrompt, continuity.HookStop, continuity.HookPreCompact, continuity.HookEnd}
	sources := []continuity.Source{continuity.SourceStartup, continuity.SourceResume, continuity.SourceCompact, continuity.SourceClear}
	seen := map[string]bool{}
	for _, h := range t.Harnesses {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s: %s", h.Name, fmt.Sprintf(format, args...)))
		}
		if h.Name == "" || seen[h.Name] || h.Agent == "" {
			bad("needs a unique name and an agent")
		}
		seen[h.Name] = true
		if len(h.Dialects) == 0 {
			bad("has no dialect")
		}
		for i, d := range h.Dialects {
			if len(h.Dialects) > 1 && d.Detect == "" {
				bad("dialect %d: several dialects need a detect key each", i)
			}
			if len(d.Fields.SessionID) == 0 {
				bad("dialect %d: no session id field", i)
			}
			for _, k := range kinds {
				if !slices.ContainsFunc(d.Events, func(e EventName) bool { return e.Kind == k && !e.Subagent }) {
					bad("dialect %d: no main-agent event of kind %s", i, k)
				}
			}
			for _, e := range d.Events {
				if !slices.Contains(kinds, e.Kind) || e.Name == "" || (len(e.ProvisionalTriggers) > 0 && e.Kind != continuity.HookPreCompact) {
					bad("dialect %d: event %q", i, e.Name)
				}
			}
			for from, to := range d.Sources {
				if !slices.Contains(sources, to) {
					bad("dialect %d: source %s maps to %q", i, from, to)
				}
			}
			if !slices.Contains(sources, d.DefaultSource) {
				bad("dialect %d: default source %q", i, d.DefaultSource)
			}
		}
		if h.Transcript.LastMessageFromTranscript && (lastMessageReaders[h.Transcript.Format] == nil || h.Transcript.TailBytes <= 0) {
			bad("no last-message reader for transcript format %q, or no tailBytes", h.Transcript.Format)
		}
		if err := checkTemplate(h.Envelopes.Start, placeContext); err != nil {
			bad("start envelope: %v", err)
		}
		if err := checkTemplate(h.Envelopes.Stop, placeReason); err != nil {
			bad("stop envelope: %v", err)
		}
		if h.EndBudgetMillis <= 0 || int64(h.EndBudgetMillis) > continuity.MaxEndBudget.Milliseconds() {
			bad("endBudgetMs %d", h.EndBudgetMillis)
		}
	}
	return errors.Join(errs...)
}

// checkTemplate accepts null (no output) or a JSON object holding the
// placeholder want exactly once.
func checkTemplate(tmpl json.RawMessage, want string) error {
	v, err := decodeTemplate(tmpl)
	if err != nil || v == nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return errors.New("must be an object or null")
	}
	if n := countPlaceholder(v, want); n != 1 {
		return fmt.Errorf("holds %s %d times, want once", want, n)
	}
	return nil
}

func countPlaceholder(v any, want string) int {
	switch v := v.(type) {
	case string:
		if v == want {
			return 1
		}
	case map[string]any:
		n := 0
		for _, x := range v {
			n += countPlaceholder(x, want)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += countPlaceholder(x, want)
		}
		return n
	}
	return 0
}

// Harnesses returns the harness table's rows.
func Harnesses() ([]Harness, error) {
	t, err := loadTable()
	if err != nil {
		return nil, err
	}
	return t.Harnesses, nil
}

// Names returns the harness names, comma separated, for help texts.
func Names() string {
	hs, err := Harnesses()
	if err != nil {
		return ""
	}
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return strings.Join(names, ", ")
}

// Lookup returns the harness named name.
//
// Errors: invalid (naming the harness field) for a name the table lacks.
func Lookup(name string) (*Harness, error) {
	t, err := loadTable()
	if err != nil {
		return nil, err
	}
	for i := range t.Harnesses {
		if t.Harnesses[i].Name == name {
			return &t.Harnesses[i], nil
		}
	}
	return nil, continuity.Invalid("harness", "must be one of "+Names())
}

// dialect returns the dialect of payload p.
func (h *Harness) dialect(p payload) *Dialect {
	for i := range h.Dialects {
		if d := &h.Dialects[i]; d.Detect != "" && p.has(d.Detect) {
			return d
		}
	}
	return &h.Dialects[0]
}

// event returns the vocabulary entry named name, or the first main-agent
// event of kind name.
func (d *Dialect) event(name string) (EventName, bool) {
	for _, e := range d.Events {
		if e.Name == name {
			return e, true
		}
	}
	for _, e := range d.Events {
		if string(e.Kind) == name && !e.Subagent {
			return e, true
		}
	}
	return EventName{}, false
}
