package bottle

import (
	"encoding/json"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/internal/runes"
)

// Kind says what a transcript entry is.
type Kind uint8

// The kinds of entry a reader keeps. Everything else a transcript carries
// (attachments, API request records, queue operations, thinking, tool output)
// is dropped while reading.
const (
	// KindUser is a genuine prompt typed by the person.
	KindUser Kind = iota + 1
	// KindAssistant is text the model showed the person.
	KindAssistant
	// KindToolCall is one tool invocation by the model.
	KindToolCall
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindUser:
		return "user"
	case KindAssistant:
		return "assistant"
	case KindToolCall:
		return "tool_call"
	}
	return "unknown"
}

// Entry is one kept item of a transcript, already privacy filtered.
type Entry struct {
	// Kind says whether this is a prompt, assistant text or a tool call.
	Kind Kind `json:"k"`
	// Pos is the byte offset in the transcript of the line the entry starts on.
	Pos int64 `json:"p"`
	// Time is the entry's timestamp as the harness recorded it (zero if absent).
	Time time.Time `json:"t"`
	// MessageID groups assistant entries of one model message; the reader joins
	// text split across them.
	MessageID string `json:"m,omitempty"`
	// Text is the scrubbed text of a prompt or an assistant message.
	Text string `json:"x,omitempty"`
	// Tool is the tool name of a tool call.
	Tool string `json:"n,omitempty"`
	// ToolUseID is the harness's id of a tool call.
	ToolUseID string `json:"u,omitempty"`
	// Brief is the one-line, scrubbed gist of a tool call's input.
	Brief string `json:"b,omitempty"`
	// Code says Brief is a command or pattern and renders as code.
	Code bool `json:"c,omitempty"`
	// Done says a result for the tool call has been read.
	Done bool `json:"d,omitempty"`
	// Failed says the tool call's result was an error.
	Failed bool `json:"f,omitempty"`
	// Command says a prompt is a slash command, shown as the person typed it.
	Command bool `json:"s,omitempty"`
}

// Transcript is the parsed, privacy-filtered state of one session transcript:
// what a bottle is rendered from. Its size follows the conversation, not the
// tool traffic, so it is about the size of the bottle.
type Transcript struct {
	// Format is the harness format the transcript was read as.
	Format Format `json:"format"`
	// SessionID is the harness's session id, when the transcript names it.
	SessionID string `json:"sessionId,omitempty"`
	// Project is the working directory the session ran in.
	Project string `json:"project,omitempty"`
	// Started is the time of the first timestamped line.
	Started time.Time `json:"started"`
	// Cleared is when the /clear the transcript is read on from happened
	// (zero: none, it is read from its first byte). What follows a clear is
	// a conversation that began there: a line stamped before it (a clock
	// behind baton's, a record the harness writes again) starts it at the
	// clear, never before.
	Cleared time.Time `json:"cleared,omitzero"`
	// Compactions counts the compactions the transcript records.
	Compactions int `json:"compactions"`
	// Boundaries are the positions of the compactions recorded, ascending:
	// an entry after n of them belongs to leg n+1.
	Boundaries []int64 `json:"boundaries,omitempty"`
	// Entries are the kept entries in transcript order.
	Entries []Entry `json:"entries"`
	// Skipped counts complete lines that were not valid JSON.
	Skipped int `json:"skipped"`
	// Gemini is the Gemini CLI reader's memory of the messages it has read;
	// nil for other formats.
	Gemini *GeminiState `json:"gemini,omitempty"`
	// Unclosed holds, by message id, what the text of an assistant message
	// read so far leaves open: the opening tags of its private or injected
	// blocks still unclosed, as privacy.ScrubPart returns them (tags only,
	// no text). The message's next part is scrubbed inside them, so the
	// block's close in a later line does not let its content through. A
	// message whose text ends outside every block has no key.
	Unclosed map[string]string `json:"unclosed,omitempty"`

	calls map[string]int // tool-use id → index in Entries; rebuilt on load
	past  *past          // set when Entries hold only what a routine render lays out again
}

// past is what a transcript whose Entries begin part-way still knows of the
// entries before them, to notice a line that would change one: a result
// for a call still unanswered there, or more text of a message begun there.
// Such a line makes the transcript stale: it must be read again from the
// start.
type past struct {
	Open  map[string]bool // tool-use ids of the calls there with no result yet
	Msgs  map[string]bool // message ids of the assistant entries there since the last prompt
	stale bool
}

// compacted records a compaction at pos: a new leg starts.
func (t *Transcript) compacted(pos int64) {
	t.Compactions++
	t.Boundaries = append(t.Boundaries, pos)
}

// Prompts returns the number of genuine user prompts read so far.
func (t *Transcript) Prompts() int {
	n := 0
	for i := range t.Entries {
		if t.Entries[i].Kind == KindUser {
			n++
		}
	}
	return n
}

