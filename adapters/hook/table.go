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
	"time"

	"github.com/batonhq/baton/continuity"
)

// harnessesJSON is the harness table: every fact about a harness that the
// code reads, so that no code path names a harness. Edit it, then run
// go test ./adapters/hook -run TestTableGenerated -update to compile it
// into table_gen.go, which the code reads.
//
//go:embed harnesses.json
var harnessesJSON []byte

// Table is the decoded harness table.
type Table struct {
	// StdinLimit bounds a hook's stdin in bytes; a larger payload is not
	// read (the failure posture).
	StdinLimit int64 `json:"stdinLimit"`
	// HookTimeoutsMillis is how long, by event kind, `baton install` lets
	// the harness run each of baton's hooks before killing it. A hook keeps
	// its own, shorter budgets; these are the outer limit. The end hook
	// closes within 1 s: 1.5 s is Claude Code's default SessionEnd budget (a
	// larger per-hook timeout would raise it), and rounded up to whole
	// seconds (2 s) it stays under Codex's 3 s clamp.
	HookTimeoutsMillis map[continuity.HookKind]int64 `json:"hookTimeoutsMs"`
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
	// Detect key the payload carries is used, else the first. The first
	// is also the one `baton install` registers.
	Dialects []Dialect `json:"dialects"`
	// Transcript describes the harness's transcript file.
	Transcript Transcript `json:"transcript"`
	// Envelopes are what the harness accepts back.
	Envelopes Envelopes `json:"envelopes"`
	// Install is where and how `baton install` registers the hooks.
	Install Install `json:"install"`
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
	Cwd            []string `json:"cwd,omitempty"`
	// CwdRoots name arrays of directories (Cursor's workspace roots),
	// read when no Cwd key is present: the first directory is taken.
	// Every other field's keys hold strings only.
	CwdRoots       []string `json:"cwdRoots,omitempty"`
	Source         []string `json:"source,omitempty"`
	StopHookActive []string `json:"stopHookActive,omitempty"`
	// LoopCount is a counter of stop-hook follow-ups: above zero, the Stop
	// is one a Stop hook caused (as StopHookActive). A negative count, or
	// one past float64's range, is invalid (see payload.count).
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
	// Matcher is the matcher `baton install` registers the event under,
	// selecting the sources baton handles; empty writes none (all).
	Matcher string `json:"matcher,omitempty"`
	// TrustName is the event's key in the harness's trust entries (Codex's
	// snake_case names); see Install.TrustFile.
	TrustName string `json:"trustName,omitempty"`
}

// Install is how a harness's own configuration registers hooks, which
// `baton install` edits: where the file is in each scope, how it nests its
// entries, and the fields of one handler. Install registers, for each kind,
// the event `baton hook KIND` resolves to in the harness's first dialect.
// Sources: ../shared/harness/CONTRACTS.md (sections 1.5, 2.4, 3.4, 4.4,
// 5.4), the working configurations captured beside it (codex/hooks.json and
// config.toml, gemini/settings.json) and codex/NOTES.md for the trust
// entries.
type Install struct {
	// UserDir is the configuration directory under the user's home; empty
	// when the harness reads no user-level hooks file. DirEnv names the
	// variable that, when set, replaces it (as the harness itself reads it).
	UserDir string `json:"userDir,omitempty"`
	DirEnv  string `json:"dirEnv,omitempty"`
	// ProjectDir is the directory under the project holding File.
	ProjectDir string `json:"projectDir"`
	File       string `json:"file"`
	// Nested: an event lists matcher groups {"matcher", "hooks": [handler]};
	// otherwise it lists handlers.
	Nested bool `json:"nested,omitempty"`
	// Skeleton is the content of a file install creates, before baton's
	// entries are added.
	Skeleton string `json:"skeleton"`
	// OwnFile: the file is baton's alone, so uninstall deletes it once only
	// the skeleton is left. Shared files are never deleted.
	OwnFile bool `json:"ownFile,omitempty"`
	// TrustFile, in the user directory, holds the harness's trust entries
	// for the hooks (Codex's config.toml, see install_codex.go); empty for
	// harnesses that need none.
	TrustFile string `json:"trustFile,omitempty"`
	// Handler is the fields of one handler object, in the order written.
	Handler []HandlerField `json:"handler"`
}

// HandlerField is one field of a handler object. Its Value is literal text
// or one of the placeholders "$command" (the quoted binary + " hook KIND
// --harness NAME"), "$timeout" (HookTimeoutsMillis[KIND] in Unit, rounded
// up) and "$label" ("baton-" + KIND).
type HandlerField struct {
	Key   string     `json:"key"`
	Value string     `json:"value"`
	Quote quoteStyle `json:"quote,omitempty"`
	Unit  timeUnit   `json:"unit,omitempty"`
}

// The handler placeholders.
const (
	placeCommand = "$command"
	placeTimeout = "$timeout"
	placeLabel   = "$label"
)

// timeUnit is a handler's timeout unit: "s" or "ms" in the table.
type timeUnit time.Duration

