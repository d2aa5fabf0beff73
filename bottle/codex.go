package bottle

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// codexLine is the envelope of every Codex rollout line.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Metadata  struct {
		CompactionOutput bool `json:"compaction_output"`
	} `json:"metadata"`
}

// codexItem holds the fields of a response_item payload a bottle needs.
type codexItem struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Role      string          `json:"role"`
	Content   []codexContent  `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    json.RawMessage `json:"action"`
	Status    string          `json:"status"`
	Passthru  struct {
		Metadata []struct {
			Provenance struct {
				Type string `json:"type"`
			} `json:"provenance"`
		} `json:"content_item_metadata"`
	} `json:"internal_chat_message_metadata_passthrough"`
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type codexMeta struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
}

// parseCodex reads one Codex rollout line. It reports false only when the
// line is not a JSON object.
func (t *Transcript) parseCodex(pos int64, line []byte) bool {
	var l codexLine
	if err := json.Unmarshal(line, &l); err != nil {
		return false
	}
	ts := parseTime(l.Timestamp)
	switch l.Type {
	case "session_meta", "turn_context":
		var m codexMeta
		if json.Unmarshal(l.Payload, &m) == nil {
			if t.SessionID == "" && l.Type == "session_meta" {
				t.SessionID = m.ID
			}
			if t.Project == "" {
				t.Project = m.Cwd
			}
		}
		t.observeTime(ts)
		return true
	case "compacted":
		t.compacted(pos)
		return true
	case "response_item":
	default:
		return true
	}
	var it codexItem
	if json.Unmarshal(l.Payload, &it) != nil {
		return true
	}
	t.observeTime(ts)
	switch it.Type {
	case "message":
		switch it.Role {
		case "user":
			for _, m := range it.Passthru.Metadata {
				if p := m.Provenance.Type; p != "" && p != "user" {
					return true // written by the harness or a hook, not the person
				}
			}
			var parts []string
			var open string
			for _, c := range it.Content {
				if c.Type != "input_text" {
					continue
				}
				var u userText
				if u, open = unwrapPart(open, c.Text); u.said != "" {
					parts = append(parts, u.said)
				}
			}
			if len(parts) > 0 {
				t.addUser(pos, ts, strings.Join(parts, "\n\n"))
			}
		case "assistant":
			if l.Metadata.CompactionOutput {
				return true // the compaction summary, not words said to the person
			}
			// The parts are one message, joined before they are scrubbed
			// (as a prompt's are): an item may carry no id to join them by.
			var parts []string
			for _, c := range it.Content {
				if c.Type == "output_text" {
					parts = append(parts, c.Text)
				}
			}
			if len(parts) > 0 {
				t.addAssistant(pos, ts, it.ID, strings.Join(parts, "\n\n"))
			}
		}
	case "function_call":
		t.addCall(pos, ts, "", it.Name, it.CallID, []byte(it.Arguments))
	case "custom_tool_call":
		b, _ := json.Marshal(it.Input)
		t.addCall(pos, ts, "", it.Name, it.CallID, b)
	case "local_shell_call":
		t.addCall(pos, ts, "", "local_shell", it.CallID, it.Action)
	case "web_search_call":
		// Recorded once the search is over, with no id and no output item:
		// the call is its own result.
		t.addCall(pos, ts, "", "web_search", it.ID, it.Action)
		e := &t.Entries[len(t.Entries)-1]
		e.Done, e.Failed = true, it.Status == "failed"
	case "function_call_output", "custom_tool_call_output":
		t.addResult(it.CallID, codexFailed(it.Output))
	}
	return true
}

// exitCodeRE is compiled on first use: a process that reads no Codex
// transcript never pays for it.
var exitCodeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:exited with code|exit code:?)\s*(-?\d+)`)
})

// codexFailed reads a tool output and reports whether it records a failure:
// a non-zero exit code in the text or in JSON metadata, or success false.
func codexFailed(raw json.RawMessage) bool {
	var out struct {
		Success  *bool `json:"success"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		if json.Unmarshal(raw, &out) != nil {
			return false
		}
	} else if json.Unmarshal([]byte(s), &out) != nil {
		if m := exitCodeRE().FindStringSubmatch(s); m != nil {
			n, err := strconv.Atoi(m[1])
			return err == nil && n != 0
		}
		return false
	}
	if out.Success != nil && !*out.Success {
		return true
	}
	return out.Metadata.ExitCode != nil && *out.Metadata.ExitCode != 0
}