func (t *Transcript) observeTime(ts time.Time) {
	if ts.IsZero() {
		return
	}
	if ts.Before(t.Cleared) {
		ts = t.Cleared
	}
	if t.Started.IsZero() || ts.Before(t.Started) {
		t.Started = ts
	}
}

func (t *Transcript) addUser(pos int64, ts time.Time, text string) {
	text = privacy.Scrub(text)
	if text == "" {
		return
	}
	t.Entries = append(t.Entries, Entry{Kind: KindUser, Pos: pos, Time: ts, Text: text})
	if t.past != nil {
		clear(t.past.Msgs) // text after a prompt never joins a message before it
	}
}

// addCommand adds a slash command the person typed as their prompt.
func (t *Transcript) addCommand(pos int64, ts time.Time, command string) {
	n := len(t.Entries)
	t.addUser(pos, ts, command)
	if len(t.Entries) > n {
		t.Entries[n].Command = true
	}
}

// retractCommand removes the slash command just added when the harness
// records its output: a local command (/model, /compact) ran in the harness
// and is no turn of the conversation.
func (t *Transcript) retractCommand() {
	if n := len(t.Entries); n > 0 && t.Entries[n-1].Command {
		t.Entries = t.Entries[:n-1]
	}
}

// addAssistant appends assistant text, joining it to an earlier entry of the
// same message in the current turn: harnesses log one model message as
// several lines, one content block each. The parts of one message are
// scrubbed as one text: a block that one part opens and a later part
// closes hides what lies between in both, and in the parts between.
func (t *Transcript) addAssistant(pos int64, ts time.Time, msgID, text string) {
	if msgID == "" {
		text = privacy.Scrub(text)
	} else {
		var open string
		text, open = privacy.ScrubPart(t.Unclosed[msgID], text)
		if open == "" {
			delete(t.Unclosed, msgID)
		} else {
			if t.Unclosed == nil {
				t.Unclosed = map[string]string{}
			}
			t.Unclosed[msgID] = open
		}
	}
	if text == "" {
		return
	}
	if msgID != "" {
		for i := len(t.Entries) - 1; i >= 0; i-- {
			e := &t.Entries[i]
			if e.Kind == KindUser {
				break
			}
			if e.Kind == KindAssistant && e.MessageID == msgID {
				e.Text += "\n\n" + text
				return
			}
		}
		if t.past != nil && t.past.Msgs[msgID] {
			t.past.stale = true // Msgs is empty once Entries hold a prompt
		}
	}
	t.Entries = append(t.Entries, Entry{Kind: KindAssistant, Pos: pos, Time: ts, MessageID: msgID, Text: text})
}

func (t *Transcript) addCall(pos int64, ts time.Time, msgID, tool, id string, input []byte) {
	brief, code := Brief(tool, input)
	t.Entries = append(t.Entries, Entry{
		Kind: KindToolCall, Pos: pos, Time: ts, MessageID: msgID,
		Tool: tool, ToolUseID: id, Brief: brief, Code: code,
	})
	if id != "" {
		if t.calls == nil {
			t.calls = callIndex(t) // after a load, the calls read before it too
		}
		t.calls[id] = len(t.Entries) - 1
	}
}

func (t *Transcript) addResult(id string, failed bool) {
	if id == "" {
		return
	}
	if t.calls == nil {
		t.calls = callIndex(t)
	}
	i, ok := t.calls[id]
	if !ok {
		if t.past != nil && t.past.Open[id] {
			t.past.stale = true
		}
		return
	}
	if t.Entries[i].Done {
		return // a call has one result; a repeat changes nothing
	}
	t.Entries[i].Done = true
	t.Entries[i].Failed = failed
}

// briefRule says which input key carries a tool's gist, whether it is code,
// and how the gist is drawn from that key's text when not shown whole.
type briefRule struct {
	keys []string
	code bool
	gist func(string) string
}

// briefRules is the derivation table for observations without a host source.
// Tool names are the models' vocabulary, shared by harnesses; Codex's and
// Gemini CLI's tools sit beside Claude Code's.
var briefRules = map[string]briefRule{
	"Bash":          {keys: []string{"command"}, code: true},
	"Edit":          {keys: []string{"file_path"}},
	"MultiEdit":     {keys: []string{"file_path"}},
	"Write":         {keys: []string{"file_path"}},
	"Read":          {keys: []string{"file_path"}},
	"NotebookEdit":  {keys: []string{"notebook_path", "file_path"}},
	"Grep":          {keys: []string{"pattern"}, code: true},
	"Glob":          {keys: []string{"pattern"}, code: true},
	"WebFetch":      {keys: []string{"url"}},
	"exec_command":  {keys: []string{"cmd", "command"}, code: true},
	"shell":         {keys: []string{"command", "cmd"}, code: true},
	"local_shell":   {keys: []string{"command"}, code: true},
	"shell_command": {keys: []string{"command"}, code: true},
	"apply_patch":   {keys: []string{"input", "patch"}, gist: patchFiles},
	"web_search":    {keys: []string{"query", "queries", "url"}},
	// Gemini CLI's tools.
	"run_shell_command":   {keys: []string{"command"}, code: true},
	"read_file":           {keys: []string{"file_path", "absolute_path"}},
	"write_file":          {keys: []string{"file_path"}},
	"replace":             {keys: []string{"file_path"}},
	"glob":                {keys: []string{"pattern"}, code: true},
	"search_file_content": {keys: []string{"pattern"}, code: true},
	"grep_search":         {keys: []string{"pattern"}, code: true},
}

