package bottle

import (
	"encoding/json"
	"strings"
)

// claudeLine holds the fields of a Claude Code transcript line that a bottle
// needs; every other field and entry type is ignored.
type claudeLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	SessionID        string          `json:"sessionId"`
	Message          json.RawMessage `json:"message"`
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
}

// claudeBlock is one content block. A tool result's content is deliberately
// absent: it is the bulk of a transcript and a bottle never shows it.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

// parseClaude reads one Claude Code line. It reports false only when the line
// is not a JSON object.
func (t *Transcript) parseClaude(pos int64, line []byte) bool {
	var l claudeLine
	if err := json.Unmarshal(line, &l); err != nil {
		return false
	}
	if l.IsSidechain {
		return true
	}
	ts := parseTime(l.Timestamp)
	switch l.Type {
	case "user", "assistant":
	case "system":
		if l.Subtype == "compact_boundary" {
			t.Compactions++
		}
		return true
	default:
		return true
	}
	t.observeTime(ts)
	if t.Project == "" {
		t.Project = l.Cwd
	}
	if t.SessionID == "" {
		t.SessionID = l.SessionID
	}
	var m claudeMessage
	if len(l.Message) == 0 || json.Unmarshal(l.Message, &m) != nil {
		return true
	}
	var blocks []claudeBlock
	var text string
	if len(m.Content) > 0 && m.Content[0] == '"' {
		if json.Unmarshal(m.Content, &text) != nil {
			return true
		}
	} else if json.Unmarshal(m.Content, &blocks) != nil {
		return true
	}
	if l.Type == "assistant" {
		if text != "" {
			t.addAssistant(pos, ts, m.ID, text)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				t.addAssistant(pos, ts, m.ID, b.Text)
			case "tool_use", "server_tool_use":
				t.addCall(pos, ts, m.ID, b.Name, b.ID, b.Input)
			}
		}
		return true
	}
	// A user line: tool results always count; text only when the person
	// typed it (not meta lines, the compaction summary or host envelopes).
	var parts []string
	if text != "" && !isEnvelope(text) {
		parts = append(parts, text)
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			t.addResult(b.ToolUseID, b.IsError)
		case "text":
			if !isEnvelope(b.Text) {
				parts = append(parts, b.Text)
			}
		}
	}
	if l.IsMeta || l.IsCompactSummary || len(parts) == 0 {
		return true
	}
	t.addUser(pos, ts, strings.Join(parts, "\n\n"))
	return true
}
