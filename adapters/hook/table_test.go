package hook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// TestTable: the embedded table passes its checks, and every check refuses
// the table it is there for.
func TestTable(t *testing.T) {
	if _, err := parseTable(harnessesJSON); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude-code", "codex", "gemini", "copilot", "cursor"} {
		if _, err := Lookup(name); err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	if _, err := Lookup("vim"); continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)["harness"] == "" {
		t.Errorf("Lookup of an unknown harness: %v, want invalid naming harness", err)
	}
	cases := []struct {
		name, old, new, want string
	}{
		{"a kind without its event", `{"name": "SessionEnd", "kind": "end"}`, `{"name": "SessionEnd", "kind": "ending"}`, "no main-agent event of kind end"},
		{"an unknown source", `"fork": "startup"`, `"fork": "forked"`, `source fork maps to "forked"`},
		{"a stop envelope without its reason", `"stop": {"decision": "deny", "reason": "$reason"}`, `"stop": {"decision": "deny"}`, "holds $reason 0 times"},
		{"a start envelope injecting twice", `"start": {"additional_context": "$context"}`, `"start": {"additional_context": "$context", "x": "$context"}`, "holds $context 2 times"},
		{"a transcript nobody reads", `"format": "gemini", "lastMessageFromTranscript": true`, `"format": "cursor", "lastMessageFromTranscript": true`, "no last-message reader"},
		{"two dialects without detect keys", `"detect": "sessionId",`, ``, "several dialects need a detect key"},
		{"a provisional trigger off PreCompact", `{"name": "AfterAgent", "kind": "stop",`, `{"name": "AfterAgent", "kind": "stop", "provisionalTriggers": ["auto"],`, `event "AfterAgent"`},
		{"a misspelt key", `"endBudgetMs": 1000`, `"endBudget": 1000`, "unknown field"},
		{"no end budget", `"endBudgetMs": 1000`, `"endBudgetMs": 0`, "endBudgetMs 0"},
		{"a kind without its hook timeout", `"end": 1500}`, `"ending": 1500}`, "no timeout for end"},
		{"a timeout without its unit", `"value": "$timeout", "unit": "ms"}`, `"value": "$timeout"}`, "a timeout needs a unit"},
		{"an unknown unit", `"unit": "ms"`, `"unit": "min"`, "neither s nor ms"},
		{"an unknown shell", `"quote": "posix"`, `"quote": "fish"`, `quote "fish"`},
		{"a handler without its command", `{"key": "command", "value": "$command", "quote": "posix-or-powershell"}, {"key": "timeout", "value": "$timeout", "unit": "s"}]
      },
      "endBudgetMs": 1000
    }
  ]`, `{"key": "timeout", "value": "$timeout", "unit": "s"}]
      },
      "endBudgetMs": 1000
    }
  ]`, "cursor: install: the handler has no $command field"},
		{"an unknown placeholder", `"value": "$label"`, `"value": "$name"`, "unknown placeholder $name"},
		{"a trust entry without its name", `, "trustName": "session_end"`, ``, "event SessionEnd: a trust file needs"},
		{"a skeleton that is no object", `"skeleton": "{}\n"`, `"skeleton": "[]\n"`, "the skeleton must be a JSON object"},
		{"a directory variable without its directory", `"userDir": ".codex", `, ``, "a userDir for its dirEnv"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(string(harnessesJSON), tc.old, tc.new, 1)
			if bad == string(harnessesJSON) {
				t.Fatalf("the table holds no %s", tc.old)
			}
			if _, err := parseTable([]byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestEnvelope: each harness's envelope is exactly its documented shape,
// and nothing is printed when there is nothing to say.
func TestEnvelope(t *testing.T) {
	start := continuity.HookOutcome{Context: `Read "<private>x</private>" & go on`}
	stop := continuity.HookOutcome{Block: true, Reason: "Record what you settled."}
	const ctxJSON = `"Read \"<private>x</private>\" & go on"`
	hookSpecific := `{"hookSpecificOutput":{"additionalContext":` + ctxJSON + `,"hookEventName":"SessionStart"}}` + "\n"
	cases := []struct {
		harness, event string
		kind           continuity.HookKind
		out            continuity.HookOutcome
		want           string
	}{
		{"claude-code", "SessionStart", continuity.HookStart, start, hookSpecific},
		{"codex", "SessionStart", continuity.HookStart, start, hookSpecific},
		{"gemini", "SessionStart", continuity.HookStart, start, hookSpecific},
		{"cursor", "sessionStart", continuity.HookStart, start, `{"additional_context":` + ctxJSON + "}\n"},
		{"copilot", "sessionStart", continuity.HookStart, start, ""},
		{"claude-code", "Stop", continuity.HookStop, stop, `{"decision":"block","reason":"Record what you settled."}` + "\n"},
		{"codex", "Stop", continuity.HookStop, stop, `{"decision":"block","reason":"Record what you settled."}` + "\n"},
		{"copilot", "agentStop", continuity.HookStop, stop, `{"decision":"block","reason":"Record what you settled."}` + "\n"},
		{"gemini", "AfterAgent", continuity.HookStop, stop, `{"decision":"deny","reason":"Record what you settled."}` + "\n"},
		{"cursor", "stop", continuity.HookStop, stop, `{"followup_message":"Record what you settled."}` + "\n"},
		// The declines.
		{"claude-code", "SessionStart", continuity.HookStart, continuity.HookOutcome{Context: " \n"}, ""},
		{"codex", "Stop", continuity.HookStop, continuity.HookOutcome{Block: true, Reason: " \n\t"}, ""},
		{"gemini", "AfterAgent", continuity.HookStop, continuity.HookOutcome{Reason: "not blocking"}, ""},
		{"claude-code", "UserPromptSubmit", continuity.HookPrompt, continuity.HookOutcome{Context: "x", Block: true, Reason: "x"}, ""},
		{"codex", "PreCompact", continuity.HookPreCompact, start, ""},
		{"cursor", "sessionEnd", continuity.HookEnd, stop, ""},
	}
	for _, tc := range cases {
		h, err := Lookup(tc.harness)
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Envelope(continuity.HookEvent{Kind: tc.kind, ProviderEvent: tc.event}, tc.out)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s %s: envelope %q (err %v), want %q", tc.harness, tc.event, got, err, tc.want)
		}
	}
}

// TestCodexSchema: Codex validates hook output against schemas with
// additionalProperties false (CONTRACTS.md §2.3): baton's envelopes use
// only the keys those schemas allow.
func TestCodexSchema(t *testing.T) {
	h, err := Lookup("codex")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[continuity.HookKind]map[string][]string{
		continuity.HookStart: {"": {"continue", "stopReason", "suppressOutput", "systemMessage", "hookSpecificOutput"},
			"hookSpecificOutput": {"hookEventName", "additionalContext", "env"}},
		continuity.HookStop: {"": {"continue", "decision", "reason", "stopReason", "suppressOutput", "systemMessage"}},
	}
	out := continuity.HookOutcome{Context: "c", Block: true, Reason: "r"}
	for kind, keys := range allowed {
		b, err := h.Envelope(continuity.HookEvent{Kind: kind, ProviderEvent: "SessionStart"}, out)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		check := func(at string, m map[string]any) {
			for k := range m {
				if !contains(keys[at], k) {
					t.Errorf("%s envelope: key %q at %q is not in Codex's schema", kind, k, at)
				}
			}
		}
		check("", v)
		if inner, ok := v["hookSpecificOutput"].(map[string]any); ok {
			check("hookSpecificOutput", inner)
			if inner["hookEventName"] != "SessionStart" {
				t.Errorf("hookEventName = %v, want SessionStart (required)", inner["hookEventName"])
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestStripTags(t *testing.T) {
	tags := []string{"hook_context"}
	cases := []struct{ in, want string }{
		{"<hook_context>INJECTED-MARKER</hook_context>\n\nhello", "hello"},
		{"<hook_context>a</hook_context>\n<hook_context>b</hook_context> two", "two"},
		{"<hook_context>only</hook_context>", ""},
		{"  <hook_context>x</hook_context>\n\nindented", "indented"},
		{"hello <hook_context>x</hook_context>", "hello <hook_context>x</hook_context>"},
		{"<hook_context>never closed\nhello", "<hook_context>never closed\nhello"},
		{"<session_context>kept</session_context> hi", "<session_context>kept</session_context> hi"},
		{"  plain prompt  ", "  plain prompt  "},
	}
	for _, tc := range cases {
		if got := stripTags(tc.in, tags); got != tc.want {
			t.Errorf("stripTags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