// maxBrief bounds a brief in runes; a brief is a pointer, not a payload.
const maxBrief = 160

// Brief derives the one-line gist of a tool call from its JSON input: Bash →
// the command, Edit/Write/Read/NotebookEdit → the file path, Grep/Glob → the
// pattern, WebFetch → the URL, apply_patch → the files the patch touches,
// web_search → the query or URL, anything else → the first input key in
// sorted order (an input that is not a JSON object is its own gist). It
// reports whether the gist is code (a command or pattern). The result is
// privacy filtered, single-line and at most 160 runes. Only the chosen value
// is decoded, so a Write carrying a whole file costs one scan.
func Brief(tool string, input []byte) (string, bool) {
	rule, known := briefRules[tool]
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(input, &fields); err != nil || fields == nil {
		var s string
		if json.Unmarshal(input, &s) != nil {
			s = string(input)
		}
		return rule.brief(s, true), false
	}
	var raw json.RawMessage
	found := false
	if known {
		for _, k := range rule.keys {
			if x, ok := fields[k]; ok {
				raw, found = x, true
				break
			}
		}
	}
	code := rule.code && found
	if !found {
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			return "", false
		}
		sort.Strings(keys)
		raw = fields[keys[0]]
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	return rule.brief(briefValue(v), found), code
}

// brief makes the one-line gist of s, the text of the rule's key when
// keyed is set. The text is scrubbed before the rule's gist is drawn from it,
// so nothing inside a private block is picked, and after, so pieces joined
// cannot form one. It is made keepable text first: the input may be JSON
// held in a string (Codex's arguments), whose escapes the line's were not.
func (r briefRule) brief(s string, keyed bool) string {
	s = privacy.Scrub(KeepableText(s))
	if r.gist != nil && keyed {
		s = privacy.Scrub(r.gist(s))
	}
	return oneLine(s, maxBrief)
}

// patchHeaders are the lines of a Codex patch that name a file it touches.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: "}

// patchFiles returns the files a Codex apply_patch patch touches, in order
// ("a.go, b.go", a move as "old.go → new.go"), or the patch itself when it
// names none.
func patchFiles(patch string) string {
	var files []string
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		if to, ok := strings.CutPrefix(line, "*** Move to: "); ok && len(files) > 0 {
			files[len(files)-1] += " → " + strings.TrimSpace(to)
			continue
		}
		for _, h := range patchHeaders {
			if f, ok := strings.CutPrefix(line, h); ok {
				files = append(files, strings.TrimSpace(f))
			}
		}
	}
	if len(files) == 0 {
		return patch
	}
	return strings.Join(files, ", ")
}

// oneLine returns the first non-empty line of s, cut to max runes, with an
// ellipsis when anything was dropped. It is a line for every reader (see
// lineText).
func oneLine(s string, max int) string {
	s = strings.TrimSpace(lineText(s))
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
		cut = true
	}
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max])
		cut = true
	}
	if cut {
		s += "…"
	}
	return s
}

// lineText returns s with every character that ends a line for some reader,
// or that a terminal acts on, other than the newline (a carriage return,
// NEL, U+2028, U+2029, ESC, BEL, a backspace: runes.Breaks) made a space,
// so a line cut from it at its first newline is one line in a page file's
// count, in a file tool's and on a terminal: a transcript's cwd holding
// "\rproject: …" cannot forge the index's project line, nor an escape
// sequence in a tool's input retitle the window of `baton bottle show`.
func lineText(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && runes.Breaks(r) {
			return ' '
		}
		return r
	}, s)
}

// briefValue turns an input value into text. A command given as an argv
// array that runs a shell script (`bash -lc SCRIPT`) is shown as the script.
func briefValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, 0, len(x))
		for _, p := range x {
			s, ok := p.(string)
			if !ok {
				s = jsonText(p)
			}
			parts = append(parts, s)
		}
		if n := len(parts); n == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
			return parts[2]
		}
		return strings.Join(parts, " ")
	case nil:
		return ""
	default:
		return jsonText(x)
	}
}

// jsonText is v as JSON with its '<', '>' and '&' as they are: encoding/json
// would escape them (\u003c), and the privacy filter, which reads the brief
// after, would not see the tags of the private blocks the value holds.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a value decoded from JSON encodes
	return strings.TrimSuffix(b.String(), "\n")
}
