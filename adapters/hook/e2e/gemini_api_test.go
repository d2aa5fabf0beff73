//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// geminiReply is what the fake Gemini API answers to a streamed turn:
// text, or a call of the shell tool when Command is set.
type geminiReply struct {
	Kind    string
	Text    string
	Command string
}

// geminiAPI is a fake Gemini API (generativelanguage v1beta, the recipe in
// the Gemini notes): streamGenerateContent as server-sent events for the
// turns, generateContent for the CLI's side calls (the router's JSON and
// the compression summary), countTokens, an empty model list.
type geminiAPI struct {
	*fakeModel
}

// geminiStreamChunks is how many chunks a streamed text answer is cut in:
// more than one, as the real API streams, so that the CLI's joined
// prompt_response shows its repeated tail.
const geminiStreamChunks = 2

func newGeminiAPI(t *testing.T, reply func(r *request) geminiReply) *geminiAPI {
	return &geminiAPI{newFakeModel(t, "Gemini API", func(m *fakeModel, w http.ResponseWriter, r *request) {
		usage := obj{"promptTokenCount": 50, "candidatesTokenCount": 7, "totalTokenCount": 57}
		switch {
		case r.Method == http.MethodGet && strings.Contains(r.Path, "/models"):
			m.setKind(r, "models")
			writeJSON(w, obj{"models": []any{}})
		case strings.HasSuffix(r.Path, ":countTokens"):
			m.setKind(r, "countTokens")
			writeJSON(w, obj{"totalTokens": 50})
		case strings.HasSuffix(r.Path, ":streamGenerateContent"):
			rep := reply(r)
			m.setKind(r, rep.Kind)
			streamGemini(w, rep, usage)
		case strings.HasSuffix(r.Path, ":generateContent"):
			text := fmt.Sprintf("<state_snapshot>\n  <overall_goal>FAKE-SUMMARY %d</overall_goal>\n</state_snapshot>", r.Seq)
			kind := "summary"
			if gc := field(r.JSON, "generationConfig"); str(gc, "responseMimeType") == "application/json" ||
				field(gc, "responseJsonSchema") != nil || field(gc, "responseSchema") != nil {
				b, _ := json.Marshal(obj{"reasoning": "fake", "model_choice": "flash", "next_speaker": "user",
					"complexity_reasoning": "fake", "complexity_score": 1})
				text, kind = string(b), "json"
			}
			m.setKind(r, kind)
			writeJSON(w, obj{"candidates": []any{obj{"content": obj{"role": "model", "parts": []any{obj{"text": text}}},
				"finishReason": "STOP", "index": 0}}, "usageMetadata": usage, "modelVersion": "fake"})
		default:
			m.setKind(r, "other")
			w.WriteHeader(http.StatusNotFound)
			writeJSON(w, obj{"error": obj{"code": 404, "message": "not found", "status": "NOT_FOUND"}})
		}
	})}
}

// streamGemini answers a turn in chunks; the last carries finishReason and the
// usage.
func streamGemini(w http.ResponseWriter, rep geminiReply, usage obj) {
	var parts [][]any
	if rep.Command != "" {
		parts = append(parts, []any{obj{"functionCall": obj{"name": "run_shell_command",
			"args": obj{"command": rep.Command, "description": "record it in baton"}}}})
	} else {
		n := geminiStreamChunks
		for k := range n {
			parts = append(parts, []any{obj{"text": rep.Text[len(rep.Text)*k/n : len(rep.Text)*(k+1)/n]}})
		}
	}
	s := startSSE(w, true)
	for k, p := range parts {
		cand := obj{"content": obj{"role": "model", "parts": p}, "index": 0}
		chunk := obj{"candidates": []any{cand}, "modelVersion": "fake"}
		if k == len(parts)-1 {
			cand["finishReason"] = "STOP"
			chunk["usageMetadata"] = usage
		}
		s.send("", chunk)
	}
}

// geminiTurn is the last user content of a Gemini request: its texts and
// whether it carries a function response.
type geminiTurn struct {
	Text     string
	Response bool
}

func lastGeminiUser(r *request) geminiTurn {
	contents := list(r.JSON, "contents")
	for i := len(contents) - 1; i >= 0; i-- {
		if str(contents[i], "role") != "user" {
			continue
		}
		var turn geminiTurn
		var texts []string
		for _, p := range list(contents[i], "parts") {
			if field(p, "functionResponse") != nil {
				turn.Response = true
			}
			if t := str(p, "text"); t != "" {
				texts = append(texts, t)
			}
		}
		turn.Text = strings.Join(texts, "\n")
		return turn
	}
	return geminiTurn{}
}
