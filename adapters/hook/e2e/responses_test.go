//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// codexReply is what the fake Responses API answers: text, or a call of
// the shell tool Codex offered when Command is set; InputTokens is the
// usage it reports (a high figure makes Codex compact).
type codexReply struct {
	Kind        string
	Text        string
	Command     string
	InputTokens int
}

// responsesAPI is a fake OpenAI Responses API (the recipe in the Codex
// notes): POST /v1/responses streamed as server-sent events, GET
// /v1/models.
type responsesAPI struct {
	*fakeModel
}

func newResponsesAPI(t *testing.T, reply func(r *request) codexReply) *responsesAPI {
	return &responsesAPI{newFakeModel(t, "Responses API", func(m *fakeModel, w http.ResponseWriter, r *request) {
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.Path, "/v1/models"):
			m.setKind(r, "models")
			writeJSON(w, obj{"object": "list", "data": []any{}, "models": []any{}})
		case r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/responses"):
			rep := reply(r)
			m.setKind(r, rep.Kind)
			answerResponses(w, r, rep)
		default:
			m.setKind(r, "other")
			w.WriteHeader(http.StatusNotFound)
			writeJSON(w, obj{"error": obj{"message": "not found: " + r.Path}})
		}
	})}
}

// answerResponses writes rep as a Responses API stream: a function call
// of the shell tool when rep has a command, else one output_text message.
func answerResponses(w http.ResponseWriter, r *request, rep codexReply) {
	id := fmt.Sprintf("resp_%04d", r.Seq)
	tokens := rep.InputTokens
	if tokens == 0 {
		tokens = len(r.Body) / 4
	}
	usage := obj{"input_tokens": tokens, "input_tokens_details": obj{"cached_tokens": 0}, "output_tokens": 7,
		"output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": tokens + 7}
	s := startSSE(w, false)
	s.send("response.created", obj{"type": "response.created", "response": obj{"id": id, "status": "in_progress"}})
	if rep.Command != "" {
		tool, args := shellTool(r, rep.Command)
		item := obj{"type": "function_call", "id": fmt.Sprintf("fc_%04d", r.Seq), "call_id": fmt.Sprintf("call_%04d", r.Seq),
			"name": tool, "arguments": args, "status": "completed"}
		added := obj{"type": "function_call", "id": item["id"], "call_id": item["call_id"], "name": tool, "arguments": "", "status": "in_progress"}
		s.send("response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0, "item": added})
		s.send("response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0, "item": item})
	} else {
		mid := fmt.Sprintf("msg_%04d", r.Seq)
		part := obj{"type": "output_text", "text": "", "annotations": []any{}}
		s.send("response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0,
			"item": obj{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}})
		s.send("response.content_part.added", obj{"type": "response.content_part.added", "item_id": mid, "output_index": 0, "content_index": 0, "part": part})
		s.send("response.output_text.delta", obj{"type": "response.output_text.delta", "item_id": mid, "output_index": 0, "content_index": 0, "delta": rep.Text})
		s.send("response.output_text.done", obj{"type": "response.output_text.done", "item_id": mid, "output_index": 0, "content_index": 0, "text": rep.Text})
		s.send("response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0,
			"item": obj{"type": "message", "id": mid, "role": "assistant", "status": "completed",
				"content": []any{obj{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}})
	}
	s.send("response.completed", obj{"type": "response.completed", "response": obj{"id": id, "status": "completed", "usage": usage}})
}

// shellTool picks the shell tool the request offers and encodes command
// as its arguments.
func shellTool(r *request, command string) (name, args string) {
	var names []string
	for _, t := range list(r.JSON, "tools") {
		n := str(t, "name")
		if n == "" {
			n = str(t, "function", "name")
		}
		names = append(names, n)
	}
	var v any
	switch {
	case slices.Contains(names, "exec_command"):
		name, v = "exec_command", obj{"cmd": command}
	case slices.Contains(names, "shell_command"):
		name, v = "shell_command", obj{"command": command}
	default:
		name, v = "shell", obj{"command": []string{"bash", "-lc", command}}
	}
	b, _ := json.Marshal(v)
	return name, string(b)
}

// codexMessage is one message item of a Responses request's input.
type codexMessage struct {
	Role string
	Text string
}

// codexMessages returns the request's input messages in order.
func codexMessages(r *request) []codexMessage {
	var out []codexMessage
	for _, it := range list(r.JSON, "input") {
		if str(it, "type") != "message" && str(it, "role") == "" {
			continue
		}
		var parts []string
		switch c := field(it, "content").(type) {
		case string:
			parts = append(parts, c)
		case []any:
			for _, p := range c {
				parts = append(parts, str(p, "text"))
			}
		}
		out = append(out, codexMessage{Role: str(it, "role"), Text: strings.Join(parts, "\n")})
	}
	return out
}

// codexLastUser returns the text of the request's last user message and
// whether a tool call's output follows it.
func codexLastUser(r *request) (text string, toolOutput bool) {
	in := list(r.JSON, "input")
	for i := len(in) - 1; i >= 0; i-- {
		switch {
		case str(in[i], "type") == "function_call_output":
			toolOutput = true
		case str(in[i], "role") == "user":
			msgs := codexMessages(&request{JSON: obj{"input": []any{in[i]}}})
			if len(msgs) == 1 {
				return msgs[0].Text, toolOutput
			}
			return "", toolOutput
		}
	}
	return "", toolOutput
}

// developerText joins the request's developer messages, where Codex puts
// the hooks' additional context.
func developerText(r *request) string {
	var parts []string
	for _, m := range codexMessages(r) {
		if m.Role == "developer" {
			parts = append(parts, m.Text)
		}
	}
	return strings.Join(parts, "\n")
}