func (u *timeUnit) UnmarshalText(b []byte) error {
	switch string(b) {
	case "s":
		*u = timeUnit(time.Second)
	case "ms":
		*u = timeUnit(time.Millisecond)
	default:
		return fmt.Errorf("unit %q is neither s nor ms", b)
	}
	return nil
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

// table is the harness table, built once. The hook reads it from
// compiledTable, the Go literal TestTableGenerated writes from
// harnessesJSON once parseTable has decoded and checked it and proves
// equal to it: a hook process then decodes no JSON for it (that cost about
// half a millisecond a process, most of it encoding/json's first use of
// these types).
var table = sync.OnceValue(compiledTable)

// parseTable decodes and checks a harness table: harnessesJSON's, when
// the tests compile it into table_gen.go.
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
	kinds := hookKinds
	for _, k := range kinds {
		if t.HookTimeoutsMillis[k] <= 0 {
			errs = append(errs, fmt.Errorf("hookTimeoutsMs: no timeout for %s", k))
		}
	}
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
		if err := h.checkInstall(); err != nil {
			bad("install: %v", err)
		}
	}
	return errors.Join(errs...)
}

// hookKinds are the event kinds, in the order install registers them.
var hookKinds = []continuity.HookKind{continuity.HookStart, continuity.HookPrompt, continuity.HookStop, continuity.HookPreCompact, continuity.HookEnd}

// checkInstall refuses an install row the install code could not follow.
func (h *Harness) checkInstall() error {
	in := &h.Install
	var errs []error
	if in.File == "" || in.ProjectDir == "" || (in.DirEnv != "" && in.UserDir == "") {
		errs = append(errs, errors.New("needs a file, a projectDir, and a userDir for its dirEnv"))
	}
	var skeleton map[string]any
	if json.Unmarshal([]byte(in.Skeleton), &skeleton) != nil || skeleton == nil {
		errs = append(errs, errors.New("the skeleton must be a JSON object"))
	}
	commands := 0
	for _, f := range in.Handler {
		switch {
		case f.Value == placeCommand:
			commands++
		case f.Value == placeTimeout && f.Unit == 0:
			errs = append(errs, fmt.Errorf("handler %s: a timeout needs a unit", f.Key))
		case f.Value != placeTimeout && f.Value != placeLabel && strings.HasPrefix(f.Value, "$"):
			errs = append(errs, fmt.Errorf("handler %s: unknown placeholder %s", f.Key, f.Value))
		}
	}
	if commands == 0 {
		errs = append(errs, errors.New("the handler has no $command field"))
	}
	for _, e := range h.registered() {
		if in.TrustFile != "" && (e.TrustName == "" || !in.Nested) {
			errs = append(errs, fmt.Errorf("event %s: a trust file needs nested entries and a trustName for every event", e.Name))
		}
	}
	return errors.Join(errs...)
}

// registered returns the events `baton install` registers, one a kind in
// hookKinds order: in the first dialect, what `baton hook KIND` resolves to.
func (h *Harness) registered() []EventName {
	if len(h.Dialects) == 0 {
		return nil
	}
	out := make([]EventName, 0, len(hookKinds))
	for _, k := range hookKinds {
		if e, ok := h.Dialects[0].event(string(k)); ok {
			out = append(out, e)
		}
	}
	return out
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
func Harnesses() []Harness { return table().Harnesses }

// Names returns the harness names, comma separated, for help texts.
func Names() string { return strings.Join(InstallHarnesses(), ", ") }

// Lookup returns the harness named name.
//
// Errors: invalid (naming the harness field) for a name the table lacks.
func Lookup(name string) (*Harness, error) {
	t := table()
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

// named returns the vocabulary entry named name: what a payload may name.
func (d *Dialect) named(name string) (EventName, bool) {
	i := slices.IndexFunc(d.Events, func(e EventName) bool { return e.Name == name })
	if i < 0 {
		return EventName{}, false
	}
	return d.Events[i], true
}

// event returns the vocabulary entry named name, or the first main-agent
// event of kind name: what the EVENT argument may name.
func (d *Dialect) event(name string) (EventName, bool) {
	if e, ok := d.named(name); ok {
		return e, true
	}
	for _, e := range d.Events {
		if string(e.Kind) == name && !e.Subagent {
			return e, true
		}
	}
	return EventName{}, false
}

// names reports whether name is a kind or an event of some dialect of the
// table: a payload naming it where its dialect has no such event was meant
// for another harness (or the other dialect), not for an event of this
// one's that baton does not handle.
func (t *Table) names(name string) bool {
	if slices.Contains(hookKinds, continuity.HookKind(name)) {
		return true
	}
	for _, h := range t.Harnesses {
		for i := range h.Dialects {
			if _, ok := h.Dialects[i].named(name); ok {
				return true
			}
		}
	}
	return false
}

// foreignEvent says why a payload of dialect d may not name the event
// name, a kind or another vocabulary's: what it must name instead.
func (h *Harness) foreignEvent(d *Dialect, name string) string {
	names := make([]string, len(d.Events))
	for i, e := range d.Events {
		names[i] = e.Name
	}
	why := "is not"
	if slices.Contains(hookKinds, continuity.HookKind(name)) {
		why = "is a kind, which only the EVENT argument names"
	}
	return fmt.Sprintf("must be one of %s's events (%s): %q %s", h.Name, strings.Join(names, ", "), name, why)
}
