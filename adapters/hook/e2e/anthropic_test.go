//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// claudeReply is what the fake Messages API answers: text, and a Bash
// tool call when Command is set.
type claudeReply struct {
	Kind    string // for the request log
	Text    string
	Command string
}

// anthropicAPI is a fake Anthropic Messages API (the recipe in the harness
// contracts): POST /v1/messages, streamed as server-sent events when the
// request asks for it; count_tokens; {} for anything else.
type anthropicAPI struct {
	*fakeModel
}

func newAnthropicAPI(t *testing.T, reply func(r *request) claudeReply) *anthropicAPI {
	return &anthropicAPI{newFakeModel(t, "Messages API", func(m *fakeModel, w http.ResponseWriter, r *request) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/v1/messages/count_tokens"):
			m.setKind(r, "count_tokens")
			writeJSON(w, obj{"input_tokens": 1000})
		case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/v1/messages"):
			rep := reply(r)
			m.setKind(r, rep.Kind)
			answerMessages(w, r, rep)
		default:
			m.setKind(r, "other")
			writeJSON(w, obj{})
		}
	})}
}

// answerMessages writes rep as a Messages API response: one text block, then one
// Bash tool_use block when rep has a command.
func answerMessages(w http.ResponseWriter, r *request, rep claudeReply) {
	model := str(r.JSON, "model")
	var blocks []obj
	if rep.Text != "" {
		blocks = append(blocks, obj{"type": "text", "text": rep.Text})
	}
	stop := "end_turn"
	if rep.Command != "" {
		blocks = append(blocks, obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%04d", r.Seq), "name": "Bash",
			"input": obj{"command": rep.Command, "description": "record it in baton"}})
		stop = "tool_use"
	}
	usage := obj{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := obj{"id": fmt.Sprintf("msg_%04d", r.Seq), "type": "message", "role": "assistant", "model": model,
		"stop_reason": nil, "stop_sequence": nil, "usage": usage, "content": []obj{}}
	if stream, _ := r.JSON["stream"].(bool); !stream {
		msg["content"], msg["stop_reason"] = blocks, stop
		writeJSON(w, msg)
		return
	}
	s := startSSE(w, false)
	s.send("message_start", obj{"type": "message_start", "message": msg})
	for i, b := range blocks {
		start, delta := obj{}, obj{}
		switch b["type"] {
		case "text":
			start = obj{"type": "text", "text": ""}
			delta = obj{"type": "text_delta", "text": b["text"]}
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			start = obj{"type": "tool_use", "id": b["id"], "name": b["name"], "input": obj{}}
			delta = obj{"type": "input_json_delta", "partial_json": string(input)}
		}
		s.send("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": start})
		s.send("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": delta})
		s.send("content_block_stop", obj{"type": "content_block_stop", "index": i})
	}
	s.send("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"output_tokens": 10}})
	s.send("message_stop", obj{"type": "message_stop"})
}

// claudeTurn is the last user turn of a Messages request: its text (text
// blocks and tool results) and whether it carries a tool result.
type claudeTurn struct {
	Text       string
	ToolResult bool
}

// lastUserTurn returns the request's last role "user" message (newer
// clients also send role "system" messages, which are skipped).
func lastUserTurn(r *request) claudeTurn {
	msgs := list(r.JSON, "messages")
	for i := len(msgs) - 1; i >= 0; i-- {
		if str(msgs[i], "role") != "user" {
			continue
		}
		var turn claudeTurn
		var parts []string
		switch c := field(msgs[i], "content").(type) {
		case string:
			parts = append(parts, c)
		case []any:
			for _, b := range c {
				if str(b, "type") == "tool_result" {
					turn.ToolResult = true
				}
				parts = append(parts, stringsIn(b)...)
			}
		}
		turn.Text = strings.Join(parts, "\n")
		return turn
	}
	return claudeTurn{}
}

// hasTools says whether the request offers tools: the agent loop's
// requests do, side queries (titles, summaries) do not.
func hasTools(r *request) bool { return len(list(r.JSON, "tools")) > 0 }
