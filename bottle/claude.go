package bottle

import (
	"strings"
)

// claudeLine holds the fields of a Claude Code transcript line that a bottle
// needs; every other field and entry type is passed over unread.
type claudeLine struct {
	typ, subtype, timestamp, cwd, sessionID string
	sidechain, meta, compactSummary         bool
	message                                 []byte
}

// claudeBlock is one content block. A tool result's content is deliberately
// never decoded: it is the bulk of a transcript and a bottle never shows it.
type claudeBlock struct {
	typ, text, id, name, toolUseID string
	input                          []byte
	isError                        bool
}

// parseClaude reads one Claude Code line. It reports false only when the line
// is not a JSON object.
func (t *Transcript) parseClaude(pos int64, line []byte) bool {
	var l claudeLine
	ok := eachField(line, func(k, v []byte) {
		switch string(k) {
		case `"type"`:
			l.typ = jsonString(v)
		case `"subtype"`:
			l.subtype = jsonString(v)
		case `"timestamp"`:
			l.timestamp = jsonString(v)
		case `"cwd"`:
			l.cwd = jsonString(v)
		case `"sessionId"`:
			l.sessionID = jsonString(v)
		case `"isSidechain"`:
			l.sidechain = string(v) == "true"
		case `"isMeta"`:
			l.meta = string(v) == "true"
		case `"isCompactSummary"`:
			l.compactSummary = string(v) == "true"
		case `"message"`:
			l.message = v
		}
	})
	if !ok {
		return false
	}
	if l.sidechain {
		return true
	}
	switch l.typ {
	case "user", "assistant":
	case "system":
		if l.subtype == "compact_boundary" {
			t.compacted(pos)
		}
		return true
	default:
		return true
	}
	ts := parseTime(l.timestamp)
	t.observeTime(ts)
	if t.Project == "" {
		t.Project = l.cwd
	}
	if t.SessionID == "" {
		t.SessionID = l.sessionID
	}
	var msgID string
	var content []byte
	if !eachField(l.message, func(k, v []byte) {
		switch string(k) {
		case `"id"`:
			msgID = jsonString(v)
		case `"content"`:
			content = v
		}
	}) {
		return true
	}
	var text string
	var blocks []claudeBlock
	switch {
	case len(content) > 0 && content[0] == '"':
		text = jsonString(content)
	case !eachElem(content, func(v []byte) {
		var b claudeBlock
		if eachField(v, func(k, v []byte) {
			switch string(k) {
			case `"type"`:
				b.typ = jsonString(v)
			case `"text"`:
				b.text = jsonString(v)
			case `"id"`:
				b.id = jsonString(v)
			case `"name"`:
				b.name = jsonString(v)
			case `"input"`:
				b.input = v
			case `"tool_use_id"`:
				b.toolUseID = jsonString(v)
			case `"is_error"`:
				b.isError = string(v) == "true"
			}
		}) {
			blocks = append(blocks, b)
		}
	}):
		return true
	}
	if l.typ == "assistant" {
		if text != "" {
			t.addAssistant(pos, ts, msgID, text)
		}
		for _, b := range blocks {
			switch b.typ {
			case "text":
				t.addAssistant(pos, ts, msgID, b.text)
			case "tool_use", "server_tool_use":
				t.addCall(pos, ts, msgID, b.name, b.id, b.input)
			}
		}
		return true
	}
	// A user line: tool results always count; text only when the person
	// typed it (not meta lines, the compaction summary or host envelopes).
	// A slash command is the turn the person typed, whatever it expands to;
	// a local command's output retracts it (it was not sent to the model).
	var parts []string
	var command, open string
	var output bool
	said := func(s string) {
		var u userText
		u, open = unwrapPart(open, s)
		if u.said != "" {
			parts = append(parts, u.said)
		}
		if command == "" {
			command = u.command
		}
		output = output || u.output
	}
	if text != "" {
		said(text)
	}
	for _, b := range blocks {
		switch b.typ {
		case "tool_result":
			t.addResult(b.toolUseID, b.isError)
		case "text":
			said(b.text)
		}
	}
	if l.meta || l.compactSummary {
		return true
	}
	if command != "" {
		if !output { // a command recorded with its output ran locally
			t.addCommand(pos, ts, command)
		}
		return true
	}
	if output {
		t.retractCommand()
	}
	if len(parts) > 0 {
		t.addUser(pos, ts, strings.Join(parts, "\n\n"))
	}
	return true
}
